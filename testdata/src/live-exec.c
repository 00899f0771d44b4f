/* live-stress scenario 2: four threads spin while a fifth calls execve of
   this program after DELAY_MS; the new image ("after" mode) writes how long
   the exec took (from the old image's clock reading to main of the new one,
   in microseconds) to OUT and spins until killed.
   Usage: live-exec DELAY_MS OUT | live-exec after T0_NS OUT.
   Built by scripts/live-stress.sh. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;
static char *out;
static long delay_ms;

static long long now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

__attribute__((noinline)) void spin(void)
{
	for (;;)
		for (int i = 0; i < 1000; i++)
			sink += i;
}

static void *spinner(void *arg)
{
	(void)arg;
	spin();
	return NULL;
}

__attribute__((noinline)) void do_exec(void)
{
	char t0[32];
	snprintf(t0, sizeof t0, "%lld", now_ns());
	char *argv[] = {"live-exec", "after", t0, out, NULL};
	execv("/proc/self/exe", argv);
	perror("execv");
	exit(2);
}

static void *execer(void *arg)
{
	(void)arg;
	usleep(delay_ms * 1000);
	do_exec();
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc == 4 && strcmp(argv[1], "after") == 0) {
		long long t0 = atoll(argv[2]);
		FILE *f = fopen(argv[3], "w");
		if (f) {
			fprintf(f, "%lld\n", (now_ns() - t0) / 1000);
			fclose(f);
		}
		spin();
	}
	if (argc != 3)
		return 2;
	delay_ms = atol(argv[1]);
	out = argv[2];
	pthread_t t;
	for (int i = 0; i < 3; i++)
		pthread_create(&t, NULL, spinner, NULL);
	pthread_create(&t, NULL, execer, NULL);
	spin();
}
