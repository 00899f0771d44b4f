package debugger

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/sfdbg/sfdbg/debugger/proc"
	"github.com/sfdbg/sfdbg/frames"
	"github.com/sfdbg/sfdbg/frames/corefile"
)

// liveTarget is a running process that sfdbg attached to, debugged on
// sfdbg's own ptrace loop (Stop) rather than Delve's native backend:
// every thread is seized with PTRACE_SEIZE, new threads are traced from
// their birth, threads that exit while the process is stopped are reaped,
// and breakpoints are int3s that Stop inserts, steps over and removes.
//
// Delve's native.Attach (v1.27.2) cannot be made safe for a process whose
// threads come and go: it attaches with PTRACE_ATTACH to the leader, which
// the kernel refuses (EPERM) once the leader has called pthread_exit; it
// fails the whole attach ("could not attach to new thread N: no such
// process") when a listed thread exits before it is attached; and it
// reads and writes memory through the last thread that reported a stop
// (nativeProcess.memthread), so after that thread exits every memory
// access fails with ESRCH, including the removal of the breakpoints at
// detach, which then returns before detaching: the int3 stays, the
// threads are let go when sfdbg exits, and the target dies of SIGTRAP or
// SIGILL (6 of 6 runs of break f; continue x3; detach on
// testdata/src/live-shortthreads.c).
type liveTarget struct {
	st       *proc.Stop
	launched bool      // started by Launch: quit kills it
	term     *terminal // the terminal it has while it runs (Launch), nil if none

	mu     sync.Mutex
	dead   bool // detached, killed or exited
	exited bool
	status int
	execed bool
	mods   *frames.Modules
	modsOK bool // mods is current (no resume since it was read)

	interrupt atomic.Bool
}

// Pid implements Target.
func (t *liveTarget) Pid() int { return t.st.Pid() }

// Launched implements Target.
func (t *liveTarget) Launched() bool { return t.launched }

// Exited implements Target.
func (t *liveTarget) Exited() (bool, int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.exited, t.status
}

func (t *liveTarget) live() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.exited {
		return fmt.Errorf("process %d: %w (status %d)", t.st.Pid(), proc.ErrExited, t.status)
	}
	if t.dead {
		return fmt.Errorf("process %d is no longer being debugged", t.st.Pid())
	}
	return nil
}

// Threads implements Target: the stopped threads (a leader that called
// pthread_exit is not among them).
func (t *liveTarget) Threads() ([]int, error) {
	if err := t.live(); err != nil {
		return nil, err
	}
	return t.st.Threads(), nil
}

// ThreadName implements Target.
func (t *liveTarget) ThreadName(tid int) string { return proc.ThreadName(t.st.Pid(), tid) }

// Regs implements Target.
func (t *liveTarget) Regs(tid int) (frames.Regs, error) {
	if err := t.live(); err != nil {
		return frames.Regs{}, err
	}
	return t.st.Regs(tid)
}

// RegList implements Target: the registers read at the stop, in gdb's order.
func (t *liveTarget) RegList(tid int) ([]proc.RegValue, error) {
	if _, err := t.Regs(tid); err != nil {
		return nil, err
	}
	return t.st.RegList(tid)
}

