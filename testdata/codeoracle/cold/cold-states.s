# A cold part that its hot part enters from two states that differ in a
# scratch register only (rax holds a copy of SP on the second path), as
# Debian 12's python3.11 enters _PyMem_RawWcsdup.cold from a jb and two
# jmps: the same frame, so its CFI is judged against it. Linked and
# stripped (scripts/build-cold-fixture.sh): no symbol names the cold part.
	.text
	.globl	_start
	.type	_start, @function
_start:
	.cfi_startproc
	push	%rbx
	.cfi_def_cfa_offset 16
	.cfi_offset %rbx, -16
	sub	$16, %rsp
	.cfi_def_cfa_offset 32
	test	%edi, %edi
	js	.Lcold
	mov	%rsp, %rax
	cmp	$5, %edi
	je	.Lcold
.Lback:
	add	$16, %rsp
	.cfi_def_cfa_offset 16
	pop	%rbx
	.cfi_def_cfa_offset 8
	ret
	.cfi_endproc
	.size	_start, .-_start

	.section .text.unlikely,"ax",@progbits
.Lcold:
	.cfi_startproc
	.cfi_def_cfa_offset 32
	.cfi_offset %rbx, -16
	xor	%eax, %eax
	jmp	.Lback
	.cfi_endproc
	.section .note.GNU-stack,"",@progbits
