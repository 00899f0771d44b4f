// Annotation fault 3: the frame pointer x29 saved by the stp with no
// .cfi_offset 29 (only x30's): CFI says x29 keeps its value, the code has
// saved it at CFA-16 and then uses x29 as a general register. From the
// instruction after the stp the code says FP at c-16; from
// saved_nooffset.fault (after mov x29, x0) CFI's "same value" is wrong.
// kind: code-fp
	.text
	.globl	saved_nooffset
	.type	saved_nooffset, %function
saved_nooffset:
	.cfi_startproc
	stp	x29, x30, [sp, #-16]!
	.cfi_def_cfa_offset 16
	.cfi_offset 30, -8
	mov	x29, x0
saved_nooffset.fault:
	bl	co_leaf
	add	x0, x0, x29
	ldp	x29, x30, [sp], #16
	.cfi_restore 30
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
	.size	saved_nooffset, .-saved_nooffset
	.section .note.GNU-stack,"",@progbits
