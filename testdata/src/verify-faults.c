/* verify-faults.c - calls the functions of verify-faults-x86_64.s in a loop
 * (the fixture of `sfdbg verify`; scripts/build-verify-fixtures.sh).
 * Prints "ready", then loops for SECONDS (default 60). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

long missing_adjust(long);
long late_restore(long);
long clean_leaf(long);
long wrong_at_call(long);
volatile long sink;

int main(int argc, char **argv)
{
	int secs = argc > 1 ? atoi(argv[1]) : 60;
	puts("ready");
	fflush(stdout);
	time_t end = time(NULL) + secs;
	do {
		for (int i = 0; i < 1000; i++)
			sink += missing_adjust(i) + late_restore(i) + clean_leaf(i) + wrong_at_call(i);
	} while (time(NULL) < end);
	return 0;
}
