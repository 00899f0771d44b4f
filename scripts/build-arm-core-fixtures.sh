#!/bin/bash
# build-arm-core-fixtures.sh - rebuilds the 32-bit ARM core-file fixture
# from testdata/src/arm-crash.c:
#   testdata/cores/arm-crash        static armhf program (-O2 -g
#                                   -funwind-tables -fno-omit-frame-pointer:
#                                   .ARM.exidx/.ARM.extab, .debug_frame, and
#                                   frame pointers), ARM and Thumb functions
#                                   calling each other
#   testdata/cores/arm-crash.core   the core qemu-arm wrote when it died of
#                                   SIGSEGV (ELFCLASS32, no NT_FILE)
#   testdata/cores/arm-crash-trap.core      run as "arm-crash trap": SIGILL
#                                   at a function's first instruction
#   testdata/cores/arm-crash-prologue.core  run as "arm-crash prologue":
#                                   SIGILL inside a function's prologue
#   testdata/cores/arm-crash-dyn{,.core}  the same program linked
#                                   dynamically (not PIE), run with qemu-arm
#                                   -L /usr/arm-linux-gnueabihf: its libc
#                                   frames need that armhf libc (sfdbg core
#                                   --sysroot /usr/arm-linux-gnueabihf)
#   testdata/cores/crash-arm{,.core}  testdata/src/crash.c (two threads, the
#                                   worker in a SIGUSR1 handler) built the
#                                   same way, static, with -pthread
#   testdata/cores/crash-aarch64-dyn{,.core}  crash.c for aarch64, linked
#                                   dynamically (not PIE), run with
#                                   qemu-aarch64 -L /usr/aarch64-linux-gnu: the
#                                   link_map walk on a 64-bit core
#   testdata/golden/core-{arm-crash{,-trap,-prologue,-dyn},crash-arm,crash-aarch64-dyn}.gdb  gdb-multiarch's
#                                   backtrace of each (set backtrace past-main
#                                   on; set sysroot /usr/arm-linux-gnueabihf)
# The programs run as /tmp/sfdbg-cores/NAME with a 128 KiB guest stack
# (qemu-arm -s), which keeps the cores small.
#
# Usage: scripts/build-arm-core-fixtures.sh
# Needs: arm-linux-gnueabihf-gcc with static glibc (gcc-arm-linux-gnueabihf
#        libc6-dev-armhf-cross; Debian 12's gcc 12.2 and glibc 2.36 were
#        used), qemu-arm (qemu-user), gdb-multiarch.
set -euo pipefail
. "$(dirname "$0")/fixtures-lib.sh"

need arm-linux-gnueabihf-gcc "builds arm-crash.c" "gcc-arm-linux-gnueabihf libc6-dev-armhf-cross"
need qemu-arm "runs the armhf program and dumps its core" qemu-user
need gdb-multiarch "records the reference backtrace"
need timeout "bounds gdb's run time" coreutils

OUT=$REPO/testdata/cores
RUN=/tmp/sfdbg-cores
name=arm-crash
mkdir -p "$OUT" "$GOLDEN" "$RUN"
cd "$REPO"
arm-linux-gnueabihf-gcc -O2 -g -funwind-tables -fno-omit-frame-pointer -static -Wall -Wextra \
    -ffile-prefix-map="$REPO"=. -o "$OUT/$name" testdata/src/$name.c
