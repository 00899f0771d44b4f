/* linkmat-lib.c - the linker matrix's second C object (see linkmat-main.c):
 * lm_twin_a and lm_twin_b have the same code, which --icf=all folds into one;
 * lm_sum uses a frame big enough for a stack protector-free sub of %rsp.
 */
#include <string.h>

__attribute__((noinline)) int lm_twin_a(int x)
{
	return x * 13 + 5;
}

__attribute__((noinline)) int lm_twin_b(int x)
{
	return x * 13 + 5;
}

__attribute__((noinline)) int lm_sum(const int *v, int n)
{
	volatile int tmp[32];
	int s = 0;
	for (int i = 0; i < n && i < 32; i++)
		tmp[i] = v[i];
	for (int i = 0; i < n && i < 32; i++)
		s += tmp[i] * (int)strlen("ab");
	return s;
}
