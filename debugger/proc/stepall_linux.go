package proc

import (
	"fmt"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sfdbg/sfdbg/frames"
)

// StepEvent is what one thread did in StepAll, reported before the thread
// executes its next instruction.
type StepEvent struct {
	// Tid is the thread.
	Tid int
	// Regs are its registers now: the state before the instruction at
	// Regs.PC() executes. Empty when Exited.
	Regs frames.Regs
	// Signal is the signal whose handler the thread has just entered (the
	// kernel built a signal frame and the thread is at the handler's first
	// instruction), 0 if none.
	Signal int
	// Born: the thread is new (its first stop); Regs is its first state.
	Born bool
	// Exited: the thread is gone (it exited, or the process was killed).
	Exited bool
	// Exec: the process called execve; every thread but this one is gone
	// and the address space is new.
	Exec bool
}

// StepAll single-steps every thread of the process at once, each as fast as
// the kernel reports its steps, and calls each after every step of every
// thread (and once for each thread before its first step), on the thread
// that traces the process. It returns when each returns false, when the
// process has exited (nil), or on a ptrace error. Breakpoints stay out of
// the code while it runs. Signals the threads receive are delivered with
// their next step, so a handler's entry is a StepEvent with Signal set.
//
// When it returns, every thread that is left is stopped, as after
// Interrupt, with its registers read; call Resume, Step or Detach as after
// any stop. Cost: one PTRACE_SINGLESTEP, one wait4 and one register read
// per step; each runs on the tracer thread and must not call the Stop's
// methods (it may read memory through Memory, whose cache StepAll empties
// before every call).
func (s *Stop) StepAll(each func(ev *StepEvent) bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.running || s.closed {
		return ErrRunning
	}
	var err error
	s.tr.do(func() { err = s.stepAll(each) })
	s.mem.Invalidate()
	return err
}

// stepSpin is how long StepAll polls for a step before it sleeps.
const stepSpin = 200 * time.Microsecond

func (s *Stop) stepAll(each func(ev *StepEvent) bool) error {
	// The original code under every breakpoint, back after the run.
	for addr, orig := range s.bp.inserted {
		if tid := s.anyStopped(); tid != 0 {
			if err := s.ops.poke(tid, addr, orig); err != nil {
				return fmt.Errorf("cannot remove the breakpoint at %#x: %w", addr, err)
			}
		}
	}
	defer func() {
		if tid := s.anyStopped(); tid != 0 {
			for addr := range s.bp.inserted {
				s.ops.poke(tid, addr, breakInstr)
			}
		}
	}()
	// stepping holds the threads with a single step (or a first stop)
	// under way.
	stepping := map[int]bool{}
	entered := map[int]int{} // thread -> the signal its last step delivered
	born := map[int]bool{}   // threads whose first stop is still to come
	var ev StepEvent
	report := func(t *seizedThread, born bool) bool {
		t.regsOK = true
		if t.regsErr = s.ops.regs(t.tid, &t.raw); t.regsErr != nil {
			return true // gone meanwhile: its exit comes next
		}
		t.regs = regsFromPtrace(&t.raw)
		s.mem.Invalidate()
		ev = StepEvent{Tid: t.tid, Regs: t.regs, Signal: entered[t.tid], Born: born}
		delete(entered, t.tid)
		return each(&ev)
	}
	step := func(t *seizedThread) error {
		sig := t.pendingSig
		t.pendingSig = 0
		if sig != 0 {
			entered[t.tid] = sig
		}
		if err := s.ops.singleStep(t.tid, sig); err != nil {
			return fmt.Errorf("single-step thread %d: %w", t.tid, err)
		}
		t.stopped, t.regsOK = false, false
		stepping[t.tid] = true
		return nil
	}
	more := true
	tids := make([]int, 0, len(s.threads))
	for tid := range s.threads {
		tids = append(tids, tid)
	}
	SortTids(tids, s.pid)
	for _, tid := range tids {
		t := s.threads[tid]
		if !t.stopped {
			continue
		}
		if more = report(t, false); !more {
			break
		}
	}
	if more {
		for _, tid := range tids {
			if t := s.threads[tid]; t.stopped {
				if err := step(t); err != nil {
					return err
				}
			}
		}
	}
	// Collect steps until each says stop and every step under way is in.
	// A step takes tens of microseconds: polling for it that long costs
	// less than sleeping until the SIGCHLD broadcast wakes this thread,
	// which halved the rate (the goroutine wake-ups, futex, took 56% of
	// the CPU in BenchmarkVerifyAgainstRawSingleStep).
	var spinFrom time.Time
	for len(stepping) > 0 {
		wake := s.ops.wake()
		got := false
		for tid := range stepping {
			wpid, ws, err := s.ops.wait(tid)
			if err == nil && wpid <= 0 {
				continue
			}
			got = true
			delete(stepping, tid)
			t := s.threads[tid]
			if t == nil {
				t = &seizedThread{tid: tid, want: true}
				s.threads[tid] = t
			}
			if err != nil || ws.Exited() || ws.Signaled() {
				delete(s.threads, tid)
				if tid == s.pid && err == nil {
					s.noteExit(ws)
				}
				if more {
					ev = StepEvent{Tid: tid, Exited: true}
					more = each(&ev)
				}
				continue
			}
			t.stopped = true
			event := int(ws) >> 16
			sig := ws.StopSignal()
			switch {
			case event == unix.PTRACE_EVENT_CLONE:
				if msg, err := s.ops.eventMsg(tid); err == nil {
					if _, ok := s.threads[int(msg)]; !ok {
						s.threads[int(msg)] = &seizedThread{tid: int(msg), want: true}
					}
					born[int(msg)] = true
					// The new thread's first stop is a wait of its own.
					stepping[int(msg)] = true
				}
				// The clone was the instruction: the step is done.
			case event == unix.PTRACE_EVENT_EXEC:
				s.handle(tid, ws)
				for id := range stepping {
					if _, ok := s.threads[id]; !ok {
						delete(stepping, id)
					}
				}
				if more {
					if more = report(t, false); more {
						ev.Exec = true
					}
				}
			case event == unix.PTRACE_EVENT_STOP:
				// A new thread's first stop, or a group stop (SIGSTOP
				// and the like, which a step leaves at once).
				b := born[tid]
				delete(born, tid)
				if more {
					more = report(t, b)
				}
			case event == 0 && sig != syscall.SIGTRAP:
				// A signal arrives: deliver it with the next step.
				t.pendingSig = int(sig)
				if more {
					if err := step(t); err != nil {
						return err
					}
				}
				continue
			default:
				if more {
					more = report(t, false)
				}
			}
			if more {
				if err := step(t); err != nil {
					return err
				}
			}
		}
		if got {
			spinFrom = time.Time{}
		} else if len(stepping) > 0 {
			if spinFrom.IsZero() {
				spinFrom = time.Now()
			}
			if time.Since(spinFrom) < stepSpin {
				continue
			}
			select {
			case <-wake:
			case <-s.kick:
				// Kick (the user's interrupt): a thread blocked in a
				// system call reports no step until it returns, so
				// stop the threads still out.
				more = false
				for tid := range stepping {
					s.ops.interrupt(tid)
				}
			}
		}
	}
	for _, t := range s.threads {
		if t.stopped && !t.regsOK {
			t.regsOK = true
			if t.regsErr = s.ops.regs(t.tid, &t.raw); t.regsErr == nil {
				t.regs = regsFromPtrace(&t.raw)
			}
		}
	}
	return nil
}
