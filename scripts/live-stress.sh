#!/usr/bin/env bash
# live-stress.sh: the four live scenarios of issue 18 ("a target is never
# harmed"), run against small C programs, counting outcomes per scenario.
#
# Usage: scripts/live-stress.sh [-n RUNS] [-s SCENARIOS] [-l LOAD] [-k]
#   -n RUNS       runs per scenario (default 100)
#   -s SCENARIOS  comma list of: threads,exec,churn,zombie (default all)
#   -l LOAD       start LOAD busy loops for the duration (default 0: the
#                 machine's own load)
#   -k            keep the work directory (logs of every run that was not ok)
#
# Scenarios (a fresh target per run):
#   threads  threads that each call f and exit within ~0.3 ms;
#            attach -batch -ex 'break f' -ex continue -ex bt -ex detach,
#            in turn with the same commands typed into the REPL, and with
#            continue three times, info threads and stepi before detach.
#   exec     a second thread calls execve while sample -n 2000 --interval 1ms
#            runs; the new image writes how long the exec took.
#   churn    three threads create and join short-lived threads without
#            pause; bt, sample -n 50 and attach -batch (info threads, bt,
#            detach) in turn.
#   zombie   the main thread called pthread_exit; attach -batch (info
#            threads, bt, detach), bt and sample -n 20 in turn.
#
# Outcomes:
#   harmed  the target was killed, left stopped (State T/t in any thread),
#           left traced (TracerPid != 0 in any thread), or its exec held
#           longer than 1 s (scenario exec)
#   hung    sfdbg did not finish within 60 s (it is then killed)
#   failed  sfdbg reported an error (exit status 2, or a wrong report: a
#           sample across the exec that does not report the exec)
#   ok      everything else
# Exit status: 1 if any target was harmed or any run hung, else 0.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
runs=100 scenarios=threads,exec,churn,zombie load=0 keep=0
while getopts n:s:l:k o; do
	case $o in
	n) runs=$OPTARG ;;
	s) scenarios=$OPTARG ;;
	l) load=$OPTARG ;;
	k) keep=1 ;;
	*) sed -n '2,12p' "$0"; exit 2 ;;
	esac
done
toolchains=${SFDBG_TOOLCHAINS:-/tmp/sfdbg-toolchains}
work=$(mktemp -d /tmp/live-stress.XXXXXX)
hogs=()
cleanup() {
	for h in "${hogs[@]}"; do kill "$h" 2>/dev/null; done
	[ -n "${tpid:-}" ] && kill -9 "$tpid" 2>/dev/null
	if [ "$keep" = 1 ]; then echo "work directory: $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT

cflags=(-O2 -g -pthread)
[ -x "$toolchains/v3/bin/as" ] && cflags+=(-B "$toolchains/v3/bin/" -Wa,--gsframe)
for s in shortthreads exec churn zombie; do
	gcc "${cflags[@]}" -o "$work/live-$s" "$here/testdata/src/live-$s.c" || exit 2
done
(cd "$here" && go build -o "$work/sfdbg" ./cmd/sfdbg) || exit 2
sfdbg=$work/sfdbg

for ((i = 0; i < load; i++)); do
	(while :; do :; done) &
	hogs+=($!)
done

# harm PID: prints why the target is harmed, or nothing.
harm() {
	local pid=$1 t st tr
	if ! kill -0 "$pid" 2>/dev/null; then
		echo "killed"
		return
	fi
	for t in /proc/"$pid"/task/*; do
		st=$(awk '/^State:/{print $2}' "$t/status" 2>/dev/null)
		tr=$(awk '/^TracerPid:/{print $2}' "$t/status" 2>/dev/null)
		case $st in T | t) echo "thread ${t##*/} stopped ($st)"; return ;; esac
		if [ -n "$tr" ] && [ "$tr" != 0 ]; then
			echo "thread ${t##*/} still traced by $tr"
			return
		fi
	done
	st=$(awk '/^State:/{print $2}' /proc/"$pid"/status 2>/dev/null)
	if [ "$st" = Z ] && [ "$(ls /proc/"$pid"/task | wc -l)" -le 1 ]; then
		echo "killed (zombie)"
	fi
}

# start PROG ARGS...: starts a target, sets tpid.
start() {
	"$@" >/dev/null 2>&1 &
	tpid=$!
}

declare -A count
log=$work/run.log
record() { # scenario run outcome detail
	count[$1,$3]=$((${count[$1,$3]:-0} + 1))
	if [ "$3" != ok ]; then
		printf '%s %d %s: %s\n' "$1" "$2" "$3" "$4" | tee -a "$work/notes"
		[ -f "$log" ] && cp "$log" "$work/$1-$2-$3.log"
	fi
}

# run_sfdbg SECONDS ARGS...: runs sfdbg with a timeout; sets rc.
run_sfdbg() {
	local secs=$1
	shift
	timeout -k 5 "$secs" "$sfdbg" "$@" >"$log" 2>&1 <&0
	rc=$?
}

# settle PID: let a detach finish (Delve sends SIGCONT 50 ms after it).
settle() { sleep 0.15; }

