# Clean: gcc -O2's leaf style: %r14 and %r11 kept in FPRs
# (.cfi_register %r14, %f0 / %r11, %f2) while %r11 is used.
# kind: clean
	.text
	.globl	clean_fpr
	.type	clean_fpr, @function
clean_fpr:
	.cfi_startproc
	ldgr	%f0, %r14
	.cfi_register %r14, %f0
	ldgr	%f2, %r11
	.cfi_register %r11, %f2
	lgr	%r11, %r2
	aghi	%r11, 2
	lgr	%r2, %r11
	lgdr	%r11, %f2
	.cfi_restore %r11
	lgdr	%r14, %f0
	.cfi_restore %r14
	br	%r14
	.cfi_endproc
	.size	clean_fpr, .-clean_fpr
	.section .note.GNU-stack,"",@progbits
