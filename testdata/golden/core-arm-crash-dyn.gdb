Thread 1 (Thread 0x3ffd5bc0 (LWP 32634)):
#0  0x000104ee in crash_leaf (n=1) at testdata/src/arm-crash.c:31
#1  0x0001056c in crash_3 (n=<optimized out>) at testdata/src/arm-crash.c:69
#2  0x00010590 in crash_3 (n=<optimized out>) at testdata/src/arm-crash.c:63
#3  0x00010590 in crash_3 (n=<optimized out>) at testdata/src/arm-crash.c:63
#4  0x000105ca in crash_2 (n=n@entry=2) at testdata/src/arm-crash.c:72
#5  0x000105f0 in crash_1 (n=n@entry=1) at testdata/src/arm-crash.c:73
#6  0x00010400 in main (argc=<optimized out>, argv=<optimized out>) at testdata/src/arm-crash.c:79
#7  0x3fec22da in ?? () from /usr/arm-linux-gnueabihf/lib/libc.so.6
#8  0x3fec238a in __libc_start_main () from /usr/arm-linux-gnueabihf/lib/libc.so.6
#9  0x00010430 in _start ()
