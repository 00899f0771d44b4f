package proc

import (
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/sirupsen/logrus"
	"golang.org/x/sys/unix"

	"github.com/sfdbg/sfdbg/frames"
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
	// stopping is set from the start of a stop until the next resume: a
	// thread that appears meanwhile is kept stopped.
	stopping bool
	closed   bool // detached
	// held is set once a stop has held some thread: from then on, a
	// process whose threads are gone has exited (lost).
	held  bool
	ops   threadOps
	execs []ExecEvent // seen since the last Execs call
	bp    bpState
	watch watchState // hardware watchpoints (watch_seize_linux.go)
	// exitedNow is set when the leader's exit was reaped: the process
	// has exited, with exitStatus.
	exitedNow  bool
	exitStatus int
	mem        *ProcMemory
	space      *frames.Space
	pacMask    uint64        // AArch64: NT_ARM_PAC_MASK insn_mask (pacMaskLocked)
	kick       chan struct{} // Kick: a Wait returns (buffer 1)
	detaching  atomic.Bool   // Detach was called: every Wait returns at once
	// Timeout bounds how long Interrupt waits for one thread to stop (a
	// thread in uninterruptible sleep stops only when it leaves it).
	Timeout time.Duration
	// signaled is the thread held in the delivery stop of a signal that
	// stops the process as gdb's default "handle" does (stopsAt), 0 for
	// none, and signal that signal. A fatal one stays pending, delivered
	// when the process resumes or is detached; the terminal's SIGINT is
	// dropped.
	signaled, signal int
	// sigintStops, for a program started by sfdbg that has the terminal
	// while it runs (terminal), makes a SIGINT stop the process: it is
	// the terminal's Ctrl-C, which gdb stops at and does not pass on.
	sigintStops bool
	// tree is the Tree whose tracer thread the Stop shares (catch), nil
	// for a Stop with a tracer of its own. A Tree's Stops leave the
	// tracer's idle function alone and do not end the thread.
	tree *Tree
	// policy, if set, decides which signals stop the process instead of
	// stopsAt's gdb defaults (TreeOptions.Policy).
	policy func(pid, tid int, sig syscall.Signal) (stop, pass bool)
	// forks are the processes forked since the Tree last looked
	// (PTRACE_EVENT_FORK, _VFORK), traced from their birth.
	forks []int
	// exitWait is the leader's exit wait status, once exitedNow.
	exitWait unix.WaitStatus
}

// stopsAt reports whether signal sig, in its delivery stop on thread tid,
// stops the process, and whether it is passed on when the process resumes:
// the Stop's policy if it has one, gdb's defaults otherwise.
func (s *Stop) stopsAt(tid int, sig syscall.Signal) (stop, pass bool) {
	if s.policy != nil {
		return s.policy(s.pid, tid, sig)
	}
	switch {
	case FatalSignal(sig):
		return true, true
	case sig == syscall.SIGINT && s.sigintStops:
		return true, false
	}
	return false, true
}

// TakeSignal returns the thread held at a signal that stops the process
// (stopsAt) since the last call and the signal, or 0, 0. A fatal signal
// stays pending: Resume or Detach delivers it.
func (s *Stop) TakeSignal() (tid, sig int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	tid, sig, s.signaled, s.signal = s.signaled, s.signal, 0, 0
	if s.threads[tid] == nil {
		return 0, 0
	}
	return tid, sig
}

type seizedThread struct {
	tid         int
	stopped     bool // in a ptrace stop we are responsible for
	groupStop   bool // the stop is a group stop: resume with PTRACE_LISTEN
	want        bool // sfdbg wants it stopped (a stop is under way, or done)
	interrupted bool // PTRACE_INTERRUPT sent in this stop
	regsOK      bool // regs were read in this stop
	pendingSig  int  // a signal to pass on at the next resume
	atSignal    bool // held in the delivery stop of a signal that stops the process (stopsAt)
	running     bool // /proc said R (running) when it was seized
	regs        frames.Regs
	regsErr     error
	raw         ptraceRegs
}

// Seize attaches to every thread of process pid with PTRACE_SEIZE and stops
// them all with PTRACE_INTERRUPT, reading each thread's registers. Threads
// created while it works are seized too, and from then on every new thread
// is traced from its birth (PTRACE_O_TRACECLONE) and an execve is reported
// (PTRACE_O_TRACEEXEC, see Execs). A thread that exits while Seize works
// is not an error, nor is a leader that called pthread_exit (it is left
// out of Threads). The process is left stopped; call Resume or Detach.
// Errors are *AttachError (no such process, permission) or a wrapped ptrace
// error.
func Seize(pid int) (*Stop, error) {
	return seizeWith(pid, sysOps{})
}

