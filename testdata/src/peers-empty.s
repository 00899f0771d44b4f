# peers-empty.s - an empty .sframe section.
	.section .sframe, "a", @progbits
	.text
	ret
