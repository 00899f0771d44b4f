Thread 2 (Thread 0x3fffe7a0 (LWP 26956)):
#0  0x000104c4 in spin_leaf () at testdata/src/crash.c:23
#1  0x000104e4 in spin_b (n=<optimized out>) at testdata/src/crash.c:24
#2  0x000104fa in spin_a (n=<optimized out>) at testdata/src/crash.c:25
#3  <signal handler called>
#4  0x3ffee000 in ?? ()
Thread 1 (Thread 0x75000 (LWP 26952)):
#0  0x00010526 in crash_leaf (n=1) at testdata/src/crash.c:29
#1  0x00010586 in crash_3 (n=n@entry=0) at testdata/src/crash.c:30
#2  0x00010570 in crash_3 (n=n@entry=1) at testdata/src/crash.c:30
#3  0x00010570 in crash_3 (n=n@entry=2) at testdata/src/crash.c:30
#4  0x00010594 in crash_2 (n=n@entry=2) at testdata/src/crash.c:31
#5  0x000105ae in crash_1 (n=n@entry=1) at testdata/src/crash.c:32
#6  0x0001037c in main () at testdata/src/crash.c:45
#7  0x000115dc in __libc_start_call_main ()
#8  0x000117b0 in __libc_start_main_impl ()
#9  0x000103b4 in _start ()
