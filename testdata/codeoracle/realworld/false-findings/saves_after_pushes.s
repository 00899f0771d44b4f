# LLVM's prologue without a frame pointer (Debian 12's librav1e,
# clang/rustc): the pushes adjust the CFA one by one, and the saves of the
# callee-saved registers are recorded together after the last push. Until
# then the CFI says FP (and rbx) keep their values, which is true: the
# pushes copy them, the registers still hold the caller's. The epilogue
# pops them with no .cfi_restore: after the pop the CFI's c-16 and the
# register both hold the caller's rbp. Nothing here is wrong; the report's
# drawing (compare.FunctionRows) must not mark any row as differing.
	.text
	.globl	f
	.type	f, @function
f:
	.cfi_startproc
	pushq	%rbp
	.cfi_def_cfa_offset 16
	pushq	%rbx
	.cfi_def_cfa_offset 24
	pushq	%rax
	.cfi_def_cfa_offset 32
	.cfi_offset %rbx, -24
	.cfi_offset %rbp, -16
	call	g@PLT
	addq	$8, %rsp
	.cfi_def_cfa_offset 24
	popq	%rbx
	.cfi_def_cfa_offset 16
	popq	%rbp
	.cfi_def_cfa_offset 8
	ret
	.cfi_endproc
	.size	f, .-f
