#include <stdio.h>
#include <stdlib.h>
__attribute__((noinline)) int leaf(int x) { return x * 3; }
__attribute__((noinline)) int mid(int x) { char buf[300]; snprintf(buf, sizeof buf, "%d", x); return leaf(atoi(buf)) + 1; }
__attribute__((noinline)) double fp(double a, double b) { volatile double v[40]; for (int i = 0; i < 40; i++) v[i] = a * i + b; return v[3] + mid((int)a); }
int main(int argc, char **argv) { return fp(argc, 2.0) > 0 ? 0 : 1; }
