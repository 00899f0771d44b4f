Thread 2 (Thread 0x5500051520 (LWP 22885)):
#0  0x0000000000400800 in spin_leaf () at testdata/src/crash.c:23
#1  0x0000000000400830 in spin_b (n=<optimized out>) at testdata/src/crash.c:24
#2  0x0000000000400860 in spin_a (n=<optimized out>) at testdata/src/crash.c:25
#3  <signal handler called>
#4  0x0000000000411300 in __pthread_kill_implementation.constprop.0 ()
#5  0x000000000040570c in raise ()
#6  0x00000000004007c8 in worker (arg=0x1) at testdata/src/crash.c:27
#7  0x00000000004101a4 in start_thread ()
#8  0x00000000004452dc in thread_start ()
Thread 1 (Thread 0x4a8000 (LWP 22883)):
#0  0x000000000040089c in crash_leaf (n=1) at testdata/src/crash.c:29
#1  0x0000000000400924 in crash_3 (n=n@entry=0) at testdata/src/crash.c:30
#2  0x0000000000400900 in crash_3 (n=n@entry=1) at testdata/src/crash.c:30
#3  0x0000000000400900 in crash_3 (n=n@entry=2) at testdata/src/crash.c:30
#4  0x000000000040094c in crash_2 (n=n@entry=2) at testdata/src/crash.c:31
#5  0x0000000000400974 in crash_1 (n=n@entry=1) at testdata/src/crash.c:32
#6  0x00000000004005d0 in main () at testdata/src/crash.c:45
#7  0x0000000000400a38 in __libc_start_call_main ()
#8  0x0000000000400e04 in __libc_start_main_impl ()
#9  0x0000000000400670 in _start ()
