# musl 1.2.3 src/math/x86_64/expl.s, CFI from tools/add-cfi.x86_64.awk:
# the awk matches "sub $N,%rsp" and "subl", not "subq", so
# "subq $48,%rsp" gets no .cfi_adjust_cfa_offset (CFA stays rsp+8; the
# later pushes are counted from there).
	.text
	.globl	expl
	.type	expl, @function
expl:
	.cfi_startproc
	fldl2e
	subq	$48, %rsp
	fstpt	(%rsp)
	call	exp2l@PLT
	push	%rax
	.cfi_adjust_cfa_offset 8
	fldt	(%rsp)
	add	$56, %rsp
	.cfi_adjust_cfa_offset -56
	ret
	.cfi_endproc
