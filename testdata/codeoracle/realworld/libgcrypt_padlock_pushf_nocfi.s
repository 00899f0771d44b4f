# libgcrypt 1.10.1 cipher/rijndael-padlock.c, do_padlock: inline asm
# "pushfl; popfl" (pushfq/popfq on x86-64) forces a key reload; GCC's CFI
# knows nothing of the push, so for the popf the CFA is 8 bytes off
# (CFA=rsp+80 where it is rsp+88). Shape of GCC 12 -O2's output.
	.text
	.globl	do_padlock
	.type	do_padlock, @function
do_padlock:
	.cfi_startproc
	subq	$72, %rsp
	.cfi_def_cfa_offset 80
	movq	%rsp, %rdx
	pushfq
	popfq
	movdqa	(%rsp), %xmm0
	addq	$72, %rsp
	.cfi_def_cfa_offset 8
	ret
	.cfi_endproc
	.size	do_padlock, .-do_padlock
