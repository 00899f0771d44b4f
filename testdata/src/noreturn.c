/*
 * noreturn.c - live and core fixture for sfdbg: frames whose return address
 * lies one past their function's end.
 *
 * A function whose last instruction is a call to a noreturn function (exit,
 * abort, one declared __attribute__((noreturn))) has no code after the call:
 * the return address pushed by the call is the first byte after the
 * function, which is padding or the next function.  Its caller's name, line,
 * inline frames and unwind row must be looked up at PC-1, as gdb does
 * (get_frame_address_in_block).
 *
 * Usage: noreturn MODE
 *   spin     main -> run_spin -> nr_outer -> nr_middle -> nr_inner ->
 *            fatal_spin (noreturn, spins); each of nr_outer, nr_middle and
 *            nr_inner ends in its call.
 *   exit     main -> call_exit -> exit -> (libc) -> on_exit_hook ->
 *            spin_leaf: an atexit handler spins, so exit's frames and
 *            call_exit, which ends in its call to exit, are on the stack.
 *   abort    main -> call_abort -> abort -> raise (libc) -> <signal handler
 *            called> -> on_abort -> spin_leaf: a SIGABRT handler spins.
 *   threads  the three at once: a thread in the spin chain, a thread in the
 *            abort chain, and the main thread in the exit chain.
 *   crash    the spin and abort threads as in "threads"; once both spin,
 *            main -> crash_outer -> crash_now (noreturn), which writes
 *            through a null pointer: SIGSEGV, a core with three threads for
 *            the core tests (scripts/build-core-fixtures.sh).
 *
 * "ready\n" is written (one write(2)) once every spinning thread is about to
 * spin.  Setting spin_release non-zero makes the spinners end the process
 * with status 0.  Chain functions are noipa: neither inlined, cloned nor
 * found noreturn by IPA, so they stay on the stack as their own frames.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CHAIN __attribute__((noipa, noinline, used))
#define NORETURN __attribute__((noreturn))

volatile int spin_release;
volatile long sink;
volatile int *volatile nowhere;
static volatile int arrived;
static int want_arrived = 1;

static void announce_ready(void)
{
	static const char msg[] = "ready\n";
	if (__atomic_add_fetch(&arrived, 1, __ATOMIC_SEQ_CST) == want_arrived) {
		ssize_t r = write(1, msg, sizeof msg - 1);
		(void)r;
	}
}

/* Returns only when released. */
CHAIN void spin_leaf(void)
{
	announce_ready();
	while (!spin_release)
		sink++;
}

/* ---- spin: a chain of calls to noreturn functions ---- */

CHAIN NORETURN void fatal_spin(long n)
{
	sink = n;
	spin_leaf();
	_exit(0);
}

CHAIN NORETURN void nr_inner(long n)
{
	sink += n;
	fatal_spin(n + 1);
}

/* No alignment padding before it: nr_inner's return address is
 * nr_middle's first byte, so a lookup at the PC itself names nr_middle. */
CHAIN NORETURN __attribute__((optimize("align-functions=1"))) void nr_middle(long n)
{
	volatile char buf[64];
	buf[n & 63] = (char)n;
	nr_inner(n + buf[n & 63]);
}

/* Not declared noreturn: the compiler sees that its call never returns. */
CHAIN void nr_outer(long n)
{
	if (n > 100)
		sink = n;
	nr_middle(n + 1);
}

CHAIN int run_spin(long n)
{
	nr_outer(n);
	return 0;
}

/* ---- exit: an atexit handler spins inside exit ---- */

CHAIN void on_exit_hook(void)
{
	spin_leaf();
	sink++;
}

CHAIN void call_exit(long n)
{
	sink = n;
	exit(0);
}

/* ---- abort: a SIGABRT handler spins inside abort ---- */

CHAIN void on_abort(int sig)
{
	sink = sig;
	spin_leaf();
	_exit(0);
}

CHAIN void call_abort(long n)
{
	sink = n;
	abort();
}

/* ---- crash: a noreturn function faults ---- */

CHAIN NORETURN void crash_now(long n)
{
	for (;;)
		*nowhere = (int)n;
}

CHAIN void crash_outer(long n)
{
	sink = n;
	crash_now(n + 1);
}

/* ---- threads ---- */

CHAIN void *thread_spin(void *arg)
{
	run_spin((long)arg);
	return NULL;
}

CHAIN void *thread_abort(void *arg)
{
	call_abort((long)arg);
	return NULL;
}

/* Starts the spin and abort threads, on small stacks (a small core; not
 * below aarch64's 128 KiB minimum). */
static int start_threads(void)
{
	pthread_t t;
	pthread_attr_t a;
	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, PTHREAD_STACK_MIN > 64 * 1024 ? PTHREAD_STACK_MIN : 64 * 1024);
	return pthread_create(&t, &a, thread_spin, (void *)1L) != 0 ||
	       pthread_create(&t, &a, thread_abort, (void *)2L) != 0;
}

static void install_abort_handler(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_abort;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGABRT, &sa, NULL);
}

int main(int argc, char **argv)
{
	const char *m = argc > 1 ? argv[1] : "";
	atexit(on_exit_hook);
	install_abort_handler();
	if (strcmp(m, "spin") == 0) {
		sink = run_spin(argc);
	} else if (strcmp(m, "exit") == 0) {
		call_exit(argc);
	} else if (strcmp(m, "abort") == 0) {
		call_abort(argc);
	} else if (strcmp(m, "threads") == 0) {
		want_arrived = 3;
		if (start_threads())
			return 1;
		call_exit(argc);
	} else if (strcmp(m, "crash") == 0) {
		want_arrived = 0; /* no "ready": nobody attaches to it */
		if (start_threads())
			return 1;
		while (__atomic_load_n(&arrived, __ATOMIC_SEQ_CST) < 2)
			;
		crash_outer(argc);
	} else {
		static const char usage[] = "usage: noreturn spin|exit|abort|threads|crash\n";
		ssize_t r = write(2, usage, sizeof usage - 1);
		(void)r;
		return 2;
	}
	return 0;
}
