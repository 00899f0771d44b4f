#!/bin/bash
# build-core-fixtures.sh - rebuilds the core-file fixtures in testdata/cores
# from testdata/src/crash.c:
#   testdata/cores/crash-v{2,3}        static x86-64 program, SFrame v2 / v3
#   testdata/cores/crash-v{2,3}.core   its core: two threads, the main one
#                                      killed by SIGSEGV in a deep stack
#   testdata/cores/crash-v3-qemu.core  crash-v3's core written by qemu-x86_64
#                                      (no NT_FILE note; a 128 KiB guest stack)
#   testdata/cores/crash-aarch64-v{2,3}       static aarch64 programs and the
#   testdata/cores/crash-aarch64-v{2,3}.core  cores qemu-aarch64 wrote
#   testdata/cores/crash-aarch64-pac-v3{,.core}  the same with
#                                      -mbranch-protection=pac-ret, run on a
#                                      CPU without pointer authentication
#   testdata/cores/crash-aarch64-pac-v3-signed.core  its core with pointer
#                                      authentication on (signed RAs)
#   testdata/cores/crash-s390x-v3{,.core}     static s390x program, core from
#                                      qemu-s390x (GNU as 2.44 has no s390x
#                                      SFrame: no s390x v2)
#   testdata/cores/noreturn-{v3,aarch64-v3,s390x-v3}{,.core}  the same
#                                      three ways from testdata/src/noreturn.c
#                                      ("crash" mode): three threads whose
#                                      stacks hold return addresses one past
#                                      their function's end
#   testdata/golden/core-NAME.gdb      gdb's backtrace of every thread of
#                                      each core (set backtrace past-main on):
#                                      gdb for x86-64, gdb-multiarch for the
#                                      others
# The x86-64 crash-vN cores come from the kernel when
# /proc/sys/kernel/core_pattern is a plain file name (written in the
# working directory), else from qemu-x86_64. qemu-user writes
# qemu_PROG_DATE_PID.core in the working directory when the guest dies.
# Every program runs as /tmp/sfdbg-cores/NAME (the path NT_FILE records in
# a kernel core; qemu's cores have no NT_FILE).
#
# Usage: scripts/build-core-fixtures.sh [amd64] [aarch64] [s390x]
#        (the ABIs to rebuild; default all three)
# Env:   SFDBG_TOOLCHAINS  toolchain dir (default /tmp/sfdbg-toolchains)
# Needs: gcc with static glibc (Debian 12's gcc 12 was used), gdb,
#        qemu-x86_64 (Debian qemu-user); for aarch64 and s390x
#        aarch64-linux-gnu-gcc, s390x-linux-gnu-gcc with static glibc
#        (gcc-aarch64-linux-gnu libc6-dev-arm64-cross gcc-s390x-linux-gnu
#        libc6-dev-s390x-cross), qemu-aarch64, qemu-s390x, gdb-multiarch, and
#        the cross binutils of scripts/cross-toolchains.sh (run when missing).
set -euo pipefail
. "$(dirname "$0")/fixtures-lib.sh"

abis=${*:-amd64 aarch64 s390x}
for a in $abis; do
  case $a in amd64|aarch64|s390x) ;; *) die "unknown ABI '$a' (amd64, aarch64, s390x)" ;; esac
done
has() { case " $abis " in *" $1 "*) return 0 ;; esac; return 1; }

[ "$(uname -m)" = x86_64 ] || die "must run on an x86-64 Linux host"
if has amd64; then
  need gcc "builds crash.c"
  need gdb "records the reference backtraces"
  need qemu-x86_64 "dumps the guest's core" qemu-user
  ensure_toolchains
fi
if has aarch64 || has s390x; then
  need gdb-multiarch "records the reference backtraces of aarch64 and s390x cores"
  for a in aarch64 s390x; do
    has $a || continue
    need $a-linux-gnu-gcc "builds crash.c for $a" "gcc-$a-linux-gnu libc6-dev-$([ $a = aarch64 ] && echo arm64 || echo s390x)-cross"
    need qemu-$a "runs the $a program and dumps its core" qemu-user
  done
  ensure_cross
fi
need timeout "bounds gdb's run time" coreutils

