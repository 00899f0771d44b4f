# Annotation fault 5: an epilogue in the middle of the function (an early
# return) with no .cfi_def_cfa_offset / .cfi_restore after its pop: at its
# ret, CFI still says CFA=rsp+16 with rbx at CFA-16.
	.text
	.globl	midret_norestore
	.type	midret_norestore, @function
midret_norestore:
	.cfi_startproc
	push	%rbx
	.cfi_def_cfa_offset 16
	.cfi_offset %rbx, -16
	test	%rdi, %rdi
	jne	.Lmore
	.cfi_remember_state
	pop	%rbx
midret_norestore.fault:
	ret
	.cfi_restore_state
.Lmore:
	mov	%rdi, %rbx
	imul	%rbx, %rbx
	mov	%rbx, %rax
	pop	%rbx
	.cfi_def_cfa_offset 8
	.cfi_restore %rbx
	ret
	.cfi_endproc
	.size	midret_norestore, .-midret_norestore
	.section .note.GNU-stack,"",@progbits
