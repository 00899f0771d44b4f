# Annotation fault 5: an early return in the middle of the function whose
# epilogue has .cfi_def_cfa_offset 160 but no .cfi_restore %r14: at its
# br %r14 (midret_norestore.fault) CFI says RA (%r14) at c-168, a slot of
# this function's own frame that the aghi %r15,168 has freed (below %r15);
# the code has RA back in %r14. (A missing .cfi_restore after an lmg from
# the caller's register save area would not be wrong: that slot stays live
# and still holds the RA.)
# kind: code-ra
	.text
	.globl	midret_norestore
	.type	midret_norestore, @function
midret_norestore:
	.cfi_startproc
	aghi	%r15, -168
	.cfi_def_cfa_offset 328
	stg	%r14, 160(%r15)
	.cfi_offset %r14, -168
	cghi	%r2, 0
	jne	.Lmore
	.cfi_remember_state
	lg	%r14, 160(%r15)
	aghi	%r15, 168
	.cfi_def_cfa_offset 160
midret_norestore.fault:
	br	%r14
	.cfi_restore_state
.Lmore:
	brasl	%r14, co_leaf
	lg	%r14, 160(%r15)
	.cfi_restore %r14
	aghi	%r15, 168
	.cfi_def_cfa_offset 160
	br	%r14
	.cfi_endproc
	.size	midret_norestore, .-midret_norestore
	.section .note.GNU-stack,"",@progbits
