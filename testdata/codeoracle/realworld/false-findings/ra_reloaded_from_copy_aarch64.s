# x30 reloaded from a stack slot that holds a copy of the RA the walk
# does not follow (glibc 2.36 AArch64 _dl_runtime_profile, entered from
# PLT0 with the RA also at [sp+8]: it copies that word into its frame and
# returns with ldr x30, [x29, #472]; br x30). The CFI's RA=u after the
# load is right; the code's saved slot c-488 is right too until SP moves
# past it.
	.text
	.globl	ra_reloaded_from_copy
	.type	ra_reloaded_from_copy, @function
ra_reloaded_from_copy:
	.cfi_startproc
	sub	sp, sp, #0x1f0
	.cfi_def_cfa_offset 496
	stp	x29, x30, [sp]
	mov	x29, sp
	.cfi_def_cfa x29, 496
	.cfi_offset x29, -496
	.cfi_offset x30, -488
	ldr	x1, [x29, #504]
	str	x1, [x29, #472]
	bl	callee
	ldr	x30, [x29, #472]
	.cfi_restore x30
	mov	sp, x29
	.cfi_def_cfa sp, 496
	ldr	x29, [x29]
	.cfi_restore x29
	add	sp, sp, #0x1f0
	.cfi_def_cfa_offset 0
	br	x30
	.cfi_endproc
	.size	ra_reloaded_from_copy, .-ra_reloaded_from_copy
