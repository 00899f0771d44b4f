# Annotation fault 1: an inline-asm push without .cfi_adjust_cfa_offset.
# The pushfq/pop pair reads the flags, as inline asm does; CFI still says
# CFA=rsp+16 between them, the code has pushed 8 more bytes.
	.text
	.globl	push_noadjust
	.type	push_noadjust, @function
push_noadjust:
	.cfi_startproc
	push	%rbx
	.cfi_def_cfa_offset 16
	.cfi_offset %rbx, -16
	mov	%rdi, %rbx
	pushfq
push_noadjust.fault:
	pop	%rax
	add	%rbx, %rax
	pop	%rbx
	.cfi_def_cfa_offset 8
	.cfi_restore %rbx
	ret
	.cfi_endproc
	.size	push_noadjust, .-push_noadjust
	.section .note.GNU-stack,"",@progbits
