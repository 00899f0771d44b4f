/*
 * inline.c - live-debugging fixture with inline frames on the stack.
 *
 * Usage: inline spin|exit
 *   main -> run (noipa) -> [outer_inline -> inner_inline] (always_inline,
 *   inlined into run) -> stop_here (noipa) -> [spin_inline] (always_inline,
 *   inlined into stop_here), which busy-loops on a volatile flag.
 *
 * Stopped, gdb 13 shows six frames of which three are inline:
 *   #0 spin_inline   (inline, in stop_here)
 *   #1 stop_here
 *   #2 inner_inline  (inline, in run)
 *   #3 outer_inline  (inline, in run)
 *   #4 run
 *   #5 main
 * "ready\n" is written (one write(2)) just before run is called. With
 * "exit", or once spin_release is set non-zero, everything returns and the
 * program exits 0. Any other argument spins (scripts/gdb-golden.sh passes a
 * mode: "spin").
 */
#include <string.h>
#include <unistd.h>

#define CHAIN __attribute__((noipa, noinline, used))
#define INLINE static inline __attribute__((always_inline))

volatile int spin_release;
volatile unsigned long spin_count;

INLINE void spin_inline(int step)
{
	while (!spin_release)
		spin_count += step;
}

CHAIN int stop_here(int x)
{
	spin_inline(x);
	return x * 3;
}

INLINE int inner_inline(int x)
{
	int r = stop_here(x + 1);
	return r + 5;
}

INLINE int outer_inline(int x)
{
	int r = inner_inline(x * 2);
	return r - 7;
}

CHAIN int run(int x)
{
	int r = outer_inline(x);
	return r ^ (int)spin_count;
}

int main(int argc, char **argv)
{
	static const char msg[] = "ready\n";
	if (argc > 1 && strcmp(argv[1], "exit") == 0)
		spin_release = 1;
	ssize_t w = write(1, msg, sizeof msg - 1);
	(void)w;
	return run(argc) == 12345;
}
