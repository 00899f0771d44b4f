# clang 22 -O2 -fno-omit-frame-pointer, SQLite's jsonCreateEditSubstructure:
# shrink-wrapping lets an early `ja` reach the final `ret` before the frame
# is built, but the CFI is linear, so at the shared `ret` it still says rbp
# at c-16 (clang emits no .cfi_restore after the `pop %rbp`). On the early
# path nothing was saved there: an unwinder would load the caller's rbp
# from the slot below the RA.
	.text
	.globl	f
	.type	f, @function
f:
	.cfi_startproc
	cmp	$999, %ecx
	ja	.Lret
	push	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, -16
	mov	%rsp, %rbp
	.cfi_def_cfa_register %rbp
	call	g
	pop	%rbp
	.cfi_def_cfa %rsp, 8
.Lret:
	ret
	.cfi_endproc
	.size	f, .-f
g:	ret
	.section .note.GNU-stack,"",@progbits
