#!/bin/bash
# build-fixtures.sh - rebuilds the SFrame fixture corpus in testdata/ from the
# sources in testdata/src:
#   testdata/bin/deep-v{1,2,3}-O{0,2}     deep.c, live-debugging program
#   testdata/bin/deep-cet-v3-O{0,2}       deep.c with CET (endbr64, IBT PLT)
#   testdata/bin/inline-v3-O2             inline.c, inline frames on the stack
#   testdata/bin/clones-v3-O2             clones.c, GCC clones (.isra, .constprop, .part)
#   testdata/bin/tailcall-v3-O2           tailcall.c, sibling calls (gdb's tail-call frames)
#   testdata/bin/noreturn-v{1,2,3}-O2     noreturn.c, return addresses past
#                                         their function's end
#   testdata/bin/cet-v3                   cet.c, CET: notrack jump table, IBT PLT
#   testdata/bin/features-v{1,2,3}        features-x86_64.s, format features
#   testdata/bin/aarch64-v{2,3}, aarch64be-v{2,3}, s390x-v3   aarch64.s, s390x.s
#   testdata/golden/NAME.{objdump,readelf,objdump-2.44,...}  reference dumps
#   testdata/golden/NAME.insn             objdump's x86-64 instruction lengths
# and then runs scripts/build-sqlite.sh (skip with --no-sqlite) for
# testdata/bin/sqlite-v{2,3}.  See testdata/README.md.
#
# Usage: scripts/build-fixtures.sh [--no-sqlite]
# Env:   SFDBG_TOOLCHAINS  toolchain dir (default /tmp/sfdbg-toolchains); made
#                          with scripts/toolchains.sh and
#                          scripts/cross-toolchains.sh when missing.
# Needs: gcc (host, Debian 12's gcc 12 was used), sed, cmp, diff; apt-get and
#        dpkg-deb plus Debian package access when the toolchains are missing;
#        go (module proxy access) for the SQLite fixture.
set -euo pipefail
. "$(dirname "$0")/fixtures-lib.sh"

SQLITE=1
for a in "$@"; do
  case $a in
    --no-sqlite) SQLITE=0 ;;
    -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
    *) die "unknown argument '$a' (usage: $0 [--no-sqlite])" ;;
  esac
done

need gcc "builds deep.c"
need sed; need cmp "" diffutils; need diff "" diffutils
[ "$(uname -m)" = x86_64 ] || die "must run on an x86-64 Linux host (the fixtures are built with host gcc)"
ensure_toolchains
ensure_cross

TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
mkdir -p "$BIN" "$GOLDEN"

# ---------------------------------------------------------------- deep.c
# Built from the repo root with a relative source path and
# -ffile-prefix-map, so DWARF names testdata/src/deep.c with comp_dir "."
# and the binaries do not depend on where the repo is checked out.
cd "$REPO"
for v in 1 2 3; do
  for o in O0 O2; do
    case $o in
      O0) opt="-O0 -fno-omit-frame-pointer" ;;
      O2) opt="-O2 -fomit-frame-pointer" ;;
    esac
    out=$BIN/deep-v$v-$o
    # -B makes gcc run that version's as and ld (collect2 finds ld there).
    gcc -B "$TC/v$v/bin/" -Wa,--gsframe -g $opt -Wall -Wextra -pthread \
        -ffile-prefix-map="$REPO"=. -o "$out" testdata/src/deep.c
    check_version "$out" x86_64 $v
    out_txt=$("$out" exit 10) || die "deep-v$v-$o exit 10 failed"
    [ "$out_txt" = ready ] || die "deep-v$v-$o printed '$out_txt', not 'ready'"
    golden deep-v$v-$o x86_64 $v
    echo "built deep-v$v-$o ($(stat -c %s "$out") bytes, SFrame v$v)"
  done
done

# ---------------------------------------------------------------- inline.c
# always_inline functions inlined into noipa ones, so that the stopped
# stack has inline frames (DW_TAG_inlined_subroutine) as gdb shows them;
# its gdb backtrace is testdata/golden/gdb-inline-v3-O2-spin.txt
# (scripts/gdb-golden.sh).
out=$BIN/inline-v3-O2
gcc -B "$TC/v3/bin/" -Wa,--gsframe -g -O2 -fomit-frame-pointer -Wall -Wextra \
    -ffile-prefix-map="$REPO"=. -o "$out" testdata/src/inline.c
check_version "$out" x86_64 3
[ "$(readelf --debug-dump=info "$out" | grep -c DW_TAG_inlined_subroutine)" -gt 0 ] || die "inline-v3-O2 has no inlined subroutine"
out_txt=$("$out" exit) || die "inline-v3-O2 exit failed"
[ "$out_txt" = ready ] || die "inline-v3-O2 printed '$out_txt', not 'ready'"
echo "built inline-v3-O2 ($(stat -c %s "$out") bytes, SFrame v3)"

