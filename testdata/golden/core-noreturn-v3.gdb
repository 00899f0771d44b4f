Thread 3 (Thread 0x7fe7d25a76c0 (LWP 18625)):
#0  spin_leaf () at testdata/src/noreturn.c:62
#1  0x0000000000401953 in on_abort (sig=<optimized out>) at testdata/src/noreturn.c:123
#2  <signal handler called>
#3  0x0000000000413acb in __pthread_kill_implementation.constprop.0 ()
#4  0x0000000000408a62 in raise ()
#5  0x00000000004011f9 in abort ()
#6  0x000000000040110d in call_abort (n=<optimized out>) at testdata/src/noreturn.c:130
#7  0x0000000000401a29 in thread_abort (arg=<optimized out>) at testdata/src/noreturn.c:157
#8  0x000000000041283c in start_thread ()
#9  0x0000000000460cec in clone3 ()
Thread 2 (Thread 0x7fe7d25b86c0 (LWP 18624)):
#0  spin_leaf () at testdata/src/noreturn.c:62
#1  0x0000000000401970 in fatal_spin (n=<optimized out>) at testdata/src/noreturn.c:71
#2  0x000000000040199e in nr_inner (n=<optimized out>) at testdata/src/noreturn.c:78
#3  0x00000000004019b9 in nr_middle (n=<optimized out>) at testdata/src/noreturn.c:87
#4  0x00000000004019da in nr_outer (n=<optimized out>) at testdata/src/noreturn.c:95
#5  0x00000000004019e9 in run_spin (n=<optimized out>) at testdata/src/noreturn.c:100
#6  0x00000000004019f9 in thread_spin (arg=<optimized out>) at testdata/src/noreturn.c:151
#7  0x000000000041283c in start_thread ()
#8  0x0000000000460cec in clone3 ()
Thread 1 (Thread 0x348173c0 (LWP 18622)):
#0  0x0000000000401a37 in crash_now (n=n@entry=3) at testdata/src/noreturn.c:138
#1  0x0000000000401a54 in crash_outer (n=n@entry=2) at testdata/src/noreturn.c:144
#2  0x00000000004016a3 in main (argc=2, argv=<optimized out>) at testdata/src/noreturn.c:204
#3  0x0000000000401d84 in __libc_start_call_main ()
#4  0x0000000000403480 in __libc_start_main_impl ()
#5  0x0000000000401721 in _start ()
