/* live-stress scenario 4: the main thread calls pthread_exit while three
   other threads run on (a zombie thread-group leader).
   Built by scripts/live-stress.sh. */
#include <pthread.h>
#include <unistd.h>

static volatile unsigned long sink;

__attribute__((noinline)) void g(void)
{
	for (int i = 0; i < 100000; i++)
		sink += i;
}

static void *worker(void *arg)
{
	(void)arg;
	for (;;) {
		g();
		usleep(100);
	}
	return NULL;
}

int main(void)
{
	pthread_t t;
	for (int i = 0; i < 3; i++)
		pthread_create(&t, NULL, worker, NULL);
	pthread_exit(NULL);
}
