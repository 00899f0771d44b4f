# A return and a tail call through a link register set to an address in
# the function (glibc 2.36 AArch64 swapcontext, sysdeps/unix/sysv/linux/
# aarch64/swapcontext.S): the RA goes into the ucontext, x30 gets the
# label the saved context resumes at. With the RA's rule undefined from
# the adr on (the ucontext is not on the stack), the CFI is right; the
# ret and the b are jumps the walk does not follow, not returns.
	.text
	.globl	continuation_lr
	.type	continuation_lr, @function
continuation_lr:
	.cfi_startproc
	stp	xzr, x30, [x0, #184]
	adr	x30, 2f
	.cfi_escape 0x10, 30, 3, 0x70, 0xc0, 0x01  // x30 at [x0+192]: DW_CFA_expression, DW_OP_breg0 192
	stp	x18, x19, [x0, #328]
	str	x30, [x0, #440]
	mov	x21, x1
	mov	x8, #135
	svc	#0
	cbnz	x0, 1f
	mov	x22, x30
	mov	x0, x21
	bl	setcontext
	mov	x30, x22
	ret
1:	b	__syscall_error
2:	nop
	mov	x30, x1
	.cfi_restore x30
	ret
	.cfi_endproc
	.size	continuation_lr, .-continuation_lr
