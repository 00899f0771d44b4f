/*
 * deep.c - live-debugging fixture for sfdbg.
 *
 * Usage: deep MODE [ARG]
 *   spin     main -> run_chain -> level1 -> level2_alloca -> level3_indirect
 *            -> level4_recursive x3 -> level5_bigframe -> level6_leafish
 *            -> spin_here (busy loop on a volatile flag, user mode)
 *   sleep    same chain, but level6_leafish -> sleep_here -> nanosleep (libc)
 *   signal   same chain down to level6_leafish -> presignal_spin, which spins
 *            until SIGALRM (setitimer, 20 ms) arrives; the handler runs
 *            on_signal -> sig_chain1 -> sig_chain2 -> spin_here.  SIGUSR1 is
 *            handled the same way, so a test may also send it itself.
 *   threads  3 threads: thread_alpha -> alpha_1 -> alpha_2 -> spin_here,
 *            thread_beta -> beta_1 -> beta_2 -> beta_3 -> spin_here,
 *            thread_gamma -> gamma_1 -> spin_here; the main thread waits in
 *            main -> run_threads -> main_wait -> sleep_here -> nanosleep.
 *            "ready" is printed once all three threads are about to spin.
 *   exit     same chain as spin, but level6_leafish -> spin_until, which
 *            busy-loops for ARG milliseconds (default 1000); then everything
 *            returns and the process exits with status 0.
 *
 * Every mode writes "ready\n" to stdout (a single write(2), so nothing is
 * left in a stdio buffer) just before the final call into its deepest
 * function.  Setting spin_release to non-zero (e.g. from a debugger) makes
 * spin_here and sleep_here return, and the program then exits 0.
 *
 * Only libc and pthread are used.  All chain functions are noipa, so they are
 * neither inlined, cloned nor tail-called away, at -O0 and at -O2 alike.
 */
#define _GNU_SOURCE
#include <alloca.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define CHAIN __attribute__((noipa, noinline, used))

volatile int spin_release;        /* set non-zero to let the spinners return */
volatile unsigned long spin_count;
volatile int got_signal;
volatile long sink;
static int use_sleep;             /* level6_leafish: spin_here or sleep_here */
static int use_signal;            /* level6_leafish: presignal_spin */
static long exit_after_ms = 1000; /* level6_leafish: spin_until */
static int exit_mode;

CHAIN void announce_ready(void)
{
	static const char msg[] = "ready\n";
	ssize_t r = write(1, msg, sizeof msg - 1);
	(void)r;
}

/* The innermost frame: a true leaf, no calls, no stack use at -O2. */
CHAIN int spin_here(void)
{
	while (!spin_release)
		spin_count++;
	return (int)(spin_count & 1);
}

/* Innermost user frame for "sleep": the stop lands inside libc. */
CHAIN int sleep_here(void)
{
	struct timespec ts = { 1, 0 };
	while (!spin_release)
		nanosleep(&ts, NULL);
	return 2;
}

/* Busy-wait for exit_after_ms, then return (for "exit"). */
CHAIN int spin_until(long ms)
{
	struct timespec now, end;
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += ms / 1000;
	end.tv_nsec += (ms % 1000) * 1000000L;
	if (end.tv_nsec >= 1000000000L) {
		end.tv_sec++;
		end.tv_nsec -= 1000000000L;
	}
	do {
		spin_count++;
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (now.tv_sec < end.tv_sec ||
		 (now.tv_sec == end.tv_sec && now.tv_nsec < end.tv_nsec));
	return 3;
}

/* ---- signal mode ---- */

CHAIN int sig_chain2(int sig)
{
	int r = spin_here();
	return r + sig;
}

CHAIN int sig_chain1(int sig)
{
	int r = sig_chain2(sig + 1);
	return r * 2;
}

CHAIN void on_signal(int sig)
{
	got_signal = sig;
	announce_ready();
	sink = sig_chain1(sig);
}

/* Interrupted by the signal: the signal frame's saved PC points in here. */
CHAIN int presignal_spin(void)
{
	while (!got_signal)
		spin_count++;
	return got_signal;
}

static void install_handlers(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);
}

static void arm_timer(void)
{
	struct itimerval it;
	memset(&it, 0, sizeof it);
	it.it_value.tv_usec = 20000; /* 20 ms, one shot */
	setitimer(ITIMER_REAL, &it, NULL);
}

/* ---- the main chain ---- */

