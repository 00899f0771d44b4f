#!/bin/bash
# build-core-fixtures.sh - rebuilds the core-file fixtures in testdata/cores
# from testdata/src/crash.c:
#   testdata/cores/crash-v{2,3}        static x86-64 program, SFrame v2 / v3
#   testdata/cores/crash-v{2,3}.core   its core: two threads, the main one
#                                      killed by SIGSEGV in a deep stack
#   testdata/golden/core-crash-v{2,3}.gdb   gdb's backtrace of every thread
#                                      (set backtrace past-main on)
# The cores come from the kernel when /proc/sys/kernel/core_pattern is a
# plain file name (written in the working directory), else from
# qemu-x86_64, which writes qemu_PROG_*.core there when the guest dies.
# The program runs as /tmp/sfdbg-cores/crash-vN, the path NT_FILE records.
#
# Usage: scripts/build-core-fixtures.sh
# Env:   SFDBG_TOOLCHAINS  toolchain dir (default /tmp/sfdbg-toolchains)
# Needs: gcc with static glibc (Debian 12's gcc 12 was used), gdb;
#        qemu-user when core_pattern is a pipe or a path.
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
  *'|'*|*/*|*%*) use_qemu=1; need qemu-x86_64 "dumps the guest's core (core_pattern is '$pattern')" qemu-user ;;
  *) use_qemu=0 ;;
esac

cd "$REPO"
for v in 2 3; do
  name=crash-v$v
  gcc -B "$TC/v$v/bin/" -Wa,--gsframe -g -O2 -fomit-frame-pointer -static -pthread -Wall -Wextra \
      -ffile-prefix-map="$REPO"=. -o "$OUT/$name" testdata/src/crash.c
  check_version "$OUT/$name" x86_64 $v
  cp "$OUT/$name" "$RUN/$name"
  rm -f "$RUN"/core* "$RUN"/qemu_*.core
  if [ $use_qemu = 1 ]; then
    (cd "$RUN" && ulimit -c unlimited && qemu-x86_64 "./$name") && die "$name did not crash" || true
    core=$(ls "$RUN"/qemu_"$name"_*.core | head -1)
  else
    (cd "$RUN" && ulimit -c unlimited && exec "./$name") && die "$name did not crash" || true
    core=$(ls "$RUN"/$pattern* | head -1)
  fi
  [ -s "$core" ] || die "$name left no core in $RUN"
  cp "$core" "$OUT/$name.core"
  gdb -nx -batch -ex 'set backtrace past-main on' -ex 'thread apply all bt' \
      "$OUT/$name" "$OUT/$name.core" 2>/dev/null | sed -n '/^Thread /,$p' | grep -E '^(#|Thread )' > "$GOLDEN/core-$name.gdb"
  grep -q crash_leaf "$GOLDEN/core-$name.gdb" || die "gdb's backtrace of $name lacks crash_leaf"
  echo "built $name ($(stat -c %s "$OUT/$name") bytes) and $name.core ($(stat -c %s "$OUT/$name.core") bytes)"
done
