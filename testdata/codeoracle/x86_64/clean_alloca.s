# Clean: alloca (sub %rax,%rsp) with the CFA on rbp, SP restored with lea
# from rbp before the pops; an early return in the middle annotated with
# .cfi_remember_state / .cfi_restore_state.
	.text
	.globl	clean_alloca
	.type	clean_alloca, @function
clean_alloca:
	.cfi_startproc
	push	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, -16
	mov	%rsp, %rbp
	.cfi_def_cfa_register %rbp
	push	%rbx
	sub	$24, %rsp
	.cfi_offset %rbx, -24
	test	%rdi, %rdi
	jne	.Lalloc
	.cfi_remember_state
	mov	-8(%rbp), %rbx
	leave
	.cfi_restore %rbx
	.cfi_def_cfa %rsp, 8
	ret
	.cfi_restore_state
.Lalloc:
	lea	15(%rdi), %rax
	and	$-16, %rax
	sub	%rax, %rsp
	mov	%rsp, %rbx
	movq	$0, (%rbx)
	mov	(%rbx), %rax
	lea	-8(%rbp), %rsp
	pop	%rbx
	pop	%rbp
	.cfi_restore %rbx
	.cfi_restore %rbp
	.cfi_def_cfa %rsp, 8
	ret
	.cfi_endproc
	.size	clean_alloca, .-clean_alloca
	.section .note.GNU-stack,"",@progbits
