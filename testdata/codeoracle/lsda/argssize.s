# A landing pad entered from a call with two arguments pushed: the CFI
# says DW_CFA_GNU_args_size 16 at the call, and the unwinder pops those 16
# bytes before the pad (libgcc's uw_install_context), whose CFI is then
# CFA=rsp+32, not rsp+48. The pattern of LLVM's push-based calls in Rust
# (Debian 12's ripgrep, rav1e, librsvg).
	.text
	.globl	f
	.type	f, @function
f:
	.cfi_startproc
	.cfi_personality 0x9b, DW.ref.__gxx_personality_v0
	.cfi_lsda 0x1b, .LLSDA
	pushq	%rbx
	.cfi_def_cfa_offset 16
	.cfi_offset %rbx, -16
	subq	$16, %rsp
	.cfi_def_cfa_offset 32
	pushq	%rax
	.cfi_adjust_cfa_offset 8
	pushq	%rdi
	.cfi_adjust_cfa_offset 8
	.cfi_escape 0x2e, 0x10
.LcallB:
	call	take8@PLT
.LcallE:
	addq	$16, %rsp
	.cfi_adjust_cfa_offset -16
	.cfi_escape 0x2e, 0x00
	addq	$16, %rsp
	.cfi_def_cfa_offset 16
	popq	%rbx
	.cfi_def_cfa_offset 8
	ret
.Lpad:
	.cfi_def_cfa_offset 32
	movq	%rax, %rdi
	call	_Unwind_Resume@PLT
	.cfi_endproc
	.size	f, .-f

	.section .gcc_except_table,"a",@progbits
.LLSDA:
	.byte	0xff
	.byte	0xff
	.byte	0x01
	.uleb128 .LcsEnd-.LcsBegin
.LcsBegin:
	.uleb128 .LcallB-f
	.uleb128 .LcallE-.LcallB
	.uleb128 .Lpad-f
	.uleb128 0
.LcsEnd:
	.hidden	DW.ref.__gxx_personality_v0
	.weak	DW.ref.__gxx_personality_v0
	.section .data.rel.local.DW.ref.__gxx_personality_v0,"awG",@progbits,DW.ref.__gxx_personality_v0,comdat
	.align 8
	.type	DW.ref.__gxx_personality_v0, @object
	.size	DW.ref.__gxx_personality_v0, 8
DW.ref.__gxx_personality_v0:
	.quad	__gxx_personality_v0
