# LLVM (rustc 1.63 / LLVM 14, Debian 12's librsvg 2.54): the epilogue's
# `add $8,%rsp` is hoisted above `test/je`, and the CFA is adjusted only
# at the pops, so from the add to the pops CFA=rsp+32 is 8 bytes high.
	.text
	.globl	f
	.type	f, @function
f:
	.cfi_startproc
	pushq	%r14
	.cfi_def_cfa_offset 16
	pushq	%rbx
	.cfi_def_cfa_offset 24
	pushq	%rax
	.cfi_def_cfa_offset 32
	.cfi_offset %rbx, -24
	.cfi_offset %r14, -16
	movq	%rdi, %rbx
	call	g@PLT
	movq	%rbx, %rdi
	addq	$8, %rsp
	testb	%al, %al
	je	.L1
	popq	%rbx
	.cfi_def_cfa_offset 16
	popq	%r14
	.cfi_def_cfa_offset 8
	jmp	h@PLT
.L1:
	.cfi_def_cfa_offset 32
	popq	%rbx
	.cfi_def_cfa_offset 16
	popq	%r14
	.cfi_def_cfa_offset 8
	jmp	k@PLT
	.cfi_endproc
	.size	f, .-f