cp "$OUT/$name" "$RUN/$name"
# core MODE LEAF [QEMU-OPTION...]: runs the program with argument MODE (""
# for none) and keeps its core as $name[-MODE].core and gdb-multiarch's
# backtrace, which must show LEAF.
SYSROOT=/usr/arm-linux-gnueabihf
core() {
  local mode=$1 leaf=$2 out=$name${1:+-$1} c
  shift 2
  rm -f "$RUN"/qemu_"$name"_*.core
  (cd "$RUN" && ulimit -c unlimited && exec ${QEMU:-qemu-arm} -s 131072 "$@" "./$name" $mode) 2>/dev/null && die "$name $mode did not crash under qemu-arm" || true
  rm -f "$RUN/core" "$RUN"/core.*
  c=$(ls "$RUN"/qemu_"$name"_*.core 2>/dev/null | head -1)
  [ -s "$c" ] || die "qemu-arm left no core of $name $mode in $RUN"
  cp "$c" "$OUT/$out.core"
  rm -f "$c"
  timeout 300 gdb-multiarch -nx -batch -ex "set sysroot $SYSROOT" -ex 'set backtrace past-main on' -ex 'thread apply all bt' \
      "$OUT/$name" "$OUT/$out.core" 2>/dev/null \
    | sed -n '/^Thread /,$p' | grep -E '^(#|Thread )' > "$GOLDEN/core-$out.gdb" || true
  grep -q "$leaf" "$GOLDEN/core-$out.gdb" || die "gdb-multiarch's backtrace of $out lacks $leaf"
  echo "built $out.core ($(stat -c %s "$OUT/$out.core") bytes)"
}
core "" crash_leaf
core trap trap_at_entry
core prologue trap_in_prologue
echo "built $name ($(stat -c %s "$OUT/$name") bytes)"

[ -e $SYSROOT/lib/libc.so.6 ] || die "needs the armhf libc in $SYSROOT (apt-get install libc6-armhf-cross)"
name=arm-crash-dyn
arm-linux-gnueabihf-gcc -O2 -g -funwind-tables -fno-omit-frame-pointer -no-pie -Wall -Wextra \
    -ffile-prefix-map="$REPO"=. -o "$OUT/$name" testdata/src/arm-crash.c
cp "$OUT/$name" "$RUN/$name"
core "" crash_leaf -L $SYSROOT
grep -q 'from /usr/arm-linux-gnueabihf/lib/libc.so.6' "$GOLDEN/core-$name.gdb" || die "gdb-multiarch did not unwind into the armhf libc"
echo "built $name ($(stat -c %s "$OUT/$name") bytes)"

# crash.c: gdb-multiarch 13.1 unwinds the worker thread to the signal
# frame and no further (its next frame is "?? ()"): past it the test
# checks the functions crash.c calls.
name=crash-arm
arm-linux-gnueabihf-gcc -O2 -g -funwind-tables -fno-omit-frame-pointer -static -pthread -Wall -Wextra \
    -ffile-prefix-map="$REPO"=. -o "$OUT/$name" testdata/src/crash.c
cp "$OUT/$name" "$RUN/$name"
core "" crash_leaf
grep -q '<signal handler called>' "$GOLDEN/core-$name.gdb" || die "gdb-multiarch's backtrace of $name has no signal frame"
echo "built $name ($(stat -c %s "$OUT/$name") bytes)"

# The link_map walk on a 64-bit core: crash.c for aarch64, dynamic.
need aarch64-linux-gnu-gcc "builds crash.c for aarch64" "gcc-aarch64-linux-gnu libc6-dev-arm64-cross"
need qemu-aarch64 "runs the aarch64 program" qemu-user
name=crash-aarch64-dyn
SYSROOT=/usr/aarch64-linux-gnu
[ -e $SYSROOT/lib/libc.so.6 ] || die "needs the arm64 libc in $SYSROOT (apt-get install libc6-arm64-cross)"
aarch64-linux-gnu-gcc -O2 -g -no-pie -pthread -Wall -Wextra -ffile-prefix-map="$REPO"=. -o "$OUT/$name" testdata/src/crash.c
cp "$OUT/$name" "$RUN/$name"
# -cpu max,sve=off: see build-core-fixtures.sh (gdb 13.1 loops on qemu's SVE record).
QEMU=qemu-aarch64 core "" crash_leaf -cpu max,sve=off -L $SYSROOT
grep -q "from $SYSROOT/lib/libc.so.6" "$GOLDEN/core-$name.gdb" || die "gdb-multiarch did not unwind into the arm64 libc"
echo "built $name ($(stat -c %s "$OUT/$name") bytes)"
