# Annotation fault 5c: gcc's s390x epilogue in the middle of the function
# (lmg %r11,%r15 from the register save area) with .cfi_def_cfa_offset 160
# but no .cfi_restore: at its br %r14 (midret_norestore_lmg.fault) CFI
# says RA (%r14) at c-48 and %r11 at c-72, slots of the register save area,
# which is the caller's frame again once %r15 is back; the code has both in
# their registers. (The bytes there still hold the values until the caller
# makes its next call; the rules are stale annotations all the same.)
# kind: code-ra code-fp
	.text
	.globl	midret_norestore_lmg
	.type	midret_norestore_lmg, @function
midret_norestore_lmg:
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
midret_norestore_lmg.fault:
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
	.size	midret_norestore_lmg, .-midret_norestore_lmg
	.section .note.GNU-stack,"",@progbits
