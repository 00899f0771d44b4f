// Clean: no frame pointer; the frame record and a 64-byte area allocated
// with sub sp, the CFA on sp throughout.
// kind: clean
	.text
	.globl	clean_sp
	.type	clean_sp, %function
clean_sp:
	.cfi_startproc
	stp	x29, x30, [sp, #-16]!
	.cfi_def_cfa_offset 16
	.cfi_offset 29, -16
	.cfi_offset 30, -8
	sub	sp, sp, #64
	.cfi_def_cfa_offset 80
	stp	x21, x22, [sp, #48]
	.cfi_offset 21, -32
	.cfi_offset 22, -24
	mov	x21, x0
	bl	co_leaf
	add	x0, x0, x21
	ldp	x21, x22, [sp, #48]
	.cfi_restore 22
	.cfi_restore 21
	add	sp, sp, #64
	.cfi_def_cfa_offset 16
	ldp	x29, x30, [sp], #16
	.cfi_restore 30
	.cfi_restore 29
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
	.size	clean_sp, .-clean_sp
	.section .note.GNU-stack,"",@progbits
