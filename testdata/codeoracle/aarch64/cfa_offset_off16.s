// Annotation fault 2: .cfi_def_cfa_offset off by 16 after the local
// area's sub sp (64 where the stp's 16 and the sub's 32 make 48): from
// cfa_offset_off16.fault to the add sp, CFI says CFA=sp+64, the code
// sp+48.
// kind: code-cfa
	.text
	.globl	cfa_offset_off16
	.type	cfa_offset_off16, %function
cfa_offset_off16:
	.cfi_startproc
	stp	x29, x30, [sp, #-16]!
	.cfi_def_cfa_offset 16
	.cfi_offset 29, -16
	.cfi_offset 30, -8
	sub	sp, sp, #32
	.cfi_def_cfa_offset 64
cfa_offset_off16.fault:
	str	x0, [sp, #8]
	bl	co_leaf
	ldr	x1, [sp, #8]
	add	x0, x0, x1
	add	sp, sp, #32
	.cfi_def_cfa_offset 16
	ldp	x29, x30, [sp], #16
	.cfi_restore 30
	.cfi_restore 29
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
	.size	cfa_offset_off16, .-cfa_offset_off16
	.section .note.GNU-stack,"",@progbits
