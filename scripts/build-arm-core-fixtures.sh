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
#   testdata/golden/core-arm-crash.gdb  gdb-multiarch's backtrace of it
#                                   (set backtrace past-main on)
# The program runs as /tmp/sfdbg-cores/arm-crash with a 128 KiB guest stack
# (qemu-arm -s), which keeps the core small. It is static: a dynamically
# linked program's core would need the armhf libc and ld.so (from
# libc6-armhf-cross) to unwind through their frames.
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
rm -f "$RUN"/qemu_"$name"_*.core
(cd "$RUN" && ulimit -c unlimited && exec qemu-arm -s 131072 "./$name") 2>/dev/null && die "$name did not crash under qemu-arm" || true
rm -f "$RUN/core" "$RUN"/core.*
core=$(ls "$RUN"/qemu_"$name"_*.core 2>/dev/null | head -1)
[ -s "$core" ] || die "qemu-arm left no core of $name in $RUN"
cp "$core" "$OUT/$name.core"
rm -f "$core"
timeout 300 gdb-multiarch -nx -batch -ex 'set backtrace past-main on' -ex 'thread apply all bt' "$OUT/$name" "$OUT/$name.core" 2>/dev/null \
  | sed -n '/^Thread /,$p' | grep -E '^(#|Thread )' > "$GOLDEN/core-$name.gdb" || true
grep -q crash_leaf "$GOLDEN/core-$name.gdb" || die "gdb-multiarch's backtrace of $name lacks crash_leaf"
echo "built $name ($(stat -c %s "$OUT/$name") bytes) and $name.core ($(stat -c %s "$OUT/$name.core") bytes)"
