# OpenSSL 3.0.20 crypto/bn/asm/x86_64-mont5.pl bn_gather5: the prologue
# is written as .byte ("I can't trust assembler to use specific
# encoding") and carries no CFI: after "sub $0x108,%rsp" the CFI still
# says CFA=rsp+8 (and nothing describes the "and $-16,%rsp" that
# follows; the CFA is in r10 from "lea (%rsp),%r10").
	.text
	.globl	gather
	.type	gather, @function
gather:
	.cfi_startproc
	.byte	0x4c,0x8d,0x14,0x24			# lea (%rsp),%r10
	.byte	0x48,0x81,0xec,0x08,0x01,0x00,0x00	# sub $0x108,%rsp
	lea	128(%rsp), %rax
	movdqa	%xmm0, (%rax)
	lea	(%r10), %rsp
	ret
	.cfi_endproc
