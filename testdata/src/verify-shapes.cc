// verify-shapes.cc - frame shapes whose truth `sfdbg verify` must follow,
// called in a loop (scripts/build-verify-fixtures.sh builds
// testdata/bin/verify-shapes-v3 with GNU as --gsframe, so CFI and SFrame
// are the compiler's):
//   alloca_sum    a variable-sized frame (alloca), kept on RBP;
//   realigned     a 64-byte aligned local: GCC realigns the stack;
//   jumper        setjmp, then a longjmp from two calls deeper: frames
//                 left without a return;
//   catcher       a C++ exception thrown two calls deeper and caught.
// Prints "ready", then loops for SECONDS (default 60).
#include <alloca.h>
#include <csetjmp>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <stdexcept>

volatile long sink;
static jmp_buf env;

__attribute__((noinline)) void use(void *p, size_t n) { sink += ((volatile char *)p)[n - 1]; }

__attribute__((noinline)) long alloca_sum(int n)
{
	char *p = (char *)alloca(n);
	memset(p, 1, n);
	use(p, n);
	return p[0] + n;
}

__attribute__((noinline)) long realigned(int n)
{
	alignas(64) char buf[64];
	memset(buf, n, sizeof buf);
	use(buf, sizeof buf);
	return buf[3];
}

__attribute__((noinline)) void jump_deep(int n)
{
	if (n > 0)
		longjmp(env, n);
	sink++;
}

__attribute__((noinline)) void jump_mid(int n)
{
	jump_deep(n);
	sink++;
}

__attribute__((noinline)) long jumper(int n)
{
	volatile int r = setjmp(env);
	if (r == 0)
		jump_mid(n);
	return r;
}

__attribute__((noinline)) void throw_deep(int n)
{
	if (n > 0)
		throw std::runtime_error("deep");
	sink++;
}

__attribute__((noinline)) void throw_mid(int n)
{
	throw_deep(n);
	sink++;
}

__attribute__((noinline)) long catcher(int n)
{
	try {
		throw_mid(n);
	} catch (const std::exception &) {
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int secs = argc > 1 ? atoi(argv[1]) : 60;
	puts("ready");
	fflush(stdout);
	time_t end = time(NULL) + secs;
	do {
		for (int i = 1; i < 100; i++)
			sink += alloca_sum(i) + realigned(i) + jumper(i) + catcher(i);
	} while (time(NULL) < end);
	return 0;
}
