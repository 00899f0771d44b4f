# Clean: a switch through a jump table in .rodata (absolute addresses)
# with a frame set up, every case returning through one epilogue, and a
# conditional tail call from the entry state.
	.text
	.type	clean_jumptable_other, @function
clean_jumptable_other:
	.cfi_startproc
	xor	%eax, %eax
	ret
	.cfi_endproc
	.size	clean_jumptable_other, .-clean_jumptable_other

	.globl	clean_jumptable
	.type	clean_jumptable, @function
clean_jumptable:
	.cfi_startproc
	cmp	$100, %rdi
	ja	clean_jumptable_other
	push	%rbx
	.cfi_def_cfa_offset 16
	.cfi_offset %rbx, -16
	mov	%rsi, %rbx
	cmp	$3, %rdi
	ja	.Ldefault
	jmp	*clean_jumptable.table(,%rdi,8)
.Lcase0:
	lea	1(%rbx), %rax
	jmp	.Lout
.Lcase1:
	lea	2(%rbx), %rax
	jmp	.Lout
.Lcase2:
	push	%r12
	.cfi_adjust_cfa_offset 8
	.cfi_offset %r12, -24
	mov	%rbx, %r12
	lea	3(%r12), %rax
	pop	%r12
	.cfi_adjust_cfa_offset -8
	.cfi_restore %r12
	jmp	.Lout
.Lcase3:
.Ldefault:
	xor	%eax, %eax
.Lout:
	pop	%rbx
	.cfi_def_cfa_offset 8
	.cfi_restore %rbx
	ret
	.cfi_endproc
	.size	clean_jumptable, .-clean_jumptable

	.section .rodata
	.align 8
	.type	clean_jumptable.table, @object
clean_jumptable.table:
	.quad	.Lcase0, .Lcase1, .Lcase2, .Lcase3
	.size	clean_jumptable.table, .-clean_jumptable.table
	.section .note.GNU-stack,"",@progbits
