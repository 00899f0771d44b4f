# musl 1.2.3 src/signal/x86_64/sigsetjmp.s, CFI by tools/add-cfi.x86_64.awk:
# "pop 0x40(%rdi)" moves the RA into the jmp_buf and "call" then writes its
# own return address to the freed slot; the CFI still says RA=c-8 there
# until "push 0x40(%rbx)" puts the RA back. (From the push on the CFI is
# right again, and the oracle's code-ra there is false:
# false-findings/ra_popped_to_reg.s; this copy stops before the push.)
	.text
	.globl	sigsetjmp
	.type	sigsetjmp, @function
sigsetjmp:
	.cfi_startproc
	pop	0x40(%rdi)
	.cfi_adjust_cfa_offset -8
	mov	%rbx, 0x50(%rdi)
	mov	%rdi, %rbx
	call	setjmp@PLT
	mov	%eax, %esi
	mov	%rbx, %rdi
	mov	0x50(%rbx), %rbx
	ud2			# musl: push 0x40(%rbx); jmp __sigsetjmp_tail
	.cfi_endproc
