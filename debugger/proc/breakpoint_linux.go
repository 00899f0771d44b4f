package proc

import (
	"errors"
	"fmt"
	"slices"
	"syscall"
	"time"

	"github.com/sirupsen/logrus"
	"golang.org/x/sys/unix"
)

// Breakpoints of a Stop, as gdb's linux-nat keeps them: an int3 written
// over the first byte of an instruction while every thread is stopped. A
// thread that traps on one is moved back to the breakpoint's address at
// once (whatever it was doing, it never runs on from the byte after the
// int3); a thread that traps on a breakpoint removed meanwhile is moved
// back too and its SIGTRAP dropped; a thread resumed at a breakpoint first
// steps over it alone, with the original byte in place, while the others
// stay stopped. Detach removes every int3 and moves back the PC of any
// thread whose trap is still pending.

// bpState is a Stop's breakpoints.
type bpState struct {
	inserted map[uint64][]byte // address -> original bytes under the int3
	ever     map[uint64]bool   // every address that held an int3
	hits     []int             // threads that hit one since the last Resume, in order
}

// InsertBreakpoint writes an int3 at addr. The process must be stopped.
func (s *Stop) InsertBreakpoint(addr uint64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.running || s.closed {
		return ErrRunning
	}
	if _, ok := s.bp.inserted[addr]; ok {
		return nil
	}
	err := s.throughStopped(func(tid int) error {
		orig := make([]byte, len(breakInstr))
		if err := s.ops.peek(tid, addr, orig); err != nil {
			return err
		}
		if err := s.ops.poke(tid, addr, breakInstr); err != nil {
			return err
		}
		if s.bp.inserted == nil {
			s.bp.inserted, s.bp.ever = map[uint64][]byte{}, map[uint64]bool{}
		}
		s.bp.inserted[addr] = orig
		s.bp.ever[addr] = true
		return nil
	})
	if err != nil {
		return fmt.Errorf("cannot insert a breakpoint at %#x: %w", addr, err)
	}
	return nil
}

// throughStopped runs f on the tracer thread with a stopped thread of the
// process, through which ptrace reads and writes its memory. Called with
// s.mu held. Errors: no stopped thread, or f's.
func (s *Stop) throughStopped(f func(tid int) error) error {
	var err error
	s.tr.do(func() {
		tid := s.anyStopped()
		if tid == 0 {
			err = fmt.Errorf("process %d: no stopped thread to write memory with", s.pid)
			return
		}
		err = f(tid)
	})
	return err
}

// RemoveBreakpoint writes back the original bytes at addr. The process
// must be stopped.
func (s *Stop) RemoveBreakpoint(addr uint64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.running || s.closed {
		return ErrRunning
	}
	var err error
	s.tr.do(func() { err = s.removeBreakpoint(addr) })
	return err
}

func (s *Stop) removeBreakpoint(addr uint64) error {
	orig, ok := s.bp.inserted[addr]
	if !ok {
		return nil
	}
	tid := s.anyStopped()
	if tid == 0 {
		return fmt.Errorf("cannot remove the breakpoint at %#x: no stopped thread", addr)
	}
	if err := s.ops.poke(tid, addr, orig); err != nil {
		return fmt.Errorf("cannot remove the breakpoint at %#x: %w", addr, err)
	}
	delete(s.bp.inserted, addr)
	return nil
}

// OriginalBytes overwrites the int3s in p (read at addr) with the bytes
// they replaced, so that memory reads show the program's code.
func (s *Stop) OriginalBytes(p []byte, addr uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for a, orig := range s.bp.inserted {
		for i, b := range orig {
			if x := a + uint64(i); x >= addr && x < addr+uint64(len(p)) {
				p[x-addr] = b
			}
		}
	}
}

// Hits returns the threads that hit a breakpoint since the last Resume,
// in the order the kernel reported them, and the address of each.
func (s *Stop) Hits() []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.bp.hits)
}

// WaitHit lets the resumed process run until a thread hits a breakpoint,
// handling its events as Wait does, or until d passes (a bound for a
// program that never gets there). It reports whether a thread hit one.
func (s *Stop) WaitHit(d time.Duration) bool {
	s.Wait(d, func() bool { return len(s.bp.hits) > 0 })
	return len(s.Hits()) > 0
}

