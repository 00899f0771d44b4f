#!/usr/bin/env bash
# scripts/fuzz.sh: run every Go fuzz target of the module in turn.
#
# usage: scripts/fuzz.sh [--ci] [--list] [DURATION]
#
#   DURATION  how long each target runs, as go test -fuzztime takes it
#             (default 5m): 1h30m, 45s, ...
#   --ci      run each target briefly, about 60 s of fuzzing in all (the
#             share of each is 60 s divided by the number of targets, at
#             least 3 s), for .ci/run
#   --list    print the targets (package directory and name) and exit
#
# Targets are found by grepping the module's *_test.go files for
# "^func Fuzz", so a target added anywhere is run without editing this
# script. Each runs with FUZZ_PARALLEL workers (default 1, so that a
# shared machine stays usable), fails if it runs 5 minutes past DURATION
# (a hang), and minimizes new inputs for at most FUZZ_MINIMIZE (default
# 200x: 200 executions).
#
# Per target it reports the duration, the executions, the new corpus
# entries ("new interesting" of go test: inputs that reached new coverage
# in this run; they go to the fuzz cache under $(go env GOCACHE)/fuzz, not
# to the repository) and the result. A failing input is written by go test
# to the package's testdata/fuzz/<Target>/ directory: the report says
# where. Commit it: every input that ever failed stays in the corpus and
# runs with every go test.
#
# The log of each target is kept in FUZZ_LOG_DIR (default: a new
# temporary directory, printed at the end).
#
# Exit status: 0 when every target ran without failure, 1 when one failed,
# 2 on a usage error.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() { sed -n '4,13p' "$0" | sed 's/^# \{0,1\}//'; }

mode=full
duration=5m
list=false
while [ $# -gt 0 ]; do
	case "$1" in
	--ci) mode=ci ;;
	--list) list=true ;;
	-h | --help)
		usage
		exit 0
		;;
	-*)
		echo "fuzz.sh: unknown option $1" >&2
		usage >&2
		exit 2
		;;
	*) duration=$1 ;;
	esac
	shift
done
parallel=${FUZZ_PARALLEL:-1}
# go test minimizes every new corpus entry (and a failing input) for up to
# 60 s by default, during which it runs no new inputs: on the cores and ELF
# files that was most of the run (FuzzNewCore: 76 executions in 20 s with
# 5s, 139,000 with 200x).
minimize=${FUZZ_MINIMIZE:-200x}

# Every "func FuzzX(" of a _test.go file, as "DIR NAME" (DIR relative to
# the module root, "." for the root package), sorted.
targets=()
while IFS= read -r line; do
	targets+=("$line")
