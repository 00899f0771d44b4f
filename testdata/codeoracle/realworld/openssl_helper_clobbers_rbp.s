# OpenSSL 3.0.20 private-ABI helpers (__ecp_nistz256_mul_montq,
# _x86_64_AES_encrypt, mul4x_internal, bn_sqr8x_internal, ...) and
# libgcrypt 1.10.1 ones (__blowfish_enc_blk4, __cast5_enc_blk4,
# __twofish_enc_blk3, _gcry_3des_amd64_crypt_blk3): rbp is scratch, its
# CFI has no rule for it, so it reads as same-value (FP=u) while rbp holds
# data. The caller saved rbp, so unwinding past the caller still works;
# the caller's own rbp is misreported.
	.text
	.type	helper, @function
helper:
	.cfi_startproc
	mov	%rax, %rbp
	mul	%r9
	add	%rbp, %rax
	ret
	.cfi_endproc
	.globl	caller
	.type	caller, @function
caller:
	.cfi_startproc
	push	%rbp
	.cfi_adjust_cfa_offset 8
	.cfi_offset %rbp, -16
	call	helper
	pop	%rbp
	.cfi_adjust_cfa_offset -8
	.cfi_restore %rbp
	ret
	.cfi_endproc