// Space implements Target: memory shows the program's bytes under the
// breakpoints; modules are read again after every resume, keeping the
// unchanged ones (and the unwind data loaded for them).
func (t *liveTarget) Space() (*frames.Space, error) {
	if err := t.live(); err != nil {
		return nil, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.modsOK {
		mods, err := loadModules(t.st.Pid(), t.st.Mem())
		if err != nil {
			return nil, fmt.Errorf("modules of process %d: %w", t.st.Pid(), err)
		}
		t.mods = keepModules(t.mods, mods)
		t.modsOK = true
	}
	pac := t.st.PACMaskOf()
	return &frames.Space{Mem: origMemory{t.st}, Modules: t.mods, PACMask: pac}, nil
}

// origMemory is a Stop's memory with the original bytes under its int3s.
type origMemory struct{ st *proc.Stop }

// BigEndian implements frames.BigEndianMemory: the process's byte order.
func (m origMemory) BigEndian() bool { return m.st.Mem().BigEndian() }

func (m origMemory) ReadAt(p []byte, addr uint64) (int, error) {
	n, err := m.st.Mem().ReadAt(p, addr)
	m.st.OriginalBytes(p[:n], addr)
	return n, err
}

// SetBreakpoint implements Target.
func (t *liveTarget) SetBreakpoint(addr uint64) error {
	if err := t.live(); err != nil {
		return err
	}
	return t.st.InsertBreakpoint(addr)
}

// ClearBreakpoint implements Target.
func (t *liveTarget) ClearBreakpoint(addr uint64) error {
	t.mu.Lock()
	execed := t.execed
	t.mu.Unlock()
	if execed {
		return nil // the exec removed it with the old program
	}
	if err := t.live(); err != nil {
		return err
	}
	return t.st.RemoveBreakpoint(addr)
}

func (t *liveTarget) resumed() {
	t.mu.Lock()
	t.modsOK = false
	t.mu.Unlock()
}

// Continue implements Target: every thread runs (one at a breakpoint steps
// over it first) until a thread hits a breakpoint, Interrupt, an exec or
// the process's exit; then every thread is stopped again. The event names
// the thread that hit the breakpoint.
func (t *liveTarget) Continue() (Event, error) {
	if err := t.live(); err != nil {
		return Event{}, err
	}
	t.resumed()
	t.interrupt.Store(false)
	st := t.st
	t.term.give()
	defer t.term.take()
	if err := st.Resume(); err != nil {
		return Event{}, err
	}
	for {
		// The condition runs with st.mu held, on the tracer thread, after
		// every event; Interrupt kicks the wait.
		st.Wait(time.Hour, func() bool { return t.interrupt.Load() || st.EventLocked() })
		// Detaching: the session is closing the target from another
		// goroutine (a signal to sfdbg in batch mode), which waits for
		// the Stop's lock.
		done := t.interrupt.Load() || st.Detaching() || st.Event()
		if done {
			break
		}
	}
	if ev, err, ok := t.ended(); ok {
		return ev, err
	}
	err := st.Interrupt()
	if ev, err, ok := t.ended(); ok {
		return ev, err
	}
	if err != nil {
		return Event{}, err
	}
	if tid, sig := st.TakeSignal(); tid != 0 {
		return Event{Kind: EventSignal, Thread: tid, Signal: proc.SignalText(syscall.Signal(sig))}, nil
	}
	for _, tid := range st.Hits() {
		if regs, err := st.Regs(tid); err == nil {
			return Event{Kind: EventBreakpoint, Thread: tid, PC: regs.PC()}, nil
		}
	}
	for _, h := range st.WatchHits() {
		if regs, err := st.Regs(h.Tid); err == nil {
			return Event{Kind: EventWatchpoint, Thread: h.Tid, PC: regs.PC(), Watch: h.Addr}, nil
		}
	}
	return Event{Kind: EventInterrupt}, nil
}

// ended returns the event or error for a process that exited or called
// execve during a resume (then sfdbg detaches: the new program runs on).
func (t *liveTarget) ended() (Event, error, bool) {
	st := t.st
	pid := st.Pid()
	if ex, status := st.Exited(); ex || !proc.ProcessExists(pid) || proc.ProcState(pid) == 'Z' && !proc.HasLiveThread(pid) {
		t.mu.Lock()
		t.exited, t.dead, t.status = true, true, status
		t.mu.Unlock()
		st.Detach()
		return Event{Kind: EventExited, Status: status}, nil, true
	}
	execed := st.Execed()
	if execed {
		t.mu.Lock()
		t.execed, t.dead = true, true
		t.mu.Unlock()
		st.Detach()
		exe, _ := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
		return Event{}, &ExecError{Pid: pid, Path: exe}, true
	}
	return Event{}, nil, false
}

// StepInstruction implements Target: thread tid executes one instruction
// while the others stay stopped.
func (t *liveTarget) StepInstruction(tid int) (Event, error) {
	if err := t.live(); err != nil {
		return Event{}, err
	}
	t.resumed()
	err := t.st.Step(tid)
	if errors.Is(err, proc.ErrExec) {
		_, err, _ := t.ended()
		return Event{}, err
	}
	if err != nil {
		if ev, err2, ok := t.ended(); ok {
			return ev, err2
		}
		return Event{}, err
	}
	regs, err := t.st.Regs(tid)
	if err != nil {
		return Event{}, err
	}
	return Event{Kind: EventStopped, Thread: tid, PC: regs.PC()}, nil
}

// StopsAtSIGINT reports whether a SIGINT stops the program and is dropped:
// a program run by sfdbg that has the terminal while it runs.
func (t *liveTarget) StopsAtSIGINT() bool { return t.term != nil }

// Interrupt implements Target: Continue stops the process and returns.
func (t *liveTarget) Interrupt() error {
	t.interrupt.Store(true)
	t.st.Kick()
	return nil
}

// end marks the target as ended; false when it already was (Detach and
// Kill act once).
func (t *liveTarget) end() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	ended := t.dead
	t.dead = true
	return !ended
}

// Detach implements Target: every int3 is removed, every thread whose trap
// is pending is moved back to its breakpoint, and every thread detached.
func (t *liveTarget) Detach() error {
	if !t.end() {
		return nil
	}
	t.term.take()
	err := t.st.Detach()
	if err != nil && !proc.ProcessExists(t.st.Pid()) {
		return nil
	}
	return err
}

// Kill implements Target: SIGKILL while traced; the threads are reaped as
// their tracer, then the tracer lets go.
func (t *liveTarget) Kill() error {
	if !t.end() {
		return nil
	}
	t.term.take()
	pid := t.st.Pid()
	tids, _ := proc.ListTasks(pid)
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		t.st.Detach()
		return fmt.Errorf("kill process %d: %w", pid, err)
	}
	err := proc.ReapKilled(pid, tids)
	t.st.Detach()
	return err
}

// LeaderNote says, in one line, what state the main thread is in when it
// is not a live thread (it called pthread_exit); "" otherwise.
func (t *liveTarget) LeaderNote() string { return leaderNote(t.st) }

func leaderNote(st *proc.Stop) string {
	pid := st.Pid()
	if st := proc.TaskState(pid, pid); st != 'Z' && st != 'X' {
		return ""
	}
	return fmt.Sprintf("The main thread (%d) has exited (pthread_exit) and is a zombie until the last thread exits; sfdbg debugs the %d live threads.", pid, len(st.Threads()))
}

// Siginfo implements siginfoTarget: PTRACE_GETSIGINFO of thread tid, the
// siginfo of its last signal stop.
func (t *liveTarget) Siginfo(tid int) (*corefile.Siginfo, error) {
	si, err := t.st.SigInfo(tid)
	if err != nil {
		return nil, errors.New("Unable to read siginfo")
	}
	out := &corefile.Siginfo{Signo: int(si.Signo), Errno: int(si.Errno), Code: int(si.Code)}
	switch s := syscall.Signal(si.Signo); {
	case si.Code <= 0:
		out.Pid, _ = si.Sender()
	case s == syscall.SIGSEGV || s == syscall.SIGBUS || s == syscall.SIGILL || s == syscall.SIGFPE || s == syscall.SIGTRAP:
		out.Addr, out.HasAddr = si.Addr(), true
	}
	return out, nil
}