# ---------------------------------------------------------------- clones.c
# Functions GCC clones (weigh.isra.0, scale.constprop.0, check.part.0):
# their frames are named by DWARF, as gdb names them, not by ELF symbol
# (frames.Module.FunctionName, TestFunctionNamesAreGdbs).
out=$BIN/clones-v3-O2
gcc -B "$TC/v3/bin/" -Wa,--gsframe -g -O2 -fomit-frame-pointer -Wall -Wextra \
    -ffile-prefix-map="$REPO"=. -o "$out" testdata/src/clones.c
check_version "$out" x86_64 3
for s in weigh.isra.0 scale.constprop.0 check.part.0; do
  nm "$out" | grep -q " $s\$" || die "clones-v3-O2 has no $s (another GCC clones differently)"
done
out_txt=$("$out" exit) || die "clones-v3-O2 exit failed"
[ "$out_txt" = ready ] || die "clones-v3-O2 printed '$out_txt', not 'ready'"
echo "built clones-v3-O2 ($(stat -c %s "$out") bytes, SFrame v3)"

# ---------------------------------------------------------------- tailcall.c
# stage2 and stage3 end in jumps (sibling calls): gdb shows them as virtual
# tail-call frames between leaf and stage1, from DWARF call sites
# (frames.Module.TailCallsBetween); its backtrace is
# testdata/golden/gdb-tailcall-v3-O2-spin.txt (scripts/gdb-golden.sh).
out=$BIN/tailcall-v3-O2
gcc -B "$TC/v3/bin/" -Wa,--gsframe -g -O2 -fomit-frame-pointer -Wall -Wextra \
    -ffile-prefix-map="$REPO"=. -o "$out" testdata/src/tailcall.c
check_version "$out" x86_64 3
for f in stage2 stage3; do
  objdump -d "$out" | awk -v f="<$f>:" '$0 ~ f {p=1; next} p && /^$/ {exit} p' | grep -q "jmp .*<" \
    || die "tailcall-v3-O2: $f does not end in a jump (another GCC)"
done
out_txt=$("$out" exit) || die "tailcall-v3-O2 exit failed"
[ "$out_txt" = ready ] || die "tailcall-v3-O2 printed '$out_txt', not 'ready'"
echo "built tailcall-v3-O2 ($(stat -c %s "$out") bytes, SFrame v3)"

# ---------------------------------------------------------------- noreturn.c
# Functions whose last instruction is a call to a noreturn function, so
# that the stopped stack holds return addresses one past their function's
# end; gdb's backtraces are testdata/golden/gdb-noreturn-v*-O2-*.txt
# (scripts/gdb-golden.sh).
for v in 1 2 3; do
  out=$BIN/noreturn-v$v-O2
  gcc -B "$TC/v$v/bin/" -Wa,--gsframe -g -O2 -fomit-frame-pointer -Wall -Wextra -pthread \
      -ffile-prefix-map="$REPO"=. -o "$out" testdata/src/noreturn.c
  check_version "$out" x86_64 $v
  # nr_inner ends in its call to fatal_spin, and nr_middle starts right
  # after it: nr_inner's return address is nr_middle's first byte.
  last=$(objdump -d --disassemble=nr_inner "$out" | grep -E '^ *[0-9a-f]+:' | tail -1)
  case $last in *call*'<fatal_spin>'*) ;; *) die "noreturn-v$v-O2: nr_inner's last instruction is not its call to fatal_spin: $last" ;; esac
  first=$(objdump -d --disassemble=nr_middle "$out" | awk -F: '/^ *[0-9a-f]+:/ { print $1; exit }')
  read -r addr size _ < <(nm -S "$out" | awk '$4 == "nr_inner" { print $1, $2 }')
  [ "$((0x${first// /}))" = "$((0x$addr + 0x$size))" ] || die "noreturn-v$v-O2: nr_middle does not start where nr_inner ends"
  golden noreturn-v$v-O2 x86_64 $v
  echo "built noreturn-v$v-O2 ($(stat -c %s "$out") bytes, SFrame v$v)"
done

# ---------------------------------------------------------------- CET
# deep.c with Intel CET: endbr64 at every function start and -z ibtplt, so
# the lazy .plt entries start with endbr64 and calls go through .plt.sec
# (IBT PLT).  GNU ld gives both a PC-mask SFrame FDE.
for o in O0 O2; do
  case $o in
    O0) opt="-O0 -fno-omit-frame-pointer" ;;
    O2) opt="-O2 -fomit-frame-pointer" ;;
  esac
  out=$BIN/deep-cet-v3-$o
  gcc -B "$TC/v3/bin/" -Wa,--gsframe -g $opt -Wall -Wextra -pthread -fcf-protection=full -Wl,-z,ibtplt \
      -ffile-prefix-map="$REPO"=. -o "$out" testdata/src/deep.c
  check_version "$out" x86_64 3
  readelf -SW "$out" | grep -q ' \.plt\.sec ' || die "deep-cet-v3-$o has no .plt.sec (IBT PLT)"
  out_txt=$("$out" exit 10) || die "deep-cet-v3-$o exit 10 failed"
  [ "$out_txt" = ready ] || die "deep-cet-v3-$o printed '$out_txt', not 'ready'"
  golden deep-cet-v3-$o x86_64 3
  echo "built deep-cet-v3-$o ($(stat -c %s "$out") bytes, SFrame v3, CET)"
