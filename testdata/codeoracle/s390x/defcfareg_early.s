# Annotation fault 4: .cfi_def_cfa_register %r11 placed before the
# lgr %r11,%r15 it describes: at defcfareg_early.fault (the lgr) CFI says
# CFA=%r11+320 while %r11 is still the caller's. (The lgr %r1,%r2 keeps
# the directive off the PC of .cfi_def_cfa_offset, where GNU as's SFrame
# would keep the old offset: the known fault gnu-as-def-cfa-register-offset.)
# kind: code-cfa
	.text
	.globl	defcfareg_early
	.type	defcfareg_early, @function
defcfareg_early:
	.cfi_startproc
	stmg	%r11, %r15, 88(%r15)
	.cfi_offset %r11, -72
	.cfi_offset %r12, -64
	.cfi_offset %r13, -56
	.cfi_offset %r14, -48
	.cfi_offset %r15, -40
	aghi	%r15, -160
	.cfi_def_cfa_offset 320
	lgr	%r1, %r2
	.cfi_def_cfa_register %r11
defcfareg_early.fault:
	lgr	%r11, %r15
	brasl	%r14, co_leaf
	lmg	%r11, %r15, 248(%r11)
	.cfi_restore %r15
	.cfi_restore %r14
	.cfi_restore %r13
	.cfi_restore %r12
	.cfi_restore %r11
	.cfi_def_cfa %r15, 160
	br	%r14
	.cfi_endproc
	.size	defcfareg_early, .-defcfareg_early
	.section .note.GNU-stack,"",@progbits
