# Clean: an early return in the middle of the function, annotated right
# (.cfi_remember_state, the epilogue's .cfi_restore and
# .cfi_def_cfa_offset, .cfi_restore_state after the br %r14).
# kind: clean
	.text
	.globl	clean_midret
	.type	clean_midret, @function
clean_midret:
	.cfi_startproc
	stmg	%r14, %r15, 112(%r15)
	.cfi_offset %r14, -48
	.cfi_offset %r15, -40
	aghi	%r15, -160
	.cfi_def_cfa_offset 320
	cghi	%r2, 0
	jne	.Lmore
	.cfi_remember_state
	lmg	%r14, %r15, 272(%r15)
	.cfi_restore %r15
	.cfi_restore %r14
	.cfi_def_cfa_offset 160
	br	%r14
	.cfi_restore_state
.Lmore:
	brasl	%r14, co_leaf
	lmg	%r14, %r15, 272(%r15)
	.cfi_restore %r15
	.cfi_restore %r14
	.cfi_def_cfa_offset 160
	br	%r14
	.cfi_endproc
	.size	clean_midret, .-clean_midret
	.section .note.GNU-stack,"",@progbits
