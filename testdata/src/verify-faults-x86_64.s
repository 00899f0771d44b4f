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
	.section	.note.GNU-stack,"",@progbits
