// Annotation fault 1: inline asm that stores x0 with a pre-indexed str
// (str x0, [sp, #-16]!, AArch64's push) and no .cfi_adjust_cfa_offset:
// from push_noadjust.fault to the ldr that pops it, CFI says CFA=sp+16,
// the code has moved sp 16 more bytes down (CFA=sp+32).
// kind: code-cfa
	.text
	.globl	push_noadjust
	.type	push_noadjust, %function
push_noadjust:
	.cfi_startproc
	stp	x29, x30, [sp, #-16]!
	.cfi_def_cfa_offset 16
	.cfi_offset 29, -16
	.cfi_offset 30, -8
	str	x0, [sp, #-16]!
push_noadjust.fault:
	bl	co_leaf
	ldr	x1, [sp], #16
	add	x0, x0, x1
	ldp	x29, x30, [sp], #16
	.cfi_restore 30
	.cfi_restore 29
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
	.size	push_noadjust, .-push_noadjust
	.section .note.GNU-stack,"",@progbits
