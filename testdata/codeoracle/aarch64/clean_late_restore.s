// Clean: gcc's epilogue order: the frame record is reloaded with an
// offset-form ldp (no writeback) and the .cfi_restore directives come only
// after the add sp that frees the area. Between the two, CFI says RA at
// c-8 and x29 at c-16 while the code has both back in their registers:
// both are right, the slots are still live (above sp) and hold the same
// values. No code-ra or code-fp finding here.
// kind: clean
	.text
	.globl	clean_late_restore
	.type	clean_late_restore, %function
clean_late_restore:
	.cfi_startproc
	sub	sp, sp, #48
	.cfi_def_cfa_offset 48
	stp	x29, x30, [sp, #32]
	.cfi_offset 29, -16
	.cfi_offset 30, -8
	add	x29, sp, #32
	str	x0, [sp, #8]
	bl	co_leaf
	ldr	x1, [sp, #8]
	add	x0, x0, x1
	ldp	x29, x30, [sp, #32]
	add	sp, sp, #48
	.cfi_restore 29
	.cfi_restore 30
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
	.size	clean_late_restore, .-clean_late_restore
	.section .note.GNU-stack,"",@progbits
