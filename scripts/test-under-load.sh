#!/usr/bin/env bash
# test-under-load.sh - issue 31's "the tests pass under load": runs
# `go test -count=1 ./...` N times in a row (default 5) while another
# `go test -count=1 ./...` runs beside it in a loop, on a copy of the tree
# (so that editing the work tree meanwhile does not break the runs).
# Prints each run's status; exits non-zero if any run, measured or load,
# failed. Logs stay in OUTDIR (default /tmp/sfdbg-under-load).
#
# Usage: scripts/test-under-load.sh [N] [OUTDIR]
set -uo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
N=${1:-5}
OUT=${2:-/tmp/sfdbg-under-load}
rm -rf "$OUT" && mkdir -p "$OUT/tree"
(cd "$REPO" && git ls-files -z --cached --others --exclude-standard | xargs -0 cp --parents -t "$OUT/tree")
cd "$OUT/tree"
go build ./... || exit 2
( i=0; while [ ! -e "$OUT/stop" ]; do i=$((i + 1)); go test -count=1 ./... >"$OUT/load-$i.txt" 2>&1; echo "load run $i: status $?" >>"$OUT/load-status"; done ) &
load=$!
failed=0
for i in $(seq "$N"); do
  go test -count=1 ./... >"$OUT/run-$i.txt" 2>&1
  st=$?
  echo "run $i of $N: status $st (load $(cut -d' ' -f1 /proc/loadavg))"
  [ $st -eq 0 ] || failed=1
done
touch "$OUT/stop"
wait $load
cat "$OUT/load-status"
grep -q 'status [^0]' "$OUT/load-status" && failed=1
grep -h -- '--- FAIL' "$OUT"/*.txt | sort | uniq -c
exit $failed
