# peers-nocfi.s - SFrame without CFI: ".cfi_sections .sframe" makes GNU as
# write .sframe and neither .eh_frame nor .debug_frame.
	.cfi_sections .sframe
	.text
	.globl f
	.type f, @function
f:
	.cfi_startproc
	pushq %rbp
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, -16
	popq %rbp
	.cfi_def_cfa_offset 8
	ret
	.cfi_endproc
	.size f, .-f
