package proc

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
	"unsafe"

	"github.com/sirupsen/logrus"
	"golang.org/x/sys/unix"
)

// Tree is a program started by sfdbg and, when it follows forks, every
// process the program forks (and theirs), each a Stop on one shared tracer
// thread. Its processes run freely; the Stops' event loop (Stop.poll,
// Stop.handle) handles their threads' events, and each Stop's signal
// policy (TreeOptions.Policy) says which signal holds a process. It is the
// tracer of `catch`, which holds a process at a fatal signal, unwinds it
// and then delivers the signal.
//
// A Tree is safe for use by one goroutine at a time.
type Tree struct {
	tr     *tracer
	first  *Stop
	stops  []*Stop // the first one first, then in the order of their forks
	opts   TreeOptions
	closed bool
	// exit is the first process's exit: its wait status, once reaped.
	exit    unix.WaitStatus
	exitSet bool
}

// TreeOptions configure StartTree.
type TreeOptions struct {
	// FollowFork traces the processes the program forks
	// (PTRACE_O_TRACEFORK, _TRACEVFORK); else only the program, the
	// programs it executes and the processes a clone with another exit
	// signal than SIGCHLD makes (PTRACE_O_TRACECLONE) are traced.
	FollowFork bool
	// Attr is the program's environment, standard streams and working
	// directory (os.StartProcess's; Sys is added to).
	Attr os.ProcAttr
	// Policy says whether signal sig, in its delivery stop on thread tid
	// of process pid, holds the process (TreeEvent) and whether it is
	// passed on when the process resumes. It runs on the tracer thread
	// while the thread is in that stop. Nil: no signal holds a process.
	Policy func(pid, tid int, sig syscall.Signal) (stop, pass bool)
}

// TreeEvent is what Tree.Next returns: a process held at a signal, or the
// end of the program.
type TreeEvent struct {
	// Stop is the process held at Signal, delivered to thread Tid; every
	// other thread of it is still running (Stop.Interrupt stops them,
	// Stop.Resume delivers the signal if the policy passes it). Nil when
	// the program has ended.
	Stop   *Stop
	Tid    int
	Signal syscall.Signal
	// First is set when Stop is the program started (or what it
	// executed), clear for a forked process.
	First bool
	// Ended is set when the program started has ended, with Status, its
	// wait status (exit code, or the signal that killed it and whether it
	// dumped core).
	Ended  bool
	Status unix.WaitStatus
}

// StartTree starts path with arguments argv under ptrace (startTraced),
// running, with every thread traced from its birth, execs followed, and
// forked processes too with FollowFork. On an error no process is left
// behind; EPERM (wrapped) means ptrace is refused. A program that ends
// before it runs is not an error: the first Next reports its end.
func StartTree(path string, argv []string, opts TreeOptions) (*Tree, error) {
	t := &Tree{tr: newTracer(), opts: opts}
	o := seizeOptions
	if opts.FollowFork {
		o |= unix.PTRACE_O_TRACEFORK | unix.PTRACE_O_TRACEVFORK
	}
	var pid int
	var ws unix.WaitStatus
	var ended bool
	var err error
	t.tr.do(func() { pid, ws, ended, err = startTraced(path, argv, &opts.Attr, o, true) })
	if err != nil {
		t.tr.close()
		return nil, err
	}
	t.first = t.adopt(pid)
	if ended {
		t.exit, t.exitSet = ws, true
		t.first.closed = true
	}
	return t, nil
}

// adopt makes the Stop of process pid, which sfdbg traces already and
// which runs (or is about to report its first stop).
func (t *Tree) adopt(pid int) *Stop {
	s := &Stop{
		pid:     pid,
		tr:      t.tr,
		tree:    t,
		ops:     sysOps{},
		threads: map[int]*seizedThread{pid: {tid: pid}},
		mem:     NewProcMemory(pid),
		kick:    make(chan struct{}, 1),
		Timeout: 2 * time.Second,
		running: true,
		held:    true,
	}
	s.policy = t.opts.Policy
	t.stops = append(t.stops, s)
	return s
}

// Ended reports whether the program started has ended, as far as Next
// has seen (at once for one that ended before it ran).
func (t *Tree) Ended() bool { return t.exitSet }

// Pid returns the process ID of the program started.
func (t *Tree) Pid() int { return t.first.pid }

