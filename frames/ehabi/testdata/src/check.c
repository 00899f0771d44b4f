/* Functions whose EHABI entries use the opcodes check compares with CFI:
   pops by mask and range, vsp += (short and ULEB128 forms), vsp = r7/r11
   (alloca, frame pointer), VFP pops, and calls in the body (bl, blx). */
#include <alloca.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) int leaf(int x) { return x * 3; }
__attribute__((noinline)) int big(int x) { char buf[2000]; snprintf(buf, sizeof buf, "%d", x); return leaf(atoi(buf)) + 1; }
__attribute__((noinline)) int mid(int x) { char buf[300]; snprintf(buf, sizeof buf, "%d", x); return leaf(atoi(buf)) + 1; }
__attribute__((noinline)) double vfp(double a, double b) { volatile double v[40]; double s = a; for (int i = 0; i < 40; i++) v[i] = a * i + b; for (int i = 0; i < 3; i++) s += mid((int)(s * b)); return v[3] + s; }
__attribute__((noinline)) int dyn(int n) { char *p = alloca(n + 16); memset(p, 1, n + 16); return leaf(p[n]) + mid(n); }
__attribute__((noinline)) int many(int a, int b, int c, int d) { int x = leaf(a), y = leaf(b), z = leaf(c), w = leaf(d); int u = leaf(x + y), v = leaf(z + w); return x * y + z * w + u * v + leaf(u - v); }
__attribute__((noinline)) int var(int n, ...) { va_list ap; va_start(ap, n); int s = 0; for (int i = 0; i < n; i++) s += leaf(va_arg(ap, int)); va_end(ap); return s; }
__attribute__((noinline, noreturn)) void die(const char *m) { fputs(m, stderr); exit(2); }
__attribute__((noinline)) int checked(int x) { if (x < 0) die("negative"); return leaf(x); }
int (*volatile indirect)(int) = leaf;
__attribute__((noinline)) int callptr(int x) { return indirect(x) + indirect(x + 1); }
int main(int argc, char **argv) {
	(void)argv;
	return (vfp(argc, 2.0) + big(argc) + dyn(argc) + many(argc, 2, 3, 4) + var(3, 1, 2, 3) + checked(argc) + callptr(argc)) > 0 ? 0 : 1;
}
