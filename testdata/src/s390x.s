# s390x.s - hand-written s390x functions with CFI for SFrame fixtures.
# Assembled with `s390x-linux-gnu-as --gsframe` and linked with
# `ld -static -e _start` by scripts/build-fixtures.sh.  Not meant to run
# (it would on an s390x host: _start calls each function and exits 0).
# On s390x the CFA is %r15 + 160 at function entry (the caller's register
# save area), and gcc saves %r6-%r15 into it with stmg.
#
#   _start          outermost frame: .cfi_undefined %r14 (v3: "RA undefined")
#   leaf            no frame at all: CFA sp+160, RA in %r14 (RA "u")
#   nonleaf         stmg %r11,%r15 + aghi %r15,-160: CFA sp+320, FP (r11)
#                   c-72, RA (r14) c-48; then %r11 becomes the CFA base
#   leaf_fpr        gcc -O2 leaf style: %r14 and %r11 saved in FPRs
#                   (.cfi_register %r14, %f0 / %r11, %f2): RA/FP in registers
#   big_frame       aghi %r15,-4096: CFA sp+4256 (2-byte data words)

	.text

	.globl	_start
	.type	_start, @function
_start:
	.cfi_startproc
	.cfi_undefined %r14
	lghi	%r11, 0
	aghi	%r15, -160
	brasl	%r14, leaf
	brasl	%r14, nonleaf
	brasl	%r14, leaf_fpr
	brasl	%r14, big_frame
	lghi	%r2, 0
	svc	1			# exit
	.cfi_endproc
	.size	_start, .-_start

	.globl	leaf
	.type	leaf, @function
leaf:
	.cfi_startproc
	aghi	%r2, 1
	br	%r14
	.cfi_endproc
	.size	leaf, .-leaf

	.globl	nonleaf
	.type	nonleaf, @function
nonleaf:
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
	brasl	%r14, leaf
	lmg	%r11, %r15, 248(%r11)
	.cfi_restore %r15
	.cfi_restore %r14
	.cfi_restore %r13
	.cfi_restore %r12
	.cfi_restore %r11
	.cfi_def_cfa %r15, 160
	br	%r14
	.cfi_endproc
	.size	nonleaf, .-nonleaf

	.globl	leaf_fpr
	.type	leaf_fpr, @function
leaf_fpr:
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
	.size	leaf_fpr, .-leaf_fpr

	.globl	big_frame
	.type	big_frame, @function
big_frame:
	.cfi_startproc
	stmg	%r14, %r15, 112(%r15)
	.cfi_offset %r14, -48
	.cfi_offset %r15, -40
	aghi	%r15, -4096
	.cfi_def_cfa_offset 4256
	brasl	%r14, leaf
	lmg	%r14, %r15, 4208(%r15)
	.cfi_restore %r15
	.cfi_restore %r14
	.cfi_def_cfa_offset 160
	br	%r14
	.cfi_endproc
	.size	big_frame, .-big_frame

	.section .note.GNU-stack,"",@progbits