/* Leaf-ish: no locals, no saved registers, only the final call. */
CHAIN int level6_leafish(int x)
{
	if (use_signal) {
		arm_timer();
		return presignal_spin() + x;
	}
	if (exit_mode) {
		announce_ready();
		return spin_until(exit_after_ms) + x;
	}
	announce_ready();
	if (use_sleep)
		return sleep_here() + x;
	return spin_here() + x;
}

/* A frame larger than 127 bytes, so SFrame needs 2-byte CFA offsets when
 * the CFA is SP-based (-O2 -fomit-frame-pointer); keeps callee-saved
 * registers live across the call. */
CHAIN int level5_bigframe(int x)
{
	volatile char buf[600];
	int a = x * 3, b = x + 7, c = x ^ 0x55;
	for (int i = 0; i < (int)sizeof buf; i += 64)
		buf[i] = (char)(i + x);
	int r = level6_leafish(a + b);
	return r + a + b + c + buf[64];
}

/* Recursive: level4_recursive appears three times on the stack (depth 2, 1, 0). */
CHAIN int level4_recursive(int depth, int x)
{
	int r;
	if (depth > 0)
		r = level4_recursive(depth - 1, x + 1);
	else
		r = level5_bigframe(x);
	sink = r; /* a volatile store after the call: no tail-recursion-to-loop */
	return r + depth;
}

/* Only ever called through a function pointer. */
CHAIN int level3_indirect(int x)
{
	int r = level4_recursive(2, x);
	return r - 1;
}

static int (*volatile level3_ptr)(int) = level3_indirect;

/* alloca with a run-time size: the compiler keeps a frame pointer even with
 * -fomit-frame-pointer, so the CFA is FP-based in the body. */
CHAIN int level2_alloca(int n)
{
	char *p = alloca((size_t)n + 16);
	memset(p, n, (size_t)n + 16);
	int r = level3_ptr(p[n / 2]);
	return r + p[0];
}

CHAIN int level1(int n)
{
	int r = level2_alloca(n * 8 + 1);
	return r + 1;
}

CHAIN int run_chain(int n)
{
	int r = level1(n);
	return r ^ 1;
}

/* ---- threads mode ---- */

static volatile int threads_started;

static void thread_arrived(void)
{
	__atomic_add_fetch(&threads_started, 1, __ATOMIC_SEQ_CST);
}

CHAIN int alpha_2(int x) { thread_arrived(); int r = spin_here(); return r + x; }
CHAIN int alpha_1(int x) { int r = alpha_2(x + 1); return r + 1; }
CHAIN void *thread_alpha(void *arg) { sink = alpha_1((int)(long)arg); return NULL; }

CHAIN int beta_3(int x) { thread_arrived(); int r = spin_here(); return r + x; }
CHAIN int beta_2(int x) { int r = beta_3(x + 2); return r + 2; }
CHAIN int beta_1(int x) { int r = beta_2(x + 1); return r + 1; }
CHAIN void *thread_beta(void *arg) { sink = beta_1((int)(long)arg); return NULL; }

CHAIN int gamma_1(int x) { thread_arrived(); int r = spin_here(); return r + x; }
CHAIN void *thread_gamma(void *arg) { sink = gamma_1((int)(long)arg); return NULL; }

CHAIN int main_wait(void)
{
	while (__atomic_load_n(&threads_started, __ATOMIC_SEQ_CST) < 3) {
		struct timespec ts = { 0, 1000000 };
		nanosleep(&ts, NULL);
	}
	announce_ready();
	int r = sleep_here();
	return r + 1;
}

CHAIN int run_threads(void)
{
	pthread_t t[3];
	void *(*fn[3])(void *) = { thread_alpha, thread_beta, thread_gamma };
	for (int i = 0; i < 3; i++)
		if (pthread_create(&t[i], NULL, fn[i], (void *)(long)i) != 0) {
			perror("pthread_create");
			return 1;
		}
	sink = main_wait();
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	return 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: deep spin|sleep|signal|threads|exit [MS]\n");
	return 2;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage();
	const char *m = argv[1];
	if (strcmp(m, "spin") == 0) {
		/* default chain */
	} else if (strcmp(m, "sleep") == 0) {
		use_sleep = 1;
	} else if (strcmp(m, "signal") == 0) {
		use_signal = 1;
		install_handlers();
	} else if (strcmp(m, "threads") == 0) {
		int r = run_threads();
		sink = r; /* no tail call: keep main on the stack */
		return r;
	} else if (strcmp(m, "exit") == 0) {
		exit_mode = 1;
		if (argc > 2)
			exit_after_ms = atol(argv[2]);
	} else {
		return usage();
	}
	sink = run_chain(argc);
	return 0;
}
