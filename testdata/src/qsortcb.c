/*
 * qsortcb.c - a qsort callback that crashes (issue 33's "qsort with a
 * crashing callback", dynamically linked): glibc's qsort jumps to
 * qsort_r, so gdb shows qsort as a tail-call frame between qsort_r and
 * main (with libc6-dbg), and the fault is at a line-table entry that is
 * not a statement, where gdb prints the PC. Built by
 * scripts/build-gdb-fixtures.sh.
 */
#include <stdlib.h>
#include <stdio.h>
static int *volatile nowhere;
static int cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	if (x == 3)
		*nowhere = y;
	return x - y;
}
int main(void)
{
	int v[] = { 5, 3, 9, 1 };
	qsort(v, 4, sizeof v[0], cmp);
	printf("%d\n", v[0]);
	return 0;
}
