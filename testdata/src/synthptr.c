/* synthptr.c - a pointer GCC describes with DW_OP_implicit_pointer: sum is
 * inlined into use with a pointer to use's local struct, which lives only
 * in registers, so sum's s has no value (gdb: s=<synthetic pointer>).
 * Built by scripts/build-gdb-fixtures.sh (testdata/bin/synthptr-v3-O2).
 * Usage: synthptr: prints "ready" and the sums, exits 0. */
#include <stdio.h>

struct pair {
	long a, b;
};

volatile long sink;

static inline __attribute__((always_inline)) long sum(const struct pair *s)
{
	sink += s->a;
	sink += s->b;
	return s->a * 3 + s->b;
}

__attribute__((noinline)) long use(long x, long y)
{
	struct pair p = { x, y };
	long r = sum(&p);
	sink += p.a;
	return r + 1;
}

int main(void)
{
	puts("ready");
	long t = 0;
	for (long i = 0; i < 3; i++)
		t += use(i, i + 1);
	printf("%ld\n", t);
	return 0;
}
