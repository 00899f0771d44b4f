#!/bin/bash
# bench.sh - measures sfdbg's speed on this machine, side by side with the
# reference tools, and prints a Markdown table of the figures with the
# command lines that produced them:
#   a  go test -run XXX -bench . -benchmem ./sframe ./frames: parse, validate,
#      lookup, dump; SFrame / CFI / FP unwind step and trace; first unwind,
#      first CFI row (eager vs .eh_frame_hdr), symbol tables
#   b  sfdbg dump testdata/bin/sqlite-v3  vs  objdump --sframe=.sframe (2.47.50)
#   c  sfdbg check testdata/bin/sqlite-v3: time and instructions compared/s
#   d  sfdbg bt --method sframe PID, sfdbg bt PID (all methods)  vs
#      eu-stack -p PID  vs  gdb -batch -p PID -ex 'thread apply all bt',
#      on a running sqlite-v3 and on deep-v3-O2 threads
#   e  sfdbg sample -n 500 --interval 0 PID (samples/s, with and without
#      --independent=false) on deep-v3-O2 spin (14-frame stack), next to the
#      one-shot rate of eu-stack and gdb on the same process
#   f  sfdbg check --recursive testdata/bin: files/s and instructions/s
# Timings use hyperfine when it is installed (mean +- stddev, -N: no shell),
# else a bash timing loop ($EPOCHREALTIME); the table says which.  Missing
# reference tools (objdump, eu-stack, gdb, hyperfine) are skipped with a note.
#
# The machine's cores may be shared: before each section the script waits
# (60 s steps, at most SFDBG_LOAD_WAIT seconds over the whole run) while the
# 1-minute load average is above SFDBG_MAX_LOAD, and the table shows the
# load when each section started.  The live targets themselves load the CPU
# (sqlite-v3: one busy thread; deep threads: three spinning threads).
#
# Usage: scripts/bench.sh [--quick] [--only LETTERS] [--out FILE]
#   --quick       fewer runs and -benchtime=100ms (a smoke test, not figures)
#   --only abf    run only these sections
#   --out FILE    also write the Markdown report to FILE
# Env:   SFDBG_BENCHTIME   go test -benchtime (default 1s)
#        SFDBG_MAX_LOAD    load above which to wait (default 2.5)
#        SFDBG_LOAD_WAIT   total seconds to wait for the load (default 900)
#        SFDBG_BIN         use this sfdbg binary instead of building one
#        SFDBG_HYPERFINE=0 time with the bash loop even if hyperfine is installed
#        SFDBG_TOOLCHAINS  binutils dir (default /tmp/sfdbg-toolchains; v3/bin/objdump)
# Needs: go, python3, testdata/bin built (scripts/build-fixtures.sh); ptrace
#        permission (kernel.yama.ptrace_scope <= 1, or root) for d and e.
#        Optional: hyperfine, eu-stack (elfutils), gdb, binutils 2.47.50.
# Exit status: 0, or 1 when a measurement failed (its row says FAILED).
set -euo pipefail
. "$(dirname "$0")/fixtures-lib.sh"

QUICK=0 ONLY=abcdef OUTFILE=
while [ $# -gt 0 ]; do
  case $1 in
    --quick) QUICK=1 ;;
    --only) [ $# -ge 2 ] || die "--only needs section letters (a-f)"; ONLY=$2; shift ;;
    --only=*) ONLY=${1#*=} ;;
    --out) [ $# -ge 2 ] || die "--out needs a FILE"; OUTFILE=$2; shift ;;
    --out=*) OUTFILE=${1#*=} ;;
    -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1' "$0"; exit 0 ;;
    *) die "unknown argument '$1' (see $0 --help)" ;;
  esac
  shift
done
[[ $ONLY =~ ^[a-f]+$ ]] || die "--only wants letters a-f, not '$ONLY'"
on() { [[ $ONLY == *$1* ]]; }

need go "builds sfdbg and runs the Go benchmarks" golang-go
need python3 "parses hyperfine/sfdbg JSON and writes the table" python3
need timeout "" coreutils
[ -n "${EPOCHREALTIME:-}" ] || die "needs bash 5 (\$EPOCHREALTIME) for the timing loop"
for f in sqlite-v3 deep-v3-O2; do
  [ -x "$BIN/$f" ] || die "$BIN/$f missing: run scripts/build-fixtures.sh first"
done
MAX_LOAD=${SFDBG_MAX_LOAD:-2.5}
LOAD_BUDGET=${SFDBG_LOAD_WAIT:-900}
BENCHTIME=${SFDBG_BENCHTIME:-1s}
[ $QUICK = 1 ] && BENCHTIME=${SFDBG_BENCHTIME:-100ms}
# runs R W: hyperfine/loop runs and warmups, fewer with --quick
runs() { if [ $QUICK = 1 ]; then echo "$(( ($1 + 4) / 5 )) $(( $2 > 0 ? 1 : 0 ))"; else echo "$1 $2"; fi; }

