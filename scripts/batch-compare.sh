#!/bin/bash
# batch-compare.sh - runs sfdbg's SFrame-vs-CFI comparison over many files at
# once and prints a one-screen summary.
#
# Static mode (default): builds sfdbg from this checkout (go build into a
# temporary directory), runs
#     sfdbg check --recursive --json --junit FILE -j N DIR...
# and summarises its JSON Lines: files checked, files with disagreements,
# unreadable files, findings by kind, instructions compared, wall time and
# throughput (files/s, instructions/s).  Files below DIR without .sframe are
# skipped by sfdbg check itself.
#
# Live mode (--live): starts each TARGET in the background, waits for it to
# print "ready", runs `sfdbg sample -n N --json PID` and `sfdbg bt --json PID`
# on it, kills it, and aggregates the results over all targets.  A TARGET is
# a command line in one argument ('testdata/bin/deep-v3-O2 spin') or
# NAME:MODE as in gdb-golden.sh (deep-v3-O2:spin); a program name without a
# slash that is not a file here is looked up in testdata/bin.
#
# Usage: scripts/batch-compare.sh [--junit FILE] [--json FILE] [-j N] DIR|FILE...
#        scripts/batch-compare.sh --live [-n N] [--junit FILE] [--json FILE] [TARGET...]
#          default targets: deep-v3-O2:spin deep-v3-O2:threads deep-v3-O0:signal sqlite-v3
#   --json FILE   keep the JSON Lines (static: sfdbg check's own; live: one
#                 line per target with the sample and bt documents, then the totals)
#   --junit FILE  keep the JUnit XML (static: sfdbg check's; live: one test
#                 case per target)
#   -j N          static: files checked in parallel (default: sfdbg's, the CPU count)
#   -n N          live: samples per target (default 50)
# Exit status: as sfdbg check's: 0 no disagreement, 1 disagreements, 2 a file
#        could not be checked (live: a target did not start, or sfdbg failed).
# Env:   SFDBG_BIN        use this sfdbg binary instead of building one
#        SFDBG_READY_TIMEOUT  seconds to wait for "ready" (default 10)
# Needs: go (builds sfdbg; not with SFDBG_BIN), python3 (summary), and for
#        --live ptrace permission over own children (kernel.yama.ptrace_scope
#        <= 1, or root) and testdata/bin built (scripts/build-fixtures.sh).
set -euo pipefail
. "$(dirname "$0")/fixtures-lib.sh"
# Exit status 2 for every failure of the script itself (1 means disagreements).
die() { echo "$(basename "$0"): error: $*" >&2; exit 2; }
# usage MSG: bad command line.
usage() { echo "$(basename "$0"): $* (see $0 --help)" >&2; exit 2; }

LIVE=0 JUNIT= JSON= JOBS= SAMPLES=50
ARGS=()
while [ $# -gt 0 ]; do
  case $1 in
    --live) LIVE=1 ;;
    --junit) [ $# -ge 2 ] || usage "--junit needs a FILE"; JUNIT=$2; shift ;;
    --junit=*) JUNIT=${1#*=} ;;
    --json) [ $# -ge 2 ] || usage "--json needs a FILE"; JSON=$2; shift ;;
    --json=*) JSON=${1#*=} ;;
    -j) [ $# -ge 2 ] || usage "-j needs a number"; JOBS=$2; shift ;;
    -n) [ $# -ge 2 ] || usage "-n needs a number"; SAMPLES=$2; shift ;;
    -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1' "$0"; exit 0 ;;
    --) shift; ARGS+=("$@"); break ;;
    -*) usage "unknown option '$1'" ;;
    *) ARGS+=("$1") ;;
  esac
  shift
