// Annotation fault 4: .cfi_def_cfa_register 29 placed before the
// mov x29, sp it describes: at defcfareg_early.fault (the mov) CFI says
// CFA=x29+16 while x29 is still the caller's frame pointer. (The mov x1, x0
// keeps the directive off the PC of .cfi_def_cfa_offset, where GNU as's
// SFrame would keep the old offset: the known fault
// gnu-as-def-cfa-register-offset.)
// kind: code-cfa
	.text
	.globl	defcfareg_early
	.type	defcfareg_early, %function
defcfareg_early:
	.cfi_startproc
	stp	x29, x30, [sp, #-16]!
	.cfi_def_cfa_offset 16
	.cfi_offset 29, -16
	.cfi_offset 30, -8
	mov	x1, x0
	.cfi_def_cfa_register 29
defcfareg_early.fault:
	mov	x29, sp
	bl	co_leaf
	ldp	x29, x30, [sp], #16
	.cfi_restore 30
	.cfi_restore 29
	.cfi_def_cfa 31, 0
	ret
	.cfi_endproc
	.size	defcfareg_early, .-defcfareg_early
	.section .note.GNU-stack,"",@progbits
