#!/bin/bash
# build-core-fixtures.sh - rebuilds the core-file fixtures in testdata/cores
# from testdata/src/crash.c:
#   testdata/cores/crash-v{2,3}        static x86-64 program, SFrame v2 / v3
#   testdata/cores/crash-v{2,3}.core   its core: two threads, the main one
#                                      killed by SIGSEGV in a deep stack
#   testdata/cores/crash-v3-qemu.core  crash-v3's core written by qemu-x86_64
#                                      (no NT_FILE note; a 128 KiB guest stack)
#   testdata/golden/core-crash-v{2,3}{,-qemu}.gdb   gdb's backtrace of every
#                                      thread (set backtrace past-main on)
# The crash-vN cores come from the kernel when
# /proc/sys/kernel/core_pattern is a plain file name (written in the
# working directory), else from qemu-x86_64, which writes qemu_PROG_*.core
# there when the guest dies.
# The program runs as /tmp/sfdbg-cores/crash-vN, the path NT_FILE records.
#
# Usage: scripts/build-core-fixtures.sh
# Env:   SFDBG_TOOLCHAINS  toolchain dir (default /tmp/sfdbg-toolchains)
# Needs: gcc with static glibc (Debian 12's gcc 12 was used), gdb,
#        qemu-x86_64 (Debian qemu-user).
set -euo pipefail
. "$(dirname "$0")/fixtures-lib.sh"

need gcc "builds crash.c"
need gdb "records the reference backtraces"
[ "$(uname -m)" = x86_64 ] || die "must run on an x86-64 Linux host"
ensure_toolchains

OUT=$REPO/testdata/cores
RUN=/tmp/sfdbg-cores
mkdir -p "$OUT" "$GOLDEN"
rm -rf "$RUN"; mkdir -p "$RUN"
pattern=$(cat /proc/sys/kernel/core_pattern)
case $pattern in
  *'|'*|*/*|*%*) use_qemu=1 ;;
  *) use_qemu=0 ;;
esac
need qemu-x86_64 "dumps the guest's core" qemu-user

# qemu_core PROG: runs PROG under qemu-x86_64 in $RUN with a small guest
# stack and prints the path of the guest's core. qemu itself may leave a
# host core as well: removed.
qemu_core() {
  (cd "$RUN" && ulimit -c unlimited && exec qemu-x86_64 -s 131072 "./$1") 2>/dev/null && die "$1 did not crash under qemu" || true
  rm -f "$RUN/core" "$RUN"/core.*
  ls "$RUN"/qemu_"$1"_*.core | head -1
}

# gdb_golden PROG CORE NAME: gdb's backtrace of every thread.
gdb_golden() {
  gdb -nx -batch -ex 'set backtrace past-main on' -ex 'thread apply all bt' "$1" "$2" 2>/dev/null \
    | sed -n '/^Thread /,$p' | grep -E '^(#|Thread )' > "$GOLDEN/core-$3.gdb"
  grep -q crash_leaf "$GOLDEN/core-$3.gdb" || die "gdb's backtrace of $3 lacks crash_leaf"
}

cd "$REPO"
for v in 2 3; do
  name=crash-v$v
  gcc -B "$TC/v$v/bin/" -Wa,--gsframe -g -O2 -fomit-frame-pointer -static -pthread -Wall -Wextra \
      -ffile-prefix-map="$REPO"=. -o "$OUT/$name" testdata/src/crash.c
  check_version "$OUT/$name" x86_64 $v
  cp "$OUT/$name" "$RUN/$name"
  rm -f "$RUN"/core* "$RUN"/qemu_*.core
  if [ $use_qemu = 1 ]; then
    core=$(qemu_core "$name")
  else
    (cd "$RUN" && ulimit -c unlimited && exec "./$name") && die "$name did not crash" || true
    core=$(ls "$RUN"/$pattern* | head -1)
  fi
  [ -s "$core" ] || die "$name left no core in $RUN"
  cp "$core" "$OUT/$name.core"
  gdb_golden "$OUT/$name" "$OUT/$name.core" $name
  echo "built $name ($(stat -c %s "$OUT/$name") bytes) and $name.core ($(stat -c %s "$OUT/$name.core") bytes)"
done

rm -f "$RUN"/qemu_*.core
core=$(qemu_core crash-v3)
[ -s "$core" ] || die "qemu-x86_64 left no core of crash-v3 in $RUN"
cp "$core" "$OUT/crash-v3-qemu.core"
gdb_golden "$OUT/crash-v3" "$OUT/crash-v3-qemu.core" crash-v3-qemu
echo "built crash-v3-qemu.core ($(stat -c %s "$OUT/crash-v3-qemu.core") bytes)"
