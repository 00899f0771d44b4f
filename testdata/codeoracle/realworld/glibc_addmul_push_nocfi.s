# glibc 2.36 sysdeps/x86_64/addmul_1.S (__mpn_addmul_1, __mpn_submul_1):
# push %rbx; push %rbp with no .cfi_adjust_cfa_offset / .cfi_offset.
	.text
	.globl	addmul
	.type	addmul, @function
addmul:
	.cfi_startproc
	push	%rbx
	push	%rbp
	lea	(%rdx), %rbx
	mov	(%rsi), %rax
	mul	%rcx
	add	%rax, (%rdi)
	pop	%rbp
	pop	%rbx
	ret
	.cfi_endproc
	.size	addmul, .-addmul
