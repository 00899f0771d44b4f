	.text
	.globl	a
	.type	a, @function
a:
	.cfi_startproc
	sub	$24, %rsp
	.cfi_adjust_cfa_offset 24
	test	%edi, %edi
	jz	shared
	add	$24, %rsp
	.cfi_adjust_cfa_offset -24
	ret
	.cfi_endproc
	.globl	b
	.type	b, @function
b:
	.cfi_startproc
	sub	$24, %rsp
	.cfi_adjust_cfa_offset 24
shared:
	mov	%rdi, (%rsp)
	add	$24, %rsp
	.cfi_adjust_cfa_offset -24
	ret
	.cfi_endproc
