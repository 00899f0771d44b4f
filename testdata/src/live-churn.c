/* live-stress scenario 3: two creator threads (and the main thread) each
   create four short-lived threads, join them, and start again, forever.
   Built by scripts/live-stress.sh. */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static volatile unsigned long sink;

__attribute__((noinline)) void work(void)
{
	for (int i = 0; i < 20000; i++)
		sink += i;
}

static void *worker(void *arg)
{
	(void)arg;
	work();
	return NULL;
}

__attribute__((noinline)) void churn(void)
{
	for (;;) {
		pthread_t t[4];
		int n = 0;
		for (int i = 0; i < 4; i++)
			if (pthread_create(&t[n], NULL, worker, NULL) == 0)
				n++;
		for (int i = 0; i < n; i++)
			pthread_join(t[i], NULL);
	}
}

static void *creator(void *arg)
{
	(void)arg;
	churn();
	return NULL;
}

int main(void)
{
	pthread_t t;
	pthread_create(&t, NULL, creator, NULL);
	pthread_create(&t, NULL, creator, NULL);
	churn();
}