done
out=$BIN/cet-v3
gcc -B "$TC/v3/bin/" -Wa,--gsframe -O2 -Wall -Wextra -fcf-protection=full -Wl,-z,ibtplt \
    -ffile-prefix-map="$REPO"=. -o "$out" testdata/src/cet.c
check_version "$out" x86_64 3
objdump -d "$out" | grep -q notrack || die "cet-v3 has no notrack jmp (jump table)"
[ "$("$out")" = ready ] || die "cet-v3 did not print 'ready'"
golden cet-v3 x86_64 3
echo "built cet-v3 ($(stat -c %s "$out") bytes, SFrame v3, CET)"

# ---------------------------------------------------------------- features
# Hand-written x86-64 assembler; static, no libc, entry _start.  binutils
# 2.44 warns that it skips flex_drap (non-SP/FP CFA register r10); 2.40
# skips it silently.
for v in 1 2 3; do
  out=$BIN/features-v$v
  "$(tool x86_64 $v as)" --gsframe -o "$TMP/features-v$v.o" "$SRC/features-x86_64.s" 2>"$TMP/as.err" \
    || { cat "$TMP/as.err" >&2; die "as $v failed on features-x86_64.s"; }
  [ -s "$TMP/as.err" ] && note "features-v$v: as: $(grep -v 'Assembler messages' "$TMP/as.err" | sed 's/^.*: Warning/Warning/')"
  "$(tool x86_64 $v ld)" -static -o "$out" "$TMP/features-v$v.o"
  check_version "$out" x86_64 $v
  "$out" || die "features-v$v (run on this host) exited non-zero"
  golden features-v$v x86_64 $v
  echo "built features-v$v ($(stat -c %s "$out") bytes, SFrame v$v)"
done

# ---------------------------------------------------------------- other ABIs
# cross_build NAME ARCH VER SRC [EB]: as --gsframe + ld -static -e _start.
cross_build() {
  local name=$1 arch=$2 v=$3 src=$4 endian=${5:-} out=$BIN/$1
  local eflag=()
  [ -n "$endian" ] && eflag=(-EB)
  rm -f "$out"
  if ! "$(tool "$arch" "$v" as)" "${eflag[@]}" --gsframe -o "$TMP/$name.o" "$src" 2>"$TMP/as.err"; then
    return 1
  fi
  [ -s "$TMP/as.err" ] && note "$name: as: $(cat "$TMP/as.err")"
  "$(tool "$arch" "$v" ld)" "${eflag[@]}" -static -e _start -o "$out" "$TMP/$name.o"
  check_version "$out" "$arch" "$v"
  golden "$name" "$arch" "$v"
  echo "built $name ($(stat -c %s "$out") bytes, SFrame v$v)"
}
cross_build aarch64-v2   aarch64 2 "$SRC/aarch64.s"    || die "aarch64-v2: $(cat "$TMP/as.err")"
cross_build aarch64-v3   aarch64 3 "$SRC/aarch64.s"    || die "aarch64-v3: $(cat "$TMP/as.err")"
cross_build aarch64be-v2 aarch64 2 "$SRC/aarch64.s" EB || die "aarch64be-v2: $(cat "$TMP/as.err")"
cross_build aarch64be-v3 aarch64 3 "$SRC/aarch64.s" EB || die "aarch64be-v3: $(cat "$TMP/as.err")"
cross_build s390x-v3     s390x   3 "$SRC/s390x.s"      || die "s390x-v3: $(cat "$TMP/as.err")"
# binutils 2.44 has no s390x SFrame support ("Error: .sframe not supported
# for target"): s390x-v2 is expected to fail, and is built if it ever works.
if cross_build s390x-v2 s390x 2 "$SRC/s390x.s"; then
  note "s390x-v2: binutils 2.44 now emits s390x SFrame; update testdata/README.md"
else
  rm -f "$GOLDEN"/s390x-v2.*
  echo "skipped s390x-v2: binutils 2.44 as: $(grep -o 'Error:.*' "$TMP/as.err" | head -1)"
fi

compat_summary

if [ $SQLITE = 1 ]; then
  bash "$REPO/scripts/build-sqlite.sh"
fi
# objdump's instruction boundaries, for compare/x86len_test.go.
for f in "$BIN"/deep-* "$BIN"/noreturn-* "$BIN"/cet-* "$BIN"/features-* "$BIN"/sqlite-*; do
  [ -f "$f" ] && insn_golden "$(basename "$f")"
done
echo "done; testdata is $(du -sh "$REPO/testdata" | cut -f1)"
