# glibc 2.36 sysdeps/x86_64/fpu/svml_d_wrapper_impl.h WRAPPER_IMPL_AVX_fFF
# (_ZGV[cde]N*vl*l*_sincos[f]): after .cfi_def_cfa_register %rbp and the
# andq realignment, each push still gets .cfi_adjust_cfa_offset 8, which
# moves an rbp-based CFA (rbp+24, rbp+32 instead of rbp+16).
	.text
	.globl	wrap
	.type	wrap, @function
wrap:
	.cfi_startproc
	pushq	%rbp
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset %rbp, 0
	movq	%rsp, %rbp
	.cfi_def_cfa_register %rbp
	andq	$-32, %rsp
	pushq	%r13
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset %r13, 0
	subq	$56, %rsp
	call	callee@PLT
	addq	$56, %rsp
	popq	%r13
	.cfi_adjust_cfa_offset -8
	.cfi_restore %r13
	movq	%rbp, %rsp
	.cfi_def_cfa_register %rsp
	popq	%rbp
	.cfi_adjust_cfa_offset -8
	.cfi_restore %rbp
	ret
	.cfi_endproc
