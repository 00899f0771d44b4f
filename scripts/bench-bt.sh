#!/bin/bash
# bench-bt.sh - one-shot backtrace speed next to eu-stack, as issue 22 sets
# its targets: on a threaded target using libc (testdata/bin/deep-v3-O2
# threads: three threads spinning under start_thread, the main thread in
# clock_nanosleep), with the separate debug file of that libc installed
# (Debian: libc6-dbg), it times
#   sfdbg bt --method sframe PID   vs  eu-stack -p PID     (no source lines)
#   sfdbg bt PID                   vs  eu-stack -s -p PID  (source lines)
# in interleaved rounds (one run of each command per round, in turn, so that
# the machine's load falls on all of them alike) and prints each command's
# median, quartiles and the two ratios of medians:
#   bt/eu-stack-s  (issue 22's target: <= 0.5)
#   sframe/eu-stack (issue 22's target: <= 1.3)
# sfdbg reads its own cache (SFDBG_CACHE_DIR, in the temporary directory:
# decompressed DWARF sections and large symbol tables, by build ID): the
# first run fills it and is timed once; bt is also timed without it.
# Ratios from one run of this script are what count: the machine's cores may
# be shared and absolute times move with its load.
#
# Usage: scripts/bench-bt.sh [--runs N] [--profile DIR]
#   --runs N       rounds (default 41)
#   --profile DIR  also write one CPU profile of each sfdbg command
#                  (SFDBG_CPUPROFILE; read with go tool pprof)
# Env:   SFDBG_BIN   use this sfdbg binary instead of building one
#                    (CGO_ENABLED=0, as bench.sh builds it)
# Needs: go, eu-stack (elfutils), python3, testdata/bin/deep-v3-O2, ptrace
#        permission; a missing separate libc debug file is reported (the
#        figures are then those of a machine without debug files).
set -euo pipefail
. "$(dirname "$0")/fixtures-lib.sh"

RUNS=41 PROFDIR=
while [ $# -gt 0 ]; do
  case $1 in
    --runs) [ $# -ge 2 ] || die "--runs needs N"; RUNS=$2; shift ;;
    --profile) [ $# -ge 2 ] || die "--profile needs a DIR"; PROFDIR=$2; shift ;;
    -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1' "$0"; exit 0 ;;
    *) die "unknown argument '$1' (see $0 --help)" ;;
  esac
  shift
done
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || die "--runs wants a positive number, not '$RUNS'"
need eu-stack "the reference tool" elfutils
need python3 "computes medians" python3
[ -n "${EPOCHREALTIME:-}" ] || die "needs bash 5 (\$EPOCHREALTIME)"
TARGET=$BIN/deep-v3-O2
[ -x "$TARGET" ] || die "$TARGET missing: run scripts/build-fixtures.sh first"

temp_dir
sfdbg_binary CGO_ENABLED=0

"$TARGET" threads > "$TMP/ready" 2>&1 &
PID=$!
for _ in $(seq 100); do grep -q ready "$TMP/ready" && break; sleep 0.05; done
grep -q ready "$TMP/ready" || die "$TARGET threads did not get ready"

LIBC=$(awk '$6 ~ /\/libc\.so\.6$/ { print $6; exit }' "/proc/$PID/maps")
ID=$(readelf -n "$LIBC" 2>/dev/null | awk '/Build ID/ { print $3; exit }')
DEBUG=/usr/lib/debug/.build-id/${ID:0:2}/${ID:2}.debug
if [ -n "$ID" ] && [ -f "$DEBUG" ]; then
  note "libc $LIBC, separate debug file $DEBUG"
else
  note "no separate debug file for $LIBC (Debian: apt-get install libc6-dbg): these are figures without debug info"
fi

# sfdbg keeps the decompressed DWARF of compressed debug files, and the
# symbol tables of large modules, in a cache (frames.DebugCacheDir); the
# script uses one of its own, filled by the checked runs below, and also
# times bt without it (SFDBG_CACHE_DIR set and empty: every run
# decompresses what it reads and builds the symbol tables).
export SFDBG_CACHE_DIR=$TMP/cache
t0=$EPOCHREALTIME
"$SFDBG" bt "$PID" > /dev/null 2>&1 || true
t1=$EPOCHREALTIME
COLD=$(python3 -c "print(f'{($t1 - $t0) * 1000:.1f}')")
note "first run, filling the cache: $COLD ms ($(du -sh "$SFDBG_CACHE_DIR" | cut -f1) in $SFDBG_CACHE_DIR)"
CMDS=("$SFDBG bt --method sframe $PID" "eu-stack -p $PID" "$SFDBG bt $PID" "eu-stack -s -p $PID" "env SFDBG_CACHE_DIR= $SFDBG bt $PID")
NAMES=("sfdbg bt --method sframe PID" "eu-stack -p PID" "sfdbg bt PID" "eu-stack -s -p PID" "sfdbg bt PID, no cache")
# Each command once, checked: sfdbg exits 0 or 1 (1: SFrame disagrees somewhere).
for i in "${!CMDS[@]}"; do
  st=0; ${CMDS[$i]} > "$TMP/out.$i" 2>&1 || st=$?
  case $i:$st in
    0:[01]|2:[01]|4:[01]|1:0|3:0) ;;
    *) die "'${NAMES[$i]}' failed (exit $st): $(head -3 "$TMP/out.$i")" ;;
  esac
done
if [ -n "$PROFDIR" ]; then
  mkdir -p "$PROFDIR"
  SFDBG_CPUPROFILE=$PROFDIR/bt-sframe.prof ${CMDS[0]} > /dev/null || true
  SFDBG_CPUPROFILE=$PROFDIR/bt.prof ${CMDS[2]} > /dev/null || true
  note "CPU profiles in $PROFDIR (go tool pprof -top $SFDBG $PROFDIR/bt.prof)"
fi

note "load average $(cut -d' ' -f1-3 /proc/loadavg); $RUNS interleaved rounds"
for ((r = 0; r < RUNS; r++)); do
  for i in "${!CMDS[@]}"; do
    t0=$EPOCHREALTIME
    ${CMDS[$i]} > /dev/null 2>&1 || true
    t1=$EPOCHREALTIME
    echo "$i $t0 $t1" >> "$TMP/times"
  done
done
note "load average $(cut -d' ' -f1-3 /proc/loadavg) at the end"

python3 - "$TMP/times" "${NAMES[@]}" <<'EOF'
import statistics, sys
times, names = sys.argv[1], sys.argv[2:]
ms = {i: [] for i in range(len(names))}
for line in open(times):
    i, t0, t1 = line.split()
    ms[int(i)].append((float(t1) - float(t0)) * 1000)
med = {}
print("| command | median ms | quartiles ms | runs |")
print("|---|---|---|---|")
for i, n in enumerate(names):
    q = statistics.quantiles(ms[i], n=4) if len(ms[i]) > 1 else [ms[i][0]] * 3
    med[i] = statistics.median(ms[i])
    print(f"| `{n}` | {med[i]:.1f} | {q[0]:.1f}-{q[2]:.1f} | {len(ms[i])} |")
print()
print(f"sfdbg bt / eu-stack -s -p: {med[2] / med[3]:.2f}x (issue 22: <= 0.5x)")
print(f"sfdbg bt --method sframe / eu-stack -p: {med[0] / med[1]:.2f}x (issue 22: <= 1.3x)")
print(f"sfdbg bt without the cache / eu-stack -s -p: {med[4] / med[3]:.2f}x")
EOF
