package debugger

import (
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/sfdbg/sfdbg/frames"
	"golang.org/x/sys/unix"
)

// Stop is a process held by sfdbg's lean stop/read/resume path: every thread
// is attached with PTRACE_SEIZE and stopped with PTRACE_INTERRUPT, its
// registers are read once per stop, memory is read with process_vm_readv,
// and the process is resumed or detached again. It is the path of the
// one-shot `sfdbg bt` and of sampling, where Delve's full attach (which
// loads all DWARF) would cost 100 ms or more per process.
//
// All ptrace requests of a Stop come from one locked OS thread. A Stop is
// safe for use by one goroutine at a time; Detach may be called from any
// goroutine (for example a signal handler) while no other method runs.
//
// Signals that arrive for a thread while it is seized are passed on to it
// when it is resumed (at the latest on the next Interrupt or Detach); a
// thread that was in a group stop (SIGSTOP) stays stopped on Resume.
type Stop struct {
	pid     int
	tr      *tracer
	mu      sync.Mutex
	threads map[int]*seizedThread
	running bool // resumed since the last stop
	closed  bool // detached
	// held is set once a stop has held some thread: from then on, a
	// process whose threads are gone has exited (lost).
	held  bool
	mem   *ProcMemory
	space *frames.Space
	// Timeout bounds how long Interrupt waits for one thread to stop (a
	// thread in uninterruptible sleep stops only when it leaves it).
	Timeout time.Duration
}

type seizedThread struct {
	tid       int
	stopped   bool // in a ptrace stop we are responsible for
	groupStop bool // the stop is a group stop: resume with PTRACE_LISTEN
	regs      frames.Regs
	regsErr   error
	raw       unix.PtraceRegs
}

// Seize attaches to every thread of process pid with PTRACE_SEIZE and stops
// them all with PTRACE_INTERRUPT, reading each thread's registers. Threads
// created while it works are seized too. The process is left stopped;
// call Resume or Detach. Errors are *AttachError (no such process,
// permission) or a wrapped ptrace error.
func Seize(pid int) (*Stop, error) {
	if err := checkPid(pid); err != nil {
		return nil, err
	}
	s := &Stop{
		pid:     pid,
		tr:      newTracer(),
		threads: map[int]*seizedThread{},
		mem:     NewProcMemory(pid),
		Timeout: 2 * time.Second,
	}
	s.running = true // nothing stopped yet
	if err := s.Interrupt(); err != nil {
		s.Detach()
		return nil, err
	}
	return s, nil
}

// lost returns the error for a process whose threads cannot be listed or
// seized: ErrExited (wrapped) once the Stop has held it, or when it is
// gone or a zombie, as a process that exits while it is sampled is; an
// attach error otherwise.
func (s *Stop) lost(err error) error {
	if s.held || !processExists(s.pid) || ProcState(s.pid) == 'Z' && !hasLiveThread(s.pid) {
		return fmt.Errorf("process %d: %w", s.pid, ErrExited)
	}
	return attachError(s.pid, err)
}

// Pid returns the process ID.
func (s *Stop) Pid() int { return s.pid }

// Threads returns the IDs of the stopped threads, the main thread (tid ==
// pid) first, then in increasing order.
func (s *Stop) Threads() []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	tids := make([]int, 0, len(s.threads))
	for tid, t := range s.threads {
		if t.stopped {
			tids = append(tids, tid)
		}
	}
	sortTids(tids, s.pid)
	return tids
}

func sortTids(tids []int, pid int) {
	sort.Slice(tids, func(i, j int) bool {
		if (tids[i] == pid) != (tids[j] == pid) {
			return tids[i] == pid
		}
		return tids[i] < tids[j]
	})
}

// Regs returns the registers of thread tid read at the current stop, by
// DWARF register number. It fails with ErrRunning if the process was
// resumed since, or if tid is not a stopped thread.
func (s *Stop) Regs(tid int) (frames.Regs, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.running {
		return frames.Regs{}, ErrRunning
	}
	t := s.threads[tid]
	if t == nil || !t.stopped {
		return frames.Regs{}, fmt.Errorf("thread %d of process %d is not stopped", tid, s.pid)
	}
	return t.regs, t.regsErr
}

// Memory returns the process's memory, read with process_vm_readv through
// a page cache that is emptied on every Resume.
func (s *Stop) Memory() frames.Memory { return s.mem }

