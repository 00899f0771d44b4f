	.text
f:
	stp x29, x30, [sp, #-32]!
	stp x19, x20, [sp, #16]
	mov x29, sp
	add x29, sp, #16
	str x21, [sp, #-16]!
	ldr x21, [sp], #16
	str d8, [sp, #24]
	ldr d8, [sp, #24]
	stp d8, d9, [sp, #-16]!
	ldp d8, d9, [sp], #16
	sub sp, sp, #64
	add sp, sp, #64
	sub sp, sp, #1, lsl #12
	sub sp, sp, x0
	mov sp, x29
	sub sp, x29, #16
	ldp x19, x20, [sp, #16]
	ldp x29, x30, [sp], #32
	paciasp
	pacibsp
	autiasp
	autibsp
	retaa
	retab
	bl f
	blr x1
	b f
	b.ne f
	cbz x0, f
	cbnz w1, f
	tbz x2, #3, f
	tbnz w3, #1, f
	br x16
	ret
	ret x1
	brk #0x3e8
	udf #0
	mov x19, x0
	mov x29, #0
	add x0, sp, #16
	ldr x30, [x0]
	ldr w19, [sp, #8]
	str w19, [sp, #8]
	stur x19, [x29, #-8]
	ldur x19, [x29, #-8]
	and sp, x0, #-16
	add sp, sp, x1
	cmp x19, #1
	adds x19, x19, #1
	ldxr x19, [x0]
	stxr w19, x1, [x0]
	ldaddal x1, x19, [x0]
	ldr x19, [x0, x1]
	ldr x19, =0x123456789
	prfm pldl1keep, [sp, #8]
	ld1 {v0.16b}, [sp], #16
	fmov d8, x0
	mrs x19, tpidr_el0
	nop
	bti c
	svc #0
	ldr x29, [x29]
	stp x29, x30, [x29, #-16]!
	str x30, [sp, #-16]!
	ldr x30, [sp], #16
	movk x30, #1, lsl #16
	csel x20, x1, x2, eq
	eor x28, x28, x1
	.inst 0x04a0e3e0
	stp w19, w20, [sp, #-8]!
	ldpsw x19, x20, [sp]
