Thread 2 (Thread 0x7f96637556c0 (LWP 2359)):
#0  0x0000000000401737 in spin_leaf () at testdata/src/crash.c:23
#1  0x000000000040176e in spin_b (n=<optimized out>) at testdata/src/crash.c:24
#2  0x000000000040179d in spin_a (n=<optimized out>) at testdata/src/crash.c:25
#3  <signal handler called>
#4  0x00000000004139ab in __pthread_kill_implementation.constprop.0 ()
#5  0x0000000000408982 in raise ()
#6  0x00000000004016ff in worker (arg=0x1) at testdata/src/crash.c:27
#7  0x000000000041271c in start_thread ()
#8  0x0000000000460bac in clone3 ()
Thread 1 (Thread 0x3d49a3c0 (LWP 2358)):
#0  0x00000000004017d7 in crash_leaf (n=1) at testdata/src/crash.c:29
#1  0x0000000000401862 in crash_3 (n=n@entry=0) at testdata/src/crash.c:30
#2  0x0000000000401839 in crash_3 (n=n@entry=1) at testdata/src/crash.c:30
#3  0x0000000000401839 in crash_3 (n=n@entry=2) at testdata/src/crash.c:30
#4  0x0000000000401879 in crash_2 (n=n@entry=2) at testdata/src/crash.c:31
#5  0x000000000040189c in crash_1 (n=n@entry=1) at testdata/src/crash.c:32
#6  0x000000000040159c in main () at testdata/src/crash.c:45
#7  0x0000000000401be4 in __libc_start_call_main ()
#8  0x00000000004032e0 in __libc_start_main_impl ()
#9  0x00000000004015d1 in _start ()
