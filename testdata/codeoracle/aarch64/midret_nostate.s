// Annotation fault 5b: a correct early-return epilogue in the middle of
// the function, but without .cfi_remember_state / .cfi_restore_state
// around it: the code after its ret (midret_nostate.fault), reached by the
// cbnz with the frame record still on the stack, has CFI that says
// CFA=sp+0 and RA in x30, where the code has CFA=sp+16, RA at c-8.
// kind: code-cfa code-ra
	.text
	.globl	midret_nostate
	.type	midret_nostate, %function
midret_nostate:
	.cfi_startproc
	stp	x29, x30, [sp, #-16]!
	.cfi_def_cfa_offset 16
	.cfi_offset 29, -16
	.cfi_offset 30, -8
	cbnz	x0, midret_nostate.fault
	ldp	x29, x30, [sp], #16
	.cfi_restore 30
	.cfi_restore 29
	.cfi_def_cfa_offset 0
	ret
midret_nostate.fault:
	bl	co_leaf
	ldp	x29, x30, [sp], #16
	ret
	.cfi_endproc
	.size	midret_nostate, .-midret_nostate
	.section .note.GNU-stack,"",@progbits
