/* known-main.c - the C part of testdata/known/known-ld-v*: a PIE whose
 * __cxa_finalize stub lands in .plt.got (GNU ld's known .plt.got fault),
 * linked with known-faults-x86_64.s. */
#include <stdio.h>

int main(void)
{
	puts("known");
	return 0;
}