// anyStopped returns a stopped thread to read or write memory with, the
// leader first; 0 if none.
func (s *Stop) anyStopped() int {
	if t := s.threads[s.pid]; t != nil && t.stopped {
		return s.pid
	}
	for tid, t := range s.threads {
		if t.stopped {
			return tid
		}
	}
	return 0
}

// trapped handles a SIGTRAP signal-delivery stop of t: if its PC is one
// past an address that holds or held an int3, the trap is sfdbg's: the PC
// is moved back, the signal dropped, and the thread kept stopped (and
// recorded as a hit if the breakpoint is still there). It reports whether
// the trap was sfdbg's.
func (s *Stop) trapped(t *seizedThread) bool {
	if len(s.bp.ever) == 0 {
		return false
	}
	var r ptraceRegs
	if s.ops.regs(t.tid, &r) != nil {
		return false
	}
	addr := breakPC(ptracePC(&r))
	if !s.bp.ever[addr] {
		logrus.Debugf("ptrace: thread %d: SIGTRAP at %#x, not a breakpoint", t.tid, ptracePC(&r))
		return false
	}
	logrus.Debugf("ptrace: thread %d: trap at breakpoint %#x", t.tid, addr)
	setPtracePC(&r, addr)
	if s.ops.setRegs(t.tid, &r) != nil {
		return false
	}
	t.regsOK = false
	if _, ok := s.bp.inserted[addr]; ok {
		if !slices.Contains(s.bp.hits, t.tid) {
			s.bp.hits = append(s.bp.hits, t.tid)
		}
		// A hit stops the process: keep this thread stopped now.
		t.want = true
	}
	s.hold(t, false)
	return true
}

// settleTraps makes every stopped thread whose int3 or watchpoint trap is still pending
// (it stopped for an interrupt right after executing one) take it now, so
// that trapped moves its PC back and drops the SIGTRAP: such a thread
// would otherwise run on from the byte after the int3, or die of the
// SIGTRAP once detached. Runs on the tracer thread.
func (s *Stop) settleTraps() {
	if len(s.bp.ever) == 0 && s.watch.gen == 0 {
		return
	}
	for tid, t := range s.threads {
		if !t.stopped {
			continue
		}
		var r ptraceRegs
		if s.ops.regs(tid, &r) != nil {
			continue
		}
		ours := s.bp.ever[breakPC(ptracePC(&r))] || s.watchPending(tid)
		if !ours || !s.ops.sigPending(s.pid, tid, syscall.SIGTRAP) {
			continue
		}
		// The pending SIGTRAP is delivered before the thread runs a
		// single instruction: it stops again at once.
		t.stopped = false
		t.want = true
		t.regsOK = false
		if s.ops.cont(tid, 0) != nil {
			continue
		}
		s.waitThread(t, time.Now().Add(s.Timeout))
	}
}

// waitThread waits until thread t is stopped or gone, or until deadline,
// blocking until the next SIGCHLD between its events (WaitChild).
func (s *Stop) waitThread(t *seizedThread, deadline time.Time) {
	for !t.stopped && s.threads[t.tid] == t {
		wake := s.ops.wake()
		wpid, ws, err := s.ops.wait(t.tid)
		if err != nil {
			delete(s.threads, t.tid)
			return
		}
		if wpid <= 0 {
			if !waitChild(wake, deadline) {
				return
			}
			continue
		}
		s.handle(wpid, ws)
	}
}

// waitChild blocks until wake (an ops.wake channel, taken before the
// wait4 that found nothing) is closed, or until deadline. It reports false
// at the deadline.
func waitChild(wake <-chan struct{}, deadline time.Time) bool {
	left := time.Until(deadline)
	if left <= 0 {
		return false
	}
	timer := time.NewTimer(left)
	defer timer.Stop()
	select {
	case <-wake:
		return true
	case <-timer.C:
		return false
	}
}

