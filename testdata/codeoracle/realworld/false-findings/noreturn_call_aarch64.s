# noreturn_call.s on AArch64: in an object, bl abort holds offset 0 (its
# target is itself) and R_AARCH64_CALL26 names abort; the path ends there.
	.text
	.globl	h
	.type	h, @function
h:
	.cfi_startproc
	cbz	w0, 1f
	.cfi_remember_state
	stp	x29, x30, [sp, -16]!
	.cfi_def_cfa_offset 16
	.cfi_offset 29, -16
	.cfi_offset 30, -8
	mov	x29, sp
	bl	abort
	.cfi_restore_state
1:	ret
	.cfi_endproc