func seizeWith(pid int, ops threadOps) (*Stop, error) {
	if _, ok := ops.(sysOps); ok {
		if err := CheckPid(pid); err != nil {
			return nil, err
		}
	}
	s := &Stop{
		pid:     pid,
		tr:      newTracer(),
		ops:     ops,
		threads: map[int]*seizedThread{},
		mem:     NewProcMemory(pid),
		kick:    make(chan struct{}, 1),
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
	if s.held || !ProcessExists(s.pid) || ProcState(s.pid) == 'Z' && !HasLiveThread(s.pid) {
		return fmt.Errorf("process %d: %w", s.pid, ErrExited)
	}
	return AttachErrorOf(s.pid, err)
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
	SortTids(tids, s.pid)
	return tids
}

func SortTids(tids []int, pid int) {
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
		mods, err := frames.ModulesFromMaps(s.pid, s.mem)
		if err != nil {
			return nil, err
		}
		s.space = &frames.Space{Mem: s.mem, Modules: mods, PACMask: s.pacMaskLocked()}
	}
	return s.space, nil
}

// Detaching reports whether Detach was called: a loop around Wait (continue)
// must end.
func (s *Stop) Detaching() bool { return s.detaching.Load() }

// pacMaskLocked returns the process's PAC mask on AArch64 (NT_ARM_PAC_MASK's
// insn_mask), read once on the tracer thread from a stopped thread; 0
// elsewhere or before any thread stopped (frames.Space then uses its
// default). Called with s.mu held.
func (s *Stop) pacMaskLocked() uint64 {
	if s.pacMask != 0 {
		return s.pacMask
	}
	for tid, t := range s.threads {
		if t.stopped {
			s.tr.do(func() { s.pacMask = PACMask(tid) })
			break
		}
	}
	return s.pacMask
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

// Resume lets every stopped thread run again, passing on nothing but the
// signals held for delivery; the threads stay seized so that Interrupt can
// stop them again. On a Tree's process that runs, it lets go the threads
// held (at a signal its policy stops at: the signal is delivered if it is
// passed on); on any other running process it does nothing. While the
// process runs, the events of its threads (a new thread's first stop, a
// clone, an exec, an exit) are handled by Wait, by Interrupt, and by the
// tracer thread when it is idle (a Tree's Stops: by Tree.Next), so no
// thread is held for long.
func (s *Stop) Resume() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errors.New("resume: detached")
	}
	if s.running && s.tree != nil {
		// A Tree's process runs with the thread held at a signal (its
		// policy) stopped, and those an Interrupt that failed part-way
		// stopped: let them go, delivering the signal if it is passed on,
		// and stop holding new threads.
		var errs []error
		s.tr.do(func() {
			for _, t := range s.threads {
				t.want, t.interrupted, t.atSignal = false, false, false
				if err := s.letGo(t); err != nil {
					errs = append(errs, err)
				}
			}
		})
		s.stopping, s.signaled, s.signal = false, 0, 0
		return errors.Join(errs...)
	}
	if s.running {
		return nil
	}
	s.mem.Invalidate()
	var errs []error
	s.tr.do(func() {
		s.bp.hits = nil
		s.watch.hits = nil
		if len(s.bp.inserted) > 0 {
			// A thread at a breakpoint steps over it alone first.
			for _, t := range s.threads {
				if !t.stopped || t.groupStop {
					continue
				}
				var r ptraceRegs
				if s.ops.regs(t.tid, &r) == nil {
					if _, ok := s.bp.inserted[ptracePC(&r)]; ok {
						if err := s.stepOver(t); err != nil && !errors.Is(err, ErrExec) {
							continue // exited
						}
					}
				}
			}
		}
		for _, t := range s.threads {
			t.want, t.interrupted, t.regsOK, t.atSignal = false, false, false, false
			if err := s.letGo(t); err != nil {
				errs = append(errs, err)
			}
		}
	})
	// The held signals were delivered above: none is to be reported.
	s.running, s.stopping, s.signaled, s.signal = true, false, 0, 0
	if s.tree == nil {
		s.tr.setIdle(s.idlePoll)
	}
	return errors.Join(errs...)
}