// Space returns the process's memory and modules. Modules are read from
// /proc/PID/maps on the first call; their unwind data and symbols are
// loaded lazily, only for the modules a stack passes through.
func (s *Stop) Space() (*frames.Space, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.space == nil {
		mods, err := loadModules(s.pid, s.mem)
		if err != nil {
			return nil, err
		}
		s.space = &frames.Space{Mem: s.mem, Modules: mods}
	}
	return s.space, nil
}

// Run runs f on the thread that traces the process, so that the Interrupt,
// Resume and Regs calls f makes need no hand-over to that thread: a
// sampling loop run this way stops and resumes the process about twice as
// often per second. No other goroutine may use the Stop while f runs.
func (s *Stop) Run(f func()) { s.tr.run(f) }

// RefreshModules rereads /proc/PID/maps on the next Space call (after a
// dlopen, or when a PC lies in no known module).
func (s *Stop) RefreshModules() {
	s.mu.Lock()
	s.space = nil
	s.mu.Unlock()
}

// Resume lets every stopped thread run again, passing on nothing; the
// threads stay seized so that Interrupt can stop them again.
func (s *Stop) Resume() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errors.New("resume: detached")
	}
	if s.running {
		return nil
	}
	s.mem.Invalidate()
	var errs []error
	s.tr.do(func() {
		for tid, t := range s.threads {
			if !t.stopped {
				continue
			}
			var err error
			if t.groupStop {
				err = ptrace(unix.PTRACE_LISTEN, tid)
			} else {
				err = unix.PtraceCont(tid, 0)
			}
			t.stopped = false
			if err != nil && !errors.Is(err, syscall.ESRCH) {
				errs = append(errs, fmt.Errorf("resume thread %d: %w", tid, err))
			}
			if errors.Is(err, syscall.ESRCH) {
				delete(s.threads, tid)
			}
		}
	})
	s.running = true
	return errors.Join(errs...)
}

// Interrupt stops every thread of the process again (seizing threads
// created since the last stop) and reads their registers. It returns an
// error wrapping ErrExited when the process has exited.
func (s *Stop) Interrupt() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errors.New("interrupt: detached")
	}
	if !s.running {
		return nil
	}
	var err error
	s.tr.do(func() { err = s.stopAll() })
	if err != nil {
		return err
	}
	s.running = false
	s.held = s.held || len(s.threads) > 0
	s.mem.Invalidate()
	return nil
}

// stopAll runs on the tracer thread: seize new threads, interrupt all,
// wait for each to stop, read registers. Repeats while new threads appear.
func (s *Stop) stopAll() error {
	for round := 0; round < 16; round++ {
		tids, err := listTasks(s.pid)
		if err != nil {
			return s.lost(err)
		}
		if round == 0 {
			s.reapGone(tids)
		}
		var fresh []int
		for _, tid := range tids {
			t, ok := s.threads[tid]
			if ok && t.stopped {
				continue
			}
			if !ok {
				if taskState(s.pid, tid) == 'Z' {
					continue // an exited thread (the main thread after pthread_exit) waiting to be reaped
				}
				if err := unix.PtraceSeize(tid); err != nil {
					if errors.Is(err, syscall.ESRCH) {
						continue // exited meanwhile
					}
					if len(s.threads) == 0 {
						return s.lost(err)
					}
					return fmt.Errorf("seize thread %d of process %d: %w", tid, s.pid, err)
				}
				s.threads[tid] = &seizedThread{tid: tid}
			}
			fresh = append(fresh, tid)
		}
		if len(fresh) == 0 {
			break
		}
		for _, tid := range fresh {
			if err := unix.PtraceInterrupt(tid); err != nil {
				delete(s.threads, tid) // ESRCH: gone
			}
		}
		for _, tid := range fresh {
			t := s.threads[tid]
			if t == nil {
				continue
			}
			switch st := s.waitStop(tid); st {
			case waitGone:
				delete(s.threads, tid)
			case waitTimeout:
				// Still seized but not stopped; left out of this stop.
			default:
				t.stopped = true
				t.groupStop = st == waitGroupStop
				t.regsErr = unix.PtraceGetRegs(tid, &t.raw)
				if t.regsErr == nil {
					t.regs = regsFromPtrace(&t.raw)
				} else {
					t.regsErr = fmt.Errorf("read registers of thread %d: %w", tid, t.regsErr)
				}
			}
		}
	}
	if len(s.threads) == 0 {
		return fmt.Errorf("process %d: %w", s.pid, ErrExited)
	}
	return nil
}

