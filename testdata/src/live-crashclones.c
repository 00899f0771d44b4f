/* live-crashclones.c: targets for catch's tracer (debugger/catch_clones_test.go).
 *
 *   live-crashclones threads USEC   four threads create and join threads in
 *                                   a loop; the main thread segfaults after
 *                                   USEC microseconds. A clone under way as
 *                                   the process dies reports no clone event,
 *                                   but its thread is traced from its birth
 *                                   and must be reaped.
 *   live-crashclones clone          clone() of a process (not a thread) with
 *                                   SIGUSR1 (ignored) as its exit signal,
 *                                   which segfaults; the parent prints its
 *                                   status.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void *nop(void *a) { return a; }

static void *spawner(void *a) {
	for (;;) {
		pthread_t t;
		if (pthread_create(&t, 0, nop, 0) == 0)
			pthread_join(t, 0);
	}
	return a;
}

static char stack[1 << 16];

static int child(void *a) {
	volatile int *p = a;
	*p = 1;
	return 0;
}

int main(int argc, char **argv) {
	if (argc > 1 && strcmp(argv[1], "clone") == 0) {
		signal(SIGUSR1, SIG_IGN); /* the child's exit signal */
		int pid = clone(child, stack + sizeof stack, SIGUSR1, 0);
		int st = 0;
		waitpid(pid, &st, __WALL);
		printf("child %d status %#x\n", pid, st);
		return 0;
	}
	pthread_t t[4];
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], 0, spawner, 0);
	usleep(argc > 2 ? atoi(argv[2]) : 2000);
	volatile int *p = 0;
	*p = 1;
	return 3;
}
