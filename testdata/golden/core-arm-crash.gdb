Thread 1 (LWP 2527):
#0  0x0001045a in crash_leaf (n=1) at testdata/src/arm-crash.c:21
#1  0x000104dc in crash_3 (n=<optimized out>) at testdata/src/arm-crash.c:22
#2  0x000104b8 in crash_3 (n=<optimized out>) at testdata/src/arm-crash.c:22
#3  0x000104b8 in crash_3 (n=<optimized out>) at testdata/src/arm-crash.c:22
#4  0x00010502 in crash_2 (n=n@entry=2) at testdata/src/arm-crash.c:23
#5  0x00010528 in crash_1 (n=n@entry=1) at testdata/src/arm-crash.c:24
#6  0x0001034a in main () at testdata/src/arm-crash.c:28
#7  0x00011560 in __libc_start_call_main ()
#8  0x00011734 in __libc_start_main_impl ()
#9  0x00010378 in _start ()