// reapGone forgets seized threads that are no longer in /proc/PID/task,
// collecting their exit status.
func (s *Stop) reapGone(tids []int) {
	live := make(map[int]bool, len(tids))
	for _, tid := range tids {
		live[tid] = true
	}
	for tid := range s.threads {
		if !live[tid] {
			var ws unix.WaitStatus
			unix.Wait4(tid, &ws, unix.WALL|unix.WNOHANG, nil)
			delete(s.threads, tid)
		}
	}
}

type waitResult int

const (
	waitStopped waitResult = iota
	waitGroupStop
	waitGone
	waitTimeout
)

// waitStop waits (on the tracer thread) until tid reports a
// PTRACE_EVENT_STOP, passing on any signal it reports first. It polls
// with WNOHANG so that a thread that cannot stop does not hang sfdbg.
func (s *Stop) waitStop(tid int) waitResult {
	start := time.Now()
	deadline := start.Add(s.Timeout)
	pause := time.Duration(0)
	for {
		var ws unix.WaitStatus
		wpid, err := unix.Wait4(tid, &ws, unix.WALL|unix.WNOHANG, nil)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return waitGone // ECHILD: not ours any more
		}
		if wpid == 0 {
			now := time.Now()
			if now.After(deadline) {
				return waitTimeout
			}
			// A running thread stops within microseconds of the
			// interrupt: poll without sleeping at first (a timer sleep
			// costs 50 us or more), then back off. The poll does not
			// yield either: runtime.Gosched on the tracer's locked thread
			// hands its P to another thread and back, which costs more
			// than the stop itself.
			if now.Sub(start) < 500*time.Microsecond {
				continue
			}
			if pause < time.Millisecond {
				pause += 50 * time.Microsecond
			}
			time.Sleep(pause)
			continue
		}
		switch {
		case ws.Exited() || ws.Signaled():
			return waitGone
		case ws.Stopped():
			if int(ws)>>16 == unix.PTRACE_EVENT_STOP {
				if sig := ws.StopSignal(); sig != syscall.SIGTRAP {
					return waitGroupStop
				}
				return waitStopped
			}
			if ws.StopSignal() == syscall.SIGTRAP && ws.TrapCause() > 0 {
				// Some other ptrace event (not requested): move on.
				unix.PtraceCont(tid, 0)
				continue
			}
			// A signal-delivery stop: pass the signal on; the pending
			// interrupt stops the thread right after.
			unix.PtraceCont(tid, int(ws.StopSignal()))
		}
	}
}

// Detach stops the process if it is running, detaches every thread (they
// continue where they were) and ends the tracer thread. It is safe to call
// more than once.
func (s *Stop) Detach() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.mu.Unlock()
	var errs []error
	if s.running && len(s.threads) > 0 {
		if err := s.Interrupt(); err != nil && !errors.Is(err, ErrExited) {
			errs = append(errs, err)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tr.do(func() {
		for tid, t := range s.threads {
			if !t.stopped {
				continue // not in a stop: released when the tracer thread exits
			}
			if err := unix.PtraceDetach(tid); err != nil && !errors.Is(err, syscall.ESRCH) {
				errs = append(errs, fmt.Errorf("detach thread %d: %w", tid, err))
			}
		}
	})
	s.threads = map[int]*seizedThread{}
	s.closed = true
	s.tr.close()
	return errors.Join(errs...)
}

// ptrace issues a request with no address or data.
func ptrace(req int, tid int) error {
	_, _, e := unix.Syscall6(unix.SYS_PTRACE, uintptr(req), uintptr(tid), 0, 0, 0, 0)
	if e != 0 {
		return e
	}
	return nil
}

// listTasks returns the thread IDs in /proc/PID/task.
func listTasks(pid int) ([]int, error) {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/task")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	names, err := f.Readdirnames(-1)
	if err != nil {
		return nil, err
	}
	tids := make([]int, 0, len(names))
	for _, n := range names {
		if tid, err := strconv.Atoi(n); err == nil {
			tids = append(tids, tid)
		}
	}
	sortTids(tids, pid)
	return tids, nil
}
