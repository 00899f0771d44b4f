# The CFA on a register the code never set: .cfi_def_cfa_register %rbx
# where the frame is on rbp. rbx still holds the caller's value: no DRAP
# (a DRAP register is set from SP before the stack is realigned), so the
# rule is a fault, not a rule the code oracle cannot judge. A GCC-style
# DRAP prologue (r10 set from SP, then and $-16,%rsp) is judged as before.
	.text
	.globl	f
	.type	f, @function
f:
	.cfi_startproc
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, -16
	movq	%rsp, %rbp
	.cfi_def_cfa_register %rbx
	call	g@PLT
	popq	%rbp
	.cfi_def_cfa %rsp, 8
	ret
	.cfi_endproc
	.size	f, .-f

	.globl	drap
	.type	drap, @function
drap:
	.cfi_startproc
	leaq	8(%rsp), %r10
	.cfi_def_cfa %r10, 0
	andq	$-16, %rsp
	pushq	-8(%r10)
	pushq	%rbp
	movq	%rsp, %rbp
	call	g@PLT
	movq	%rbp, %rsp
	popq	%rbp
	leaq	-8(%r10), %rsp
	.cfi_def_cfa %rsp, 8
	ret
	.cfi_endproc
	.size	drap, .-drap
