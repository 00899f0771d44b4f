# peers-x86_64.s - what the producers' own SFrame test suites build and
# intend (binutils gas/ld testsuites, issue 19), in functions of our own:
#   plain        an ordinary frame-pointer prologue and epilogue
#   sigtramp     a .cfi_signal_frame function whose CFA is a DWARF
#                expression: GNU as writes an FDE marked "S" with no FREs
#                (SFrame cannot describe it), on purpose
#   cfi_at_end   a .cfi_* directive after the last instruction: GNU as
#                writes an FRE that starts at the function's end
# Assembled with as --gsframe (2.47.50); scripts/build-peer-fixtures.sh.
	.text
	.globl plain
	.type plain, @function
plain:
	.cfi_startproc
	pushq %rbp
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, -16
	movq %rsp, %rbp
	.cfi_def_cfa_register %rbp
	call cfi_at_end
	popq %rbp
	.cfi_def_cfa %rsp, 8
	ret
	.cfi_endproc
	.size plain, .-plain

	.globl sigtramp
	.type sigtramp, @function
sigtramp:
	.cfi_startproc
	.cfi_signal_frame
	# DW_CFA_def_cfa_expression: DW_OP_breg7 (rsp) 160, DW_OP_deref
	.cfi_escape 0x0f, 0x04, 0x77, 0xa0, 0x01, 0x06
	nop
	movq $15, %rax
	syscall
	.cfi_endproc
	.size sigtramp, .-sigtramp

	.type cfi_at_end, @function
cfi_at_end:
	.cfi_startproc
	pushq %rbx
	.cfi_def_cfa_offset 16
	.cfi_offset %rbx, -16
	popq %rbx
	ret
	.cfi_def_cfa_offset 8
	.cfi_endproc
	.size cfi_at_end, .-cfi_at_end
