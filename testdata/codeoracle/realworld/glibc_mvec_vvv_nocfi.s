# glibc 2.36 sysdeps/x86_64/fpu/svml_d_sincos4_core_avx.S
# WRAPPER_IMPL_AVX_fFF_vvv (_ZGVcN4vvv_sincos, _ZGVcN8vvv_sincosf):
# push %rbp; mov %rsp,%rbp; andq; ... leave with no CFI at all.
	.text
	.globl	wrap
	.type	wrap, @function
wrap:
	.cfi_startproc
	pushq	%rbp
	movq	%rsp, %rbp
	andq	$-32, %rsp
	subq	$160, %rsp
	lea	(%rsp), %rdi
	call	callee@PLT
	movq	%rbp, %rsp
	popq	%rbp
	ret
	.cfi_endproc
