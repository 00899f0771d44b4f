Thread 2 (Thread 0xffffbf1ed520 (LWP 151)):
#0  0x0000000000400808 in spin_leaf () at ./testdata/src/crash.c:23
#1  0x0000000000400844 in spin_b (n=<optimized out>) at ./testdata/src/crash.c:24
#2  0x0000000000400874 [PAC] in spin_a (n=<optimized out>) at ./testdata/src/crash.c:25
#3  <signal handler called>
#4  0x0000000000410340 in __pthread_kill_implementation.constprop.0 ()
#5  0x000000000040574c in raise ()
#6  0x00000000004007cc in worker (arg=0x1) at ./testdata/src/crash.c:27
#7  0x000000000040f1e4 [PAC] in start_thread ()
#8  0x000000000044331c in thread_start ()
Thread 1 (Thread 0x1e7d2000 (LWP 150)):
#0  0x00000000004008b0 in crash_leaf (n=1) at ./testdata/src/crash.c:29
#1  0x0000000000400944 in crash_3 (n=n@entry=0) at ./testdata/src/crash.c:30
#2  0x000000000040091c [PAC] in crash_3 (n=n@entry=1) at ./testdata/src/crash.c:30
#3  0x000000000040091c [PAC] in crash_3 (n=n@entry=2) at ./testdata/src/crash.c:30
#4  0x0000000000400970 [PAC] in crash_2 (n=n@entry=2) at ./testdata/src/crash.c:31
#5  0x00000000004009a4 [PAC] in crash_1 (n=n@entry=1) at ./testdata/src/crash.c:32
#6  0x00000000004005d8 [PAC] in main () at ./testdata/src/crash.c:45
#7  0x0000000000400a68 [PAC] in __libc_start_call_main ()
#8  0x0000000000400e34 in __libc_start_main_impl ()
#9  0x0000000000400670 in _start ()