OUT=$REPO/testdata/cores
RUN=/tmp/sfdbg-cores
mkdir -p "$OUT" "$GOLDEN"
rm -rf "$RUN"; mkdir -p "$RUN"
temp_dir
pattern=$(cat /proc/sys/kernel/core_pattern)
case $pattern in
  *'|'*|*/*|*%*) use_qemu=1 ;;
  *) use_qemu=0 ;;
esac

# qemu_core QEMU PROG [OPTION...]: runs PROG (with the arguments in the
# array PROG_ARGS) under qemu-user QEMU (qemu-x86_64, qemu-aarch64, ...) in
# $RUN with a small guest stack and the OPTIONs, and prints the path of the
# guest's core. qemu itself may leave a host core as well: removed.
PROG_ARGS=()
qemu_core() {
  local q=$1 p=$2; shift 2
  rm -f "$RUN"/qemu_"$p"_*.core
  (cd "$RUN" && ulimit -c unlimited && exec "$q" -s 131072 "$@" "./$p" "${PROG_ARGS[@]}") 2>/dev/null && die "$p did not crash under $q" || true
  rm -f "$RUN/core" "$RUN"/core.*
  ls "$RUN"/qemu_"$p"_*.core | head -1
}

# gdb_golden GDB PROG CORE NAME [LEAF]: GDB's backtrace of every thread,
# which must show the faulting function LEAF (default crash_leaf). gdb may
# loop forever on a core it misreads (see aarch64 below): bounded.
gdb_golden() {
  local leaf=${5:-crash_leaf}
  timeout 300 "$1" -nx -batch -ex 'set backtrace past-main on' -ex 'thread apply all bt' "$2" "$3" 2>/dev/null \
    | sed -n '/^Thread /,$p' | grep -E '^(#|Thread )' > "$GOLDEN/core-$4.gdb" || true
  grep -q "$leaf" "$GOLDEN/core-$4.gdb" || die "$1's backtrace of $4 lacks $leaf"
}

# check_threads ARCH CORE [N]: CORE has N (default 2) NT_PRSTATUS notes,
# one per thread.
check_threads() {
  local n want=${3:-2}
  n=$("$(tool "$1" 3 readelf)" -n "$2" | grep -c NT_PRSTATUS || true)
  [ "$n" = "$want" ] || die "$(basename "$2"): $n NT_PRSTATUS notes, want $want (one per thread)"
}

cd "$REPO"
if has amd64; then
  for v in 2 3; do
    name=crash-v$v
    gcc -B "$TC/v$v/bin/" -Wa,--gsframe -g -O2 -fomit-frame-pointer -static -pthread -Wall -Wextra \
        -ffile-prefix-map="$REPO"=. -o "$OUT/$name" testdata/src/crash.c
    check_version "$OUT/$name" x86_64 $v
    cp "$OUT/$name" "$RUN/$name"
    rm -f "$RUN"/core* "$RUN"/qemu_*.core
    if [ $use_qemu = 1 ]; then
      core=$(qemu_core qemu-x86_64 "$name")
    else
      (cd "$RUN" && ulimit -c unlimited && exec "./$name") && die "$name did not crash" || true
      core=$(ls "$RUN"/$pattern* | head -1)
    fi
    [ -s "$core" ] || die "$name left no core in $RUN"
    check_threads x86_64 "$core"
    cp "$core" "$OUT/$name.core"
    gdb_golden gdb "$OUT/$name" "$OUT/$name.core" $name
    echo "built $name ($(stat -c %s "$OUT/$name") bytes) and $name.core ($(stat -c %s "$OUT/$name.core") bytes)"
  done

  core=$(qemu_core qemu-x86_64 crash-v3)
  [ -s "$core" ] || die "qemu-x86_64 left no core of crash-v3 in $RUN"
  check_threads x86_64 "$core"
  cp "$core" "$OUT/crash-v3-qemu.core"
  gdb_golden gdb "$OUT/crash-v3" "$OUT/crash-v3-qemu.core" crash-v3-qemu
  echo "built crash-v3-qemu.core ($(stat -c %s "$OUT/crash-v3-qemu.core") bytes)"

  # noreturn.c in its "crash" mode: a thread in a chain of calls to
  # noreturn functions, a thread in abort's SIGABRT handler, and the main
  # thread faulting in the noreturn crash_now.
  name=noreturn-v3
  gcc -B "$TC/v3/bin/" -Wa,--gsframe -g -O2 -fomit-frame-pointer -static -pthread -Wall -Wextra \
      -ffile-prefix-map="$REPO"=. -o "$OUT/$name" testdata/src/noreturn.c
  check_version "$OUT/$name" x86_64 3
  cp "$OUT/$name" "$RUN/$name"
  rm -f "$RUN"/core* "$RUN"/qemu_*.core
  if [ $use_qemu = 1 ]; then
    PROG_ARGS=(crash) core=$(qemu_core qemu-x86_64 "$name")
  else
    (cd "$RUN" && ulimit -c unlimited && exec "./$name" crash) && die "$name did not crash" || true
    core=$(ls "$RUN"/$pattern* | head -1)
  fi
  [ -s "$core" ] || die "$name left no core in $RUN"
  check_threads x86_64 "$core" 3
  cp "$core" "$OUT/$name.core"
  gdb_golden gdb "$OUT/$name" "$OUT/$name.core" $name crash_now
  echo "built $name ($(stat -c %s "$OUT/$name") bytes) and $name.core ($(stat -c %s "$OUT/$name.core") bytes)"
fi

# ------------------------------------------------------------ aarch64, s390x
# Debian's cross gcc 12 runs the as and ld of binutils VER through -B DIR/,
# DIR holding links named as and ld to the cross tools.
#   aarch64: -fno-omit-frame-pointer (what GCC 12 does at -O2 anyway, said
#     so that the frame-pointer method has x29 frame records to follow: every
#     non-leaf function stores x29/x30 and sets x29; the leaves crash_leaf
#     and spin_leaf keep none (GCC's default -momit-leaf-frame-pointer), so
#     their caller is in x30). qemu runs it on "-cpu max,sve=off": with SVE
#     on, the signal frame qemu writes carries an SVE record, on which
#     gdb-multiarch 13.1 loops forever while unwinding through the handler.
#   aarch64-pac: -mbranch-protection=pac-ret as well (paciasp/autiasp, the
#     SFrame FDE pauth key and mangled-RA FREs, DW_CFA_AARCH64_negate_ra_state
#     in the CFI), run on "-cpu max,sve=off,pauth=off", where paciasp and
#     autiasp are NOPs: qemu's core has no NT_ARM_PAC_MASK, so gdb could not
#     strip signed return addresses; these are plain.
#   s390x: -mbackchain, so the back chain (s390x's frame-pointer method)
#     links crash.c's frames (static glibc is built without it).
# cross_fixture ABI ARCH VER QEMU-CPU GCC-FLAGS...: crash-ABI-vVER from
# crash.c; with PROG=noreturn, noreturn-ABI-vVER from noreturn.c run in its
# "crash" mode (three threads).
PROG=crash
cross_fixture() {
  local abi=$1 arch=$2 v=$3 cpu=$4; shift 4
  local name=$PROG-$abi-v$v dir=$TMP/bin-$arch-v$v core threads=2 leaf=crash_leaf
  PROG_ARGS=()
  if [ $PROG = noreturn ]; then threads=3 leaf=crash_now PROG_ARGS=(crash); fi
  mkdir -p "$dir"
  ln -sf "$(tool "$arch" "$v" as)" "$dir/as"
  ln -sf "$(tool "$arch" "$v" ld)" "$dir/ld"
  "$arch-linux-gnu-gcc" -B "$dir/" -Wa,--gsframe -g -O2 "$@" -static -pthread -Wall -Wextra \
      -ffile-prefix-map="$REPO"=. -o "$OUT/$name" testdata/src/$PROG.c
  check_version "$OUT/$name" "$arch" "$v"
  cp "$OUT/$name" "$RUN/$name"
  core=$(qemu_core "qemu-$arch" "$name" ${cpu:+-cpu "$cpu"})
  [ -s "$core" ] || die "qemu-$arch left no core of $name in $RUN"
  check_threads "$arch" "$core" $threads
  cp "$core" "$OUT/$name.core"
  gdb_golden gdb-multiarch "$OUT/$name" "$OUT/$name.core" "$name" $leaf
  echo "built $name ($(stat -c %s "$OUT/$name") bytes) and $name.core ($(stat -c %s "$OUT/$name.core") bytes)"
}

if has aarch64; then
  for v in 2 3; do
    cross_fixture aarch64 aarch64 $v max,sve=off -fno-omit-frame-pointer
  done
  cross_fixture aarch64-pac aarch64 3 max,sve=off,pauth=off -fno-omit-frame-pointer -mbranch-protection=pac-ret
  # The same binary with pointer authentication on: the saved return
  # addresses carry PACs (qemu writes no NT_ARM_PAC_MASK, so sfdbg strips
  # them with its default mask). gdb-multiarch 13.1 stops after two frames
  # on it; its backtrace is kept as the record of that.
  name=crash-aarch64-pac-v3
  core=$(qemu_core qemu-aarch64 "$name" -cpu max,sve=off)
  [ -s "$core" ] || die "qemu-aarch64 left no core of $name (pauth on) in $RUN"
  check_threads aarch64 "$core"
  cp "$core" "$OUT/$name-signed.core"
  gdb_golden gdb-multiarch "$OUT/$name" "$OUT/$name-signed.core" "$name-signed"
  echo "built $name-signed.core ($(stat -c %s "$OUT/$name-signed.core") bytes)"
  PROG=noreturn cross_fixture aarch64 aarch64 3 max,sve=off -fno-omit-frame-pointer
fi
if has s390x; then
  cross_fixture s390x s390x 3 "" -mbackchain
  PROG=noreturn cross_fixture s390x s390x 3 "" -mbackchain
  # binutils 2.44 has no s390x SFrame ("Error: .sframe not supported for
  # target"): no crash-s390x-v2, unless it ever works.
  if printf 'f:\n.cfi_startproc\nbr %%r14\n.cfi_endproc\n' | "$(tool s390x 2 as)" --gsframe -o /dev/null - 2>/dev/null; then
    note "GNU as 2.44 now emits s390x SFrame: building crash-s390x-v2; update testdata/cores/README.md"
    cross_fixture s390x s390x 2 "" -mbackchain
  fi
fi
