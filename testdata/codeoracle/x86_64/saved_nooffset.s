# Annotation fault 3: a saved register (rbp, used as a general register)
# pushed with no .cfi_offset: CFI says rbp keeps its value, the code has
# saved it at CFA-16 and then overwrites it: from there on CFI is wrong
# (before, rbp still holds the caller's value, so "same value" is right).
	.text
	.globl	saved_nooffset
	.type	saved_nooffset, @function
saved_nooffset:
	.cfi_startproc
	push	%rbp
	.cfi_def_cfa_offset 16
	mov	%rdi, %rbp
saved_nooffset.fault:
	imul	%rbp, %rbp
	mov	%rbp, %rax
	pop	%rbp
	.cfi_def_cfa_offset 8
	ret
	.cfi_endproc
	.size	saved_nooffset, .-saved_nooffset
	.section .note.GNU-stack,"",@progbits
