Thread 1 (LWP 11017):
#0  0x0001048a in crash_leaf (n=1) at testdata/src/arm-crash.c:31
#1  0x00010508 in crash_3 (n=<optimized out>) at testdata/src/arm-crash.c:69
#2  0x0001052c in crash_3 (n=<optimized out>) at testdata/src/arm-crash.c:63
#3  0x0001052c in crash_3 (n=<optimized out>) at testdata/src/arm-crash.c:63
#4  0x00010566 in crash_2 (n=n@entry=2) at testdata/src/arm-crash.c:72
#5  0x0001058c in crash_1 (n=n@entry=1) at testdata/src/arm-crash.c:73
#6  0x00010360 in main (argc=<optimized out>, argv=<optimized out>) at testdata/src/arm-crash.c:79
#7  0x000115c4 in __libc_start_call_main ()
#8  0x00011798 in __libc_start_main_impl ()
#9  0x00010390 in _start ()
