# Clean: gcc's s390x epilogue in the middle of the function (lmg
# %r11,%r15 from the register save area) with .cfi_def_cfa_offset 160 but
# no .cfi_restore. At its br %r14 CFI still says RA (%r14) at c-48 and %r11
# at c-72, slots of the register save area. That area is at or above %r15
# (the caller's frame, reserved for its callees) and nothing below %r15
# reaches it, a signal frame included: the slots still hold the values the
# lmg loaded, so both rules give the right value, as for a slot reloaded
# before the frame is freed (clean_late_restore). No code-* finding here;
# the fault is when the epilogue frees the slot (midret_norestore).
# kind: clean
	.text
	.globl	clean_lmg_norestore
	.type	clean_lmg_norestore, @function
clean_lmg_norestore:
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
	.size	clean_lmg_norestore, .-clean_lmg_norestore
	.section .note.GNU-stack,"",@progbits