HYPERFINE=$(command -v hyperfine || true)
[ "${SFDBG_HYPERFINE:-1}" = 0 ] && HYPERFINE=
EUSTACK=$(command -v eu-stack || true)
GDB=$(command -v gdb || true)
OBJDUMP=$(tool x86_64 3 objdump)
[ -x "$OBJDUMP" ] || OBJDUMP=
PTRACE_OK=1
if [ "$(id -u)" != 0 ] && [ -r /proc/sys/kernel/yama/ptrace_scope ] && [ "$(cat /proc/sys/kernel/yama/ptrace_scope)" -gt 1 ]; then
  PTRACE_OK=0
fi

temp_dir
ROWS=$TMP/rows.tsv NOTES=$TMP/notes.txt
: > "$ROWS"; : > "$NOTES"
cd "$REPO"

# Static (no cgo): Delve links package net, which with cgo makes the
# binary dynamically linked and adds libc's start-up to every command.
sfdbg_binary CGO_ENABLED=0

# ---------------------------------------------------------------- helpers
# note_ MSG: a line for the notes under the table (and stderr now).
note_() { note "$*"; echo "$*" >> "$NOTES"; }
# row SECTION MEASUREMENT TOOL COMMAND RESULT DERIVED: one table row.
row() { printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$5" "$6" "$LOAD1" >> "$ROWS"; }

LOAD1='?' LOADS=()
# wait_for_load SECTION: wait while the 1-minute load is above MAX_LOAD.
wait_for_load() {
  local l
  while :; do
    l=$(cut -d' ' -f1 /proc/loadavg)
    if python3 -c "import sys; sys.exit(0 if $l <= $MAX_LOAD else 1)"; then break; fi
    if [ "$LOAD_BUDGET" -le 0 ]; then
      note_ "section $1: 1-minute load $l is above $MAX_LOAD and the wait budget is spent: measured anyway (noisy)"
      break
    fi
    note "section $1: 1-minute load $l > $MAX_LOAD (shared cores): waiting 60 s (budget left ${LOAD_BUDGET}s)"
    sleep 60; LOAD_BUDGET=$((LOAD_BUDGET - 60))
  done
  LOAD1=$(cut -d' ' -f1 /proc/loadavg)
  LOADS+=("$1: $(cut -d' ' -f1-3 /proc/loadavg)")
  note "section $1: load average $(cut -d' ' -f1-3 /proc/loadavg)"
}

# q WORD: WORD quoted for a POSIX shell (and for hyperfine -N).
q() { if [[ $1 =~ ^[A-Za-z0-9_./=:,+@%-]+$ ]]; then printf '%s' "$1"; else printf "'%s'" "${1//\'/\'\\\'\'}"; fi; }
cmdline() { local w out=; for w; do out+="${out:+ }$(q "$w")"; done; printf '%s' "$out"; }
# show CMD...: the command line as printed in the table (short tool names,
# PID for the target's process ID).
show() {
  local s; s=$(cmdline "$@")
  s=${s//"$SFDBG"/sfdbg}
  [ -n "$OBJDUMP" ] && s=${s//"$OBJDUMP"/objdump}
  [ -n "$EUSTACK" ] && s=${s//"$EUSTACK"/eu-stack}
  [ -n "$GDB" ] && s=${s//"$GDB"/gdb}
  [ -n "$PID" ] && s=$(sed "s/\b$PID\b/PID/g" <<<"$s")
  printf '%s' "$s"
}

# timeit RUNS WARMUP CMD...: sets T_MEAN, T_SD, T_MIN (seconds), T_N, T_HOW,
# T_CODES (the exit statuses seen).
# A non-zero exit does not stop the timing (check exits 1 on disagreements),
# but every timed run must end with the status of the checked run made
# with once() just before (or one listed in OK_CODES); otherwise a note says
# the figure is suspect.
timeit() {
  local r=$1 w=$2; shift 2
  read -r r w <<<"$(runs "$r" "$w")"
  if [ -n "$HYPERFINE" ]; then
    "$HYPERFINE" -N --style none -i --warmup "$w" --runs "$r" --export-json "$TMP/h.json" -- "$(cmdline "$@")" \
      > "$TMP/h.out" 2>&1 || { cat "$TMP/h.out" >&2; die "hyperfine failed on: $(show "$@")"; }
    read -r T_MEAN T_SD T_MIN T_N T_CODES < <(python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
codes = ",".join(sorted({str(c) for c in r.get("exit_codes") or []})) or "?"
print(r["mean"], r["stddev"] or 0, r["min"], len(r["times"]), codes)' "$TMP/h.json")
    T_HOW="hyperfine"
  else
    local i t0 t1
    for ((i = 0; i < w; i++)); do "$@" > /dev/null 2>&1 || true; done
    : > "$TMP/times"
    for ((i = 0; i < r; i++)); do
      local c=0
      t0=$EPOCHREALTIME; "$@" > /dev/null 2>&1 || c=$?; t1=$EPOCHREALTIME
      echo "$t0 $t1 $c" >> "$TMP/times"
    done
    read -r T_MEAN T_SD T_MIN T_N T_CODES < <(python3 -c '
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
t = [float(b) - float(a) for a, b, _ in rows]
codes = ",".join(sorted({c for _, _, c in rows}))
print(statistics.mean(t), statistics.stdev(t) if len(t) > 1 else 0, min(t), len(t), codes)' "$TMP/times")
    T_HOW="loop"
  fi
  # Every timed run must end as the checked run did (once): a command that
  # fails fast would otherwise look fast.
  # OK_CODES (comma-separated) widens that, e.g. 0,1 for sfdbg bt, whose
  # status depends on where each stop lands.
  local c ok=",${OK_CODES:-${ST:-0}},"
  for c in ${T_CODES//,/ }; do
    if [[ $ok != *",$c,"* ]]; then
      note_ "exit statuses while timing \`$(show "$@")\` were {$T_CODES}, the checked run's was ${ST:-0}: that figure is suspect"
      break
    fi
  done
}
# fmt_t: "12.3 ms ± 0.4 (n=20)" from T_*
fmt_t() {
  python3 - "$T_MEAN" "$T_SD" "$T_N" "$T_HOW" <<'EOF'
import sys
m, sd, n, how = float(sys.argv[1]), float(sys.argv[2]), sys.argv[3], sys.argv[4]
u, f = ('s', 1) if m >= 1 else ('ms', 1e3)
p = 1 if u == 'ms' and m * f >= 10 else 2
loop = ', loop' if how == 'loop' else ''
print(f'{m * f:.{p}f} {u} ± {sd * f:.{p}f} (n={n}{loop})')
EOF
}
# calc EXPR: python arithmetic, printed.
calc() { python3 -c "print($1)"; }

# once OUT CMD...: run CMD once, stdout to OUT, stderr to OUT.err; sets ST.
once() { local out=$1; shift; ST=0; timeout 300 "$@" > "$out" 2> "$out.err" || ST=$?; }
# failmsg OUT: first line of OUT.err (or OUT), for a failed command.
failmsg() { { grep -m1 -v '^$' "$1.err" || head -1 "$1"; } 2>/dev/null | cut -c1-160 | tr '\t|' '  '; }

# start TARGET ARGS...: start testdata/bin/TARGET, wait for "ready"; sets PID.
start() {
  local out=$TMP/target.out
  : > "$out"
  "$BIN/$1" "${@:2}" > "$out" 2>&1 &
  PID=$!
  for _ in $(seq 200); do
    grep -q '^ready$' "$out" && { sleep 0.2; return 0; }
    kill -0 "$PID" 2>/dev/null || break
    sleep 0.05
  done
  kill "$PID" 2>/dev/null || true; wait "$PID" 2>/dev/null || true; PID=
  die "$1 $* did not print ready: $(head -c 200 "$out")"
}
stop_target() {
  [ -n "$PID" ] || return 0
  kill "$PID" 2>/dev/null || true; wait "$PID" 2>/dev/null || true; PID=
}
# count_frames FILE THREAD-REGEX: "T threads, F frames" of a backtrace text.
count_frames() { echo "$(grep -cE "$2" "$1" || true) threads, $(grep -cE '^#[0-9]' "$1" || true) frames"; }

GDB_ARGS=(-batch -nx -iex 'set debuginfod enabled off' -p)

# ---------------------------------------------------------------- a: Go benchmarks
section_a() {
  wait_for_load a
  local cmd=(go test -run XXX -bench . -benchmem -benchtime="$BENCHTIME" ./sframe ./frames)
  note "a: $(cmdline "${cmd[@]}") (about a minute)"
  if ! "${cmd[@]}" > "$TMP/gobench.txt" 2>&1; then
    note_ "a: go test -bench failed: $(grep -m1 -E 'FAIL|panic|error' "$TMP/gobench.txt" | cut -c1-160)"
  fi
  cp "$TMP/gobench.txt" "$TMP/gobench.keep"
  python3 - "$TMP/gobench.txt" "$(cmdline "${cmd[@]}")" "$LOAD1" >> "$ROWS" <<'EOF'
import re, sys
path, cmd, load = sys.argv[1:4]
b = {}
for line in open(path):
    m = re.match(r'^Benchmark(\S+?)(-\d+)?\s+(\d+)\s+(.*)$', line)
    if not m:
        continue
    f = m.group(4).split()
    b[m.group(1)] = {f[i + 1]: float(f[i]) for i in range(0, len(f) - 1, 2)}
def num(v):
    return f'{v:,.0f}' if v >= 100 else f'{v:.1f}'
def res(name, unit='ns/op'):
    r = b[name]
    parts = [f'{num(r[unit])} {unit}']
    for u in r:
        if u.startswith('cpu-ns/'):
            parts.append(f'{num(r[u])} {u}')
    if 'MB/s' in r:
        parts.append(f"{r['MB/s']:.0f} MB/s")
    parts.append(f"{r.get('allocs/op', 0):.0f} allocs/op")
    return ' · '.join(parts)
def cpu(name):
    return next((v for u, v in b.get(name, {}).items() if u.startswith('cpu-ns/')), None)
rows = [
    ('Parse/sqlite-v3', 'parse .sframe (sqlite-v3, 117906 B)', 'ns/op', ''),
    ('Parse/synthetic-100k', 'parse .sframe (synthetic, 100k FDEs)', 'ns/op', ''),
    ('Validate/sqlite-v3', 'validate .sframe (sqlite-v3)', 'ns/op', ''),
    ('Validate/synthetic-100k', 'validate .sframe (synthetic, 100k FDEs)', 'ns/op', ''),
    ('Lookup/sqlite-v3', 'lookup PC → FDE, FRE, row (sqlite-v3)', 'ns/op', ''),
    ('Lookup/synthetic-100k', 'lookup PC → FDE, FRE, row (100k FDEs)', 'ns/op', ''),
    ('Dump/text', 'dump as objdump text (in memory)', 'ns/op', ''),
    ('SFrameStep/SliceMemory', 'one unwind step: SFrame', 'ns/op', 'step'),
    ('SFrameStep/NoMemory', 'one unwind step: SFrame, no memory reads', 'ns/op', 'step'),
    ('CFIStep/step', 'one unwind step: DWARF CFI (rows built)', 'ns/step', 'step'),
    ('FPStep', 'one unwind step: frame pointers', 'ns/op', 'step'),
    ('SFrameTrace', 'whole-stack trace: SFrame', 'ns/op', ''),
    ('FPTrace', 'whole-stack trace: frame pointers', 'ns/op', ''),
    ('CFIStep/trace', 'whole-stack trace: CFI, per step', 'ns/step', ''),
    ('FirstUnwind/deep-v3-O2_file', 'first unwind through a module: SFrame (open ELF, parse)', 'ns/op', ''),
    ('CFIFirstUnwind', 'first unwind: CFI (open ELFs, find FDEs through .eh_frame_hdr, build rows)', 'ns/unwind', ''),
    ('CFIFirstRow/eager', 'first CFI row in a cold libc.so.6: parse all of .eh_frame', 'ns/lookup', ''),
    ('CFIFirstRow/lazy', 'first CFI row in a cold libc.so.6: one FDE through .eh_frame_hdr', 'ns/lookup', ''),
    ('LoadSymbols/sqlite-v3', 'symbol table of sqlite-v3 (first symbolized frame)', 'ns/op', ''),
    ('LoadSymbols/libc.so.6', 'symbol table of libc.so.6 (first symbolized frame)', 'ns/op', ''),
]
base = cpu('SFrameStep/SliceMemory')
for name, what, unit, kind in rows:
    if name not in b:
        print(f'a\t{what}\tsfdbg (Go)\t`Benchmark{name}`\tmissing from the benchmark output\t\t{load}')
        continue
    d = ''
    if kind == 'step' and base and cpu(name):
        d = f'{cpu(name) / base:.2f}× SFrame step (CPU time)'
    print(f'a\t{what}\tsfdbg (Go)\t`Benchmark{name}`\t{res(name, unit)}\t{d}\t{load}')
print(f'a\t(all of the above)\tgo test\t{cmd}\tsee the raw output below the table\t\t{load}')
EOF
}

# ---------------------------------------------------------------- b: dump
section_b() {
  wait_for_load b
  local f=testdata/bin/sqlite-v3 sf od
  once "$TMP/dump.sf" "$SFDBG" dump "$f"
  if [ $ST != 0 ]; then
    row b "dump .sframe of sqlite-v3" sfdbg "$(show "$SFDBG" dump "$f")" "FAILED (exit $ST: $(failmsg "$TMP/dump.sf"))" ""
    return
  fi
  timeit 30 3 "$SFDBG" dump "$f"; sf=$T_MEAN
  row b "dump .sframe of sqlite-v3 (1587 FDEs, 18519 FREs)" sfdbg "$(show "$SFDBG" dump "$f")" "$(fmt_t)" "$(wc -l < "$TMP/dump.sf") lines"
  if [ -z "$OBJDUMP" ]; then
    note_ "b: binutils 2.47.50 objdump not found at $(tool x86_64 3 objdump) (scripts/build-fixtures.sh makes it): reference skipped"
    return
  fi
  # The toolchain's objdump is a sh wrapper around its own ld.so: time the
  # exec'd command itself so that no shell start-up is counted.
  local odcmd=("$OBJDUMP")
  if head -c 2 "$OBJDUMP" | grep -q '#!'; then
    local ex; ex=$(sed -n 's/^exec \(.*\) "\$@"$/\1/p' "$OBJDUMP")
    [ -n "$ex" ] && read -r -a odcmd <<<"$ex"
  fi
  once "$TMP/dump.od" "${odcmd[@]}" --sframe=.sframe "$f"
  if [ $ST != 0 ]; then
    row b "dump .sframe of sqlite-v3" "objdump 2.47.50" "$(show "$OBJDUMP" --sframe=.sframe "$f")" "FAILED (exit $ST: $(failmsg "$TMP/dump.od"))" ""
    return
  fi
  timeit 30 3 "${odcmd[@]}" --sframe=.sframe "$f"; od=$T_MEAN
  local same=differs
  cmp -s <(trim < "$TMP/dump.sf") <(trim < "$TMP/dump.od") && same="identical"
  row b "dump .sframe of sqlite-v3" "objdump 2.47.50" "$(show "$OBJDUMP" --sframe=.sframe "$f")" "$(fmt_t)" \
    "$(calc "f'{$od / $sf:.2f}'")× sfdbg's time; output $same to sfdbg's"
  [ "${odcmd[0]}" != "$OBJDUMP" ] && note_ "b: objdump is timed as the command its wrapper script execs (${odcmd[*]:0:1} --library-path ... x86_64-linux-gnu-objdump), without the sh start-up"
  return 0
}

# ---------------------------------------------------------------- c: check one file
section_c() {
  wait_for_load c
  local f=testdata/bin/sqlite-v3 ins fn
  once "$TMP/check.json" "$SFDBG" check --json "$f"
  if [ $ST -gt 1 ] || ! ins=$(python3 -c 'import json,sys; d=[json.loads(l) for l in open(sys.argv[1]) if l.strip()][-1]; print(d["total"]["instructions_compared"], d["total"]["functions_compared"])' "$TMP/check.json" 2>/dev/null); then
    row c "check sqlite-v3 against its CFI" sfdbg "$(show "$SFDBG" check "$f")" "FAILED (exit $ST: $(failmsg "$TMP/check.json"))" ""
    return
  fi
  read -r ins fn <<<"$ins"
  timeit 20 2 "$SFDBG" check "$f"
  row c "check sqlite-v3 against its CFI, every instruction" sfdbg "$(show "$SFDBG" check "$f")" "$(fmt_t)" \
    "$(calc "f'{$ins / $T_MEAN:,.0f}'") instructions/s ($ins instructions, $fn functions; exit $ST)"
  local re; re=$(tool x86_64 3 readelf)
  if [ -x "$re" ]; then
    local recmd=("$re")
    local ex; ex=$(sed -n 's/^exec \(.*\) "\$@"$/\1/p' "$re")
    [ -n "$ex" ] && read -r -a recmd <<<"$ex"
    once "$TMP/re.out" "${recmd[@]}" --debug-dump=frames-interp "$f"
    if [ $ST = 0 ]; then
      timeit 10 1 "${recmd[@]}" --debug-dump=frames-interp "$f"
      row c "(baseline) decode the CFI rows only, no comparison" "readelf 2.47.50" \
        "$(show "$re" --debug-dump=frames-interp "$f" | sed "s|$re|readelf|")" "$(fmt_t)" "$(wc -l < "$TMP/re.out") lines"
    fi
  fi
  return 0
}

# ---------------------------------------------------------------- d: bt
bt_rows() { # LABEL
  local label=$1 how
  # sfdbg bt --method sframe PID
  once "$TMP/bt.sf" "$SFDBG" bt --method sframe "$PID"
  if [ $ST -le 1 ]; then
    OK_CODES=0,1 timeit 40 4 "$SFDBG" bt --method sframe "$PID"
    row d "backtrace all threads: $label" "sfdbg (SFrame only)" "$(show "$SFDBG" bt --method sframe "$PID")" "$(fmt_t)" "$(count_frames "$TMP/bt.sf" '^Thread ')"
    local base=$T_MEAN
  else
    row d "backtrace all threads: $label" "sfdbg (SFrame only)" "$(show "$SFDBG" bt --method sframe "$PID")" "FAILED (exit $ST: $(failmsg "$TMP/bt.sf"))" ""
    local base=
  fi
  # sfdbg bt PID (all methods: the default); fall back to --method all
  local allcmd=("$SFDBG" bt "$PID")
  once "$TMP/bt.all" "${allcmd[@]}"
  if [ $ST -gt 1 ]; then
    how=$(failmsg "$TMP/bt.all")
    note_ "d: \`$(show "${allcmd[@]}")\` failed (exit $ST: $how); timed \`sfdbg bt --method all PID\` (the same default method) instead"
    allcmd=("$SFDBG" bt --method all "$PID")
    once "$TMP/bt.all" "${allcmd[@]}"
  fi
  if [ $ST -le 1 ]; then
    OK_CODES=0,1 timeit 40 4 "${allcmd[@]}"
    row d "backtrace all threads: $label" "sfdbg (SFrame + CFI + FP compared)" "$(show "${allcmd[@]}")" "$(fmt_t)" \
      "$(count_frames "$TMP/bt.all" '^Thread ')${base:+; $(calc "f'{$T_MEAN / $base:.2f}'")× the time of --method sframe}"
  else
    row d "backtrace all threads: $label" "sfdbg (SFrame + CFI + FP compared)" "$(show "${allcmd[@]}")" "FAILED (exit $ST: $(failmsg "$TMP/bt.all"))" ""
  fi
  if [ -n "$EUSTACK" ]; then
    once "$TMP/bt.eu" "$EUSTACK" -p "$PID"
    if [ $ST = 0 ]; then
      timeit 40 4 "$EUSTACK" -p "$PID"
      row d "backtrace all threads: $label" "eu-stack $(eu-stack --version | sed -n 's/.* \([0-9.]*\)$/\1/p;q')" "$(show "$EUSTACK" -p "$PID")" "$(fmt_t)" \
        "$(count_frames "$TMP/bt.eu" '^TID ')${base:+; $(calc "f'{$T_MEAN / $base:.2f}'")× the time of sfdbg bt --method sframe}"
    else
      row d "backtrace all threads: $label" eu-stack "$(show "$EUSTACK" -p "$PID")" "FAILED (exit $ST: $(failmsg "$TMP/bt.eu"))" ""
    fi
  fi
  if [ -n "$GDB" ]; then
    local g=("$GDB" "${GDB_ARGS[@]}" "$PID" -ex 'thread apply all bt')
    once "$TMP/bt.gdb" "${g[@]}"
    if [ $ST = 0 ] && grep -q '^#0 ' "$TMP/bt.gdb"; then
      timeit 5 1 "${g[@]}"
      row d "backtrace all threads: $label" "gdb $(gdb --version | sed -n '1s/.* \([0-9][0-9.]*\)$/\1/p')" "$(show "${g[@]}")" "$(fmt_t)" \
        "$(count_frames "$TMP/bt.gdb" '^Thread ')${base:+; $(calc "f'{$T_MEAN / $base:.1f}'")× the time of sfdbg bt --method sframe}"
    else
      row d "backtrace all threads: $label" gdb "$(show "${g[@]}")" "FAILED (exit $ST: $(failmsg "$TMP/bt.gdb"))" ""
    fi
  fi
}
section_d() {
  if [ $PTRACE_OK = 0 ]; then note_ "d: skipped: kernel.yama.ptrace_scope > 1 forbids attaching"; return; fi
  [ -n "$EUSTACK" ] || note_ "d: eu-stack not installed (Debian: apt-get install elfutils): skipped"
  [ -n "$GDB" ] || note_ "d: gdb not installed (Debian: apt-get install gdb): skipped"
  wait_for_load d-sqlite
  # The floor under every sfdbg command: process start-up and package
  # initialisation of a binary that links Delve, before any attach.
  once "$TMP/version" "$SFDBG" version
  if [ $ST = 0 ]; then
    timeit 40 5 "$SFDBG" version
    row d "start-up only, no attach" sfdbg "$(show "$SFDBG" version)" "$(fmt_t)" "Go runtime and package initialisation; part of every bt below"
  else
    row d "start-up only, no attach" sfdbg "$(show "$SFDBG" version)" "FAILED (exit $ST: $(failmsg "$TMP/version"))" ""
  fi
  start sqlite-v3
  bt_rows "sqlite-v3 (1 thread, running queries)"
  stop_target
  wait_for_load d-threads
  start deep-v3-O2 threads
  bt_rows "deep-v3-O2 threads (4 threads, 3 spinning)"
  stop_target
  note_ "d: threads/frames come from one extra run of each command; sqlite-v3 is stopped at a different point each time, so its frame counts differ between tools"
}

# ---------------------------------------------------------------- e: sample
sample_row() { # TOOL-LABEL EXTRA-ARGS...
  local label=$1 i rates=() wall=() out=$TMP/sample.out frames=; shift
  local cmd=("$SFDBG" sample -n 500 --interval 0 "$@" "$PID")
  local n; read -r n _ <<<"$(runs 3 0)"
  for ((i = 0; i < n; i++)); do
    local t0=$EPOCHREALTIME
    once "$out" "${cmd[@]}"
    local t1=$EPOCHREALTIME
    if [ $ST -gt 1 ]; then
      row e "sample 500× deep-v3-O2 spin" "$label" "$(show "${cmd[@]}")" "FAILED (exit $ST: $(failmsg "$out"))" ""
      return 1
    fi
    local r; r=$(sed -n 's/^elapsed .*(\([0-9.]*\) samples\/s.*/\1/p' "$out" | tail -1)
    [ -n "$r" ] || { row e "sample 500× deep-v3-O2 spin" "$label" "$(show "${cmd[@]}")" "FAILED (no 'elapsed ... samples/s' line)" ""; return 1; }
    rates+=("$r"); wall+=("$(calc "$t1 - $t0")")
    frames=$(sed -n 's/^samples: \([0-9]*\), thread stacks: \([0-9]*\), frames compared: \([0-9]*\).*/\3 \2/p' "$out" | tail -1)
  done
  local fps=""
  [ -n "$frames" ] && fps="; $(calc "f'{${frames% *} / ${frames#* }:.0f}'") frames/stack"
  row e "sample 500× deep-v3-O2 spin (compare 3 ways each stop)" "$label" "$(show "${cmd[@]}")" \
    "$(python3 -c 'import statistics,sys; r=[float(x) for x in sys.argv[1:]]; l=", ".join("%.0f" % x for x in r); print("%.0f samples/s (median of %d: %s)" % (statistics.median(r), len(r), l))' "${rates[@]}")" \
    "wall $(python3 -c 'import statistics,sys; print(f"{statistics.median(float(x) for x in sys.argv[1:]):.2f}")' "${wall[@]}") s per run$fps"
  SAMPLE_RATE=$(python3 -c 'import statistics,sys; print(statistics.median(float(x) for x in sys.argv[1:]))' "${rates[@]}")
}
section_e() {
  if [ $PTRACE_OK = 0 ]; then note_ "e: skipped: kernel.yama.ptrace_scope > 1 forbids attaching"; return; fi
  wait_for_load e
  start deep-v3-O2 spin
  SAMPLE_RATE=
  sample_row "sfdbg (independent traces too)" || true
  local base=$SAMPLE_RATE
  sample_row "sfdbg --independent=false" --independent=false || true
  if [ -n "$EUSTACK" ]; then
    once "$TMP/e.eu" "$EUSTACK" -p "$PID"
    if [ $ST = 0 ]; then
      timeit 40 4 "$EUSTACK" -p "$PID"
      row e "one-shot stack of deep-v3-O2 spin, repeated" eu-stack "$(show "$EUSTACK" -p "$PID")" \
        "$(calc "f'{1 / $T_MEAN:.0f}'") stacks/s ($(fmt_t) each)" "$(count_frames "$TMP/e.eu" '^TID ')${base:+; sfdbg sample rate = $(calc "f'{$base * $T_MEAN:.2f}'")× this}"
    fi
  fi
  if [ -n "$GDB" ]; then
    local g=("$GDB" "${GDB_ARGS[@]}" "$PID" -ex 'thread apply all bt')
    once "$TMP/e.gdb" "${g[@]}"
    if [ $ST = 0 ]; then
      timeit 5 1 "${g[@]}"
      row e "one-shot stack of deep-v3-O2 spin, repeated" gdb "$(show "${g[@]}")" \
        "$(calc "f'{1 / $T_MEAN:.2f}'") stacks/s ($(fmt_t) each)" "$(count_frames "$TMP/e.gdb" '^Thread ')${base:+; sfdbg sample rate = $(calc "f'{$base * $T_MEAN:.0f}'")× this}"
    fi
  fi
  stop_target
  note_ "e: sfdbg sample's samples/s is its own figure (stop, read registers and stack, unwind and compare, resume), attach excluded; eu-stack/gdb rates are whole invocations (process start, attach, symbolization included)"
}

# ---------------------------------------------------------------- f: check --recursive
section_f() {
  wait_for_load f
  local d=testdata/bin files ins errs
  once "$TMP/rec.jsonl" "$SFDBG" check --recursive --json "$d"
  if [ $ST -gt 2 ] || ! read -r files ins errs < <(python3 -c '
import json, sys
ls = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
t = ls[-1]
print(sum(1 for l in ls if "file" in l), t["total"]["instructions_compared"], t["errors"])' "$TMP/rec.jsonl" 2>/dev/null); then
    row f "check every fixture" sfdbg "$(show "$SFDBG" check --recursive "$d")" "FAILED (exit $ST: $(failmsg "$TMP/rec.jsonl"))" ""
    return
  fi
  timeit 10 2 "$SFDBG" check --recursive "$d"
  row f "check every fixture in testdata/bin (-j $(nproc))" sfdbg "$(show "$SFDBG" check --recursive "$d")" "$(fmt_t)" \
    "$(calc "f'{$files / $T_MEAN:.1f}'") files/s, $(calc "f'{$ins / $T_MEAN:,.0f}'") instructions/s ($files files, $ins instructions; $errs unreadable; exit $ST)"
}

# ---------------------------------------------------------------- run
[ -n "$HYPERFINE" ] || note_ "hyperfine not used (not installed: Debian apt-get install hyperfine; or SFDBG_HYPERFINE=0): timings come from a bash loop around each command (\$EPOCHREALTIME; fork/exec of the loop included), marked 'loop'"
[ $QUICK = 1 ] && note_ "--quick: few runs and -benchtime=$BENCHTIME; a smoke test, not figures to quote"
START_LOAD=$(cut -d' ' -f1-3 /proc/loadavg)
# Live sections last: their spinning targets raise the load for the others.
for s in a b c f d e; do
  on $s || continue
  "section_$s"
done
END_LOAD=$(cut -d' ' -f1-3 /proc/loadavg)

report() {
  echo "## sfdbg benchmarks ($(date -u '+%Y-%m-%d %H:%M UTC'))"
  echo
  echo "- machine: $(nproc) CPUs, $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1), Linux $(uname -r)"
  echo "- sfdbg: $("$SFDBG" version | sed 's/^sfdbg //'), built from $(git -C "$REPO" rev-parse --short HEAD 2>/dev/null || echo '?')$( [ -n "$(git -C "$REPO" status --porcelain --untracked-files=no 2>/dev/null)" ] && echo ' + uncommitted changes'), $(go version | cut -d' ' -f3)"
  local v=() t
  for t in objdump:"$OBJDUMP" eu-stack:"$EUSTACK" gdb:"$GDB" hyperfine:"$HYPERFINE"; do
    if [ -n "${t#*:}" ]; then v+=("${t%%:*} $("${t#*:}" --version 2>/dev/null | head -1 | sed 's/.* //')")
    else v+=("${t%%:*} missing"); fi
  done
  echo "- reference tools: $(IFS=';'; echo "${v[*]}" | sed 's/;/, /g')"
  if [ -n "$HYPERFINE" ]; then
    echo "- timing: hyperfine -N (no shell), mean ± σ over n runs after warm-up runs; \`PID\` is the running target; \`sfdbg\` is \`CGO_ENABLED=0 go build ./cmd/sfdbg\` (or \$SFDBG_BIN); \`objdump\`/\`readelf\` are binutils 2.47.50 from \$SFDBG_TOOLCHAINS/v3/bin"
  else
    echo "- timing: bash loop (\$EPOCHREALTIME), mean ± σ over n runs; \`PID\` is the running target; \`sfdbg\` is \`CGO_ENABLED=0 go build ./cmd/sfdbg\` (or \$SFDBG_BIN); \`objdump\`/\`readelf\` are binutils 2.47.50 from \$SFDBG_TOOLCHAINS/v3/bin"
  fi
  echo "- load average (1, 5, 15 min): start $START_LOAD; per section: $(IFS=';'; echo "${LOADS[*]}" | sed 's/;/; /g'); end $END_LOAD"
  echo
  python3 - "$ROWS" <<'EOF'
import sys
rows = [l.rstrip('\n').split('\t') for l in open(sys.argv[1]) if l.strip()]
order = 'abcdef'
rows.sort(key=lambda r: order.index(r[0]))   # stable: keeps each section's order
def cell(s, code=False):
    s = s.replace('|', '\\|')
    if code and s and not s.startswith('`'):
        s = '`' + s + '`'
    return s
print('| § | measurement | tool | command | result | derived | load1 |')
print('|---|---|---|---|---|---|---|')
for r in rows:
    r += [''] * (7 - len(r))
    print('| ' + ' | '.join([cell(r[0]), cell(r[1]), cell(r[2]), cell(r[3], True), cell(r[4]), cell(r[5]), cell(r[6])]) + ' |')
EOF
  if [ -s "$NOTES" ]; then
    echo
    echo "Notes:"
    sed 's/^/- /' "$NOTES"
  fi
  if [ -s "$TMP/gobench.keep" ]; then
    echo
    echo "<details><summary>raw go test -bench output (section a)</summary>"
    echo
    echo '```'
    grep -E '^(Benchmark|ok|FAIL|PASS|pkg|cpu)' "$TMP/gobench.keep"
    echo '```'
    echo "</details>"
  fi
}
if [ -n "$OUTFILE" ]; then report | tee "$OUTFILE"; else report; fi
# Exit status 1 when a measurement failed (its row says FAILED), else 0.
if cut -f5 "$ROWS" | grep -q '^FAILED'; then exit 1; fi
exit 0
