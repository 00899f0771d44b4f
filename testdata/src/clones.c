/* clones.c - functions GCC 12 clones at -O2 (weigh.isra.0,
 * scale.constprop.0, check.part.0, fail.constprop.0), so that the ELF
 * symbol of a frame differs from the DWARF name gdb gives it. Used by
 * frames' naming tests (testdata/bin/clones-v3-O2, scripts/build-fixtures.sh). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct rec { long key; long pad[7]; };

/* isra: only r->key is used, so GCC passes it by value. */
static __attribute__((noinline)) long weigh(const struct rec *r)
{
	return r->key * 3 + 1;
}

/* constprop: always called with k == 7. */
static __attribute__((noinline)) long scale(long v, int k)
{
	long s = 0;
	for (int i = 0; i < k; i++)
		s += v ^ i;
	return s;
}

/* part: a cheap test inlined into callers, the rest split off. */
static long table[64];
static long check(long v)
{
	if (__builtin_expect(v < 0, 1))
		return 0;
	for (int i = 0; i < 64; i++) {
		table[i] += v * i;
		if (table[i] > 1000000)
			table[i] = v;
		if (table[i] % 7 == 3)
			table[(i * 5) & 63] -= v;
		if (table[i] % 11 == 5)
			table[(i * 3) & 63] ^= v;
	}
	return table[v & 63];
}

/* A cold function (GCC did not split report into report.cold). */
static __attribute__((cold, noinline, noreturn)) void fail(long v)
{
	fprintf(stderr, "giving up on %ld\n", v);
	abort();
}

static __attribute__((noinline)) long report(long v)
{
	long w = v;
	for (int i = 0; i < 8; i++)
		w = w * 31 + i;
	if (v == 424242) {
		fprintf(stderr, "bad value %ld (%ld)\n", v, w);
		fail(v * 2);
	}
	return w + 1;
}

volatile long sink;

int main(int argc, char **argv)
{
	struct rec r[4];
	memset(r, 0, sizeof r);
	for (int i = 0; i < 4; i++)
		r[i].key = argc + i;
	long t = 0;
	for (int i = 0; i < 4; i++)
		t += weigh(&r[i]) + scale(t, 7) + check(t - argc) + check(argc) + report(t);
	sink = t;
	if (argc > 1 && strcmp(argv[1], "exit") == 0)
		puts("ready");
	return 0;
}
