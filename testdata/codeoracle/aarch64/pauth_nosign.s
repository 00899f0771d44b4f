// Annotation fault: x30 signed with paciasp, but no .cfi_negate_ra_state:
// CFI and SFrame say the RA is a plain address while the code has signed
// it. An unwinder that trusts the tables takes a PAC-carrying pointer for
// the return address (hand-written prologues that copy a compiler's
// without its CFI). From pauth_nosign.fault, after the paciasp, the tables
// are wrong until the autiasp.
// kind: code-ra
	.text
	.globl	pauth_nosign
	.type	pauth_nosign, %function
pauth_nosign:
	.cfi_startproc
	hint	#25			// paciasp
pauth_nosign.fault:
	stp	x29, x30, [sp, #-16]!
	.cfi_def_cfa_offset 16
	.cfi_offset 29, -16
	.cfi_offset 30, -8
	mov	x29, sp
	bl	co_leaf
	ldp	x29, x30, [sp], #16
	.cfi_restore 30
	.cfi_restore 29
	.cfi_def_cfa_offset 0
	hint	#29			// autiasp
	ret
	.cfi_endproc
	.size	pauth_nosign, .-pauth_nosign
	.section .note.GNU-stack,"",@progbits
