# Annotation fault 4: .cfi_def_cfa_register placed before the mov it
# describes: at the mov, CFI says CFA=rbp+16 while rbp is still the
# caller's.
	.text
	.globl	defcfareg_early
	.type	defcfareg_early, @function
defcfareg_early:
	.cfi_startproc
	push	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, -16
	.cfi_def_cfa_register %rbp
defcfareg_early.fault:
	mov	%rsp, %rbp
	sub	$32, %rsp
	mov	%rdi, -8(%rbp)
	mov	-8(%rbp), %rax
	leave
	.cfi_def_cfa %rsp, 8
	ret
	.cfi_endproc
	.size	defcfareg_early, .-defcfareg_early
	.section .note.GNU-stack,"",@progbits
