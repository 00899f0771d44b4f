/* objsections.c - the code of a relocatable object spread over the
 * sections GCC uses: .text (plain functions), .text.startup (main at -O2),
 * .text.unlikely (cold functions), .text.hot (hot functions); with
 * -ffunction-sections each function gets a section of its own as well
 * (.text.unlikely.report_failure, .text.startup.main, ...). GCC 12 splits
 * no function into a ".cold" part without profile feedback. Built into
 * testdata/obj by scripts/build-object-fixtures.sh; sfdbg check must
 * identify every function by section and offset.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((cold, noinline, noreturn)) void report_failure(const char *what, int code)
{
	char buf[64];
	snprintf(buf, sizeof buf, "failure: %s (%d)", what, code);
	fputs(buf, stderr);
	exit(code);
}

__attribute__((hot, noinline)) long hot_sum(const int *a, int n)
{
	long s = 0;
	for (int i = 0; i < n; i++)
		s += a[i] * (long)(i + 1);
	return s;
}

__attribute__((noinline)) int split_work(int x, char *scratch)
{
	if (__builtin_expect(x < 0, 0)) {
		memset(scratch, 'x', 32);
		fprintf(stderr, "negative input %d: %s\n", x, scratch);
		report_failure("split_work", 3);
	}
	return x * 3 + 1;
}

static __attribute__((noinline)) int frame_user(int n)
{
	volatile char big[256];
	for (int i = 0; i < n && i < 256; i++)
		big[i] = (char)i;
	return big[n % 256] + (int)hot_sum((const int *)big, 8);
}

int main(int argc, char **argv)
{
	char scratch[33] = {0};
	int n = argc > 1 ? atoi(argv[1]) : 5;
	int arr[16];
	for (int i = 0; i < 16; i++)
		arr[i] = i * n;
	printf("%ld %d %d\n", hot_sum(arr, 16), split_work(n, scratch), frame_user(n));
	return 0;
}
