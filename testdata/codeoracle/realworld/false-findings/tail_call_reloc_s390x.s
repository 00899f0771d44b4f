# A tail call in an s390x object: jg ext is c0f4 00000000 with R_390_PLT32DBL.
	.text
	.globl	f
	.type	f, @function
f:
	.cfi_startproc
	stmg	%r14,%r15,112(%r15)
	.cfi_offset 14, -48
	.cfi_offset 15, -40
	aghi	%r15,-160
	.cfi_def_cfa_offset 320
	ltr	%r2,%r2
	je	.L2
	lmg	%r14,%r15,272(%r15)
	.cfi_remember_state
	.cfi_restore 15
	.cfi_restore 14
	.cfi_def_cfa_offset 160
	jg	ext@PLT
.L2:
	.cfi_restore_state
	brasl	%r14,ext2@PLT
	lmg	%r14,%r15,272(%r15)
	.cfi_restore 15
	.cfi_restore 14
	.cfi_def_cfa_offset 160
	br	%r14
	.cfi_endproc
	.size	f, .-f
