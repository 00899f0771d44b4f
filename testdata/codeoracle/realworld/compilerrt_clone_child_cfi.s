# compiler-rt (LLVM 14) sanitizer_common/sanitizer_linux.cpp,
# __sanitizer::internal_clone (libasan, libtsan, libubsan...): inline asm
# clones, and in the child pops fn and arg from the new stack, calls fn and
# exits. Its CFI stays the parent's (CFA=rsp+16, RA at c-8) in the child,
# whose stack holds neither; the source says so: "We should also terminate
# the CFI unwind chain here. Unfortunately clang 3.2 doesn't support the
# necessary CFI directives, so we skip that part." Shape of libubsan.so.1.
	.text
	.globl	internal_clone
	.type	internal_clone, @function
internal_clone:
	.cfi_startproc
	subq	$8, %rsp
	.cfi_def_cfa_offset 16
	movq	%rcx, -8(%rsi)
	movq	%rdi, -16(%rsi)
	leaq	-16(%rsi), %rsi
	movl	$56, %eax
	syscall
	testq	%rax, %rax
	jne	1f
	xorq	%rbp, %rbp
	popq	%rax
	popq	%rdi
	call	*%rax
	movq	%rax, %rdi
	movq	$60, %rax
	syscall
1:
	addq	$8, %rsp
	.cfi_def_cfa_offset 8
	ret
	.cfi_endproc
	.size	internal_clone, .-internal_clone
