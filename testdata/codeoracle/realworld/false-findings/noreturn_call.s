	.text
	.globl	h
	.type	h, @function
h:
	.cfi_startproc
	test	%edi, %edi
	jz	1f
	sub	$8, %rsp
	.cfi_adjust_cfa_offset 8
	call	abort@PLT
	.cfi_adjust_cfa_offset -8
1:	ret
	.cfi_endproc
