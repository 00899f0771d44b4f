// Clean: a frame record (stp x29, x30 with writeback; mov x29, sp) and a
// callee-saved register, CFA on x29 after the mov; the entry point of
// codeoracle-aarch64, which calls the others.
// kind: clean
	.text
	.globl	clean_fp
	.type	clean_fp, %function
clean_fp:
	.cfi_startproc
	stp	x29, x30, [sp, #-32]!
	.cfi_def_cfa_offset 32
	.cfi_offset 29, -32
	.cfi_offset 30, -24
	mov	x29, sp
	.cfi_def_cfa_register 29
	str	x19, [sp, #16]
	.cfi_offset 19, -16
	mov	x19, x0
	bl	co_leaf
	bl	clean_sp
	bl	clean_pauth
	bl	clean_midret
	bl	clean_alloca
	bl	clean_late_restore
	bl	push_noadjust
	bl	cfa_offset_off16
	bl	saved_nooffset
	bl	defcfareg_early
	bl	midret_norestore
	bl	midret_nostate
	add	x0, x0, x19
	ldr	x19, [sp, #16]
	.cfi_restore 19
	ldp	x29, x30, [sp], #32
	.cfi_restore 30
	.cfi_restore 29
	.cfi_def_cfa 31, 0
	ret
	.cfi_endproc
	.size	clean_fp, .-clean_fp

// A leaf: no frame, CFA sp+0, RA in x30 throughout.
	.globl	co_leaf
	.type	co_leaf, %function
co_leaf:
	.cfi_startproc
	add	x0, x0, #1
	ret
	.cfi_endproc
	.size	co_leaf, .-co_leaf
	.section .note.GNU-stack,"",@progbits
