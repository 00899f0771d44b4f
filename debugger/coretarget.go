package debugger

import (
	"errors"
	"fmt"

	"github.com/sfdbg/sfdbg/debugger/proc"
	"github.com/sfdbg/sfdbg/frames"
	"github.com/sfdbg/sfdbg/frames/corefile"
)

// errCore is what a core session says to a command that would run the
// program: gdb's words.
var errCore = errors.New("The program is not being run.")

// CoreTarget is a core file as a session's target: the read-only commands
// (bt, frame, up, down, print, info locals, info registers, x, info frame,
// info sframe, list) work on the threads the core holds; breakpoints,
// continue and stepping say that the program is not being run, as gdb does
// with a core.
type CoreTarget struct {
	c  *corefile.Core
	sp *frames.Space
}

// NewCoreTarget returns the session target of core c, whose memory and
// modules are sp (corefile.Core.Space).
func NewCoreTarget(c *corefile.Core, sp *frames.Space) *CoreTarget {
	return &CoreTarget{c: c, sp: sp}
}

// Pid implements Target: the process that dumped the core.
func (t *CoreTarget) Pid() int { return t.c.Pid }

// Threads implements Target: the core's threads, the one that died first.
func (t *CoreTarget) Threads() ([]int, error) {
	tids := make([]int, 0, len(t.c.Threads))
	for _, th := range t.c.Threads {
		tids = append(tids, th.Tid)
	}
	return tids, nil
}

// ThreadName implements Target: the process's name (NT_PRPSINFO); a core
// does not keep each thread's.
func (t *CoreTarget) ThreadName(int) string { return t.c.Name }

func (t *CoreTarget) thread(tid int) (*corefile.Thread, error) {
	for i := range t.c.Threads {
		if t.c.Threads[i].Tid == tid {
			return &t.c.Threads[i], nil
		}
	}
	return nil, fmt.Errorf("no thread %d in core %s", tid, t.c.Path)
}

// Regs implements Target.
func (t *CoreTarget) Regs(tid int) (frames.Regs, error) {
	th, err := t.thread(tid)
	if err != nil {
		return frames.Regs{}, err
	}
	return th.Regs, nil
}

// RegList implements Target.
func (t *CoreTarget) RegList(tid int) ([]proc.RegValue, error) {
	r, err := t.Regs(tid)
	if err != nil {
		return nil, err
	}
	return proc.RegListFromFrames(&r), nil
}

// Space implements Target.
func (t *CoreTarget) Space() (*frames.Space, error) { return t.sp, nil }

// SetBreakpoint implements Target.
func (t *CoreTarget) SetBreakpoint(uint64) error { return errCore }

// ClearBreakpoint implements Target.
func (t *CoreTarget) ClearBreakpoint(uint64) error { return nil }

// Continue implements Target.
func (t *CoreTarget) Continue() (Event, error) { return Event{}, errCore }

// StepInstruction implements Target.
func (t *CoreTarget) StepInstruction(int) (Event, error) { return Event{}, errCore }

// Interrupt implements Target.
func (t *CoreTarget) Interrupt() error { return nil }

// Detach implements Target: nothing runs, nothing to let go.
func (t *CoreTarget) Detach() error { return nil }

// Kill implements Target.
func (t *CoreTarget) Kill() error { return nil }

// Launched implements Target.
func (t *CoreTarget) Launched() bool { return false }

// Exited implements Target.
func (t *CoreTarget) Exited() (bool, int) { return false, 0 }
