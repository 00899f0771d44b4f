# Annotation fault 2: .cfi_def_cfa_offset off by 8 after the frame's aghi
# (328 where 160 + 160 make 320): from cfa_offset_off8.fault to the lmg,
# CFI says CFA=%r15+328, the code %r15+320.
# kind: code-cfa
	.text
	.globl	cfa_offset_off8
	.type	cfa_offset_off8, @function
cfa_offset_off8:
	.cfi_startproc
	stmg	%r14, %r15, 112(%r15)
	.cfi_offset %r14, -48
	.cfi_offset %r15, -40
	aghi	%r15, -160
	.cfi_def_cfa_offset 328
cfa_offset_off8.fault:
	brasl	%r14, co_leaf
	lmg	%r14, %r15, 272(%r15)
	.cfi_restore %r15
	.cfi_restore %r14
	.cfi_def_cfa_offset 160
	br	%r14
	.cfi_endproc
	.size	cfa_offset_off8, .-cfa_offset_off8
	.section .note.GNU-stack,"",@progbits
