// Clean: return address signed with paciasp (.cfi_negate_ra_state) and
// authenticated with autiasp before ret. PAC instructions are written as
// their HINT encodings so the file assembles with any -march.
// kind: clean
	.text
	.globl	clean_pauth
	.type	clean_pauth, %function
clean_pauth:
	.cfi_startproc
	hint	#25			// paciasp
	.cfi_negate_ra_state
	stp	x29, x30, [sp, #-16]!
	.cfi_def_cfa_offset 16
	.cfi_offset 29, -16
	.cfi_offset 30, -8
	mov	x29, sp
	.cfi_def_cfa_register 29
	bl	co_leaf
	ldp	x29, x30, [sp], #16
	.cfi_restore 30
	.cfi_restore 29
	.cfi_def_cfa 31, 0
	hint	#29			// autiasp
	.cfi_negate_ra_state
	ret
	.cfi_endproc
	.size	clean_pauth, .-clean_pauth
	.section .note.GNU-stack,"",@progbits
