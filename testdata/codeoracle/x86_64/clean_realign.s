# Clean: stack realignment with a frame pointer (and $-32,%rsp), as gcc
# does for over-aligned locals, with a callee-saved register saved after
# the realignment through rbp-relative stores.
	.text
	.globl	clean_realign
	.type	clean_realign, @function
clean_realign:
	.cfi_startproc
	push	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, -16
	mov	%rsp, %rbp
	.cfi_def_cfa_register %rbp
	push	%rbx
	.cfi_offset %rbx, -24
	and	$-32, %rsp
	sub	$64, %rsp
	mov	%rdi, %rbx
	mov	%rbx, (%rsp)
	mov	(%rsp), %rax
	mov	-8(%rbp), %rbx
	leave
	.cfi_def_cfa %rsp, 8
	ret
	.cfi_endproc
	.size	clean_realign, .-clean_realign
	.section .note.GNU-stack,"",@progbits
