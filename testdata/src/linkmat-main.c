/* linkmat-main.c - the linker matrix's program (scripts/linker-matrix.sh):
 * with linkmat-lib.c and linkmat-asm.s it is assembled once by GNU as
 * 2.47.50 --gsframe, and those same objects are linked by every linker
 * with every option.  It has a PLT call (puts, strlen), a static function,
 * a function --gc-sections drops (lm_unused) and two identical functions
 * --icf=all folds (lm_twin_a, lm_twin_b in linkmat-lib.c).
 */
#include <stdio.h>
#include <string.h>

int lm_twin_a(int x);
int lm_twin_b(int x);
int lm_sum(const int *v, int n);
long lm_asm_frame(long x);

__attribute__((noinline)) static int lm_static(const char *s)
{
	char buf[64];
	snprintf(buf, sizeof buf, "<%s>", s);
	return (int)strlen(buf);
}

__attribute__((noinline)) int lm_unused(int x)
{
	return x * 7 + (int)strlen("unused");
}

int main(int argc, char **argv)
{
	int v[4] = {argc, 2, 3, 4};
	int r = lm_static(argv[0]) + lm_sum(v, 4) + lm_twin_a(argc) + lm_twin_b(argc);
	r += (int)lm_asm_frame(argc);
	puts(r > 0 ? "ok" : "odd");
	return 0;
}