// Next lets every process of the tree run until one is held at a signal
// (Policy) or the program started has ended, handling their threads'
// events as they come. It blocks between events (on SIGCHLD), with no
// polling. A process held is reported once; the caller resumes it
// (Stop.Resume) before the next call. A forked process that ends is
// dropped. No Stop method may run while Next does (both use the tracer
// thread and the Stop's lock).
func (t *Tree) Next() TreeEvent {
	if t.exitSet {
		return TreeEvent{Ended: true, Status: t.exit}
	}
	var ev TreeEvent
	t.tr.do(func() {
		for {
			wake := childEvent()
			handled := 0
			for i := 0; i < len(t.stops); i++ { // a fork adopted here is polled in this round too
				s := t.stops[i]
				s.mu.Lock()
				if s.running && !s.closed {
					handled += s.poll()
				}
				forks, execs := s.forks, s.execs
				s.forks, s.execs = nil, nil
				s.mu.Unlock()
				for _, e := range execs {
					logrus.Debugf("ptrace: process %d is executing new program %s", s.pid, e.Path)
				}
				for _, pid := range forks {
					logrus.Debugf("ptrace: process %d forked process %d", s.pid, pid)
					t.adopt(pid)
				}
			}
			// What no Stop waited for: a thread or process whose clone or
			// fork event the kernel never reported (it skips that stop
			// when the caller is dying: the new thread is traced from its
			// birth, and its exit, which only sfdbg can reap, holds back
			// the leader's), as the old catch loop's wait4(-1) saw.
			handled += t.drain()
			if ev = t.collect(); ev.Stop != nil || ev.Ended {
				return
			}
			if handled > 0 {
				// A thread born in these events reports its first stop
				// on its own, perhaps before wake was taken.
				continue
			}
			<-wake
		}
	})
	return ev
}

// collect takes the first process held at a signal (the others stay held
// for the next call), records the program's end, and drops the forked
// processes that ended.
func (t *Tree) collect() TreeEvent {
	var ev TreeEvent
	live := t.stops[:0]
	for _, s := range t.stops {
		s.mu.Lock()
		if ev.Stop == nil && s.signaled != 0 {
			ev = TreeEvent{Stop: s, Tid: s.signaled, Signal: syscall.Signal(s.signal), First: s == t.first}
			s.signaled, s.signal = 0, 0
		}
		exited, st := s.exitedNow, s.exitWait
		keep := s == t.first || ev.Stop == s || s.signaled != 0 || !exited && len(s.threads) > 0 && !s.closed
		s.mu.Unlock()
		if exited && s == t.first {
			t.exit, t.exitSet = st, true
		}
		if keep {
			live = append(live, s)
		}
	}
	clear(t.stops[len(live):])
	t.stops = live
	if ev.Stop == nil && t.exitSet {
		ev = TreeEvent{Ended: true, Status: t.exit}
	}
	return ev
}

// drain collects, on the tracer thread, the wait statuses no Stop's poll
// took (wait4(-1, __WALL|WNOHANG)) and hands each to the Stop of its
// process, adding the thread; a stop of a process no Stop has is a fork
// whose event was lost, adopted; any other status of an unknown ID (an
// exit) is reaped and dropped. It returns how many it handled.
func (t *Tree) drain() (n int) {
	for {
		var ws unix.WaitStatus
		tid, err := wait4(-1, &ws, unix.WALL|unix.WNOHANG)
		if err != nil || tid <= 0 {
			return n
		}
		n++
		var owner *Stop
		tg := TgidOf(tid)
		for _, s := range t.stops {
			s.mu.Lock()
			_, known := s.threads[tid]
			s.mu.Unlock()
			if known || s.pid == tg || s.pid == tid {
				owner = s
				break
			}
		}
		if owner == nil {
			if !ws.Stopped() {
				logrus.Debugf("ptrace: reaped %d, which no process of the tree knew (%#x)", tid, uint32(ws))
				continue
			}
			logrus.Debugf("ptrace: process %d stopped with no fork event seen: adopted", tg)
			owner = t.adopt(tg)
		}
		owner.mu.Lock()
		if !owner.closed {
			owner.handle(tid, ws)
		}
		owner.mu.Unlock()
	}
}

// Close ends the tracer thread. Processes still traced (forked ones that
// outlive the program) are let go by the kernel as the thread exits (a
// thread in a signal-delivery stop gets that signal).
func (t *Tree) Close() {
	if t.closed {
		return
	}
	t.closed = true
	for _, s := range t.stops {
		s.mu.Lock()
		s.closed = true
		s.mu.Unlock()
	}
	t.tr.close()
}

// SigInfo is the start of the kernel's siginfo_t (64-bit layout, 128
// bytes): include/uapi/asm-generic/siginfo.h.
type SigInfo struct {
	Signo, Errno, Code, _ int32
	Fields                [112]byte
}

// Addr is si_addr (a fault raised by the CPU: SIGSEGV, SIGBUS, SIGILL,
// SIGFPE, SIGTRAP with si_code > 0).
func (s *SigInfo) Addr() uint64 { return *(*uint64)(unsafe.Pointer(&s.Fields[0])) }

// Sender is si_pid and si_uid (kill, tgkill, sigqueue: si_code <= 0).
func (s *SigInfo) Sender() (pid, uid int) {
	return int(*(*int32)(unsafe.Pointer(&s.Fields[0]))), int(*(*uint32)(unsafe.Pointer(&s.Fields[4])))
}

// SigInfo returns thread tid's siginfo (PTRACE_GETSIGINFO): the signal of
// its last signal-delivery stop. The thread must be stopped.
func (s *Stop) SigInfo(tid int) (*SigInfo, error) {
	var si SigInfo
	var err error
	s.tr.do(func() { err = ptrace4(unix.PTRACE_GETSIGINFO, tid, 0, uintptr(unsafe.Pointer(&si))) })
	if err != nil {
		if errors.Is(err, syscall.ESRCH) {
			return nil, fmt.Errorf("thread %d is not stopped: %w", tid, err)
		}
		return nil, err
	}
	return &si, nil
}
