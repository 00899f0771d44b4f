Thread 2 (Thread 0x5500051520 (LWP 1324)):
#0  0x0000000000400800 in spin_leaf () at testdata/src/crash.c:23
#1  0x0000000000400834 in spin_b (n=<unavailable>) at testdata/src/crash.c:24
Thread 1 (Thread 0x4a8000 (LWP 1322)):
#0  0x000000000040089c in crash_leaf (n=1) at testdata/src/crash.c:29
#1  0x000000000040092c in crash_3 (n=<unavailable>) at testdata/src/crash.c:30
