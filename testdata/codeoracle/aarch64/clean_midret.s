// Clean: an early return in the middle of the function, annotated right
// (.cfi_remember_state, the epilogue's .cfi_restore and
// .cfi_def_cfa_offset, .cfi_restore_state after the ret).
// kind: clean
	.text
	.globl	clean_midret
	.type	clean_midret, %function
clean_midret:
	.cfi_startproc
	stp	x29, x30, [sp, #-16]!
	.cfi_def_cfa_offset 16
	.cfi_offset 29, -16
	.cfi_offset 30, -8
	cbnz	x0, .Lmore
	.cfi_remember_state
	ldp	x29, x30, [sp], #16
	.cfi_restore 30
	.cfi_restore 29
	.cfi_def_cfa_offset 0
	ret
	.cfi_restore_state
.Lmore:
	bl	co_leaf
	ldp	x29, x30, [sp], #16
	.cfi_restore 30
	.cfi_restore 29
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
	.size	clean_midret, .-clean_midret
	.section .note.GNU-stack,"",@progbits
