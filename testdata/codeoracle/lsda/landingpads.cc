#include <string>
#include <stdexcept>
struct Guard { std::string s; Guard(const char *p) : s(p) {} ~Guard(); };
Guard::~Guard() { asm volatile("" ::: "memory"); }
void maythrow(int x);
int work(int x) {
  Guard g("hello world, a long string to allocate");
  try {
    maythrow(x);
  } catch (const std::runtime_error &e) {
    return 1;
  } catch (...) {
    maythrow(x + 1);
    return 2;
  }
  Guard h("another long string that needs the heap");
  maythrow(x * 2);
  return 0;
}
void maythrow(int x) { if (x > 100) throw std::runtime_error("x"); }
// Eight arguments: the last two are pushed, and GCC marks the call with
// DW_CFA_GNU_args_size, which the unwinder pops before the landing pad.
void take8(long, long, long, long, long, long, long, long);
int pushed(long a, long b) {
  Guard g("a third long string that needs the heap");
  take8(a, b, a + 1, b + 1, a + 2, b + 2, a * b, a - b);
  take8(b, a, a + 1, b + 1, a + 2, b + 2, a * b, a - b);
  return 3;
}
