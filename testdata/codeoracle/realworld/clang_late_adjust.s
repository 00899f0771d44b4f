# clang 22 -O2, SQLite's sqlite3Select and sqlite3GenerateConstraintChecks:
# `pushq 8(%rsp)` (and `push %r15` before a call) is followed by another
# instruction before its .cfi_adjust_cfa_offset 8, so at that instruction
# CFI and SFrame both say CFA=rsp+16 while the code has rsp+24. (clang's own
# .s output shows `pushq 8(%rsp); movq 128(%rsp),%r14; .cfi_adjust_cfa_offset 8`.)
	.text
	.globl	f
	.type	f, @function
f:
	.cfi_startproc
	push	%rbx
	.cfi_def_cfa_offset 16
	.cfi_offset %rbx, -16
	pushq	8(%rsp)
	movq	16(%rsp), %rbx
	.cfi_adjust_cfa_offset 8
	call	g
	add	$8, %rsp
	.cfi_adjust_cfa_offset -8
	pop	%rbx
	.cfi_def_cfa_offset 8
	ret
	.cfi_endproc
	.size	f, .-f
g:	ret
	.section .note.GNU-stack,"",@progbits
