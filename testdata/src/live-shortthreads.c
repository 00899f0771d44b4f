/* live-stress scenario 1: threads that each call f and exit within about a
   millisecond, created without pause by the main thread (at most 8 at once).
   Built by scripts/live-stress.sh. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static volatile unsigned long sink;
static volatile int running;

__attribute__((noinline)) void f(int n)
{
	for (int i = 0; i < n; i++)
		sink += i;
}

static void *worker(void *arg)
{
	f((int)(long)arg);
	__atomic_sub_fetch(&running, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

int main(int argc, char **argv)
{
	long work = argc > 1 ? atol(argv[1]) : 20000; /* about 0.1-0.3 ms */
	pthread_attr_t a;
	pthread_attr_init(&a);
	pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	printf("ready %d\n", getpid());
	fflush(stdout);
	for (;;) {
		pthread_t t;
		while (__atomic_load_n(&running, __ATOMIC_SEQ_CST) >= 8)
			usleep(50);
		__atomic_add_fetch(&running, 1, __ATOMIC_SEQ_CST);
		if (pthread_create(&t, &a, worker, (void *)work) != 0) {
			__atomic_sub_fetch(&running, 1, __ATOMIC_SEQ_CST);
			usleep(100);
		}
	}
}
