# peers-skip.s - a function GNU as gives no SFrame FDE (its CFA is a DWARF
# expression: "no SFrame FDE emitted; .cfi_escape with op (0xf)") beside
# one it describes. Assembled as is (no .comment: the producer is not
# named) and, by scripts/build-peer-fixtures.sh, with
# appends a .comment naming clang, as clang's objects carry, to test that
# the no-fde message names the producer .comment names.
	.text
	.globl described
	.type described, @function
described:
	.cfi_startproc
	ret
	.cfi_endproc
	.size described, .-described

	.globl skipped
	.type skipped, @function
skipped:
	.cfi_startproc
	# DW_CFA_def_cfa_expression: DW_OP_breg7 (rsp) 8
	.cfi_escape 0x0f, 0x02, 0x77, 0x08
	ret
	.cfi_endproc
	.size skipped, .-skipped
