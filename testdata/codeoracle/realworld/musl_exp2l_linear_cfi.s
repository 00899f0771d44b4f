# musl 1.2.3 src/math/x86_64/exp2l.s (also clone.s), CFI from
# tools/add-cfi.x86_64.awk: the awk follows the text, not the branches.
# The block after the first "ret" is reached by "jae 3f" with 16 bytes
# still allocated, but its CFI continues from the state after
# "add $16,%rsp", so it says CFA=rsp+8 (and rsp-8 at its own ret).
	.text
	.globl	exp2l
	.type	exp2l, @function
exp2l:
	.cfi_startproc
	sub	$16, %rsp
	.cfi_adjust_cfa_offset 16
	fstpt	(%rsp)
	mov	8(%rsp), %ax
	cmp	$0x400e, %ax
	jae	3f
	add	$16, %rsp
	.cfi_adjust_cfa_offset -16
	ret
3:	xor	%eax, %eax
	fistl	8(%rsp)
	add	$16, %rsp
	.cfi_adjust_cfa_offset -16
	ret
	.cfi_endproc
