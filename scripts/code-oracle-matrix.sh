#!/bin/bash
# code-oracle-matrix.sh - the code oracle's false-finding and coverage
# targets on compiled C (issue 20): builds testdata/src/deep.c and SQLite
# (the amalgamation build-sqlite.sh uses, with testdata/src/sqlite-main.c)
# with gcc and clang 22 x -O0/-O2/-O3 x -fno-omit-frame-pointer/
# -fomit-frame-pointer x -fcf-protection=full/none, assembled by GNU as
# 2.47.50 --gsframe (clang's output too), and runs
# `sfdbg check --json` on each. One line per binary: the judged share and
# the count of each code-* kind. Exit 1 when any binary has a code-cfa,
# code-ra, code-fp or code-state finding, or a judged share below 95%.
#
# Usage: code-oracle-matrix.sh [OUTDIR]   (default /tmp/sfdbg-code-matrix)
# Env:   SFDBG_TOOLCHAINS  toolchain dir (default /tmp/sfdbg-toolchains)
#        PROGRAMS          "deep sqlite" (default); "deep" for a quick run
#        COMPILERS         "gcc clang" (default; clang is skipped when
#                          $SFDBG_TOOLCHAINS/llvm-22 is missing:
#                          scripts/llvm-toolchains.sh makes it)
#        JOBS              parallel builds (default: nproc)
#        SFDBG             the sfdbg binary (default: built from this tree)
# Needs: gcc, go, python3; SQLite: go module proxy access or a filled cache.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
TC=${SFDBG_TOOLCHAINS:-/tmp/sfdbg-toolchains}
OUT=${1:-/tmp/sfdbg-code-matrix}
PROGRAMS=${PROGRAMS:-deep sqlite}
COMPILERS=${COMPILERS:-gcc clang}
JOBS=${JOBS:-$(nproc)}
AS3=$TC/v3/bin
[ -x "$AS3/as" ] || { echo "code-oracle-matrix.sh: no $AS3/as (run scripts/toolchains.sh)" >&2; exit 2; }
CLANG=$TC/llvm-22/bin/clang
mkdir -p "$OUT"
SFDBG=${SFDBG:-$OUT/sfdbg}
if [ "$SFDBG" = "$OUT/sfdbg" ]; then (cd "$REPO" && go build -o "$SFDBG" ./cmd/sfdbg); fi

SQLDIR=
if [[ " $PROGRAMS " == *" sqlite "* ]]; then
  json=$(cd "$OUT" && GOFLAGS=-mod=mod GO111MODULE=on go mod download -json github.com/mattn/go-sqlite3@v1.14.53)
  SQLDIR=$(sed -n 's/^[[:space:]]*"Dir": "\(.*\)",*$/\1/p' <<<"$json")
  [ -f "$SQLDIR/sqlite3-binding.c" ] || { echo "code-oracle-matrix.sh: no SQLite amalgamation" >&2; exit 2; }
fi

# build COMPILER OPT FP CET PROG: one binary, OUT/PROG-COMPILER-OPT-FP-CET.
build() {
  local cc=$1 opt=$2 fp=$3 cet=$4 prog=$5
  local name=$prog-$cc-$opt-$fp-$cet out
  out=$OUT/$name
  [ -x "$out" ] && return 0
  local flags=(-$opt -g0 "-f$fp-frame-pointer" "-fcf-protection=$cet")
  [ "$fp" = omit ] && flags[2]=-fomit-frame-pointer
  [ "$fp" = keep ] && flags[2]=-fno-omit-frame-pointer
  local cmd=(gcc)
  # clang compiles to assembler in-process (its wrapper's ld.so is not
  # inherited by a spawned cc1 or as) and GNU as assembles it.
  if [ "$cc" = clang ]; then cmd=("$CLANG" -fintegrated-cc1 -fno-addrsig); fi
  local srcs=()
  case $prog in
    deep) srcs=("$REPO/testdata/src/deep.c") ;;
    sqlite) srcs=("$SQLDIR/sqlite3-binding.c" "$REPO/testdata/src/sqlite-main.c")
            flags+=(-DSQLITE_OMIT_LOAD_EXTENSION -DSQLITE_THREADSAFE=0 -I"$SQLDIR") ;;
  esac
  local objs=() s
  for s in "${srcs[@]}"; do
    local o=$out.$(basename "$s" .c)
    "${cmd[@]}" "${flags[@]}" -S -o "$o.s" "$s" 2>"$out.log" || { echo "$name: compile failed, see $out.log" >&2; return 1; }
    "$AS3/as" --gsframe -o "$o.o" "$o.s" 2>>"$out.log" || { echo "$name: assembly failed, see $out.log" >&2; return 1; }
    rm -f "$o.s"
    objs+=("$out.$(basename "$s" .c).o")
  done
  gcc -B "$AS3/" -o "$out" "${objs[@]}" -lm 2>>"$out.log" || { echo "$name: link failed, see $out.log" >&2; return 1; }
  rm -f "${objs[@]}"
}
export -f build
export OUT AS3 CLANG REPO SQLDIR

list=()
for prog in $PROGRAMS; do
  for cc in $COMPILERS; do
    if [ "$cc" = clang ] && [ ! -x "$CLANG" ]; then
      echo "clang 22 missing ($CLANG): skipped (scripts/llvm-toolchains.sh)" >&2; continue
    fi
    for opt in O0 O2 O3; do for fp in keep omit; do for cet in full none; do
      list+=("$cc $opt $fp $cet $prog")
    done; done; done
  done
done
printf '%s\n' "${list[@]}" | xargs -P "$JOBS" -L 1 bash -c 'build "$@"' _

bad=0
printf '%-34s %8s %8s %5s %5s %5s %5s %7s\n' binary judged share cfa ra fp state unknown
for l in "${list[@]}"; do
  set -- $l
  f=$OUT/$5-$1-$2-$3-$4
  [ -x "$f" ] || { bad=1; continue; }
  line=$("$SFDBG" check --json "$f" | python3 -c '
import json, sys
r = json.loads(sys.stdin.readline())  # JSON Lines: the report of the file, then the totals
c = r["summary"].get("code") or {}
n = {k: 0 for k in ("code-cfa", "code-ra", "code-fp", "code-state", "code-unknown")}
for x in r["findings"]:
    if x["kind"] in n:
        n[x["kind"]] += 1
share = c.get("judged_share", 0)
print("%-34s %8d %7.1f%% %5d %5d %5d %5d %7d" % (sys.argv[1], c.get("instructions_judged", 0), 100 * share,
      n["code-cfa"], n["code-ra"], n["code-fp"], n["code-state"], n["code-unknown"]))
sys.exit(1 if n["code-cfa"] + n["code-ra"] + n["code-fp"] + n["code-state"] > 0 or share < 0.95 else 0)
' "$(basename "$f")") || bad=1
  echo "$line"
done
exit $bad