// letGo resumes thread t if it is stopped: back into its group stop
// (PTRACE_LISTEN), or on with its pending signal delivered. A thread
// killed while stopped is no error (ESRCH: poll reaps its exit). It runs
// on the tracer thread.
func (s *Stop) letGo(t *seizedThread) error {
	if !t.stopped {
		return nil
	}
	var err error
	if t.groupStop {
		err = s.ops.listen(t.tid)
	} else {
		err = s.ops.cont(t.tid, t.pendingSig)
		t.pendingSig = 0
	}
	t.stopped = false
	if err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("resume thread %d: %w", t.tid, err)
	}
	return nil
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
	if s.tree == nil {
		s.tr.setIdle(nil)
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

// maxRounds bounds the list-seize-stop rounds of one stop. Every round
// after the first finds only threads created by threads that were not yet
// stopped, so a process settles in two or three; a thread that ptrace
// keeps refusing (EPERM while it exits) is given up on after this many.
const maxRounds = 64

// stopSpin is how long waitStopped looks for stops without blocking.
const stopSpin = 100 * time.Microsecond

// stopAll runs on the tracer thread. It handles pending events, then, in
// rounds: lists /proc/PID/task, seizes the threads it does not trace yet,
// interrupts every thread that is not stopped and waits until each has
// stopped or exited. It stops when a listing shows no thread it had not
// seen (gdb's linux-nat does the same). A thread that vanishes between the
// listing and its seize, or that ptrace refuses because it is exiting, is
// not an error.
func (s *Stop) stopAll() error {
	s.stopping = true
	s.poll()
	for _, t := range s.threads {
		t.want = true
	}
	deadline := time.Now().Add(s.Timeout)
	refused := map[int]int{}
	var firstErr error // the first EPERM
	for round := 0; ; round++ {
		tids, err := s.ops.tasks(s.pid)
		if err != nil {
			return s.lost(err)
		}
		unsettled := false
		for _, tid := range tids {
			if _, ok := s.threads[tid]; ok {
				continue
			}
			st := s.ops.state(s.pid, tid)
			if st == 'Z' || st == 'X' || st == 0 {
				continue // exited (the leader after pthread_exit), or gone
			}
			err := s.ops.seize(tid)
			switch {
			case err == nil:
			case errors.Is(err, syscall.ESRCH):
				continue // exited between the listing and the seize
			case errors.Is(err, syscall.EPERM) && s.ops.tracedByMe(s.pid, tid):
				// Traced from its birth by sfdbg (the parent's clone event
				// is still to be read).
			case errors.Is(err, syscall.EPERM) && refused[tid] < maxRounds:
				// ptrace refuses a thread that is exiting (the leader
				// too, while another thread's execve ends it): list
				// again. A process sfdbg may not trace refuses every
				// thread, every time: see below.
				refused[tid]++
				unsettled = true
				if firstErr == nil {
					firstErr = err
				}
				continue
			default:
				if len(s.threads) == 0 {
					return s.lost(err)
				}
				return fmt.Errorf("seize thread %d of process %d: %w", tid, s.pid, err)
			}
			s.threads[tid] = &seizedThread{tid: tid, want: true, running: st == 'R'}
			unsettled = true
		}
		for _, t := range s.threads {
			if t.stopped || t.interrupted {
				continue
			}
			t.interrupted = true
			// ESRCH: exited; poll reaps it.
			s.ops.interrupt(t.tid)
		}
		s.waitStopped(deadline)
		if len(s.threads) == 0 && firstErr != nil && round >= 16 {
			return s.lost(firstErr)
		}
		if !unsettled || round == maxRounds-1 {
			break
		}
		if len(refused) > 0 {
			time.Sleep(time.Duration(min(round+1, 20)) * 50 * time.Microsecond)
		}
	}
	s.settleTraps()
	stopped := 0
	for _, t := range s.threads {
		if !t.stopped {
			continue // exited, or did not stop in time: left out of this stop
		}
		stopped++
		if !t.regsOK {
			t.regsOK = true
			t.regsErr = s.ops.regs(t.tid, &t.raw)
			if t.regsErr == nil {
				t.regs = regsFromPtrace(&t.raw)
			} else {
				t.regsErr = fmt.Errorf("read registers of thread %d: %w", t.tid, t.regsErr)
			}
		}
	}
	if stopped > 0 {
		// The leader, unless it has exited (then it has no memory map).
		s.mem.readThrough(s.anyStopped())
	}
	if stopped == 0 {
		for _, t := range s.threads {
			logrus.Debugf("ptrace: no stop: thread %d (want %v, interrupted %v), state %c", t.tid, t.want, t.interrupted, s.ops.state(s.pid, t.tid))
		}
		if len(s.threads) == 0 {
			return fmt.Errorf("process %d: %w", s.pid, ErrExited)
		}
		return fmt.Errorf("process %d: no thread stopped within %v of PTRACE_INTERRUPT (a thread in uninterruptible sleep stops only when it leaves it)", s.pid, s.Timeout)
	}
	return nil
}

// waitStopped waits, on the tracer thread, until every thread sfdbg wants
// stopped has stopped or exited, or until deadline: it collects the
// threads' events and blocks until the next SIGCHLD between them. For its
// first stopSpin it looks again without blocking: a running thread stops
// within microseconds of PTRACE_INTERRUPT, sooner than a SIGCHLD reaches
// the tracer thread through Go's signal handling (sample: 6,400 stops/s
// blocking at once, 10,000 with the spin).
func (s *Stop) waitStopped(deadline time.Time) {
	start := time.Now()
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		wake := s.ops.wake()
		// A thread born in the events just handled has its own first
		// stop to report, whose SIGCHLD may have come before wake was
		// taken: look again before blocking.
		handled := s.poll()
		waiting := false
		for _, t := range s.threads {
			if t.stopped || !t.want {
				continue
			}
			if t.tid == s.pid && len(s.threads) > 1 && s.ops.state(s.pid, t.tid) == 'Z' {
				// The leader called pthread_exit: it reports its exit only
				// when the last thread has gone. (A zombie leader with no
				// other thread is an execve under way, or the end of the
				// process: either is reported under its ID.)
				continue
			}
			waiting = true
		}
		if !waiting {
			return
		}
		left := time.Until(deadline)
		if left <= 0 {
			return
		}
		if handled > 0 || time.Since(start) < stopSpin {
			continue
		}
		if timer == nil {
			timer = time.NewTimer(left)
		}
		select {
		case <-wake:
		case <-timer.C:
			return
		}
	}
}