done < <(
	find . -name '*_test.go' -not -path './.git/*' -not -path '*/testdata/*' -print0 |
		xargs -0 grep -H -E '^func Fuzz[A-Za-z0-9_]*\(' |
		sed -E 's|^\./(.*/)?[^/]*_test\.go:func (Fuzz[A-Za-z0-9_]*)\(.*$|\1 \2|; s|^/? |. |; s|/ | |' |
		sort -u
)
if [ ${#targets[@]} -eq 0 ]; then
	echo "fuzz.sh: no fuzz targets found" >&2
	exit 1
fi
if $list; then
	printf '%s\n' "${targets[@]}"
	exit 0
fi

if [ "$mode" = ci ]; then
	per=$((60 / ${#targets[@]}))
	[ "$per" -ge 3 ] || per=3
	duration=${per}s
fi

# seconds DURATION: the seconds of a Go duration made of h, m and s parts
# (1h30m, 45s, 2m30s), 0 for a count (500x) or anything else.
seconds() {
	local d=$1 total=0 n
	[[ $d =~ ^([0-9]+h)?([0-9]+m)?([0-9]+s)?$ && -n $d ]] || {
		echo 0
		return
	}
	for n in "${BASH_REMATCH[1]%h}:3600" "${BASH_REMATCH[2]%m}:60" "${BASH_REMATCH[3]%s}:1"; do
		[ -n "${n%%:*}" ] && total=$((total + ${n%%:*} * ${n#*:}))
	done
	echo "$total"
}
# A target that hangs fails after its duration and 5 more minutes, rather
# than stopping the run (go test's own -timeout, which also counts the
# build); a count-based DURATION gets no timeout.
timeout=0
if [ "$(seconds "$duration")" -gt 0 ]; then
	timeout=$(($(seconds "$duration") + 300))s
fi

logdir=${FUZZ_LOG_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/sfdbg-fuzz.XXXXXX")}
mkdir -p "$logdir"

echo "fuzz.sh: ${#targets[@]} targets, $duration each, $parallel worker(s) each; logs in $logdir"
printf '%-28s %-26s %9s %12s %8s  %s\n' package target duration execs new result
failed=0
total_execs=0
start_all=$(date +%s)
for t in "${targets[@]}"; do
	dir=${t% *}
	name=${t#* }
	log="$logdir/$(echo "$dir" | tr / _)-$name.log"
	start=$(date +%s)
	rc=0
	go test -run='^$' -fuzz="^${name}\$" -fuzztime="$duration" -fuzzminimizetime="$minimize" -parallel="$parallel" -timeout="$timeout" "./$dir" >"$log" 2>&1 </dev/null || rc=$?
	# go test's fuzzing coordinator can end a short run with "context
	# deadline exceeded" and no failing input (its deadline passed while it
	# talked to a worker, not a fault of the target): run it once more.
	if [ "$rc" -ne 0 ] && grep -q 'context deadline exceeded' "$log" && ! grep -q 'Failing input written' "$log"; then
		rc=0
		go test -run='^$' -fuzz="^${name}\$" -fuzztime="$duration" -fuzzminimizetime="$minimize" -parallel="$parallel" -timeout="$timeout" "./$dir" >"$log" 2>&1 </dev/null || rc=$?
	fi
	secs=$(($(date +%s) - start))
	# go test prints "fuzz: elapsed: 5s, execs: 1234 (246/sec), new
	# interesting: 2 (total: 40)" every 3 s and when it stops.
	# (none when the run ended while go test was still gathering the
	# baseline coverage of a large cached corpus: grep finds nothing,
	# which must not end the script under pipefail.)
	execs=$(grep -oE 'execs: [0-9]+' "$log" | tail -n 1 | awk '{print $2}' || true)
	newc=$(grep -oE 'new interesting: [0-9]+' "$log" | tail -n 1 | awk '{print $3}' || true)
	execs=${execs:-0}
	newc=${newc:-0}
	total_execs=$((total_execs + execs))
	if [ "$rc" -eq 0 ]; then
		result=ok
	else
		failed=$((failed + 1))
		input=$(grep -oE 'Failing input written to [^ ]+' "$log" | tail -n 1 | sed 's/Failing input written to //' || true)
		if [ -n "$input" ]; then
			result="FAIL: input in $dir/$input"
		else
			result="FAIL (exit $rc, no input written; see $log)"
		fi
	fi
	printf '%-28s %-26s %8ss %12s %8s  %s\n' "$dir" "$name" "$secs" "$execs" "$newc" "$result"
	if [ "$rc" -ne 0 ]; then
		grep -E -- '--- FAIL|fuzz_test|_test\.go:[0-9]+:|panic:|To re-run' "$log" | head -n 20 | sed 's/^/    /' || true
	fi
done
echo "fuzz.sh: $((${#targets[@]} - failed)) of ${#targets[@]} targets without failure, $total_execs executions in $(($(date +%s) - start_all))s; logs in $logdir"
if [ "$failed" -gt 0 ]; then
	echo "fuzz.sh: $failed target(s) failed; commit each failing input under its package's testdata/fuzz/<Target>/ with the fix" >&2
	exit 1
fi
