# GCC 12 on s390x (Debian 12's coreutils, libc6, libexpat, perl, zstd...):
# a leaf function that keeps r11 and r15 in FPRs (ldgr) restores them
# with lgdr, and the CFA's return to r15+160 comes with the first restore,
# before r15 is restored: CFA=r15+160 there is 168 bytes low.
# From coreutils 9.1's dir at 0x6550.
	.text
	.globl	f
	.type	f, @function
f:
	.cfi_startproc
	ldgr	%f2,%r11
	.cfi_register 11, 17
	ldgr	%f0,%r15
	.cfi_register 15, 16
	lay	%r15,-168(%r15)
	.cfi_def_cfa_offset 328
	lghi	%r11,0
	stg	%r11,160(%r15)
	lgdr	%r11,%f2
	.cfi_restore 11
	.cfi_def_cfa_offset 160
	lghi	%r2,1
	lgdr	%r15,%f0
	.cfi_restore 15
	br	%r14
	.cfi_endproc
	.size	f, .-f
