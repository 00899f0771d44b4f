/*
 * locals.c - fixture for the REPL's locals, arguments and values
 * (info locals, info args, bt full, print, ptype, set var), compared
 * with gdb's (scripts/build-locals-fixtures.sh: testdata/bin/locals-v3-O0,
 * locals-v3-O2 and locals-v3-O2-dwarf4).
 *
 * main -> outer -> middle -> leaf; leaf sets its locals, prints "ready",
 * and spins until the variable `go` is set (set var go = 1 in a
 * debugger), then returns; with an argument ("locals exit") it does not
 * spin. "ready" comes after the locals are set, so that a debugger
 * attaching then sees them as they stay. Arguments and locals of every C kind a gdb user prints: base
 * types, pointers (char * with its string), structs, nested structs,
 * arrays (with repeats), enums, a union, a function pointer, a bit-field.
 * At -O2, middle's argument `unused` is not used at all, so DWARF says
 * it has no location (<optimized out>), and leaf's `n` lives in a
 * register only until the call (DW_OP_entry_value in frame 1).
 */
#include <stdio.h>
#include <stdbool.h>
#include <string.h>

#define KEEP __attribute__((noinline, noclone))

enum color { RED, GREEN = 2, BLUE };

struct point { int x, y; };

struct rec {
	int key;
	const char *name;
	struct point at;
	enum color col;
	unsigned flag : 3;
	double weight;
	short tags[4];
};

union word { unsigned u; unsigned char b[4]; };

volatile int go;
volatile long sink;
int counter = 42;
const char *greeting = "hello, world";

static int twice(int v) { return 2 * v; }

KEEP long leaf(struct rec *r, int n, const char *label)
{
	long total = n;
	unsigned char small = 200;
	char buf[32];
	int zeros[16];
	int (*fn)(int) = twice;
	union word w;
	bool ok = n > 1;

	memset(zeros, 0, sizeof zeros);
	zeros[1] = 7;
	strcpy(buf, label);
	w.u = 0x01020304;
	printf("ready\n");
	while (!go)
		sink++;
	total += r->key + buf[0] + zeros[1] + fn(n) + w.b[0] + small + ok;
	return total;
}

KEEP long middle(struct rec *r, __attribute__((unused)) long unused, enum color c)
{
	struct point p = { r->at.x + 1, r->at.y - 1 };
	long k = leaf(r, (int)c + 3, r->name);
	sink += p.x + p.y;
	return k + 1;
}

KEEP int outer(int depth)
{
	struct rec r = { 13, "thirteen", { 3, 4 }, BLUE, 5, 2.5, { 1, -2, 3, 0 } };
	long v = middle(&r, depth * 1000, GREEN);
	return (int)(v + depth);
}

int main(int argc, char **argv)
{
	(void)argv;
	go = argc > 1;
	setvbuf(stdout, NULL, _IONBF, 0);
	return outer(argc) == 0;
}
