// LLVM 14 on AArch64 (rustc 1.63: Debian 12's ripgrep, bat, fd, hyperfine,
// librsvg): CFI is synchronous only. The prologue's CFI comes after all
// its instructions (CFA=sp+0 while SP is already 80 lower), and the
// epilogue has none (CFA=sp+80 at the ret, after SP is back).
// From ripgrep 13.0.0's rg at 0x47bc0.
	.text
	.globl	f
	.type	f, %function
f:
	.cfi_startproc
	sub	sp, sp, #0x50
	str	x30, [sp, #48]
	stp	x20, x19, [sp, #64]
	.cfi_def_cfa_offset 80
	.cfi_offset w19, -8
	.cfi_offset w20, -16
	.cfi_offset w30, -32
	mov	x19, x0
	bl	g
	ldr	x30, [sp, #48]
	ldp	x20, x19, [sp, #64]
	add	sp, sp, #0x50
	ret
	.cfi_endproc
	.size	f, .-f
