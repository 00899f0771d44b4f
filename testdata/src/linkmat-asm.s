# linkmat-asm.s - the linker matrix's hand-written object (see
# linkmat-main.c): a frame-pointer function with CFI whose rows change at
# every push, and a static helper in its own section (.text.lm_asm_leaf).
	.section .text.lm_asm_frame,"ax",@progbits
	.globl	lm_asm_frame
	.type	lm_asm_frame, @function
lm_asm_frame:
	.cfi_startproc
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, -16
	movq	%rsp, %rbp
	.cfi_def_cfa_register %rbp
	pushq	%rbx
	subq	$24, %rsp
	.cfi_offset %rbx, -24
	movq	%rdi, %rbx
	call	lm_asm_leaf
	addq	%rbx, %rax
	movq	-8(%rbp), %rbx
	leave
	.cfi_def_cfa %rsp, 8
	ret
	.cfi_endproc
	.size	lm_asm_frame, .-lm_asm_frame

	.section .text.lm_asm_leaf,"ax",@progbits
	.type	lm_asm_leaf, @function
lm_asm_leaf:
	.cfi_startproc
	leaq	1(%rdi), %rax
	ret
	.cfi_endproc
	.size	lm_asm_leaf, .-lm_asm_leaf
	.section .note.GNU-stack,"",@progbits
