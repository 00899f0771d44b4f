#include <stdio.h>
#include <stdlib.h>
__attribute__((cold, noinline)) void report(int v, int i) { fprintf(stderr, "negative value %d at %d\n", v, i); }
__attribute__((noinline)) int work(int *v, int n) {
  int s = 0;
  for (int i = 0; i < n; i++) {
    if (v[i] < 0) {
      report(v[i], i);
      s -= v[i] * 3;
      continue;
    }
    s += v[i];
  }
  return s;
}
int main(int argc, char **argv) { int v[4] = {argc, 2, 3, 4}; return work(v, 4); }
