# Annotation fault 2: a .cfi_def_cfa_offset off by 8 (24 where two pushes
# and a 16-byte allocation make 32).
	.text
	.globl	cfa_offset_off8
	.type	cfa_offset_off8, @function
cfa_offset_off8:
	.cfi_startproc
	push	%r12
	.cfi_def_cfa_offset 16
	.cfi_offset %r12, -16
	sub	$16, %rsp
cfa_offset_off8.fault:
	.cfi_def_cfa_offset 24
	mov	%rdi, %r12
	mov	%rdi, (%rsp)
	lea	8(%rsp), %rax
	add	%r12, %rax
	add	$16, %rsp
	.cfi_def_cfa_offset 16
	pop	%r12
	.cfi_def_cfa_offset 8
	.cfi_restore %r12
	ret
	.cfi_endproc
	.size	cfa_offset_off8, .-cfa_offset_off8
	.section .note.GNU-stack,"",@progbits
