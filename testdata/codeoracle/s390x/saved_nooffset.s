# Annotation fault 3: the frame pointer %r11 saved by stmg %r11,%r15 with
# no .cfi_offset %r11 (the others have theirs): CFI says %r11 keeps its
# value, the code has saved it at CFA-72 and then uses %r11 as a general
# register. From the instruction after the stmg the code says FP at c-72;
# from saved_nooffset.fault (after lgr %r11,%r2) CFI's "same value" is
# wrong.
# kind: code-fp
	.text
	.globl	saved_nooffset
	.type	saved_nooffset, @function
saved_nooffset:
	.cfi_startproc
	stmg	%r11, %r15, 88(%r15)
	.cfi_offset %r12, -64
	.cfi_offset %r13, -56
	.cfi_offset %r14, -48
	.cfi_offset %r15, -40
	lgr	%r11, %r2
saved_nooffset.fault:
	aghi	%r15, -160
	.cfi_def_cfa_offset 320
	brasl	%r14, co_leaf
	agr	%r2, %r11
	lmg	%r11, %r15, 248(%r15)
	.cfi_restore %r15
	.cfi_restore %r14
	.cfi_restore %r13
	.cfi_restore %r12
	.cfi_def_cfa_offset 160
	br	%r14
	.cfi_endproc
	.size	saved_nooffset, .-saved_nooffset
	.section .note.GNU-stack,"",@progbits