// Detach stops the process if it is running, detaches every thread (they
// continue where they were) and ends the tracer thread. It is safe to call
// more than once.
func (s *Stop) Detach() error {
	// A Wait in progress (continue, on another goroutine) holds s.mu
	// until an event: make it return.
	s.detaching.Store(true)
	s.Kick()
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
	if s.tree == nil {
		s.tr.setIdle(nil)
	}
	s.tr.do(func() {
		s.poll()
		s.settleTraps()
		s.clearWatches()
		for addr := range s.bp.inserted {
			if err := s.removeBreakpoint(addr); err != nil {
				errs = append(errs, err)
			}
		}
		// A thread sfdbg lost count of must not be let go by the tracer
		// thread's exit while in a signal-delivery stop (the kernel would
		// then deliver the signal it stopped for): detach whatever is
		// listed; ESRCH for a thread that is not in a stop of sfdbg's.
		// Listed first: once a busy thread is let go it takes a CPU, and
		// on a loaded machine every later request waits for one.
		if tids, err := s.ops.tasks(s.pid); err == nil {
			for _, tid := range tids {
				if _, ok := s.threads[tid]; !ok {
					s.ops.detach(tid, 0)
				}
			}
		}
		// The threads that were sleeping first, the busy ones last, for
		// the same reason.
		order := make([]*seizedThread, 0, len(s.threads))
		for _, t := range s.threads {
			order = append(order, t)
		}
		sort.Slice(order, func(i, j int) bool {
			if order[i].running != order[j].running {
				return !order[i].running
			}
			return order[i].tid < order[j].tid
		})
		for _, t := range order {
			if !t.stopped {
				// Exited, or never stopped: the kernel lets it go (and
				// releases an exited one) when the tracer thread ends.
				continue
			}
			// A signal held for the user (a fatal one sfdbg stopped at)
			// is delivered: the process ends as it would have.
			if err := s.ops.detach(t.tid, t.pendingSig); err != nil && !errors.Is(err, syscall.ESRCH) {
				errs = append(errs, fmt.Errorf("detach thread %d: %w", t.tid, err))
			}
		}
	})
	s.threads = map[int]*seizedThread{}
	s.closed = true
	// Every thread is detached (or gone): the tracer thread's own exit
	// need not be waited for. A Tree's thread stays for its other Stops.
	if s.tree == nil {
		s.tr.release()
	}
	return errors.Join(errs...)
}

// ListTasks returns the thread IDs in /proc/PID/task.
func ListTasks(pid int) ([]int, error) {
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
	SortTids(tids, pid)
	return tids, nil
}
