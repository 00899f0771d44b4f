package proc

import (
	"fmt"
	"slices"
	"syscall"
	"time"
)

// ReapKilled waits, as their tracer, for the threads tids of process pid,
// which was sent SIGKILL: the other threads first, then the leader, which
// exits last. Any thread of sfdbg may wait for a tracee (wait4 looks at the
// tracees of every thread of the caller's thread group).
func ReapKilled(pid int, tids []int) error {
	deadline := time.Now().Add(5 * time.Second)
	order := append(slices.DeleteFunc(slices.Clone(tids), func(tid int) bool { return tid == pid }), pid)
	for _, tid := range order {
		for {
			wake := childEvent()
			var ws syscall.WaitStatus
			wpid, err := syscall.Wait4(tid, &ws, syscall.WALL|syscall.WNOHANG, nil)
			if err == syscall.EINTR {
				continue
			}
			if err != nil || (wpid == tid && (ws.Exited() || ws.Signaled())) {
				break // ECHILD: reaped already, or not ours
			}
			if wpid == 0 && !waitChild(wake, deadline) {
				return fmt.Errorf("process %d was sent SIGKILL but thread %d has not exited after 5 s", pid, tid)
			}
		}
	}
	return nil
}
