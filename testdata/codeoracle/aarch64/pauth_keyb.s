// Annotation fault: x30 signed with pacibsp (key B), but the CIE has no
// "B" augmentation (.cfi_b_key_frame missing), so CFI and SFrame's FDE
// (pauth_key A) name key A. An unwinder that authenticates the RA with the
// tables' key fails. From pauth_keyb.fault, after the pacibsp, to the
// autibsp.
// kind: code-ra
	.text
	.globl	pauth_keyb
	.type	pauth_keyb, %function
pauth_keyb:
	.cfi_startproc
	hint	#27			// pacibsp
	.cfi_negate_ra_state
pauth_keyb.fault:
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
	hint	#31			// autibsp
	.cfi_negate_ra_state
	ret
	.cfi_endproc
	.size	pauth_keyb, .-pauth_keyb
	.section .note.GNU-stack,"",@progbits
