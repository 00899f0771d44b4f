// Clean: alloca (sub sp, sp, x1) under a frame pointer: the CFA is on x29,
// so the unknown amount does not matter; mov sp, x29 frees it.
// kind: clean
	.text
	.globl	clean_alloca
	.type	clean_alloca, %function
clean_alloca:
	.cfi_startproc
	stp	x29, x30, [sp, #-16]!
	.cfi_def_cfa_offset 16
	.cfi_offset 29, -16
	.cfi_offset 30, -8
	mov	x29, sp
	.cfi_def_cfa_register 29
	add	x1, x0, #15
	and	x1, x1, #-16
	sub	sp, sp, x1
	mov	x0, sp
	bl	co_leaf
	mov	sp, x29
	ldp	x29, x30, [sp], #16
	.cfi_restore 30
	.cfi_restore 29
	.cfi_def_cfa 31, 0
	ret
	.cfi_endproc
	.size	clean_alloca, .-clean_alloca
	.section .note.GNU-stack,"",@progbits
