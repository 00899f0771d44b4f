# verify-faults-x86_64.s - functions whose CFI (and the SFrame GNU as makes
# from it with --gsframe) is wrong at known instructions, called in a loop by
# verify-faults.c: the fixture of `sfdbg verify` (ground truth by execution).
# Each fault is at a labelled instruction, so the test can ask for its PC.
#
#   missing_adjust  push %rbx without .cfi_adjust_cfa_offset: from
#                   vf_missing_after_push to the pop, CFI and SFrame say
#                   CFA=rsp+8 where it is rsp+16.
#   late_restore    the pop's .cfi_adjust_cfa_offset -8 placed before it:
#                   at vf_late_pop (the pop itself) both say CFA=rsp+8 where
#                   it is rsp+16.
#   clean_leaf      right annotations: nothing may be found in it.
#   wrong_at_call   push %rbx without its adjust, then a call to clean_leaf:
#                   wrong at every instruction from vf_call_after_push to the
#                   pop, and, seen from clean_leaf, at the caller frame whose
#                   return address is vf_call_return.
	.text
	.globl	missing_adjust
	.type	missing_adjust, @function
missing_adjust:
	.cfi_startproc
	push	%rbx
	.globl	vf_missing_after_push
vf_missing_after_push:
	lea	1(%rdi), %rbx
	mov	%rbx, %rax
	pop	%rbx
	ret
	.cfi_endproc
	.size	missing_adjust, .-missing_adjust

	.globl	late_restore
	.type	late_restore, @function
late_restore:
	.cfi_startproc
	push	%rbx
	.cfi_adjust_cfa_offset 8
	.cfi_offset %rbx, -16
	lea	2(%rdi), %rbx
	mov	%rbx, %rax
	.cfi_adjust_cfa_offset -8
	.globl	vf_late_pop
vf_late_pop:
	pop	%rbx
	.cfi_restore %rbx
	ret
	.cfi_endproc
	.size	late_restore, .-late_restore

	.globl	clean_leaf
	.type	clean_leaf, @function
clean_leaf:
	.cfi_startproc
	push	%rbp
	.cfi_adjust_cfa_offset 8
	.cfi_offset %rbp, -16
	mov	%rsp, %rbp
	.cfi_def_cfa_register %rbp
	lea	3(%rdi), %rax
	pop	%rbp
	.cfi_def_cfa %rsp, 8
	ret
	.cfi_endproc
	.size	clean_leaf, .-clean_leaf
	.globl	wrong_at_call
	.type	wrong_at_call, @function
wrong_at_call:
	.cfi_startproc
	push	%rbx
	.globl	vf_call_after_push
vf_call_after_push:
	mov	%rdi, %rbx
	call	clean_leaf
	.globl	vf_call_return
vf_call_return:
	add	%rbx, %rax
	pop	%rbx
	ret
	.cfi_endproc
	.size	wrong_at_call, .-wrong_at_call
	.section	.note.GNU-stack,"",@progbits
