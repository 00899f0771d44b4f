# Annotation fault 1: inline asm that pushes %r2 (lay %r15,-8(%r15); stg
# %r2,0(%r15)) with no .cfi_adjust_cfa_offset: from push_noadjust.fault
# to the la that pops it, CFI says CFA=%r15+320, the code %r15+328.
# kind: code-cfa
	.text
	.globl	push_noadjust
	.type	push_noadjust, @function
push_noadjust:
	.cfi_startproc
	stmg	%r14, %r15, 112(%r15)
	.cfi_offset %r14, -48
	.cfi_offset %r15, -40
	aghi	%r15, -160
	.cfi_def_cfa_offset 320
	lay	%r15, -8(%r15)
push_noadjust.fault:
	stg	%r2, 0(%r15)
	brasl	%r14, co_leaf
	ag	%r2, 0(%r15)
	la	%r15, 8(%r15)
	lmg	%r14, %r15, 272(%r15)
	.cfi_restore %r15
	.cfi_restore %r14
	.cfi_def_cfa_offset 160
	br	%r14
	.cfi_endproc
	.size	push_noadjust, .-push_noadjust
	.section .note.GNU-stack,"",@progbits
