# libffi 3.4.4 src/x86/unix64.S ffi_call_unix64 and win64.S
# ffi_call_win64: the caller built a frame at arg1, the code copies rbp and
# the RA into it and moves rbp (and later rsp) there. The CFI names the
# relocated frame (CFA=rbp+16 here, rbp+32 in unix64.S) before rsp moves,
# "a itty bit of unwind trickery" per unix64.S: the RA and rbp it yields are
# right, the CFA (the caller's SP) is not the SP at the call.
	.text
	.globl	call64
	.type	call64, @function
call64:
	.cfi_startproc
	movq	(%rsp), %rax
	movq	%rbp, (%rsi)
	movq	%rax, 8(%rsi)
	movq	%rsi, %rbp
	.cfi_def_cfa %rbp, 16
	.cfi_rel_offset %rbp, 0
	movq	%rdi, %rsp
	call	*%rdx
	movq	%rbp, %rsp
	.cfi_def_cfa_register %rsp
	popq	%rbp
	.cfi_adjust_cfa_offset -8
	.cfi_restore %rbp
	ret
	.cfi_endproc
