/*
 * sortcrash.c - fixture for `sfdbg catch` (scripts/build-catch-fixtures.sh).
 *
 * Sorts records with qsort; the comparison function by_key goes down
 * by_key -> check_key -> check_leaf, and check_leaf writes through a null
 * pointer when it meets the record with key 13, so the SIGSEGV comes
 * several frames deep inside a qsort callback, below glibc's merge sort
 * (msort_with_tmp, recursive).  All chain functions are noipa, so gdb
 * shows them as physical frames.  Linked statically, so that the
 * addresses (and gdb's golden backtrace) do not depend on the host's libc.
 *
 * Modes (argv[1]):
 *   crash     the crash above (dies of SIGSEGV)
 *   abort     abort() in the callback (dies of SIGABRT)
 *   handled   the same fault, but a SIGSEGV handler recovers with
 *             siglongjmp; then raises SIGUSR1, whose handler counts it;
 *             prints "recovered 1 usr1 1" and exits 0
 *   thread    the crash in a second thread while the main thread waits
 *             in pthread_join
 *   fork      a forked child crashes; the parent prints "child signal 11"
 *             and exits 7
 *   exec      executes itself (/proc/self/exe) in mode crash
 */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define CHAIN __attribute__((noipa, noinline, used))

struct rec {
	int key;
	const char *name;
};

volatile long sink;
volatile int *volatile nowhere = NULL;
static int do_abort;
static sigjmp_buf recover;
static volatile sig_atomic_t segvs, usr1s;

CHAIN int check_leaf(const struct rec *r)
{
	if (r->key == 13) {
		if (do_abort)
			abort();
		*nowhere = r->key;
	}
	sink++;
	return r->key;
}

CHAIN int check_key(const struct rec *r)
{
	int k = check_leaf(r);
	sink++;
	return k;
}

CHAIN int by_key(const void *a, const void *b)
{
	int ka = check_key(a), kb = check_key(b);
	sink++;
	return (ka > kb) - (ka < kb);
}

CHAIN void sort_records(void)
{
	struct rec r[16];
	for (int i = 0; i < 16; i++) {
		r[i].key = (i * 7 + 3) % 16 + 20; /* 20..35, unsorted */
		r[i].name = "record";
	}
	r[5].key = 13;
	qsort(r, 16, sizeof r[0], by_key);
	sink += r[0].key;
}

static void on_segv(int sig)
{
	(void)sig;
	segvs++;
	siglongjmp(recover, 1);
}

static void on_usr1(int sig)
{
	(void)sig;
	usr1s++;
}

static void *crash_thread(void *arg)
{
	(void)arg;
	/* Let the main thread reach pthread_join: glibc's clone3 has no CFI
	   after its syscall, so a main thread still there cannot be unwound. */
	usleep(100 * 1000);
	sort_records();
	return NULL;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "crash";
	if (strcmp(mode, "crash") == 0) {
		sort_records();
	} else if (strcmp(mode, "abort") == 0) {
		do_abort = 1;
		sort_records();
	} else if (strcmp(mode, "handled") == 0) {
		signal(SIGSEGV, on_segv);
		signal(SIGUSR1, on_usr1);
		if (sigsetjmp(recover, 1) == 0)
			sort_records();
		raise(SIGUSR1);
		printf("recovered %d usr1 %d\n", (int)segvs, (int)usr1s);
		return 0;
	} else if (strcmp(mode, "thread") == 0) {
		pthread_t t;
		if (pthread_create(&t, NULL, crash_thread, NULL) != 0)
			return 1;
		pthread_join(t, NULL);
	} else if (strcmp(mode, "fork") == 0) {
		int st;
		pid_t p = fork();
		if (p == 0) {
			sort_records();
			_exit(0);
		}
		if (p < 0 || waitpid(p, &st, 0) != p)
			return 1;
		printf("child signal %d\n", WIFSIGNALED(st) ? WTERMSIG(st) : 0);
		fflush(stdout);
		return 7;
	} else if (strcmp(mode, "exec") == 0) {
		execl("/proc/self/exe", argv[0], "crash", (char *)NULL);
		return 1;
	} else {
		fprintf(stderr, "sortcrash: unknown mode %s\n", mode);
		return 2;
	}
	return 0;
}
