# Clean: a frame-pointer function as gcc -O0 -fno-omit-frame-pointer lays
# it out, with rbx and r12 saved below the frame pointer, a call, and
# leave.
	.text
	.type	clean_fp_callee, @function
clean_fp_callee:
	.cfi_startproc
	lea	1(%rdi), %rax
	ret
	.cfi_endproc
	.size	clean_fp_callee, .-clean_fp_callee

	.globl	clean_fp
	.type	clean_fp, @function
clean_fp:
	.cfi_startproc
	push	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, -16
	mov	%rsp, %rbp
	.cfi_def_cfa_register %rbp
	push	%r12
	push	%rbx
	.cfi_offset %r12, -24
	.cfi_offset %rbx, -32
	sub	$16, %rsp
	mov	%rdi, %rbx
	call	clean_fp_callee
	mov	%rax, %r12
	add	%rbx, %r12
	mov	%r12, %rax
	add	$16, %rsp
	pop	%rbx
	pop	%r12
	leave
	.cfi_def_cfa %rsp, 8
	ret
	.cfi_endproc
	.size	clean_fp, .-clean_fp
	.section .note.GNU-stack,"",@progbits
