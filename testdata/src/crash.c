/*
 * crash.c - core-file fixture for sfdbg (scripts/build-core-fixtures.sh).
 *
 * Two threads: a worker raises SIGUSR1 (worker -> raise -> pthread_kill)
 * and spins in its handler on_usr1 -> spin_a -> spin_b -> spin_leaf, so
 * its stack crosses a signal frame (__restore_rt), until the main thread,
 * once it sees the worker there, goes down
 * main -> crash_1 -> crash_2 -> crash_3 (x2, recursive) -> crash_leaf and
 * writes through a null pointer.  The SIGSEGV kills the process, which
 * leaves a core with both threads' stacks.  All chain functions are noipa,
 * so gdb shows them as physical frames.
 */
#include <pthread.h>
#include <signal.h>
#include <stddef.h>

#define CHAIN __attribute__((noipa, noinline, used))

volatile int worker_ready;
volatile long sink;
volatile int *volatile nowhere = NULL;

CHAIN void spin_leaf(void) { worker_ready = 1; for (;;) sink++; }
CHAIN void spin_b(long n) { char buf[64]; buf[n & 63] = (char)n; sink += buf[n & 63]; spin_leaf(); sink++; }
CHAIN void spin_a(long n) { spin_b(n + 1); sink++; }
CHAIN void on_usr1(int sig) { spin_a(sig); }
CHAIN void *worker(void *arg) { signal(SIGUSR1, on_usr1); raise(SIGUSR1); sink += (long)arg; return NULL; }

CHAIN void crash_leaf(long n) { *nowhere = (int)n; sink++; }
CHAIN void crash_3(long n) { volatile char pad[200]; pad[n % 200] = 1; if (n > 0) crash_3(n - 1); else crash_leaf(pad[0]); sink++; }
CHAIN void crash_2(long n) { crash_3(n); sink++; }
CHAIN void crash_1(long n) { crash_2(n * 2); sink++; }

int main(void)
{
	pthread_t t;
	pthread_attr_t a;
	/* A small worker stack keeps the core small (not below aarch64's 128 KiB minimum). */
	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, PTHREAD_STACK_MIN > 64 * 1024 ? PTHREAD_STACK_MIN : 64 * 1024);
	if (pthread_create(&t, &a, worker, (void *)1L) != 0)
		return 1;
	while (!worker_ready)
		;
	crash_1(1);
	return 0;
}
