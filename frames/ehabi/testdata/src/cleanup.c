/* Functions with cleanups (-fexceptions): .ARM.extab entries with a
   generic personality routine (__gcc_personality_v0) and an LSDA. */
#include <stdio.h>
#include <stdlib.h>

static void release(char **p) { free(*p); }

__attribute__((noinline)) int work(int n)
{
	char *buf __attribute__((cleanup(release))) = malloc(n + 16);
	if (!buf)
		return -1;
	snprintf(buf, n + 16, "%d", n);
	return atoi(buf) + puts(buf);
}

__attribute__((noinline)) long many(long a, long b, long c, long d, long e)
{
	volatile long big[2000];
	for (int i = 0; i < 2000; i++)
		big[i] = a * i + b - c * d + e;
	return big[a & 1023] + work((int)b);
}

int main(int argc, char **argv)
{
	(void)argv;
	return many(argc, 2, 3, 4, 5) > 0 ? 0 : 1;
}
