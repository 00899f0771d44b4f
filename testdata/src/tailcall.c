/* tailcall.c - calls that GCC turns into jumps at -O2 (sibling calls), so
 * that gdb shows virtual tail-call frames, built from DWARF call-site
 * information (DW_TAG_call_site, DW_AT_call_tail_call), between a frame
 * and its caller: stage1 calls stage2, which jumps to stage3, which jumps
 * to leaf. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

volatile int counter;
static volatile sig_atomic_t stop;

__attribute__((noinline)) int leaf(int x)
{
	while (!stop) {
		counter += x;
		if (counter == -1)
			break;
	}
	return counter;
}

__attribute__((noinline)) int stage3(int x)
{
	counter++;
	return leaf(x * 3);
}

__attribute__((noinline)) int stage2(int x)
{
	counter--;
	return stage3(x + 2);
}

__attribute__((noinline)) int stage1(int x)
{
	int r = stage2(x);
	counter += r;
	return r + 1;
}

static void on_alarm(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "exit") == 0) {
		signal(SIGALRM, on_alarm);
		alarm(1);
	}
	puts("ready");
	fflush(stdout);
	return stage1(argc) > 0 ? 0 : 1;
}
