	.text
	.globl	g
	.type	g, @function
g:
	.cfi_startproc
	mov	%rbp, %r11
	.cfi_register %rbp, %r11
	mov	%rax, %rbp
	add	%rbp, %rax
	mov	%r11, %rbp
	.cfi_restore %rbp
	ret
	.cfi_endproc
