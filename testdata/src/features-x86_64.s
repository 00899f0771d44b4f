# features-x86_64.s - hand-written x86-64 functions with CFI that exercise
# SFrame format features.  Assembled with `as --gsframe` and linked with
# `ld -static -nostdlib` (entry _start) by scripts/build-fixtures.sh, once
# per binutils version.  The program runs: _start calls each function once
# and exits 0 (./features-vN; echo $? prints 0).
#
#   _start           outermost frame: .cfi_undefined rip (v3: "RA undefined")
#   flex_drap        gcc's DRAP stack-realignment prologue/epilogue:
#                    CFA = r10+0, then CFA = *(rbp-8); v3 emits a flexible
#                    FDE (attr "F"); v2 skips the function with a warning
#   sig_trampoline   .cfi_signal_frame (v3: attr "S")
#   fp_frame         classic push %rbp; mov %rsp,%rbp frame: CFA fp+16, FP c-16
#   remember_state   .cfi_remember_state/.cfi_restore_state around an early
#                    return: rows go back to an earlier CFA
#   big_cfa16        sub $4096,%rsp: CFA sp+4112, needs 2-byte data words
#   big_cfa32        sub $0x20000,%rsp: CFA sp+131088, needs 4-byte data words
#   big_addr2        > 255 bytes with CFI changes past byte 255: FRE start
#                    addresses need 2 bytes (SFRAME_FRE_TYPE_ADDR2)
#   big_addr4        > 65535 bytes (.skip 70000): FRE start addresses need
#                    4 bytes (SFRAME_FRE_TYPE_ADDR4)
#   leaf             a leaf with no frame at all: CFA sp+8

	.text

	.globl	_start
	.type	_start, @function
_start:
	.cfi_startproc
	.cfi_undefined rip
	xorl	%ebp, %ebp
	andq	$-16, %rsp
	call	flex_drap
	call	fp_frame
	movl	$1, %edi
	call	remember_state
	call	big_cfa16
	call	big_cfa32
	call	big_addr2
	call	big_addr4
	call	leaf
	movl	$60, %eax		# exit(0)
	xorl	%edi, %edi
	syscall
	hlt
	.cfi_endproc
	.size	_start, .-_start

# gcc -O2 output for a function with a 64-byte aligned local and an alloca:
# the dynamic realignment argument pointer (DRAP) lives in %r10.
	.globl	flex_drap
	.type	flex_drap, @function
flex_drap:
	.cfi_startproc
	leaq	8(%rsp), %r10
	.cfi_def_cfa %r10, 0
	andq	$-64, %rsp
	pushq	-8(%r10)
	pushq	%rbp
	movq	%rsp, %rbp
	.cfi_escape 0x10,0x6,0x2,0x76,0		# DW_CFA_expression rbp: DW_OP_breg6 0
	pushq	%r10
	.cfi_escape 0xf,0x3,0x76,0x78,0x6	# DW_CFA_def_cfa_expression: DW_OP_breg6 -8; DW_OP_deref
	pushq	%rbx
	subq	$96, %rsp
	.cfi_escape 0x10,0x3,0x2,0x76,0x70	# DW_CFA_expression rbx: DW_OP_breg6 -16
	call	leaf
	leaq	-16(%rbp), %rsp
	popq	%rbx
	popq	%r10
	.cfi_def_cfa %r10, 0
	popq	%rbp
	leaq	-8(%r10), %rsp
	.cfi_def_cfa %rsp, 8
	ret
	.cfi_endproc
	.size	flex_drap, .-flex_drap

# Like the kernel-entered __restore_rt: never called, CFA far up the stack.
	.globl	sig_trampoline
	.type	sig_trampoline, @function
	nop				# as with glibc, the FDE starts one byte early
sig_trampoline:
	.cfi_startproc
	.cfi_signal_frame
	.cfi_def_cfa_offset 160
	movq	$15, %rax		# rt_sigreturn
	syscall
	.cfi_endproc
	.size	sig_trampoline, .-sig_trampoline

	.globl	fp_frame
	.type	fp_frame, @function
fp_frame:
	.cfi_startproc
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, -16
	movq	%rsp, %rbp
	.cfi_def_cfa_register %rbp
	pushq	%rbx
	subq	$24, %rsp
	.cfi_offset %rbx, -24
	call	leaf
	movq	-8(%rbp), %rbx
	leave
	.cfi_def_cfa %rsp, 8
	ret
	.cfi_endproc
	.size	fp_frame, .-fp_frame

	.globl	remember_state
	.type	remember_state, @function
remember_state:
	.cfi_startproc
	pushq	%rbx
	.cfi_def_cfa_offset 16
	.cfi_offset %rbx, -16
	testl	%edi, %edi
	jne	1f
	popq	%rbx
	.cfi_remember_state
	.cfi_def_cfa_offset 8
	ret
1:
	.cfi_restore_state
	subq	$32, %rsp
	.cfi_def_cfa_offset 48
	call	leaf
	addq	$32, %rsp
	.cfi_def_cfa_offset 16
	popq	%rbx
	.cfi_def_cfa_offset 8
	ret
	.cfi_endproc
	.size	remember_state, .-remember_state

	.globl	big_cfa16
	.type	big_cfa16, @function
big_cfa16:
	.cfi_startproc
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, -16
	subq	$4096, %rsp
	.cfi_def_cfa_offset 4112
	call	leaf
	addq	$4096, %rsp
	.cfi_def_cfa_offset 16
	popq	%rbp
	.cfi_def_cfa_offset 8
	ret
	.cfi_endproc
	.size	big_cfa16, .-big_cfa16

	.globl	big_cfa32
	.type	big_cfa32, @function
big_cfa32:
	.cfi_startproc
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, -16
	subq	$0x20000, %rsp
	.cfi_def_cfa_offset 0x20010
	call	leaf
	addq	$0x20000, %rsp
	.cfi_def_cfa_offset 16
	popq	%rbp
	.cfi_def_cfa_offset 8
	ret
	.cfi_endproc
	.size	big_cfa32, .-big_cfa32

	.globl	big_addr2
	.type	big_addr2, @function
big_addr2:
	.cfi_startproc
	pushq	%rbx
	.cfi_def_cfa_offset 16
	.cfi_offset %rbx, -16
	.skip	300, 0x90		# nops
	pushq	%r12
	.cfi_def_cfa_offset 24
	.cfi_offset %r12, -24
	call	leaf
	popq	%r12
	.cfi_def_cfa_offset 16
	popq	%rbx
	.cfi_def_cfa_offset 8
	ret
	.cfi_endproc
	.size	big_addr2, .-big_addr2

	.globl	big_addr4
	.type	big_addr4, @function
big_addr4:
	.cfi_startproc
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, -16
	movq	%rsp, %rbp
	.cfi_def_cfa_register %rbp
	.skip	70000, 0x90		# nops
	call	leaf
	popq	%rbp
	.cfi_def_cfa %rsp, 8
	ret
	.cfi_endproc
	.size	big_addr4, .-big_addr4

	.globl	leaf
	.type	leaf, @function
leaf:
	.cfi_startproc
	xorl	%eax, %eax
	ret
	.cfi_endproc
	.size	leaf, .-leaf

	.section .note.GNU-stack,"",@progbits
