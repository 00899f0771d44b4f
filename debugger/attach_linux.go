package debugger

import (
	"fmt"
	"slices"
	"syscall"
	"time"
)

// Attach attaches to process pid, stopping it, for a debugging session.
// Every thread is seized with PTRACE_SEIZE (Stop), which sends no signal:
// a running process is debugged on sfdbg's own ptrace loop (liveTarget,
// which says why Delve's attach is not used), and a process in a group
// stop (state T: SIGSTOP, Ctrl-Z) stays stopped (stoppedTarget). A leader
// that called pthread_exit is no obstacle: its live threads are debugged.
// Errors are *AttachError with one sentence for humans.
func Attach(pid int) (Target, error) {
	if err := checkPid(pid); err != nil {
		return nil, err
	}
	stopped := ProcState(pid) == 'T'
	st, err := Seize(pid)
	if err != nil {
		return nil, err
	}
	if stopped {
		return &stoppedTarget{st: st}, nil
	}
	return &liveTarget{st: st}, nil
}

// ExecError says that the process called execve during a resume. sfdbg
// does not follow an exec (its breakpoints and modules are those of the
// old program), so it detaches and the new program runs on.
type ExecError struct {
	Pid  int
	Path string // the new program, from /proc/PID/exe
}

func (e *ExecError) Error() string {
	return fmt.Sprintf("process %d is executing new program: %s\nsfdbg does not follow an exec: detached from process %d (it runs on); attach again to debug the new program", e.Pid, e.Path, e.Pid)
}

// reapKilled waits, as their tracer, for the threads tids of process pid,
// which was sent SIGKILL: the other threads first, then the leader, which
// exits last. Any thread of sfdbg may wait for a tracee (wait4 looks at the
// tracees of every thread of the caller's thread group).
func reapKilled(pid int, tids []int) error {
	deadline := time.Now().Add(5 * time.Second)
	order := append(slices.DeleteFunc(slices.Clone(tids), func(tid int) bool { return tid == pid }), pid)
	for _, tid := range order {
		for {
			wake := childWake().next()
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
