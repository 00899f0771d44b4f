# Clean: an epilogue that reloads %r14 from the caller's register save area
# before freeing the frame, with the .cfi_restore only at the end: between
# them CFI says RA at c-48, the code has it back in %r14; both are right
# (the slot stays live and holds the same value). No code-ra finding here.
# kind: clean
	.text
	.globl	clean_late_restore
	.type	clean_late_restore, @function
clean_late_restore:
	.cfi_startproc
	stmg	%r14, %r15, 112(%r15)
	.cfi_offset %r14, -48
	.cfi_offset %r15, -40
	aghi	%r15, -160
	.cfi_def_cfa_offset 320
	brasl	%r14, co_leaf
	lg	%r14, 272(%r15)
	aghi	%r15, 160
	.cfi_def_cfa_offset 160
	.cfi_restore %r14
	.cfi_restore %r15
	br	%r14
	.cfi_endproc
	.size	clean_late_restore, .-clean_late_restore
	.section .note.GNU-stack,"",@progbits
