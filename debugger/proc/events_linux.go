package proc

import (
	"fmt"
	"os"
	"syscall"
	"time"

	"github.com/sirupsen/logrus"
	"golang.org/x/sys/unix"
)

// The events of a seized process's threads, as wait4 reports them while
// the process runs or stops: exits (reaped at once: an execve waits for
// them), clones (the new thread is traced from its birth), an exec (the
// thread that called it takes the process ID), ptrace stops, and signals
// (passed on, but for sfdbg's own breakpoint traps).

// idlePoll runs on the tracer thread while the process runs and no request
// is pending. It returns how many events it handled, or -1 if the Stop was
// busy (its lock held).
func (s *Stop) idlePoll() int {
	if !s.mu.TryLock() {
		return -1
	}
	defer s.mu.Unlock()
	if s.running && !s.closed {
		return s.poll()
	}
	return 0
}

// Wait lets the process run for d, handling the events of its threads as
// they come, and returns early when cancel (if not nil) returns true, or
// at a Kick. It blocks between events (a SIGCHLD, childWake), so a waiting
// sfdbg uses no CPU. cancel runs after every batch of events, with s.mu
// held, on the tracer thread. A sampler calls Wait between Resume and
// Interrupt; continue calls it until a breakpoint hit, an exit or a Kick.
func (s *Stop) Wait(d time.Duration, cancel func() bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || !s.running {
		return
	}
	s.tr.do(func() {
		timer := time.NewTimer(d)
		defer timer.Stop()
		for {
			wake := s.ops.wake()
			handled := s.poll()
			if cancel != nil && cancel() || s.detaching.Load() {
				return
			}
			if handled > 0 {
				// A thread born in these events reports its first stop
				// on its own, perhaps before wake was taken: look again
				// before blocking, unless the time is up.
				select {
				case <-s.kick:
					return
				case <-timer.C:
					return
				default:
					continue
				}
			}
			select {
			case <-wake:
			case <-s.kick:
				return
			case <-timer.C:
				return
			}
		}
	})
}

