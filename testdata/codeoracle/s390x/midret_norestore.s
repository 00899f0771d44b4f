# Annotation fault 5: an early return in the middle of the function whose
# epilogue has .cfi_def_cfa_offset 160 but no .cfi_restore: at its
# br %r14 (midret_norestore.fault) CFI says RA (%r14) at c-48 and %r11 at
# c-72, where the code has restored both with the lmg (and the save area
# is the caller's again).
# kind: code-ra code-fp
	.text
	.globl	midret_norestore
	.type	midret_norestore, @function
midret_norestore:
	.cfi_startproc
	stmg	%r11, %r15, 88(%r15)
	.cfi_offset %r11, -72
	.cfi_offset %r12, -64
	.cfi_offset %r13, -56
	.cfi_offset %r14, -48
	.cfi_offset %r15, -40
	aghi	%r15, -160
	.cfi_def_cfa_offset 320
	cghi	%r2, 0
	jne	.Lmore
	.cfi_remember_state
	lmg	%r11, %r15, 248(%r15)
	.cfi_def_cfa_offset 160
midret_norestore.fault:
	br	%r14
	.cfi_restore_state
.Lmore:
	lgr	%r11, %r2
	brasl	%r14, co_leaf
	agr	%r2, %r11
	lmg	%r11, %r15, 248(%r15)
	.cfi_restore %r15
	.cfi_restore %r14
	.cfi_restore %r13
	.cfi_restore %r12
	.cfi_restore %r11
	.cfi_def_cfa_offset 160
	br	%r14
	.cfi_endproc
	.size	midret_norestore, .-midret_norestore
	.section .note.GNU-stack,"",@progbits
