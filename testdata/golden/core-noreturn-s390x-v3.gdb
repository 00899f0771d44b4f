Thread 3 (Thread 0x40000438c0 (LWP 20148)):
#0  spin_leaf () at testdata/src/noreturn.c:63
#1  0x0000000001000df8 in on_abort (sig=<optimized out>) at testdata/src/noreturn.c:123
#2  <signal handler called>
#3  0x00000000010454b2 in __pthread_kill_implementation.constprop.0 ()
#4  0x0000000001035b46 in raise ()
#5  0x000000000100081c in abort ()
#6  0x00000000010006f8 in call_abort (n=<optimized out>) at testdata/src/noreturn.c:130
#7  0x0000000001000f7c in thread_abort (arg=<optimized out>) at testdata/src/noreturn.c:157
#8  0x0000000001011118 in start_thread ()
#9  0x00000000010480fe in thread_start ()
Thread 2 (Thread 0x40000328c0 (LWP 20147)):
#0  spin_leaf () at testdata/src/noreturn.c:63
#1  0x0000000001000e30 in fatal_spin (n=<optimized out>) at testdata/src/noreturn.c:71
#2  0x0000000001000e7a in nr_inner (n=<optimized out>) at testdata/src/noreturn.c:78
#3  0x0000000001000eb0 in nr_middle (n=<optimized out>) at testdata/src/noreturn.c:87
#4  0x0000000001000ede in nr_outer (n=<optimized out>) at testdata/src/noreturn.c:95
#5  0x0000000001000efc in run_spin (n=<optimized out>) at testdata/src/noreturn.c:100
#6  0x0000000001000f24 in thread_spin (arg=<optimized out>) at testdata/src/noreturn.c:151
#7  0x0000000001011118 in start_thread ()
#8  0x00000000010480fe in thread_start ()
Thread 1 (Thread 0x10a13a0 (LWP 20145)):
#0  0x0000000001000f8e in crash_now (n=n@entry=3) at testdata/src/noreturn.c:138
#1  0x0000000001000fc4 in crash_outer (n=n@entry=2) at testdata/src/noreturn.c:144
#2  0x0000000001000a9a in main (argc=<optimized out>, argv=<optimized out>) at testdata/src/noreturn.c:204
#3  0x0000000001001090 in __libc_start_call_main ()
#4  0x000000000100131a in __libc_start_main_impl ()
#5  0x0000000001000b22 in _start ()
