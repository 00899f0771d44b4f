# noreturn_call.s on s390x: in an object, brasl %r14,abort@PLT holds
# offset 0 (its target is itself) and R_390_PLT32DBL names abort; the path
# ends there.
	.text
	.globl	h
	.type	h, @function
h:
	.cfi_startproc
	ltr	%r2,%r2
	je	1f
	.cfi_remember_state
	stmg	%r14,%r15,112(%r15)
	.cfi_offset 14, -48
	.cfi_offset 15, -40
	aghi	%r15,-160
	.cfi_def_cfa_offset 320
	brasl	%r14,abort@PLT
	.cfi_restore_state
1:	br	%r14
	.cfi_endproc
