# Clean: gcc's frame-pointer prologue: stmg %r11,%r15 into the caller's
# register save area, aghi %r15,-160, lgr %r11,%r15 with the CFA moved to
# %r11; the entry point of codeoracle-s390x, which calls the others. On
# s390x the CFA is %r15+160 at entry.
# kind: clean
	.text
	.globl	clean_fp
	.type	clean_fp, @function
clean_fp:
	.cfi_startproc
	stmg	%r11, %r15, 88(%r15)
	.cfi_offset %r11, -72
	.cfi_offset %r12, -64
	.cfi_offset %r13, -56
	.cfi_offset %r14, -48
	.cfi_offset %r15, -40
	aghi	%r15, -160
	.cfi_def_cfa_offset 320
	lgr	%r11, %r15
	.cfi_def_cfa_register %r11
	brasl	%r14, co_leaf
	brasl	%r14, clean_sp
	brasl	%r14, clean_fpr
	brasl	%r14, clean_midret
	brasl	%r14, clean_late_restore
	brasl	%r14, push_noadjust
	brasl	%r14, cfa_offset_off8
	brasl	%r14, saved_nooffset
	brasl	%r14, defcfareg_early
	brasl	%r14, midret_norestore
	brasl	%r14, clean_lmg_norestore
	brasl	%r14, midret_nostate
	lmg	%r11, %r15, 248(%r11)
	.cfi_restore %r15
	.cfi_restore %r14
	.cfi_restore %r13
	.cfi_restore %r12
	.cfi_restore %r11
	.cfi_def_cfa %r15, 160
	br	%r14
	.cfi_endproc
	.size	clean_fp, .-clean_fp

# A leaf: no frame, CFA %r15+160, RA in %r14 throughout.
	.globl	co_leaf
	.type	co_leaf, @function
co_leaf:
	.cfi_startproc
	aghi	%r2, 1
	br	%r14
	.cfi_endproc
	.size	co_leaf, .-co_leaf
	.section .note.GNU-stack,"",@progbits
