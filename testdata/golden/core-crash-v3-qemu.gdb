Thread 2 (Thread 0x40000336c0 (LWP 15975)):
#0  0x00000000004016f0 in spin_leaf () at testdata/src/crash.c:20
#1  0x000000000040172e in spin_b (n=<optimized out>) at testdata/src/crash.c:21
#2  0x000000000040175d in spin_a (n=<optimized out>) at testdata/src/crash.c:22
#3  0x0000000000401789 in worker (arg=<optimized out>) at testdata/src/crash.c:23
#4  0x00000000004123fc in start_thread ()
#5  0x0000000000460aa0 in clone ()
Thread 1 (Thread 0x4c13c0 (LWP 15973)):
#0  0x0000000000401797 in crash_leaf (n=1) at testdata/src/crash.c:25
#1  0x0000000000401822 in crash_3 (n=n@entry=0) at testdata/src/crash.c:26
#2  0x00000000004017f9 in crash_3 (n=n@entry=1) at testdata/src/crash.c:26
#3  0x00000000004017f9 in crash_3 (n=n@entry=2) at testdata/src/crash.c:26
#4  0x0000000000401839 in crash_2 (n=n@entry=2) at testdata/src/crash.c:27
#5  0x000000000040185c in crash_1 (n=n@entry=1) at testdata/src/crash.c:28
#6  0x000000000040159c in main () at testdata/src/crash.c:41
#7  0x0000000000401ba4 in __libc_start_call_main ()
#8  0x00000000004032a0 in __libc_start_main_impl ()
#9  0x00000000004015d1 in _start ()
