package debugger

import (
	"fmt"

	"github.com/sfdbg/sfdbg/debugger/proc"
)

// Attach attaches to process pid, stopping it, for a debugging session.
// Every thread is seized with PTRACE_SEIZE (Stop), which sends no signal:
// a running process is debugged on sfdbg's own ptrace loop (liveTarget,
// which says why Delve's attach is not used), and a process in a group
// stop (state T: SIGSTOP, Ctrl-Z) stays stopped (stoppedTarget). A leader
// that called pthread_exit is no obstacle: its live threads are debugged.
// Errors are *AttachError with one sentence for humans.
func Attach(pid int) (Target, error) {
	if err := proc.CheckPid(pid); err != nil {
		return nil, err
	}
	stopped := proc.ProcState(pid) == 'T'
	st, err := proc.Seize(pid)
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
