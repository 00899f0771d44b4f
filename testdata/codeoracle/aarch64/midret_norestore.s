// Annotation fault 5: an early return in the middle of the function whose
// epilogue has .cfi_def_cfa_offset 0 but no .cfi_restore 29/30: at its ret
// (midret_norestore.fault) CFI says RA at c-8 and x29 at c-16, slots the
// ldp has already popped; the code has RA back in x30 and x29 restored.
// kind: code-ra code-fp
	.text
	.globl	midret_norestore
	.type	midret_norestore, %function
midret_norestore:
	.cfi_startproc
	stp	x29, x30, [sp, #-16]!
	.cfi_def_cfa_offset 16
	.cfi_offset 29, -16
	.cfi_offset 30, -8
	cbnz	x0, .Lmore
	.cfi_remember_state
	ldp	x29, x30, [sp], #16
	.cfi_def_cfa_offset 0
midret_norestore.fault:
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
	.size	midret_norestore, .-midret_norestore
	.section .note.GNU-stack,"",@progbits
