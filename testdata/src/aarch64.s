// aarch64.s - hand-written AArch64 functions with CFI for SFrame fixtures.
// Assembled with `aarch64-linux-gnu-as --gsframe` (add -EB for big-endian)
// and linked with `ld -static -e _start` by scripts/build-fixtures.sh.
// Not meant to run (it would on an arm64 host: _start calls each function
// and exits 0).  PAC instructions are written as their HINT encodings so the
// file assembles with any -march; objdump -d shows them as paciasp etc.
//
//   _start       outermost frame: .cfi_undefined x30 (v3: "RA undefined")
//   leaf         no frame: CFA sp+0, RA in x30 (SFrame: RA/FP "u")
//   nonleaf      stp x29, x30, [sp, #-32]!; mov x29, sp: CFA fp+32,
//                FP c-32, RA c-24
//   pauth_a      paciasp + .cfi_negate_ra_state: mangled-RA rows, A key
//   pauth_b      .cfi_b_key_frame + pacibsp: FDE "pauth = B key"
//   big_frame    sub sp, sp, #4096 after the frame record: CFA sp+4112
//                (2-byte data words)
//   sig_frame    .cfi_signal_frame (v3: attr "S")

	.text

	.globl	_start
	.type	_start, %function
_start:
	.cfi_startproc
	.cfi_undefined x30
	mov	x29, #0
	bl	leaf
	bl	nonleaf
	bl	pauth_a
	bl	pauth_b
	bl	big_frame
	mov	x0, #0
	mov	x8, #93			// exit
	svc	#0
	.cfi_endproc
	.size	_start, .-_start

	.globl	leaf
	.type	leaf, %function
leaf:
	.cfi_startproc
	add	x0, x0, #1
	ret
	.cfi_endproc
	.size	leaf, .-leaf

	.globl	nonleaf
	.type	nonleaf, %function
nonleaf:
	.cfi_startproc
	stp	x29, x30, [sp, #-32]!
	.cfi_def_cfa_offset 32
	.cfi_offset 29, -32
	.cfi_offset 30, -24
	mov	x29, sp
	.cfi_def_cfa_register 29
	str	x19, [sp, #16]
	.cfi_offset 19, -16
	bl	leaf
	ldr	x19, [sp, #16]
	.cfi_restore 19
	ldp	x29, x30, [sp], #32
	.cfi_restore 30
	.cfi_restore 29
	.cfi_def_cfa 31, 0
	ret
	.cfi_endproc
	.size	nonleaf, .-nonleaf

	.globl	pauth_a
	.type	pauth_a, %function
pauth_a:
	.cfi_startproc
	hint	#25			// paciasp
	.cfi_negate_ra_state
	stp	x29, x30, [sp, #-16]!
	.cfi_def_cfa_offset 16
	.cfi_offset 29, -16
	.cfi_offset 30, -8
	mov	x29, sp
	bl	leaf
	ldp	x29, x30, [sp], #16
	.cfi_restore 30
	.cfi_restore 29
	.cfi_def_cfa_offset 0
	hint	#29			// autiasp
	.cfi_negate_ra_state
	ret
	.cfi_endproc
	.size	pauth_a, .-pauth_a

	.globl	pauth_b
	.type	pauth_b, %function
pauth_b:
	.cfi_startproc
	.cfi_b_key_frame
	hint	#27			// pacibsp
	.cfi_negate_ra_state
	stp	x29, x30, [sp, #-16]!
	.cfi_def_cfa_offset 16
	.cfi_offset 29, -16
	.cfi_offset 30, -8
	mov	x29, sp
	bl	leaf
	ldp	x29, x30, [sp], #16
	.cfi_restore 30
	.cfi_restore 29
	.cfi_def_cfa_offset 0
	hint	#31			// autibsp
	.cfi_negate_ra_state
	ret
	.cfi_endproc
	.size	pauth_b, .-pauth_b

	.globl	big_frame
	.type	big_frame, %function
big_frame:
	.cfi_startproc
	stp	x29, x30, [sp, #-16]!
	.cfi_def_cfa_offset 16
	.cfi_offset 29, -16
	.cfi_offset 30, -8
	sub	sp, sp, #4096
	.cfi_def_cfa_offset 4112
	bl	leaf
	add	sp, sp, #4096
	.cfi_def_cfa_offset 16
	ldp	x29, x30, [sp], #16
	.cfi_restore 30
	.cfi_restore 29
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
	.size	big_frame, .-big_frame

// Like the kernel's sigreturn trampoline: never called.
	.globl	sig_frame
	.type	sig_frame, %function
	nop
sig_frame:
	.cfi_startproc
	.cfi_signal_frame
	.cfi_def_cfa_offset 4112
	.cfi_offset 29, -16
	.cfi_offset 30, -8
	mov	x8, #139		// rt_sigreturn
	svc	#0
	.cfi_endproc
	.size	sig_frame, .-sig_frame

	.section .note.GNU-stack,"",%progbits
