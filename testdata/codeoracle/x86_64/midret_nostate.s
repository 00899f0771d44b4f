# Annotation fault 5b: a correct early-return epilogue in the middle of the
# function, but without .cfi_remember_state / .cfi_restore_state around
# it: the code after it, reached by the jne with the frame still set up,
# has CFI that says CFA=rsp+8 and rbx in place.
	.text
	.globl	midret_nostate
	.type	midret_nostate, @function
midret_nostate:
	.cfi_startproc
	push	%rbx
	.cfi_def_cfa_offset 16
	.cfi_offset %rbx, -16
	test	%rdi, %rdi
	jne	midret_nostate.fault
	pop	%rbx
	.cfi_def_cfa_offset 8
	.cfi_restore %rbx
	ret
midret_nostate.fault:
	mov	%rdi, %rbx
	imul	%rbx, %rbx
	mov	%rbx, %rax
	pop	%rbx
	ret
	.cfi_endproc
	.size	midret_nostate, .-midret_nostate
	.section .note.GNU-stack,"",@progbits
