# OpenSSL 3.0.20 crypto/ec/asm/x25519-x86_64.pl x25519_fe51_sqr and
# x25519_fe64_sqr: the epilogue "lea 8*11(%rsp),%rsp" is followed by
# ".cfi_adjust_cfa_offset 88" where -88 is meant, so at the ret the CFI
# says CFA=rsp+184 (fe51) / rsp+168 (fe64) instead of rsp+8.
	.text
	.globl	sqr
	.type	sqr, @function
sqr:
	.cfi_startproc
	lea	-8*11(%rsp), %rsp
	.cfi_adjust_cfa_offset 88
	mov	%rdi, (%rsp)
	mov	8*10(%rsp), %rbx
	lea	8*11(%rsp), %rsp
	.cfi_adjust_cfa_offset 88
	ret
	.cfi_endproc
