#!/bin/bash
# bench-batch-memory.sh - measures the peak memory and wall time of
# `sfdbg check --recursive -j N` over a large tree of files, in text and
# --json form, and of `sfdbg bt` at a large --max-depth (text and --json).
#
# The tree (built once in DIR, default a temporary directory) holds FILES
# files in directories of 100: hard links (copies across file systems) of
# the small fixtures (testdata/bin without the SQLite builds, testdata/obj:
# executables, objects, an ar archive), with one file in every 100/BIG_PCT
# taken from the large ones (testdata/bin/sqlite-v2, sqlite-v3 and every
# --big FILE).  Peak memory is /usr/bin/time -v's maximum resident set size;
# a batch whose memory is held per file grows with FILES, one that streams
# stays flat.
#
# The deep section builds a C program (SFrame v3, gcc -O0 with binutils
# 2.47.50) that recurses DEPTH frames deep (stack limit lifted with ulimit
# -s unlimited) and spins in the deepest frame, and prints RSS/frame for `bt --max-depth DEPTH` and
# `bt --json --max-depth DEPTH` (output to /dev/null).
#
# Usage: scripts/bench-batch-memory.sh [--files N] [--big-pct P] [--big FILE]...
#            [-j N] [--dir DIR] [--only check|deep] [--depth N]
#   --files N    files in the tree (default 10000)
#   --big-pct P  percent of them taken from the large files (default 10)
#   --big FILE   add FILE to the large files (e.g. a SQLite built with -g)
#   -j N         sfdbg check -j (default 2)
#   --dir DIR    build the tree in DIR (kept; reused when it holds FILES files)
#   --only WHAT  run only the check or the deep section
#   --depth N    recursion depth for the deep section (default 1000000)
# Env:   SFDBG_BIN     use this sfdbg binary instead of building one
#        SFDBG_CAP_MB  kill a run whose RSS passes this many MB (default 4096)
# Needs: go (builds sfdbg; not with SFDBG_BIN), GNU time (/usr/bin/time),
#        bc; for the deep section gcc, binutils 2.47.50 ($SFDBG_TOOLCHAINS) and
#        ptrace permission over own children for the deep section.
set -euo pipefail
. "$(dirname "$0")/fixtures-lib.sh"

FILES=10000 BIG_PCT=10 JOBS=2 DIR= ONLY= DEPTH=1000000 CAP_MB=${SFDBG_CAP_MB:-4096}
BIGS=("$BIN/sqlite-v2" "$BIN/sqlite-v3")
while [ $# -gt 0 ]; do
  case $1 in
    --files) FILES=$2; shift ;;
    --big-pct) BIG_PCT=$2; shift ;;
    --big) BIGS+=("$2"); shift ;;
    -j) JOBS=$2; shift ;;
    --dir) DIR=$2; shift ;;
    --only) ONLY=$2; shift ;;
    --depth) DEPTH=$2; shift ;;
    -h|--help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument $1 (see --help)" ;;
  esac
  shift
done
[ -x /usr/bin/time ] || die "needs GNU time at /usr/bin/time (Debian: apt-get install time)"

temp_dir
if [ -n "${SFDBG_BIN:-}" ]; then
  SFDBG=$SFDBG_BIN
else
  need go
  (cd "$REPO" && go build -o "$TMP/sfdbg" ./cmd/sfdbg) || die "go build failed"
  SFDBG=$TMP/sfdbg
fi

# measure LABEL CMD...: runs CMD under GNU time, output to /dev/null, and
# prints LABEL, the peak RSS in MB, the wall and CPU time (user + system:
# on a loaded machine the wall time says little). A watchdog kills CMD
# when its RSS passes CAP_MB (the machine is shared): then the line says so.
measure() {
  local label=$1; shift
  local st=0 tpid cpid rss killed=
  /usr/bin/time -v -o "$TMP/time" "$@" >/dev/null 2>"$TMP/stderr" &
  tpid=$!
  while kill -0 "$tpid" 2>/dev/null; do
    cpid=$(pgrep -P "$tpid" | head -1 || true)
    if [ -n "$cpid" ]; then
      rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$cpid/status" 2>/dev/null || true)
      if [ -n "$rss" ] && [ "$rss" -gt $((CAP_MB * 1024)) ]; then
        kill "$cpid" 2>/dev/null || true
        killed=" KILLED at RSS > $CAP_MB MB"
      fi
    fi
    sleep 0.2
  done
  wait "$tpid" || st=$?
  local kb wall cpu
  kb=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$TMP/time")
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$TMP/time")
  cpu=$(awk -F': ' '/User time/ {u=$2} /System time/ {s=$2} END {printf "%.1f", u+s}' "$TMP/time")
  printf '%-44s peak RSS %7.1f MB  wall %s  CPU %s s  exit %d%s\n' "$label" "$(echo "$kb / 1024" | bc -l)" "$wall" "$cpu" "$st" "$killed"
  LAST_KB=$kb
}

