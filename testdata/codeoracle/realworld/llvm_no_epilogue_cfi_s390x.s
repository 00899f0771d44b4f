# LLVM 14 on s390x (rustc 1.63: Debian 12's ripgrep, bat, fd, hyperfine,
# librsvg): no CFI in the epilogue, so at the `br %r14` after `lmg`
# restored r15 the CFA is still r15+368. From ripgrep 13.0.0's rg.
	.text
	.globl	f
	.type	f, @function
f:
	.cfi_startproc
	stmg	%r13,%r15,104(%r15)
	.cfi_offset %r13, -56
	.cfi_offset %r14, -48
	.cfi_offset %r15, -40
	aghi	%r15,-208
	.cfi_def_cfa_offset 368
	brasl	%r14,g@PLT
	lmg	%r13,%r15,312(%r15)
	br	%r14
	.cfi_endproc
	.size	f, .-f
