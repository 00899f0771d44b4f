# Two false findings of a stripped program (vim, qemu, python3.11 of the
# host: 45,000 code-state findings on 60 programs of /usr/bin), made from
# GCC 12 -O2 output of a small C file:
# - work's cold part has no symbol (strip removes work.cold): the jump
#   into it is not a tail call, and the part is not entered by a call;
# - check calls fatal_error, which does not return and which no name list
#   knows, followed by padding and a block its jumps enter with another
#   state (GCC placed it so: qemu's g_assertion_message_expr@plt).
# (4) is at the end.
# Rebuild: as --gsframe -o stripped_cold_noreturn.o stripped_cold_noreturn.s
	.file	"fx.c"
	.text
	.section	.rodata.str1.1,"aMS",@progbits,1
.LC0:
	.string	"%s %d\n"
	.section	.text.unlikely,"ax",@progbits
	.globl	report
	.type	report, @function
report:
.LFB11:
	.cfi_startproc
	movq	%rdi, %rdx
	movq	stderr(%rip), %rdi
	movl	%esi, %ecx
	xorl	%eax, %eax
	leaq	.LC0(%rip), %rsi
	jmp	fprintf@PLT
	.cfi_endproc
.LFE11:
	.size	report, .-report
	.section	.rodata.str1.1
.LC3:
	.string	"bad"
.LC4:
	.string	"again"
.LC5:
	.string	"cold path"
	.section	.text.unlikely
.LCOLDB6:
	.text
.LHOTB6:
	.p2align 4
	.globl	work
	.type	work, @function
work:
.LFB12:
	.cfi_startproc
	pushq	%rbx
	.cfi_def_cfa_offset 16
	.cfi_offset 3, -16
	movd	%edi, %xmm7
	movl	%esi, %ebx
	pshufd	$0, %xmm7, %xmm3
	movd	%esi, %xmm7
	movdqa	%xmm3, %xmm4
	pshufd	$0, %xmm7, %xmm6
	subq	$64, %rsp
	.cfi_def_cfa_offset 80
	movdqa	.LC1(%rip), %xmm2
	psrlq	$32, %xmm4
	movdqa	.LC2(%rip), %xmm5
	movq	%rsp, %rax
	leaq	64(%rsp), %rdx
.L3:
	movdqa	%xmm2, %xmm0
	addq	$16, %rax
	paddd	%xmm5, %xmm2
	movdqa	%xmm0, %xmm1
	psrlq	$32, %xmm0
	pmuludq	%xmm3, %xmm1
	pmuludq	%xmm4, %xmm0
	pshufd	$8, %xmm1, %xmm1
	pshufd	$8, %xmm0, %xmm0
	punpckldq	%xmm0, %xmm1
	movdqa	%xmm1, %xmm0
	paddd	%xmm6, %xmm0
	movaps	%xmm0, -16(%rax)
	cmpq	%rax, %rdx
	jne	.L3
	cmpl	$12345, 12(%rsp)
	je	.L7
	andl	$15, %edi
	movl	(%rsp,%rdi,4), %eax
	leal	(%rax,%rax,2), %eax
.L2:
	addq	$64, %rsp
	.cfi_def_cfa_offset 16
	popq	%rbx
	.cfi_def_cfa_offset 8
	ret
	.cfi_endproc
	.section	.text.unlikely
	.cfi_startproc
.LFSB12:
.L7:
	.cfi_def_cfa_offset 80
	.cfi_offset 3, -16
	movl	%edi, %esi
	leaq	.LC3(%rip), %rdi
	call	report
	movl	%ebx, %esi
	leaq	.LC4(%rip), %rdi
	call	report
	movl	20(%rsp), %ebx
	leaq	.LC5(%rip), %rdi
	call	puts@PLT
	addl	%ebx, %eax
	jmp	.L2
	.cfi_endproc
.LFE12:
	.text
	.size	work, .-work
	.section	.text.unlikely
.LCOLDE6:
	.text
.LHOTE6:
	.section	.rodata.str1.1
.LC7:
	.string	"unequal"
	.text
	.p2align 4
	.globl	check
	.type	check, @function
check:
.LFB13:
	.cfi_startproc
	testq	%rdi, %rdi
	je	.L12
	movq	8(%rsi), %rax
	cmpq	%rax, 8(%rdi)
	je	.L13
	movq	(%rsi), %rax
	cmpq	%rax, (%rdi)
	jge	.L18
	movl	$1, %eax
	ret
	.p2align 4,,10
	.p2align 3
.L12:
	xorl	%eax, %eax
	ret
	.p2align 4,,10
	.p2align 3
.L18:
	pushq	%rax
	.cfi_def_cfa_offset 16
	leaq	.LC7(%rip), %rdi
	call	fatal_error@PLT
	.cfi_def_cfa_offset 8
	nopl	0(%rax)
.L13:
	movl	$2, %eax
	ret
	.cfi_endproc
.LFE13:
	.size	check, .-check
	.section	.rodata.cst16,"aM",@progbits,16
	.align 16
.LC1:
	.long	0
	.long	1
	.long	2
	.long	3
	.align 16
.LC2:
	.long	4
	.long	4
	.long	4
	.long	4
	.ident	"GCC: (Debian 12.2.0-14+deb12u1) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
# (4) a call to a static function that does not return and that no
# symbol names (lto-dump's fancy_abort wrappers, stripped): GCC resets the
# CFA after the call, and the code there is dead.
	.text
	.p2align 4
.Lfatal_wrapper:
	.cfi_startproc
	pushq	%rax
	.cfi_def_cfa_offset 16
	movl	$1, %edi
	call	exit@PLT
	.cfi_endproc
	.p2align 4
	.globl	check_fatal
	.type	check_fatal, @function
check_fatal:
	.cfi_startproc
	testq	%rdi, %rdi
	je	.Lbad
	movl	$2, %eax
	ret
.Lbad:
	pushq	%rax
	.cfi_def_cfa_offset 16
	call	.Lfatal_wrapper
	.cfi_def_cfa_offset 8
	movq	8, %rax
	ud2
	.cfi_endproc
	.size	check_fatal, .-check_fatal
