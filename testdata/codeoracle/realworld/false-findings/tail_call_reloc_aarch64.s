// A tail call in an AArch64 object: b ext is 14000000 with R_AARCH64_JUMP26.
	.text
	.globl	f
	.type	f, %function
f:
	.cfi_startproc
	stp	x29, x30, [sp, #-32]!
	.cfi_def_cfa_offset 32
	.cfi_offset 29, -32
	.cfi_offset 30, -24
	mov	x29, sp
	cbz	w0, .L2
	ldp	x29, x30, [sp], #32
	.cfi_remember_state
	.cfi_restore 30
	.cfi_restore 29
	.cfi_def_cfa_offset 0
	b	ext
.L2:
	.cfi_restore_state
	bl	ext2
	ldp	x29, x30, [sp], #32
	.cfi_restore 30
	.cfi_restore 29
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
	.size	f, .-f
