/*
 * arm-crash.c - 32-bit ARM core-file fixture for sfdbg
 * (scripts/build-arm-core-fixtures.sh).
 *
 * main -> crash_1 (ARM) -> crash_2 (Thumb) -> crash_3 (ARM, recursive,
 * x3) -> crash_leaf (Thumb), which writes through a null pointer: the
 * SIGSEGV kills the program under qemu-arm, which writes the core. The
 * chain switches between ARM and Thumb code at every call, so return
 * addresses carry the Thumb bit (bit 0) in some frames and not in others,
 * and frame pointers are r11 in ARM frames and r7 in Thumb frames.
 *
 * "arm-crash trap": crash_3 calls trap_at_entry instead, whose first
 * instruction is a permanently undefined one (SIGILL): frame 0 stopped at
 * its function's first instruction, before its prologue, which its EHABI
 * entry (".save {r7, lr}") and CFI describe.
 * "arm-crash prologue": crash_3 calls trap_in_prologue, the same with a
 * nop before the undefined instruction: frame 0 stopped inside a
 * prologue, where its EHABI entry does not hold (nothing is pushed yet)
 * and its CFI does.
 */
#include <stddef.h>

#define CHAIN __attribute__((noipa, noinline, used))
#define ARM __attribute__((target("arm")))
#define THUMB __attribute__((target("thumb")))

volatile long sink;
volatile int *volatile nowhere = NULL;
volatile int mode; /* 0: null write, 1: trap at entry, 2: trap in the prologue */

CHAIN THUMB void crash_leaf(long n) { *nowhere = (int)n; sink++; }
void trap_at_entry(void);
void trap_in_prologue(void);
/* A Thumb function that traps (udf) before its prologue "push {r7, lr}". */
#define TRAP_FUNC(name, before)                  \
	"	.text\n"                                      \
	"	.syntax unified\n"                            \
	"	.thumb\n"                                     \
	"	.align 1\n"                                   \
	"	.globl " name "\n"                            \
	"	.type " name ", %function\n"                  \
	"	.thumb_func\n"                                \
	name ":\n"                                      \
	"	.fnstart\n"                                   \
	"	.cfi_startproc\n"                             \
	before                                          \
	"	udf #254\n"                                   \
	"	.save {r7, lr}\n"                             \
	"	push {r7, lr}\n"                              \
	"	.cfi_def_cfa_offset 8\n"                      \
	"	.cfi_offset 7, -8\n"                          \
	"	.cfi_offset 14, -4\n"                         \
	"	bl crash_leaf\n"                              \
	"	pop {r7, pc}\n"                               \
	"	.cfi_endproc\n"                               \
	"	.fnend\n"                                     \
	"	.size " name ", .-" name "\n"
__asm__(TRAP_FUNC("trap_at_entry", "") TRAP_FUNC("trap_in_prologue", "	nop\n"));
CHAIN ARM void crash_3(long n) {
	volatile char pad[200];
	pad[n % 200] = 1;
	if (n > 0)
		crash_3(n - 1);
	else if (mode == 1)
		trap_at_entry();
	else if (mode == 2)
		trap_in_prologue();
	else
		crash_leaf(pad[0]);
	sink++;
}
CHAIN THUMB void crash_2(long n) { volatile int pad[4]; pad[n & 3] = (int)n; crash_3(pad[n & 3]); sink++; }
CHAIN ARM void crash_1(long n) { crash_2(n * 2); sink++; }

int main(int argc, char **argv)
{
	if (argc > 1)
		mode = argv[1][0] == 't' ? 1 : 2; /* trap, prologue */
	crash_1(1);
	return 0;
}
