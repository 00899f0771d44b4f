Thread 3 (Thread 0x5500081520 (LWP 19678)):
#0  spin_leaf () at testdata/src/noreturn.c:63
#1  0x0000000000400a8c in on_abort (sig=<optimized out>) at testdata/src/noreturn.c:123
#2  <signal handler called>
#3  0x0000000000410500 in __pthread_kill_implementation.constprop.0 ()
#4  0x00000000004058cc in raise ()
#5  0x0000000000400488 in abort ()
#6  0x0000000000400398 in call_abort (n=<optimized out>) at testdata/src/noreturn.c:130
#7  0x0000000000400b8c in thread_abort (arg=<optimized out>) at testdata/src/noreturn.c:157
#8  0x000000000040f3a4 in start_thread ()
#9  0x00000000004435dc in thread_start ()
Thread 2 (Thread 0x5500051520 (LWP 19677)):
#0  spin_leaf () at testdata/src/noreturn.c:63
#1  0x0000000000400aac in fatal_spin (n=<optimized out>) at testdata/src/noreturn.c:71
#2  0x0000000000400adc in nr_inner (n=<optimized out>) at testdata/src/noreturn.c:78
#3  0x0000000000400b00 in nr_middle (n=<optimized out>) at testdata/src/noreturn.c:87
#4  0x0000000000400b24 in nr_outer (n=<optimized out>) at testdata/src/noreturn.c:95
#5  0x0000000000400b30 in run_spin (n=<optimized out>) at testdata/src/noreturn.c:100
#6  0x0000000000400b4c in thread_spin (arg=<optimized out>) at testdata/src/noreturn.c:151
#7  0x000000000040f3a4 in start_thread ()
#8  0x00000000004435dc in thread_start ()
Thread 1 (Thread 0x4a8000 (LWP 19675)):
#0  0x0000000000400bac in crash_now (n=n@entry=3) at testdata/src/noreturn.c:138
#1  0x0000000000400bd4 in crash_outer (n=n@entry=2) at testdata/src/noreturn.c:144
#2  0x000000000040070c in main (argc=2, argv=<optimized out>) at testdata/src/noreturn.c:204
#3  0x0000000000400cb8 in __libc_start_call_main ()
#4  0x0000000000401084 in __libc_start_main_impl ()
#5  0x00000000004007f0 in _start ()
