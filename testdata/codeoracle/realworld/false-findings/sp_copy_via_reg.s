	.text
	.globl	f
	.type	f, @function
f:
	.cfi_startproc
	lea	(%rsp), %rax
	.cfi_def_cfa_register %rax
	push	%rbp
	.cfi_offset %rbp, -16
	mov	%rax, %rbp
	.cfi_def_cfa_register %rbp
	sub	$64, %rsp
	mov	%rdi, (%rsp)
	mov	%rdi, %rdx
	lea	(%rbp), %rsp
	.cfi_def_cfa_register %rsp
	mov	-8(%rsp), %rbp
	ret
	.cfi_endproc
