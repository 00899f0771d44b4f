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
 */
#include <stddef.h>

#define CHAIN __attribute__((noipa, noinline, used))
#define ARM __attribute__((target("arm")))
#define THUMB __attribute__((target("thumb")))

volatile long sink;
volatile int *volatile nowhere = NULL;

CHAIN THUMB void crash_leaf(long n) { *nowhere = (int)n; sink++; }
CHAIN ARM void crash_3(long n) { volatile char pad[200]; pad[n % 200] = 1; if (n > 0) crash_3(n - 1); else crash_leaf(pad[0]); sink++; }
CHAIN THUMB void crash_2(long n) { volatile int pad[4]; pad[n & 3] = (int)n; crash_3(n + pad[0]); sink++; }
CHAIN ARM void crash_1(long n) { crash_2(n * 2); sink++; }

int main(void)
{
	crash_1(1);
	return 0;
}
