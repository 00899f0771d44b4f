/*
 * pltgot.c - the fixture of the fault `sfdbg demo` shows
 * (scripts/build-catch-fixtures.sh builds testdata/bin/pltgot-v3).
 *
 * labs's address is taken (keep), so the PIE has a GOT entry for it and
 * GNU ld routes the calls through a .plt.got stub: a bare `jmp *GOT(%rip)`.
 * GNU ld (2.44, 2.47.50; PR 32298) describes that stub in .sframe with
 * CFA = SP+16, as if the stub had pushed something, while the code and ld's
 * own .eh_frame say CFA = SP+8.  The hot loop main -> shout -> labs
 * goes through the stub all the time, so a profiler (or sfdbg) that stops
 * the program often finds it there, and SFrame then gives a wrong caller.
 *
 * Built with -fno-builtin, so that labs is called, not inlined.
 *
 * Usage: pltgot [SECONDS]: prints "ready", then loops (default 60 s).
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

long (*volatile keep)(long);
volatile long sink;

__attribute__((noipa, noinline)) long shout(const char *s)
{
	long n = 0;
	for (; *s; s++)
		n += labs(*s - 'a');
	return n;
}

int main(int argc, char **argv)
{
	int secs = 60;
	if (argc > 1 && sscanf(argv[1], "%d", &secs) != 1)
		return 2;
	keep = labs; /* in code: a GOTPCREL load, so labs gets a GOT entry */
	puts("ready");
	fflush(stdout);
	time_t end = time(NULL) + secs;
	while (time(NULL) < end)
		for (int i = 0; i < 1000; i++)
			sink += shout("sframe says the caller is somewhere else");
	return 0;
}
