# diff-split.s - for sfdbg diff (compare/diff_test.go): the same rules,
# split differently by GNU as and clang.  After `.cfi_restore 3` (rbx,
# which SFrame does not track) GNU as 2.47.50 starts an FRE whose rules
# equal the one before; clang 22 does not.  Reduced from SQLite's
# pcache1Free (gcc -O2).
	.text
	.globl	split_restore
	.type	split_restore, @function
split_restore:
	.cfi_startproc
	testq	%rdi, %rdi
	je	.Lzero
	pushq	%rbx
	.cfi_def_cfa_offset 16
	.cfi_offset 3, -16
	movq	%rdi, %rbx
	cmpq	$64, %rdi
	jb	.Lsmall
	popq	%rbx
	.cfi_remember_state
	.cfi_restore 3
	.cfi_def_cfa_offset 8
	jmp	free
.Lsmall:
	.cfi_restore_state
	movq	%rbx, %rax
	popq	%rbx
	.cfi_def_cfa_offset 8
	ret
.Lzero:
	.cfi_restore 3
	ret
	.cfi_endproc
	.size	split_restore, .-split_restore
	.section .note.GNU-stack,"",@progbits
