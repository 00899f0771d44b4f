// Package livetest holds what the live tests of frames, debugger and cmd
// share for waiting on a fixture process: they wait for the state they
// assert, read from /proc, never for a time.
package livetest

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// failAfter bounds every wait: a state not reached by then is a failure,
// not a reason to go on.
const failAfter = 30 * time.Second

// task is one thread's line of /proc/PID/task/TID/stat: its state letter
// and the clock ticks it has run (utime + stime, proc(5) fields 14, 15).
type task struct {
	state byte
	ticks uint64
}

// tasks reads the state of every thread of process pid, by thread ID.
func tasks(pid int) (map[int]task, error) {
	dir := fmt.Sprintf("/proc/%d/task", pid)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	out := make(map[int]task, len(ents))
	for _, e := range ents {
		tid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name(), "stat"))
		if err != nil {
			continue // the thread exited
		}
		// The command name, in parentheses, may hold spaces: fields
		// are counted after its closing parenthesis.
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) < 13 {
			return nil, fmt.Errorf("%s/%d/stat: %d fields after the name", dir, tid, len(f))
		}
		ut, _ := strconv.ParseUint(f[11], 10, 64)
		st, _ := strconv.ParseUint(f[12], 10, 64)
		out[tid] = task{state: f[0][0], ticks: ut + st}
	}
	return out, nil
}

// Settle waits until every thread of process pid has reached the place a
// fixture leaves it after printing "ready": asleep (state S: nanosleep,
// a join) or spinning, which it shows by running 2 more clock ticks than
// when Settle was called. A fixture writes "ready" just before its last
// call, so the thread that printed it is then in its deepest function.
// Errors: the process is gone, a thread is stopped or traced, or not
// settled within 30 s.
func Settle(pid int) error {
	start, err := tasks(pid)
	if err != nil {
		return err
	}
	deadline := time.Now().Add(failAfter)
	for {
		now, err := tasks(pid)
		if err != nil {
			return err
		}
		var waiting []string
		for tid, th := range now {
			switch {
			case th.state == 'S', th.state == 'Z', th.state == 'X', th.ticks >= start[tid].ticks+2:
			case th.state == 't' || th.state == 'T':
				return fmt.Errorf("thread %d of process %d is in state %c", tid, pid, th.state)
			default:
				waiting = append(waiting, fmt.Sprintf("%d (%c, %d ticks)", tid, th.state, th.ticks-start[tid].ticks))
			}
		}
		if len(waiting) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("process %d did not settle in %v: threads %s", pid, failAfter, strings.Join(waiting, ", "))
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// Freeze stops process pid with SIGSTOP and waits until every thread is in
// its group stop (state T), so that two tools that attach one after the
// other see the same registers. Thaw sends SIGCONT and waits until no
// thread is stopped. Errors: kill's, a thread that is not stopped within
// 30 s.
func Freeze(pid int) (thaw func() error, err error) {
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		return nil, err
	}
	if err := waitAll(pid, func(st byte) bool { return st == 'T' }); err != nil {
		return nil, err
	}
	return func() error {
		if err := syscall.Kill(pid, syscall.SIGCONT); err != nil {
			return err
		}
		return waitAll(pid, func(st byte) bool { return st != 'T' && st != 't' })
	}, nil
}

// waitAll waits until every thread of pid is in a state ok accepts.
func waitAll(pid int, ok func(byte) bool) error {
	deadline := time.Now().Add(failAfter)
	for {
		ts, err := tasks(pid)
		if err != nil {
			return err
		}
		bad := ""
		for tid, th := range ts {
			if !ok(th.state) {
				bad = fmt.Sprintf("thread %d in state %c", tid, th.state)
			}
		}
		if bad == "" {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("process %d: %s after %v", pid, bad, failAfter)
		}
		time.Sleep(time.Millisecond)
	}
}
