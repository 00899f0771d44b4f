#!/bin/bash
# assembler-diff.sh - one assembler set against another on the same source,
# with `sfdbg diff`.
#
# Each C source of testdata/src (x86-64, compiling alone) and the SQLite
# amalgamation is compiled once to assembler (gcc -O2 -S), and that same .s
# is assembled by GNU as 2.47.50 --gsframe (SFrame v3) and by clang 22's
# integrated assembler (-Wa,--gsframe,--allow-experimental-sframe: SFrame
# v2); the hand-written .s fixtures likewise.  `sfdbg diff GAS.o CLANG.o`
# then classes every difference; the script prints a Markdown table of the
# counts by class and kind per source, and keeps each report in OUTDIR.
#
# Usage: assembler-diff.sh OUTDIR          the corpus run (table on stdout)
#        assembler-diff.sh --fixtures      rebuilds testdata/diff/diff-*.o,
#                                          which compare/diff_test.go reads:
#   diff-split-{gas,clang22}.o      testdata/src/diff-split.s
#   diff-known-{gas,clang22}.o      testdata/src/known-faults-x86_64.s
#   diff-features-{gas,clang22}.o   testdata/src/features-x86_64.s
# Env:   SFDBG_TOOLCHAINS (default /tmp/sfdbg-toolchains): v3/bin/as and
#        llvm-22/bin/clang (scripts/llvm-toolchains.sh), both run when missing;
#        SFDBG_SQLITE_MODULE as in build-sqlite.sh (SQLite is skipped,
#        saying so, when the Go module cannot be fetched).
set -euo pipefail
. "$(dirname "$0")/fixtures-lib.sh"
need gcc "compiles the C sources to assembler"
ensure_toolchains
if [ ! -x "$TC/llvm-22/bin/clang" ]; then
  note "installing clang 22 into $TC with scripts/llvm-toolchains.sh"
  bash "$REPO/scripts/llvm-toolchains.sh" "$TC" >&2 || die "scripts/llvm-toolchains.sh failed"
fi
GAS=$TC/v3/bin/as
CLANG=$TC/llvm-22/bin/clang
LLVM_SFRAME=-Wa,--gsframe,--allow-experimental-sframe

# pair S OUT: assemble S into OUT-gas.o and OUT-clang22.o.
pair() {
  "$GAS" --gsframe "$1" -o "$2-gas.o"
  "$CLANG" -c $LLVM_SFRAME "$1" -o "$2-clang22.o" 2> "$2-clang22.err"
}

if [ "${1:-}" = --fixtures ]; then
  OBJ=$REPO/testdata/diff
  mkdir -p "$OBJ"
  for n in split:diff-split known:known-faults-x86_64 features:features-x86_64; do
    pair "$SRC/${n#*:}.s" "$OBJ/diff-${n%%:*}" 2>/dev/null
    rm -f "$OBJ/diff-${n%%:*}-clang22.err"
  done
  exit 0
fi
[ $# = 1 ] || { echo "usage: $0 OUTDIR | --fixtures" >&2; exit 2; }
OUT=$(mkdir -p "$1" && cd "$1" && pwd)
temp_dir
sfdbg_binary

sources=()
for c in "$SRC"/*.c; do
  n=$(basename "$c" .c)
  gcc -O2 -S -o "$OUT/$n.s" "$c" 2>/dev/null || { note "$n.c: skipped (does not compile alone)"; continue; }
  sources+=("$OUT/$n.s")
done
for s in features-x86_64 known-faults-x86_64 peers-x86_64 peers-skip peers-nocfi diff-split; do
  cp "$SRC/$s.s" "$OUT/$s.s"; sources+=("$OUT/$s.s")
done
MOD=${SFDBG_SQLITE_MODULE:-github.com/mattn/go-sqlite3@v1.14.53}
if json=$(cd "$TMP" && GOFLAGS=-mod=mod GO111MODULE=on go mod download -json "$MOD" 2>/dev/null); then
  DIR=$(sed -n 's/^[[:space:]]*"Dir": "\(.*\)",*$/\1/p' <<<"$json")
  gcc -O2 -DSQLITE_OMIT_LOAD_EXTENSION -DSQLITE_THREADSAFE=0 -I"$DIR" -S -o "$OUT/sqlite.s" "$DIR/sqlite3-binding.c"
  sources+=("$OUT/sqlite.s")
else
  note "SQLite skipped: go mod download $MOD failed (no Go module proxy?)"
fi

echo "| source | functions paired | instructions | semantic | representation | kinds |"
echo "|---|---|---|---|---|---|"
for s in "${sources[@]}"; do
  n=${s%.s}
  if ! pair "$s" "$n" 2> "$n-gas.err"; then
    echo "| $(basename "$s") | assembler fails: $(head -1 "$n-gas.err" "$n-clang22.err" 2>/dev/null | grep -v '^==' | head -1 | sed 's/|/\\|/g') | | | | |"
    continue
  fi
  "$SFDBG" diff "$n-gas.o" "$n-clang22.o" > "$n.diff" || true
  sum=$(sed -n 's/^  functions: [0-9]* in A, [0-9]* in B, \([0-9]*\) paired; instructions compared: \([0-9]*\)$/\1 | \2/p' "$n.diff")
  res=$(sed -n 's/^  result: \([0-9]*\) semantic, \([0-9]*\) representation differences$/\1 | \2/p' "$n.diff")
  kinds=$(sed -n 's/^    \(semantic\|representation\) \([a-z]* \)\{0,1\}\([a-z+-]*\) .*/\1 \2\3/p' "$n.diff" | sort | uniq -c | awk '{c=$1; $1=""; printf "%s%s ×%d", (NR>1?", ":""), substr($0,2), c}')
  echo "| $(basename "$s") | $sum | $res | ${kinds:--} |"
done