build_tree() {
  local dir=$1
  if [ -f "$dir/.files" ] && [ "$(cat "$dir/.files")" = "$FILES $BIG_PCT ${BIGS[*]}" ]; then
    return
  fi
  rm -rf "$dir"; mkdir -p "$dir"
  local small=()
  for f in "$BIN"/* "$REPO"/testdata/obj/*; do
    case $(basename "$f") in sqlite-*) continue ;; esac
    [ -f "$f" ] && small+=("$f")
  done
  local every=$((BIG_PCT > 0 ? 100 / BIG_PCT : FILES + 1)) i d f
  for ((i = 0; i < FILES; i++)); do
    d=$dir/d$((i / 100))
    [ $((i % 100)) -eq 0 ] && mkdir -p "$d"
    if [ $((i % every)) -eq $((every - 1)) ]; then
      f=${BIGS[$(((i / every) % ${#BIGS[@]}))]}
    else
      f=${small[$((i % ${#small[@]}))]}
    fi
    ln "$f" "$d/$i-$(basename "$f")" 2>/dev/null || cp "$f" "$d/$i-$(basename "$f")"
  done
  echo "$FILES $BIG_PCT ${BIGS[*]}" >"$dir/.files"
}

if [ "$ONLY" != deep ]; then
  TREE=${DIR:-$TMP/tree}
  build_tree "$TREE"
  echo "tree: $FILES files in $TREE ($BIG_PCT% from: ${BIGS[*]##*/}), sfdbg check --recursive -j $JOBS"
  measure "check --recursive (text)" "$SFDBG" check --recursive -j "$JOBS" "$TREE"
  measure "check --recursive --json" "$SFDBG" check --recursive --json -j "$JOBS" "$TREE"
  measure "check --recursive --json --junit" "$SFDBG" check --recursive --json --junit "$TMP/junit.xml" -j "$JOBS" "$TREE"
fi

if [ "$ONLY" != check ]; then
  # A program that recurses DEPTH frames deep, prints "ready" and spins
  # (compiled here: no fixture recurses a million frames deep).
  need gcc
  ensure_toolchains
  cat >"$TMP/recurse.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
volatile int release;
__attribute__((noipa)) long recurse(long n)
{
	if (n <= 1) {
		write(1, "ready\n", 6);
		while (!release)
			;
		return 0;
	}
	return recurse(n - 1) + 1;
}
int main(int argc, char **argv)
{
	return (int)recurse(atol(argv[1]));
}
C
  gcc -B "$TC/v3/bin/" -Wa,--gsframe -O0 -g -o "$TMP/recurse" "$TMP/recurse.c" || die "gcc failed"
  (ulimit -s unlimited; exec "$TMP/recurse" "$DEPTH") >"$TMP/deep.out" &
  PID=$!
  for _ in $(seq 1 600); do
    grep -q ready "$TMP/deep.out" 2>/dev/null && break
    sleep 0.1
  done
  grep -q ready "$TMP/deep.out" || die "recurse $DEPTH did not print ready"
  echo "deep: a C program recursing $DEPTH frames deep (SFrame v3, -O0), sfdbg bt --max-depth $DEPTH"
  for form in text json; do
    flag=; [ $form = json ] && flag=--json
    measure "bt $flag --max-depth $DEPTH ($form)" "$SFDBG" bt $flag --max-depth "$DEPTH" "$PID"
    printf '%-44s %7.0f bytes of peak RSS per frame\n' "" "$(echo "$LAST_KB * 1024 / $DEPTH" | bc -l)"
  done
fi
