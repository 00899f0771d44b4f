/* cet.c - code that makes GNU tools emit the CET and MPX encodings sfdbg's
 * x86-64 length decoder must delimit as objdump does: endbr64 at every
 * address-taken function, notrack jmp through a switch jump table
 * (-fcf-protection), indirect calls, and an IBT PLT (-z ibtplt).  The bnd
 * prefix is not here: binutils 2.40 to 2.47 ignore -z bndplt and gcc 12
 * has no -mmpx.  Built by scripts/build-fixtures.sh as testdata/bin/cet-v3. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int (*op_fn)(int, int);

static int add(int a, int b) { return a + b; }
static int sub(int a, int b) { return a - b; }
static int mul(int a, int b) { return a * b; }

__attribute__((noinline)) int dispatch(int op, int a, int b) {
  switch (op) { /* dense cases: a jump table, notrack jmp *%rax */
  case 0: return a + b;
  case 1: return a - b;
  case 2: return a * b;
  case 3: return b ? a / b : 0;
  case 4: return b ? a % b : 0;
  case 5: return a << (b & 31);
  case 6: return a >> (b & 31);
  case 7: return a ^ b;
  default: return -1;
  }
}

__attribute__((noinline)) int apply(op_fn f, int a, int b) { return f(a, b); }

int main(int argc, char **argv) {
  static op_fn ops[] = {add, sub, mul};
  int n = argc > 1 ? atoi(argv[1]) : 3, acc = 0;
  char buf[64];
  for (int i = 0; i < n; i++)
    acc += dispatch(i % 9, acc, i) + apply(ops[i % 3], acc, i);
  snprintf(buf, sizeof buf, "%d", acc);
  puts(strlen(buf) ? "ready" : "empty");
  return 0;
}
