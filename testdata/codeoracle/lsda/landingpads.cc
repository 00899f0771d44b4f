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