// Kick makes a Wait in progress (or the next one) return at once: for a
// condition that no event of the process changes, such as the user's
// interrupt.
func (s *Stop) Kick() {
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

// poll collects, on the tracer thread, every pending wait status of the
// traced threads and of the process ID (under which an execve reports its
// event, whichever thread called it), and handles each. It returns how
// many it handled.
func (s *Stop) poll() (n int) {
	tids := make([]int, 0, len(s.threads)+1)
	for tid := range s.threads {
		tids = append(tids, tid)
	}
	if _, ok := s.threads[s.pid]; !ok {
		tids = append(tids, s.pid)
	}
	for _, tid := range tids {
		for {
			wpid, ws, err := s.ops.wait(tid)
			if err != nil {
				// ECHILD: not traced by sfdbg any more (released).
				if t := s.threads[tid]; t != nil && !t.stopped {
					delete(s.threads, tid)
				}
				break
			}
			if wpid <= 0 {
				break
			}
			s.handle(wpid, ws)
			n++
			if ws.Exited() || ws.Signaled() {
				break
			}
			if t := s.threads[wpid]; t != nil && t.stopped {
				break
			}
		}
	}
	return n
}

// handle acts on one wait status of thread tid: an exit is reaped; a clone
// adds the new thread; an exec replaces the thread that called it by the
// process ID and drops the modules; a ptrace stop is kept if sfdbg wants
// the thread stopped, and resumed otherwise; a signal is passed on.
func (s *Stop) handle(tid int, ws unix.WaitStatus) {
	logrus.Debugf("ptrace: thread %d: wait status %#x (stopping %v)", tid, uint32(ws), s.stopping)
	if ws.Exited() || ws.Signaled() {
		delete(s.threads, tid)
		if tid == s.pid {
			s.noteExit(ws)
		}
		return
	}
	if !ws.Stopped() {
		return
	}
	t := s.threads[tid]
	if t == nil {
		// A thread traced from its birth whose parent's clone event is
		// still to come.
		t = &seizedThread{tid: tid, want: s.stopping}
		s.threads[tid] = t
	}
	// A thread new since the watchpoints were set gets them now, in
	// its first stop.
	if err := s.applyWatches(tid); err != nil {
		logrus.Debugf("ptrace: thread %d: watchpoints: %v", tid, err)
	}
	switch event := int(ws) >> 16; event {
	case unix.PTRACE_EVENT_CLONE:
		if msg, err := s.ops.eventMsg(tid); err == nil {
			switch {
			case s.tree != nil && TgidOf(int(msg)) != s.pid:
				// A clone without CLONE_THREAD (an exit signal other
				// than SIGCHLD): a process of its own, which the Tree
				// adopts as it does a fork.
				s.forks = append(s.forks, int(msg))
			case s.threads[int(msg)] == nil:
				s.threads[int(msg)] = &seizedThread{tid: int(msg), want: s.stopping}
			}
		}
		s.hold(t, false)
	case unix.PTRACE_EVENT_EXEC:
		msg, err := s.ops.eventMsg(tid)
		former := tid
		if err == nil {
			former = int(msg)
		}
		if former != tid {
			delete(s.threads, former)
		}
		t.regsOK = false
		path, _ := os.Readlink(fmt.Sprintf("/proc/%d/exe", s.pid))
		s.execs = append(s.execs, ExecEvent{Thread: former, Path: path})
		s.space = nil
		// The breakpoints went with the old program.
		s.bp = bpState{}
		s.hold(t, false)
	case unix.PTRACE_EVENT_FORK, unix.PTRACE_EVENT_VFORK:
		// A process forked (traced with PTRACE_O_TRACEFORK only under a
		// Tree): the child is traced from its birth; its Tree adopts it.
		if msg, err := s.ops.eventMsg(tid); err == nil {
			s.forks = append(s.forks, int(msg))
		}
		s.hold(t, false)
	case unix.PTRACE_EVENT_STOP:
		// SIGTRAP: an interrupt, or a new thread's first stop; SIGSTOP,
		// SIGTSTP, SIGTTIN, SIGTTOU: a group stop.
		s.hold(t, ws.StopSignal() != syscall.SIGTRAP)
	case 0:
		if ws.StopSignal() == syscall.SIGTRAP && (s.watchTrapped(t) || s.trapped(t)) {
			return
		}
		// A fatal signal (SIGSEGV, ...) stops the process as gdb's
		// default "handle" does: the thread stays in its delivery stop,
		// the signal pending, and Continue stops the other threads.
		// A second thread's signal is held too (a fatal one would end the
		// process while the first is shown); the first one is reported.
		// The terminal's SIGINT under run stops it too, and is dropped.
		if stop, pass := s.stopsAt(tid, ws.StopSignal()); stop {
			t.stopped, t.want, t.pendingSig, t.regsOK, t.atSignal = true, true, 0, false, true
			if pass {
				t.pendingSig = int(ws.StopSignal())
			}
			if s.signaled == 0 {
				s.signaled, s.signal = tid, int(ws.StopSignal())
			}
			return
		}
		// Any other signal-delivery stop: pass the signal on. If sfdbg
		// wants the thread stopped, the pending interrupt stops it right
		// after.
		if err := s.ops.cont(tid, int(ws.StopSignal())); err != nil {
			t.stopped = false
		}
	default:
		s.hold(t, false) // an event sfdbg did not ask for
	}
}

// hold keeps thread t, which is in a ptrace stop, stopped if sfdbg wants it
// stopped, and lets it run on (or back into its group stop) otherwise.
func (s *Stop) hold(t *seizedThread, group bool) {
	if t.want {
		t.stopped, t.groupStop = true, group
		return
	}
	t.stopped = false
	if group {
		s.ops.listen(t.tid)
	} else {
		s.ops.cont(t.tid, 0)
	}
}

// ExecEvent is an execve that a seized process made.
type ExecEvent struct {
	Thread int    // the thread that called execve, by its ID before the exec (after it, the thread's ID is the process ID)
	Path   string // the new program (/proc/PID/exe)
}

// Execs returns the execs seen since the last call, oldest first. The
// modules are read again after an exec.
func (s *Stop) Execs() []ExecEvent {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.execs
	s.execs = nil
	return e
}
