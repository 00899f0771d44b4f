# Annotation fault 7: a jump into another function's FDE, past its start,
# with another frame than that FDE's CFI says there (the check of
# gperftools' unwind-check: Qt's QOpenGLTexture::allocateStorage jumps at
# CFA=rsp+16 into an FDE that declares rsp+96). At the jump the code has
# CFA=rsp+16; the target's row says rsp+32, so an unwinder stopped at the
# shared tail reads the caller's frame 16 bytes off.
	.text
	.globl	jump_into_fde
	.type	jump_into_fde, @function
jump_into_fde:
	.cfi_startproc
	push	%rbx
	.cfi_def_cfa_offset 16
	.cfi_offset %rbx, -16
	mov	%rdi, %rbx
jump_into_fde.fault:
	jmp	jump_into_fde_shared
	.cfi_endproc
	.size	jump_into_fde, .-jump_into_fde

	.globl	jump_into_fde_target
	.type	jump_into_fde_target, @function
jump_into_fde_target:
	.cfi_startproc
	push	%rbx
	.cfi_def_cfa_offset 16
	.cfi_offset %rbx, -16
	sub	$16, %rsp
	.cfi_def_cfa_offset 32
jump_into_fde_shared:
	mov	%rbx, %rax
	add	$16, %rsp
	.cfi_def_cfa_offset 16
	pop	%rbx
	.cfi_def_cfa_offset 8
	.cfi_restore %rbx
	ret
	.cfi_endproc
	.size	jump_into_fde_target, .-jump_into_fde_target
	.section .note.GNU-stack,"",@progbits