done
[[ -z $JOBS || $JOBS =~ ^[1-9][0-9]*$ ]] || usage "-j wants a positive number, not '$JOBS'"
[[ $SAMPLES =~ ^[1-9][0-9]*$ ]] || usage "-n wants a positive number, not '$SAMPLES'"
if [ $LIVE = 0 ]; then
  [ ${#ARGS[@]} -gt 0 ] || usage "no DIR given (or --live for running programs)"
  for d in "${ARGS[@]}"; do [ -e "$d" ] || usage "$d does not exist"; done
fi
need python3 "summarises sfdbg's JSON" python3
if [ $LIVE = 1 ]; then
  [ ${#ARGS[@]} -gt 0 ] || ARGS=(deep-v3-O2:spin deep-v3-O2:threads deep-v3-O0:signal sqlite-v3)
  if [ -r /proc/sys/kernel/yama/ptrace_scope ] && [ "$(id -u)" != 0 ]; then
    [ "$(cat /proc/sys/kernel/yama/ptrace_scope)" -le 1 ] \
      || die "kernel.yama.ptrace_scope is $(cat /proc/sys/kernel/yama/ptrace_scope): sfdbg cannot attach (needs <= 1, or root)"
  fi
  need timeout "" coreutils
  READY_TIMEOUT=${SFDBG_READY_TIMEOUT:-10}

  # resolve TARGET: sets ARGV (the command line)
  resolve() {
    local t=$1
    if [[ $t == *[[:space:]]* ]]; then
      read -r -a ARGV <<<"$t"
    elif [[ $t == *:* ]]; then
      ARGV=("${t%%:*}" "${t#*:}")
    else
      ARGV=("$t")
    fi
    if [[ ${ARGV[0]} != */* ]] && [ ! -f "${ARGV[0]}" ]; then
      if [ -x "$BIN/${ARGV[0]}" ]; then ARGV[0]=$BIN/${ARGV[0]}
      elif command -v "${ARGV[0]}" >/dev/null; then ARGV[0]=$(command -v "${ARGV[0]}")
      fi
    fi
    [ -x "${ARGV[0]}" ] || usage "target '$t': ${ARGV[0]} is not an executable (not in testdata/bin either: run scripts/build-fixtures.sh?)"
  }
  for t in "${ARGS[@]}"; do resolve "$t"; done    # fail early on a bad target
fi

temp_dir

# ---------------------------------------------------------------- sfdbg
sfdbg_binary
note "using $("$SFDBG" version) ($SFDBG)"

# ---------------------------------------------------------------- static
if [ $LIVE = 0 ]; then
  OUT=${JSON:-$TMP/check.jsonl}
  XML=${JUNIT:-$TMP/check.xml}
  cmd=("$SFDBG" check --recursive --json --junit "$XML" ${JOBS:+-j "$JOBS"} "${ARGS[@]}")
  t0=$(date +%s.%N)
  st=0
  "${cmd[@]}" > "$OUT" 2> "$TMP/stderr" || st=$?
  t1=$(date +%s.%N)
  if [ -s "$TMP/stderr" ]; then sed 's/^/sfdbg: /' "$TMP/stderr" >&2; fi
  if [ ! -s "$OUT" ]; then
    die "sfdbg check printed nothing (exit status $st): ${cmd[*]}"
  fi
  python3 - "$OUT" "$XML" "$t0" "$t1" "$st" "${JOBS:-$(nproc)}" "${JSON:-}" "${JUNIT:-}" "${ARGS[@]}" <<'EOF' || st=2
import json, sys, xml.etree.ElementTree as ET
out, xml, t0, t1, st, jobs, keep_json, keep_junit = sys.argv[1:9]
dirs = sys.argv[9:]
text = open(out).read()
files, total = [], None
try:                       # exactly one file: one indented document
    docs = [json.loads(text)]
except ValueError:         # otherwise JSON Lines: one report per file, then the totals
    docs = [json.loads(l) for l in text.splitlines() if l.strip()]
for d in docs:
    if 'file' in d:
        files.append(d)
    else:
        files.extend(d.get('files') or [])
        total = d
if total is None:
    sys.exit('batch-compare.sh: no totals line in sfdbg check output')
# A test case with <failure> is a file with disagreements (sfdbg decides
# which finding kinds are disagreements), <error> an unreadable file.
failed, errored = {}, {}
try:
    for tc in ET.parse(xml).getroot().iter('testcase'):
        f, e = tc.find('failure'), tc.find('error')
        if f is not None: failed[tc.get('name')] = f.get('message', '')
        if e is not None: errored[tc.get('name')] = e.get('message', '')
except (OSError, ET.ParseError) as e:
    print(f'batch-compare.sh: cannot read JUnit report {xml}: {e}', file=sys.stderr)
secs = max(float(t1) - float(t0), 1e-9)
tot = total.get('total') or {}
ins = tot.get('instructions_compared', 0)
kinds = tot.get('by_kind') or {}
n = len(files)
def fmt_kinds(k):
    return ', '.join(f'{a} {b}' for a, b in sorted((k or {}).items(), key=lambda x: (-x[1], x[0]))) or 'none'
print(f"== sfdbg check --recursive -j {jobs} {' '.join(dirs)}")
print(f"  files checked            {n:>10}  ({n - len(failed) - len(errored)} clean)")
print(f"  files with disagreements {len(failed):>10}  ({total.get('disagreements', 0)} disagreeing findings)")
print(f"  files not checkable      {len(errored):>10}")
print(f"  findings by kind         {fmt_kinds(kinds)}")
print(f"  functions compared       {tot.get('functions_compared', 0):>10}  (SFrame {tot.get('functions_sframe', 0)}, CFI {tot.get('functions_cfi', 0)})")
print(f"  instructions compared    {ins:>10}")
print(f"  time                     {secs:>10.3f} s  (wall clock of sfdbg check, startup included)")
print(f"  throughput               {n / secs:>10.1f} files/s, {ins / secs:,.0f} instructions/s")
bad = [(f['file'], 'ERROR', errored.get(f['file']) or f.get('error', '')) for f in files if f['file'] in errored or f.get('error')]
bad += [(f['file'], 'DISAGREE', f"{failed[f['file']].split(' ')[0]} disagreeing; findings: {fmt_kinds((f.get('summary') or {}).get('by_kind'))}")
        for f in files if f['file'] in failed]
if bad:
    print('  files with disagreements or errors:')
    width = min(max(len(b[0]) for b in bad), 40)
    for b in sorted(bad)[:12]:
        print(f'    {b[0]:<{width}}  {b[1]:<8} {b[2][:110]}')
    if len(bad) > 12:
        print(f'    ... and {len(bad) - 12} more (see the JSON Lines / JUnit report)')
print(f"  exit status {st} (0 no disagreement, 1 disagreements, 2 a file could not be checked)")
if keep_json or keep_junit:
    print('  reports: ' + ', '.join(x for x in (keep_json and f'JSON Lines {keep_json}', keep_junit and f'JUnit {keep_junit}') if x))
EOF
  exit "$st"
fi

# ---------------------------------------------------------------- live
i=0
for t in "${ARGS[@]}"; do
  resolve "$t"
  i=$((i + 1))
  d=$TMP/t$i; mkdir -p "$d"
  printf '%s\n' "$t" > "$d/target"
  : > "$d/out"
  "${ARGV[@]}" > "$d/out" 2>&1 &
  PID=$!
  ok=0 why="did not print ready within ${READY_TIMEOUT}s"
  for _ in $(seq $((READY_TIMEOUT * 20))); do
    grep -q '^ready$' "$d/out" && { ok=1; break; }
    if ! kill -0 "$PID" 2>/dev/null; then
      s=0; wait "$PID" || s=$?; PID=
      why="exited with status $s before printing ready"; break
    fi
    sleep 0.05
  done
  if [ $ok = 0 ]; then
    note "target '$t' $why${PID:+ (killed)}: $(head -c 300 "$d/out")"
    echo "$why" > "$d/start-error"
  else
    sleep 0.2   # let every thread reach its innermost function
    echo "$PID" > "$d/pid"
    note "$t: pid $PID, sfdbg sample -n $SAMPLES --json, then sfdbg bt --json"
    s=0; timeout 300 "$SFDBG" sample -n "$SAMPLES" --json "$PID" > "$d/sample.json" 2> "$d/sample.err" || s=$?
    echo $s > "$d/sample.status"
    s=0; timeout 120 "$SFDBG" bt --json "$PID" > "$d/bt.json" 2> "$d/bt.err" || s=$?
    echo $s > "$d/bt.status"
    kill -0 "$PID" 2>/dev/null || echo "exited while being sampled" > "$d/start-error"
  fi
  kill "$PID" 2>/dev/null || true
  wait "$PID" 2>/dev/null || true
  PID=
done

python3 - "$TMP" "$i" "$SAMPLES" "${JSON:-}" "${JUNIT:-}" <<'EOF'
import json, os, sys
from xml.sax.saxutils import quoteattr, escape
tmp, n, samples, keep_json, keep_junit = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
def read(p, default=''):
    try:
        return open(p).read()
    except OSError:
        return default
def load(p):
    try:
        return json.loads(read(p))
    except ValueError:
        return None
rows, lines, cases = [], [], []
T = dict(samples=0, stacks=0, frames_compared=0, agree=0, disagree=0, not_covered=0, threads=0, bt_frames=0, bt_disagreements=0)
kinds, status = {}, 0
for k in range(1, n + 1):
    d = os.path.join(tmp, f't{k}')
    target = read(os.path.join(d, 'target')).strip()
    err = read(os.path.join(d, 'start-error')).strip()
    s_st = int(read(os.path.join(d, 'sample.status'), '2') or 2)
    b_st = int(read(os.path.join(d, 'bt.status'), '2') or 2)
    s, b = load(os.path.join(d, 'sample.json')), load(os.path.join(d, 'bt.json'))
    problems = [err] if err else []
    if not err:
        for name, st, doc in (('sample', s_st, s), ('bt', b_st, b)):
            if st not in (0, 1) or doc is None:
                msg = read(os.path.join(d, name + '.err')).strip().splitlines()
                problems.append(f"sfdbg {name} exit {st}: {(msg[0] if msg else 'no output')[:200]}")
    r = dict(target=target, pid=int(read(os.path.join(d, 'pid'), '0') or 0), sample_status=s_st, bt_status=b_st,
             sample=s, bt=b, problems=problems)
    lines.append(r)
    row = [target]
    if s:
        for key in ('samples', 'stacks', 'frames_compared', 'agree', 'disagree', 'not_covered'):
            T[key] += s.get(key, 0)
        for kk, v in (s.get('by_kind') or {}).items():
            kinds[kk] = kinds.get(kk, 0) + v
        row += [s.get('samples', 0), s.get('frames_compared', 0), s.get('agree', 0), s.get('disagree', 0), s.get('not_covered', 0)]
    else:
        row += ['-'] * 5
    if b:
        # bt --json: threads[].report (a compare.StackReport) for the default
        # method "all"; threads[].frames for one method.
        th = b.get('threads') or []
        fr = sum(len(t.get('frames') or (t.get('report') or {}).get('frames') or []) for t in th)
        T['threads'] += len(th); T['bt_frames'] += fr; T['bt_disagreements'] += b.get('disagreements', 0)
        row += [f"{len(th)}/{fr}", b.get('disagreements', 0)]
    else:
        row += ['-', '-']
    bad = bool(problems)
    dis = (s or {}).get('disagree', 0) + (b or {}).get('disagreements', 0) if not bad else 0
    row.append('ERROR' if bad else ('DISAGREE' if dis or s_st == 1 or b_st == 1 else 'ok'))
    status = max(status, 2 if bad else (1 if row[-1] == 'DISAGREE' else 0))
    rows.append((row, problems))
    cases.append((target, bad, problems, row[-1] == 'DISAGREE', s, b))
print(f'== sfdbg sample -n {samples} --json PID, then sfdbg bt --json PID, on {n} live target(s)')
hdr = ['target', 'samples', 'frames', 'agree', 'disagree', 'not-cov', 'bt thr/frm', 'bt dis', 'result']
w = [max(len(str(x)) for x in [h] + [r[0][i] for r in rows]) for i, h in enumerate(hdr)]
w[0] = min(w[0], 34)
print('  ' + '  '.join(f'{h:<{w[i]}}' if i == 0 else f'{h:>{w[i]}}' for i, h in enumerate(hdr)))
for row, problems in rows:
    print('  ' + '  '.join(f'{str(x)[:w[0]]:<{w[0]}}' if i == 0 else f'{str(x):>{w[i]}}' for i, x in enumerate(row)))
    for p in problems:
        print(f'      ! {p}')
print(f"  total: {T['samples']} samples, {T['stacks']} thread stacks, {T['frames_compared']} frames compared: "
      f"SFrame agrees {T['agree']}, disagrees {T['disagree']}, not covered {T['not_covered']}")
print(f"         bt: {T['threads']} threads, {T['bt_frames']} frames, {T['bt_disagreements']} disagreements")
print('  sample findings by kind: ' + (', '.join(f'{a} {b}' for a, b in sorted(kinds.items(), key=lambda x: (-x[1], x[0]))) or 'none'))
print(f'  exit status {status} (0 no disagreement, 1 disagreements, 2 a target or sfdbg failed)')
if keep_json:
    with open(keep_json, 'w') as f:
        for r in lines:
            f.write(json.dumps(r) + '\n')
        f.write(json.dumps(dict(total=T, by_kind=kinds, status=status)) + '\n')
    print(f'  JSON Lines: {keep_json}')
if keep_junit:
    nf = sum(1 for c in cases if c[3] and not c[1]); ne = sum(1 for c in cases if c[1])
    with open(keep_junit, 'w') as f:
        f.write('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites>\n')
        f.write(f'  <testsuite name="sfdbg live" tests="{len(cases)}" failures="{nf}" errors="{ne}">\n')
        for target, bad, problems, dis, s, b in cases:
            f.write(f'    <testcase name={quoteattr(target)} classname="sfdbg.live">\n')
            if bad:
                f.write(f'      <error message={quoteattr("; ".join(problems))} type="error"></error>\n')
            elif dis:
                msg = f"{(s or {}).get('disagree', 0)} disagreeing frames over {(s or {}).get('samples', 0)} samples, {(b or {}).get('disagreements', 0)} in bt"
                body = json.dumps((s or {}).get('examples') or {}, indent=1)
                f.write(f'      <failure message={quoteattr(msg)} type="disagreement">{escape(body)}</failure>\n')
            f.write('    </testcase>\n')
        f.write('  </testsuite>\n</testsuites>\n')
    print(f'  JUnit: {keep_junit}')
sys.exit(status)
EOF
