# Clean: an epilogue that reloads %r14 from a slot of the function's own
# frame before freeing the frame, with the .cfi_restore only at the end
# (gcc's AArch64 order): between them CFI says RA at c-168, the code has it
# back in %r14; both are right (the slot is still live, above %r15, and
# holds the same value). No code-ra finding here.
# kind: clean
	.text
	.globl	clean_late_restore
	.type	clean_late_restore, @function
clean_late_restore:
	.cfi_startproc
	aghi	%r15, -168
	.cfi_def_cfa_offset 328
	stg	%r14, 160(%r15)
	.cfi_offset %r14, -168
	brasl	%r14, co_leaf
	lg	%r14, 160(%r15)
	aghi	%r15, 168
	.cfi_def_cfa_offset 160
	.cfi_restore %r14
	br	%r14
	.cfi_endproc
	.size	clean_late_restore, .-clean_late_restore
	.section .note.GNU-stack,"",@progbits
