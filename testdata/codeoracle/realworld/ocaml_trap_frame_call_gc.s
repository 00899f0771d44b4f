# OCaml 4.14 (Debian 12's why3, coccinelle, opam, hevea, menhir): inside a
# `try`, the trap frame (handler address, previous trap pointer: 16 bytes)
# is on the stack, but the CFI of the caml_call_gc site that ocamlopt
# emits after the function's last `ret` says the function's own frame size.
# From camlWhy3__Util__all_140 (Debian's why3 1.5.1, isabelle_client).
	.text
	.globl	camlX__all
	.type	camlX__all, @function
camlX__all:
	.cfi_startproc
	subq	$8, %rsp
	.cfi_adjust_cfa_offset 8
	leaq	.Lhandler(%rip), %r11
	pushq	%r11
	.cfi_adjust_cfa_offset 8
	pushq	16(%r14)
	.cfi_adjust_cfa_offset 8
	movq	%rsp, 16(%r14)
	subq	$48, %r15
	cmpq	(%r14), %r15
	jb	.Lgc
.Lback:
	call	caml_apply3@PLT
	popq	16(%r14)
	.cfi_adjust_cfa_offset -8
	addq	$8, %rsp
	.cfi_adjust_cfa_offset -8
	addq	$8, %rsp
	.cfi_adjust_cfa_offset -8
	ret
	.cfi_adjust_cfa_offset 8
.Lhandler:
	movl	$1, %eax
	addq	$8, %rsp
	.cfi_adjust_cfa_offset -8
	ret
	.cfi_adjust_cfa_offset 8
.Lgc:
	call	caml_call_gc@PLT
	jmp	.Lback
	.cfi_endproc
	.size	camlX__all, .-camlX__all
