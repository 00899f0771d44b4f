# Annotation fault 5b: a correct early-return epilogue in the middle of
# the function, but without .cfi_remember_state / .cfi_restore_state
# around it: the code after its br %r14 (midret_nostate.fault), reached by
# the jne with the frame still set up, has CFI that says CFA=%r15+160 and
# RA in %r14, where the code has CFA=%r15+320, RA at c-48.
# kind: code-cfa code-ra
	.text
	.globl	midret_nostate
	.type	midret_nostate, @function
midret_nostate:
	.cfi_startproc
	stmg	%r14, %r15, 112(%r15)
	.cfi_offset %r14, -48
	.cfi_offset %r15, -40
	aghi	%r15, -160
	.cfi_def_cfa_offset 320
	cghi	%r2, 0
	jne	midret_nostate.fault
	lmg	%r14, %r15, 272(%r15)
	.cfi_restore %r15
	.cfi_restore %r14
	.cfi_def_cfa_offset 160
	br	%r14
midret_nostate.fault:
	brasl	%r14, co_leaf
	lmg	%r14, %r15, 272(%r15)
	br	%r14
	.cfi_endproc
	.size	midret_nostate, .-midret_nostate
	.section .note.GNU-stack,"",@progbits
