# known-faults-x86_64.s - the CFI patterns of the GNU as SFrame faults
# sfdbg knows (compare/known_faults.json), one function each:
#   cfa_r12           CFA based on r12 (GNU as 2.40 writes it as SP-based;
#                     2.44 and later skip the function)
#   setcontext_like   glibc setcontext's CFI: CFA = rdx, RA at CFA+168
#                     (GNU as 2.47.50 keeps 168 in a 1-byte FLEX data word)
#   defreg_after_off  .cfi_def_cfa_offset then .cfi_def_cfa_register at
#                     one PC (GNU as 2.40-2.47.50 keep the old offset)
# Built by scripts/build-known-fault-fixtures.sh.
	.text
	.globl cfa_r12
	.type cfa_r12,@function
cfa_r12:
	.cfi_startproc
	pushq %r12
	.cfi_def_cfa_offset 16
	.cfi_offset %r12, -16
	movq %rsp, %r12
	.cfi_def_cfa_register %r12
	nop
	nop
	popq %r12
	.cfi_def_cfa %rsp, 8
	ret
	.cfi_endproc
	.size cfa_r12, .-cfa_r12

	.globl setcontext_like
	.type setcontext_like,@function
setcontext_like:
	.cfi_startproc
	nop
	movq %rdi, %rdx
	.cfi_def_cfa %rdx, 0
	.cfi_offset %rbx, 128
	.cfi_offset %rbp, 120
	.cfi_offset %rip, 168
	movq 160(%rdx), %rsp
	nop
	ret
	.cfi_endproc
	.size setcontext_like, .-setcontext_like

	.globl defreg_after_off
	.type defreg_after_off,@function
defreg_after_off:
	.cfi_startproc
	pushq %rbp
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, -16
	movq %rsp, %rbp
	nop
	.cfi_def_cfa_offset 24
	.cfi_def_cfa_register %rbp
	nop
	nop
	leave
	.cfi_def_cfa %rsp, 8
	ret
	.cfi_endproc
	.size defreg_after_off, .-defreg_after_off
	.section .note.GNU-stack,"",@progbits