// stepOver single-steps thread t (stopped) over one instruction while the
// others stay stopped, with the original bytes of a breakpoint at its PC
// in place for the step. A signal that arrives meanwhile is kept for t's
// next resume. Runs on the tracer thread. It returns an error if t exited.
func (s *Stop) stepOver(t *seizedThread) error {
	var r ptraceRegs
	if err := s.ops.regs(t.tid, &r); err != nil {
		return fmt.Errorf("registers of thread %d: %w", t.tid, err)
	}
	pc := ptracePC(&r)
	orig, atBP := s.bp.inserted[pc]
	if atBP {
		if err := s.ops.poke(t.tid, pc, orig); err != nil {
			return fmt.Errorf("cannot remove the breakpoint at %#x: %w", pc, err)
		}
		defer func() {
			if tid := s.anyStopped(); tid != 0 {
				s.ops.poke(tid, pc, breakInstr)
			}
		}()
	}
	t.regsOK = false
	deadline := time.Now().Add(s.Timeout)
	sig := t.pendingSig
	t.pendingSig = 0
	if err := s.ops.singleStep(t.tid, sig); err != nil {
		return fmt.Errorf("single-step thread %d: %w", t.tid, err)
	}
	t.stopped = false
	for {
		wake := s.ops.wake()
		wpid, ws, err := s.ops.wait(t.tid)
		if err == nil && wpid <= 0 {
			if !waitChild(wake, deadline) {
				break
			}
			continue
		}
		if err != nil || ws.Exited() || ws.Signaled() {
			delete(s.threads, t.tid)
			if wpid == s.pid && err == nil {
				s.noteExit(ws)
			}
			return fmt.Errorf("thread %d exited", t.tid)
		}
		event := int(ws) >> 16
		switch {
		case event == 0 && ws.StopSignal() == syscall.SIGTRAP:
			t.stopped = true // the step is done
			if s.watch.gen != 0 {
				s.clearWatchStatus(t.tid)
			}
			return nil
		case event == 0:
			// A signal came first: keep it, and step again.
			t.pendingSig = int(ws.StopSignal())
		case event == unix.PTRACE_EVENT_CLONE:
			if msg, err := s.ops.eventMsg(t.tid); err == nil {
				if _, ok := s.threads[int(msg)]; !ok {
					s.threads[int(msg)] = &seizedThread{tid: int(msg), want: true}
				}
			}
			// The clone was the instruction (syscall): the step is done.
			t.stopped = true
			return nil
		case event == unix.PTRACE_EVENT_EXEC:
			s.handle(wpid, ws)
			return ErrExec
		}
		if err := s.ops.singleStep(t.tid, 0); err != nil {
			return fmt.Errorf("single-step thread %d: %w", t.tid, err)
		}
	}
	return fmt.Errorf("thread %d did not finish a single step within %v", t.tid, s.Timeout)
}

var ErrExec = errors.New("the process called execve")

// Step executes one instruction of thread tid while the other threads stay
// stopped, and reads its registers again.
func (s *Stop) Step(tid int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.running || s.closed {
		return ErrRunning
	}
	t := s.threads[tid]
	if t == nil || !t.stopped {
		return fmt.Errorf("thread %d of process %d is not stopped", tid, s.pid)
	}
	var err error
	s.tr.do(func() {
		err = s.stepOver(t)
		if err == nil {
			t.regsOK = true
			t.regsErr = s.ops.regs(t.tid, &t.raw)
			if t.regsErr == nil {
				t.regs = regsFromPtrace(&t.raw)
			}
		}
	})
	s.mem.Invalidate()
	return err
}

// noteExit records the exit status of the process (the leader's wait
// status): the exit code, or minus the signal that killed it.
func (s *Stop) noteExit(ws unix.WaitStatus) {
	s.exitedNow, s.exitWait = true, ws
	if ws.Signaled() {
		s.exitStatus = -int(ws.Signal())
	} else {
		s.exitStatus = ws.ExitStatus()
	}
}

// Exited reports whether the process exited while seized (its leader's
// exit was reaped), with its status (minus the signal that killed it).
func (s *Stop) Exited() (bool, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.exitedNow, s.exitStatus
}
