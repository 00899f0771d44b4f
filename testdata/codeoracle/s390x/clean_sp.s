# Clean: no frame pointer: stmg %r6,%r15, lay %r15,-176(%r15), the CFA on
# %r15 throughout, lmg restores %r15 itself.
# kind: clean
	.text
	.globl	clean_sp
	.type	clean_sp, @function
clean_sp:
	.cfi_startproc
	stmg	%r6, %r15, 48(%r15)
	.cfi_offset %r6, -112
	.cfi_offset %r7, -104
	.cfi_offset %r8, -96
	.cfi_offset %r9, -88
	.cfi_offset %r10, -80
	.cfi_offset %r11, -72
	.cfi_offset %r12, -64
	.cfi_offset %r13, -56
	.cfi_offset %r14, -48
	.cfi_offset %r15, -40
	lay	%r15, -176(%r15)
	.cfi_def_cfa_offset 336
	lgr	%r6, %r2
	stg	%r2, 160(%r15)
	brasl	%r14, co_leaf
	agr	%r2, %r6
	lmg	%r6, %r15, 224(%r15)
	.cfi_restore %r15
	.cfi_restore %r14
	.cfi_restore %r13
	.cfi_restore %r12
	.cfi_restore %r11
	.cfi_restore %r10
	.cfi_restore %r9
	.cfi_restore %r8
	.cfi_restore %r7
	.cfi_restore %r6
	.cfi_def_cfa_offset 160
	br	%r14
	.cfi_endproc
	.size	clean_sp, .-clean_sp
	.section .note.GNU-stack,"",@progbits
