Thread 2 (Thread 0x550025d1a0 (LWP 3649)):
#0  0x00000000004008b0 in spin_leaf () at testdata/src/crash.c:23
#1  0x00000000004008e0 in spin_b (n=<optimized out>) at testdata/src/crash.c:24
#2  0x0000000000400910 in spin_a (n=<optimized out>) at testdata/src/crash.c:25
#3  <signal handler called>
#4  0x00000055000f0990 in ?? () from /usr/aarch64-linux-gnu/lib/libc.so.6
#5  0x00000055000aa76c in raise () from /usr/aarch64-linux-gnu/lib/libc.so.6
#6  0x0000000000400878 in worker (arg=0x1) at testdata/src/crash.c:27
#7  0x00000055000eedd8 in ?? () from /usr/aarch64-linux-gnu/lib/libc.so.6
#8  0x0000005500157e9c in ?? () from /usr/aarch64-linux-gnu/lib/libc.so.6
Thread 1 (Thread 0x550006dcc0 (LWP 3647)):
#0  0x000000000040094c in crash_leaf (n=1) at testdata/src/crash.c:29
#1  0x00000000004009d4 in crash_3 (n=n@entry=0) at testdata/src/crash.c:30
#2  0x00000000004009b0 in crash_3 (n=n@entry=1) at testdata/src/crash.c:30
#3  0x00000000004009b0 in crash_3 (n=n@entry=2) at testdata/src/crash.c:30
#4  0x00000000004009fc in crash_2 (n=n@entry=2) at testdata/src/crash.c:31
#5  0x0000000000400a24 in crash_1 (n=n@entry=1) at testdata/src/crash.c:32
#6  0x0000000000400720 in main () at testdata/src/crash.c:45
#7  0x0000005500097780 in ?? () from /usr/aarch64-linux-gnu/lib/libc.so.6
#8  0x0000005500097858 in __libc_start_main () from /usr/aarch64-linux-gnu/lib/libc.so.6
#9  0x0000000000400770 in _start ()
