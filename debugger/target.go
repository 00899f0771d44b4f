package debugger

import (
	"fmt"

	"github.com/sfdbg/sfdbg/debugger/proc"
	"github.com/sfdbg/sfdbg/frames"
)

// Target is a process as the debugger's commands see it: threads,
// registers, memory and modules while it is stopped, and execution control.
// liveTarget implements it on sfdbg's own ptrace loop for a live process
// (attached or started), stoppedTarget for a process kept in its group
// stop; snapshots implement it for tests and offline transcripts.
//
// A Target is used from one goroutine, except Interrupt, which may be
// called from any goroutine while Continue or Finish runs.
type Target interface {
	// Pid returns the process ID (0 for a snapshot).
	Pid() int
	// Threads returns the thread IDs, the thread group leader first.
	Threads() ([]int, error)
	// ThreadName returns a thread's name (/proc/PID/task/TID/comm), or "".
	ThreadName(tid int) string
	// Regs returns a thread's registers by DWARF number.
	Regs(tid int) (frames.Regs, error)
	// RegList returns a thread's registers for display, in gdb's order.
	RegList(tid int) ([]proc.RegValue, error)
	// Space returns memory and modules as they are now: the module list is
	// reread after every resume, keeping modules whose mapping did not
	// change, so that their loaded unwind data is kept.
	Space() (*frames.Space, error)

	// SetBreakpoint inserts a breakpoint at addr; ClearBreakpoint removes it.
	SetBreakpoint(addr uint64) error
	ClearBreakpoint(addr uint64) error
	// Continue resumes every thread until a breakpoint, a signal that stops
	// the process, an Interrupt or the process's exit.
	Continue() (Event, error)
	// StepInstruction executes one machine instruction in thread tid.
	StepInstruction(tid int) (Event, error)
	// Interrupt stops a running Continue (Ctrl-C); safe from any goroutine.
	Interrupt() error

	// Detach removes every breakpoint and lets the process run on, no
	// longer traced. Kill ends the process. After either, the Target is
	// dead. Both are idempotent.
	Detach() error
	Kill() error
	// Launched reports whether the debugger started the process (then
	// quitting kills it, as gdb does, instead of detaching).
	Launched() bool
	// Exited reports whether the process has exited, with its status.
	Exited() (bool, int)
}

// EventKind says why a target stopped.
type EventKind int

// Event kinds.
const (
	EventStopped    EventKind = iota // stopped for another reason (step done)
	EventBreakpoint                  // a thread hit a breakpoint
	EventInterrupt                   // Interrupt (Ctrl-C)
	EventSignal                      // a signal stopped the process
	EventExited                      // the process exited
	EventWatchpoint                  // a thread wrote to a watched location
)

// Event is a stop of the target.
type Event struct {
	Kind   EventKind
	Thread int    // the thread that stopped (breakpoint, step), 0 if none
	PC     uint64 // its PC
	Status int    // exit status for EventExited
	Signal string // signal name for EventSignal
	Watch  uint64 // the watched address, for EventWatchpoint
}

func (e Event) String() string {
	switch e.Kind {
	case EventBreakpoint:
		return fmt.Sprintf("breakpoint hit by thread %d at %#x", e.Thread, e.PC)
	case EventInterrupt:
		return "interrupted"
	case EventSignal:
		return fmt.Sprintf("thread %d received %s", e.Thread, e.Signal)
	case EventExited:
		return fmt.Sprintf("exited with status %d", e.Status)
	case EventWatchpoint:
		return fmt.Sprintf("thread %d wrote to watched %#x at %#x", e.Thread, e.Watch, e.PC)
	}
	return fmt.Sprintf("stopped at %#x", e.PC)
}

// keepModules returns mods with each module replaced by the equal module of
// old (same path, addresses and bias), so that data loaded for it is kept.
func keepModules(old, mods *frames.Modules) *frames.Modules {
	if old == nil {
		return mods
	}
	type key struct {
		path             string
		start, end, bias uint64
	}
	prev := map[key]*frames.Module{}
	for _, m := range old.List() {
		prev[key{m.Path, m.Start, m.End, m.Bias}] = m
	}
	list := mods.List()
	out := make([]*frames.Module, len(list))
	changed := false
	for i, m := range list {
		if p := prev[key{m.Path, m.Start, m.End, m.Bias}]; p != nil {
			out[i] = p
		} else {
			out[i] = m
			changed = true
		}
	}
	if !changed && len(list) == len(old.List()) {
		return old
	}
	return frames.NewModules(out...)
}
