Thread 2 (Thread 0x40000328c0 (LWP 22994)):
#0  0x0000000001000b1c in spin_leaf () at testdata/src/crash.c:23
#1  0x0000000001000b66 in spin_b (n=<optimized out>) at testdata/src/crash.c:24
#2  0x0000000001000ba0 in spin_a (n=<optimized out>) at testdata/src/crash.c:25
#3  <signal handler called>
#4  0x00000000010122f2 in __pthread_kill_implementation.constprop.0 ()
#5  0x0000000001006376 in raise ()
#6  0x0000000001000aec in worker (arg=0x1) at testdata/src/crash.c:27
#7  0x0000000001010f50 in start_thread ()
#8  0x0000000001047ebe in thread_start ()
Thread 1 (Thread 0x10a13a0 (LWP 22992)):
#0  0x0000000001000bd4 in crash_leaf (n=1) at testdata/src/crash.c:29
#1  0x0000000001000c88 in crash_3 (n=n@entry=0) at testdata/src/crash.c:30
#2  0x0000000001000c64 in crash_3 (n=n@entry=1) at testdata/src/crash.c:30
#3  0x0000000001000c64 in crash_3 (n=n@entry=2) at testdata/src/crash.c:30
#4  0x0000000001000cbc in crash_2 (n=n@entry=2) at testdata/src/crash.c:31
#5  0x0000000001000d02 in crash_1 (n=n@entry=1) at testdata/src/crash.c:32
#6  0x0000000001000968 in main () at testdata/src/crash.c:45
#7  0x0000000001000de8 in __libc_start_call_main ()
#8  0x0000000001001072 in __libc_start_main_impl ()
#9  0x00000000010009ba in _start ()