classify() { # scenario run pid [extra-harm]
	local h
	h=$(harm "$3")
	if [ -n "$h" ]; then
		record "$1" "$2" harmed "$h (sfdbg exit $rc)"
	elif [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		record "$1" "$2" hung "sfdbg ran over its time"
	elif [ -n "${4:-}" ]; then
		record "$1" "$2" harmed "$4"
	elif [ "$rc" = 2 ] || [ -n "${5:-}" ]; then
		record "$1" "$2" failed "exit $rc: ${5:-$(grep -m1 -i 'error\|cannot\|could not\|sfdbg' "$log")}"
	else
		record "$1" "$2" ok ""
	fi
}

scenario_threads() {
	local i
	for ((i = 1; i <= runs; i++)); do
		start "$work/live-shortthreads"
		sleep 0.2
		case $((i % 3)) in
		0) run_sfdbg 60 attach -batch -ex 'break f' -ex continue -ex bt -ex detach "$tpid" ;;
		1) run_sfdbg 60 attach "$tpid" <<<$'break f\ncontinue\nbt\ndetach\nquit' ;;
		2)
			# The threads that hit the breakpoint exit while sfdbg runs on.
			run_sfdbg 60 attach -batch -ex 'break f' -ex continue -ex continue -ex continue \
				-ex 'info threads' -ex stepi -ex detach "$tpid"
			;;
		esac
		settle
		local wrong=
		grep -q 'Breakpoint 1, ' "$log" || wrong="no breakpoint hit reported"
		classify threads "$i" "$tpid" "" "$wrong"
		kill -9 "$tpid" 2>/dev/null
		wait "$tpid" 2>/dev/null
	done
}

scenario_exec() {
	local i held out
	for ((i = 1; i <= runs; i++)); do
		out=$work/exec-time
		rm -f "$out"
		# The exec comes 0.8-1.3 s after the start, while sample runs.
		start "$work/live-exec" $((800 + RANDOM % 500)) "$out"
		sleep 0.3
		run_sfdbg 60 sample -n 2000 --interval 1ms "$tpid"
		local wrong= extra=
		for _ in 1 2 3 4 5 6 7 8 9 10; do [ -s "$out" ] && break; sleep 0.2; done
		if [ ! -s "$out" ]; then
			extra="exec not done 2 s after sfdbg ended"
		else
			held=$(cat "$out")
			[ "$held" -gt 1000000 ] && extra="exec held $((held / 1000)) ms"
			echo "$held" >>"$work/exec-times"
		fi
		grep -q 'exited after' "$log" && wrong="reports an exit instead of the exec"
		[ -z "$wrong" ] && ! grep -qi 'exec' "$log" && wrong="does not report the exec"
		settle
		classify exec "$i" "$tpid" "$extra" "$wrong"
		kill -9 "$tpid" 2>/dev/null
		wait "$tpid" 2>/dev/null
	done
}

scenario_churn() {
	local i wrong
	for ((i = 1; i <= runs; i++)); do
		start "$work/live-churn"
		sleep 0.2
		wrong=
		case $((i % 3)) in
		0) run_sfdbg 60 bt "$tpid" ;;
		1)
			run_sfdbg 60 sample -n 50 --interval 1ms "$tpid"
			grep -q 'samples' "$log" && ! grep -q '^50 samples\|samples: 50\| 50 samples' "$log" &&
				grep -q 'sfdbg sample:' "$log" && wrong="sample stopped early: $(grep -m1 'sfdbg sample:' "$log")"
			;;
		2) run_sfdbg 60 attach -batch -ex 'info threads' -ex bt -ex detach "$tpid" ;;
		esac
		settle
		classify churn "$i" "$tpid" "" "$wrong"
		kill -9 "$tpid" 2>/dev/null
		wait "$tpid" 2>/dev/null
	done
}

scenario_zombie() {
	local i wrong
	for ((i = 1; i <= runs; i++)); do
		start "$work/live-zombie"
		sleep 0.1
		wrong=
		case $((i % 3)) in
		0) run_sfdbg 60 bt "$tpid" ;;
		1) run_sfdbg 60 sample -n 20 --interval 1ms "$tpid" ;;
		2)
			run_sfdbg 60 attach -batch -ex 'info threads' -ex bt -ex detach "$tpid"
			grep -q 'Attached to process' "$log" || wrong="attach refused: $(head -1 "$log")"
			;;
		esac
		settle
		classify zombie "$i" "$tpid" "" "$wrong"
		kill -9 "$tpid" 2>/dev/null
		wait "$tpid" 2>/dev/null
	done
}

IFS=, read -ra list <<<"$scenarios"
bad=0
for s in "${list[@]}"; do
	t0=$(date +%s)
	"scenario_$s"
	printf '%-8s runs %3d  ok %3d  failed %3d  harmed %3d  hung %3d  (%d s)\n' "$s" "$runs" \
		"${count[$s,ok]:-0}" "${count[$s,failed]:-0}" "${count[$s,harmed]:-0}" "${count[$s,hung]:-0}" \
		$(($(date +%s) - t0)) | tee -a "$work/summary"
	[ "${count[$s,harmed]:-0}" -gt 0 ] || [ "${count[$s,hung]:-0}" -gt 0 ] && bad=1
	if [ "$s" = exec ] && [ -s "$work/exec-times" ]; then
		sort -n "$work/exec-times" | awk '{a[NR]=$1} END {printf "exec     time from execve to the new main: median %.1f ms, max %.1f ms\n", a[int((NR+1)/2)]/1000, a[NR]/1000}'
	fi
done
exit $bad
