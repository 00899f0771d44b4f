package debugger

import (
	"errors"
	"fmt"
	"syscall"

	"github.com/sfdbg/sfdbg/debugger/proc"
	"github.com/sfdbg/sfdbg/frames"
)

// stoppedTarget is a process that was in a group stop (SIGSTOP, Ctrl-Z)
// when sfdbg attached. It is held with the lean PTRACE_SEIZE path (Stop),
// which sends no signal and lets the process fall back into its group stop
// on detach. Delve's attach cannot do this: PTRACE_ATTACH queues a SIGSTOP,
// and Delve's detach sends SIGCONT to a process it finds stopped, so the
// process would run between the two (and get a signal it did not have).
// The session can inspect the process but not run it: it stays stopped
// the whole time, as it was.
type stoppedTarget struct {
	st   *proc.Stop
	dead bool
}

// errKeptStopped is returned by the commands that would run the process.
func (t *stoppedTarget) errKeptStopped() error {
	return fmt.Errorf("process %d was stopped (SIGSTOP or Ctrl-Z) when sfdbg attached, and sfdbg keeps it stopped: "+
		"bt, frame, info and x work; to run it under sfdbg, send it SIGCONT (kill -CONT %d) and attach again", t.st.Pid(), t.st.Pid())
}

// Pid implements Target.
func (t *stoppedTarget) Pid() int { return t.st.Pid() }

// Threads implements Target.
func (t *stoppedTarget) Threads() ([]int, error) {
	if t.dead {
		return nil, fmt.Errorf("process %d is no longer being debugged", t.st.Pid())
	}
	return t.st.Threads(), nil
}

// ThreadName implements Target.
func (t *stoppedTarget) ThreadName(tid int) string { return proc.ThreadName(t.st.Pid(), tid) }

// Regs implements Target.
func (t *stoppedTarget) Regs(tid int) (frames.Regs, error) { return t.st.Regs(tid) }

// RegList implements Target: the registers read at the stop, in gdb's order.
func (t *stoppedTarget) RegList(tid int) ([]proc.RegValue, error) {
	if _, err := t.st.Regs(tid); err != nil {
		return nil, err
	}
	return t.st.RegList(tid)
}

// Space implements Target.
func (t *stoppedTarget) Space() (*frames.Space, error) { return t.st.Space() }

// SetBreakpoint implements Target: refused, the process is not run.
func (t *stoppedTarget) SetBreakpoint(uint64) error { return t.errKeptStopped() }

// ClearBreakpoint implements Target: there are none.
func (t *stoppedTarget) ClearBreakpoint(uint64) error { return nil }

// Continue implements Target: refused.
func (t *stoppedTarget) Continue() (Event, error) { return Event{}, t.errKeptStopped() }

// StepInstruction implements Target: refused.
func (t *stoppedTarget) StepInstruction(int) (Event, error) { return Event{}, t.errKeptStopped() }

// Interrupt implements Target: the process never runs.
func (t *stoppedTarget) Interrupt() error { return nil }

// Detach implements Target: the threads go back to their group stop.
func (t *stoppedTarget) Detach() error {
	if t.dead {
		return nil
	}
	t.dead = true
	return t.st.Detach()
}

// Kill implements Target: SIGKILL ends even a stopped process; its threads
// are reaped as their tracer, then the tracer lets go.
func (t *stoppedTarget) Kill() error {
	if t.dead {
		return nil
	}
	t.dead = true
	pid := t.st.Pid()
	tids, _ := proc.ListTasks(pid)
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		t.st.Detach()
		return fmt.Errorf("kill process %d: %w", pid, err)
	}
	err := proc.ReapKilled(pid, tids)
	t.st.Detach() // the threads are gone: this ends the tracer thread
	return err
}

// Launched implements Target.
func (t *stoppedTarget) Launched() bool { return false }

// LeaderNote says, in one line, what state the main thread is in when it
// called pthread_exit; "" otherwise.
func (t *stoppedTarget) LeaderNote() string { return leaderNote(t.st) }

// Exited implements Target.
func (t *stoppedTarget) Exited() (bool, int) { return false, 0 }
