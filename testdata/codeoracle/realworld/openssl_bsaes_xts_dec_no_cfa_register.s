# OpenSSL 3.0.20 crypto/aes/asm/bsaes-x86_64.pl ossl_bsaes_xts_decrypt:
# "mov %rsp,%rbp # backup %rsp" lacks the .cfi_def_cfa_register %rbp that
# the four other bsaes entry points have; the CFA stays rsp-based across
# "sub %rax,%rsp" (a size computed at run time).
	.text
	.globl	xts_dec
	.type	xts_dec, @function
xts_dec:
	.cfi_startproc
	push	%rbp
	.cfi_adjust_cfa_offset 8
	.cfi_offset %rbp, -16
	lea	-0x48(%rsp), %rsp
	.cfi_adjust_cfa_offset 0x48
	mov	%rsp, %rbp
	mov	240(%rcx), %eax
	shl	$7, %rax
	sub	%rax, %rsp
	call	callee@PLT
	lea	0x48(%rbp), %rsp
	.cfi_adjust_cfa_offset -0x48
	pop	%rbp
	.cfi_adjust_cfa_offset -8
	.cfi_restore %rbp
	ret
	.cfi_endproc
