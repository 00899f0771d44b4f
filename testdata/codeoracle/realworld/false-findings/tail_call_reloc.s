# A tail call in a relocatable object: jmp ext is e9 00 00 00 00 with
# R_X86_64_PLT32 ext-4, so its displacement leads to the next instruction.
# Found in Debian 12's valgrind archives (libcoregrind, libvex: 2,059
# code-* findings) and in 6 of 32 GCC -O2 objects (issue 30, class 2).
	.text
	.globl	f
	.type	f, @function
f:
	.cfi_startproc
	pushq	%rbx
	.cfi_def_cfa_offset 16
	.cfi_offset %rbx, -16
	movl	%edi, %ebx
	testl	%edi, %edi
	je	.L2
	popq	%rbx
	.cfi_remember_state
	.cfi_def_cfa_offset 8
	jmp	ext@PLT
.L2:
	.cfi_restore_state
	call	ext2@PLT
	movl	%ebx, %eax
	popq	%rbx
	.cfi_def_cfa_offset 8
	jne	ext3@PLT
	ret
	.cfi_endproc
	.size	f, .-f
