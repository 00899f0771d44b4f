package proc

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// fakeProc is a scripted process for Stop's seize, stop, exec and
// breakpoint handling (threadOps): threads that vanish between the
// listing and the seize, threads created meanwhile, a zombie leader, an
// exec, traps. It needs no ptrace, so these tests run everywhere.
type fakeProc struct {
	pid     int
	threads map[int]*fakeThread
	listed  []int
	// onList runs before listing n (0-based): it may add or remove threads.
	onList   func(p *fakeProc, n int)
	lists    int
	seizeErr map[int][]error // errors for the next seize attempts of a thread
	mem      map[uint64]byte
	log      []string
}

type fakeThread struct {
	state    byte // 'R', 'Z'
	traced   bool
	stopped  bool
	queue    []unix.WaitStatus
	msg      uint
	regs     ptraceRegs
	trapPend bool // an int3's SIGTRAP not yet reported
	delay    int  // wait calls that see nothing before the queue is reported
}

const (
	wsTrap      = unix.WaitStatus(0x57f)                              // SIGTRAP signal-delivery stop
	wsEventStop = unix.WaitStatus(unix.PTRACE_EVENT_STOP<<16 | 0x57f) // interrupt stop
	wsExit0     = unix.WaitStatus(0)
)

func wsEvent(ev int) unix.WaitStatus { return unix.WaitStatus(ev<<16 | 0x57f) }

func newFakeProc(pid int, tids ...int) *fakeProc {
	p := &fakeProc{pid: pid, threads: map[int]*fakeThread{}, seizeErr: map[int][]error{}, mem: map[uint64]byte{}}
	for _, tid := range tids {
		p.add(tid)
	}
	return p
}

func (p *fakeProc) add(tid int) *fakeThread {
	t := &fakeThread{state: 'R'}
	p.threads[tid] = t
	p.listed = append(p.listed, tid)
	return t
}

func (p *fakeProc) remove(tid int) {
	delete(p.threads, tid)
	p.listed = slices.DeleteFunc(p.listed, func(x int) bool { return x == tid })
}

func (p *fakeProc) tasks(pid int) ([]int, error) {
	if p.onList != nil {
		p.onList(p, p.lists)
	}
	p.lists++
	return slices.Clone(p.listed), nil
}

func (p *fakeProc) state(pid, tid int) byte {
	if t := p.threads[tid]; t != nil {
		return t.state
	}
	return 0
}

func (p *fakeProc) tracedByMe(pid, tid int) bool { t := p.threads[tid]; return t != nil && t.traced }

func (p *fakeProc) seize(tid int) error {
	if errs := p.seizeErr[tid]; len(errs) > 0 {
		p.seizeErr[tid] = errs[1:]
		return errs[0]
	}
	t := p.threads[tid]
	if t == nil {
		return syscall.ESRCH
	}
	if t.traced {
		return syscall.EPERM
	}
	t.traced = true
	return nil
}

func (p *fakeProc) thread(tid int) (*fakeThread, error) {
	t := p.threads[tid]
	if t == nil || !t.traced || t.state == 'Z' && len(t.queue) == 0 {
		return nil, syscall.ESRCH
	}
	return t, nil
}

func (p *fakeProc) interrupt(tid int) error {
	t, err := p.thread(tid)
	if err != nil {
		return err
	}
	if !t.stopped {
		t.queue = append(t.queue, wsEventStop)
	}
	return nil
}

func (p *fakeProc) cont(tid, sig int) error {
	t, err := p.thread(tid)
	if err != nil || !t.stopped {
		return syscall.ESRCH
	}
	p.log = append(p.log, fmt.Sprintf("cont %d %d", tid, sig))
	t.stopped = false
	if t.trapPend {
		// The pending SIGTRAP is reported before any instruction runs.
		t.trapPend = false
		t.queue = append(t.queue, wsTrap)
	}
	return nil
}

func (p *fakeProc) listen(tid int) error { return p.cont(tid, 0) }

func (p *fakeProc) detach(tid, sig int) error {
	t, err := p.thread(tid)
	if err != nil || !t.stopped {
		return syscall.ESRCH
	}
	if sig != 0 {
		p.log = append(p.log, fmt.Sprintf("detach %d with signal %d", tid, sig))
	} else {
		p.log = append(p.log, fmt.Sprintf("detach %d", tid))
	}
	if t.trapPend {
		p.log = append(p.log, fmt.Sprintf("thread %d killed by SIGTRAP", tid))
	}
	t.traced, t.stopped = false, false
	return nil
}

func (p *fakeProc) eventMsg(tid int) (uint, error) {
	t, err := p.thread(tid)
	if err != nil {
		return 0, err
	}
	return t.msg, nil
}

// wake is always ready: the fake's events are queued, not signalled.
func (p *fakeProc) wake() <-chan struct{} { return closedChan }

var closedChan = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

func (p *fakeProc) wait(tid int) (int, unix.WaitStatus, error) {
	t := p.threads[tid]
	if t == nil || !t.traced {
		return 0, 0, syscall.ECHILD
	}
	if len(t.queue) == 0 || t.delay > 0 {
		t.delay--
		return 0, 0, nil
	}
	ws := t.queue[0]
	t.queue = t.queue[1:]
	switch {
	case ws.Stopped():
		t.stopped = true
	case ws.Exited():
		p.remove(tid)
	}
	return tid, ws, nil
}

func (p *fakeProc) regs(tid int, r *ptraceRegs) error {
	t, err := p.thread(tid)
	if err != nil {
		return err
	}
	*r = t.regs
	return nil
}

func (p *fakeProc) setRegs(tid int, r *ptraceRegs) error {
	t, err := p.thread(tid)
	if err != nil {
		return err
	}
	t.regs = *r
	return nil
}

func (p *fakeProc) singleStep(tid, sig int) error {
	t, err := p.thread(tid)
	if err != nil {
		return err
	}
	t.stopped = false
	if p.isBreak(ptracePC(&t.regs)) {
		return errors.New("single-stepped onto a breakpoint instruction")
	}
	setPtracePC(&t.regs, ptracePC(&t.regs)+1)
	t.queue = append(t.queue, wsTrap)
	return nil
}

// isBreak reports whether the host's breakpoint instruction is at addr.
func (p *fakeProc) isBreak(addr uint64) bool {
	for i, b := range breakInstr {
		if p.mem[addr+uint64(i)] != b {
			return false
		}
	}
	return true
}

// trapPC is the PC of a thread that executed the breakpoint instruction at
// addr: past it where the host's trap moves the PC (int3), at it where it
// does not (brk).
func trapPC(addr uint64) uint64 {
	if breakInstrMovesPC {
		return addr + uint64(len(breakInstr))
	}
	return addr
}

func (p *fakeProc) peek(tid int, addr uint64, out []byte) error {
	for i := range out {
		out[i] = p.mem[addr+uint64(i)]
	}
	return nil
}

func (p *fakeProc) poke(tid int, addr uint64, data []byte) error {
	for i, b := range data {
		p.mem[addr+uint64(i)] = b
	}
	return nil
}

func (p *fakeProc) peekUser(tid int, off uintptr) (uint64, error) { return 0, nil }

func (p *fakeProc) pokeUser(tid int, off uintptr, v uint64) error { return nil }

func (p *fakeProc) sigPending(pid, tid int, sig syscall.Signal) bool {
	t := p.threads[tid]
	return t != nil && t.trapPend && sig == syscall.SIGTRAP
}

func fakeSeize(t *testing.T, p *fakeProc) *Stop {
	t.Helper()
	s, err := seizeWith(p.pid, p)
	if err != nil {
		t.Fatalf("seize: %v", err)
	}
	s.Timeout = 200 * time.Millisecond
	t.Cleanup(func() { s.Detach() })
	return s
}

func TestSeizeLoop(t *testing.T) {
	t.Run("a thread that vanishes between the listing and its seize is not an error", func(t *testing.T) {
		p := newFakeProc(100, 100, 101, 102)
		p.seizeErr[101] = []error{syscall.ESRCH}
		p.onList = func(p *fakeProc, n int) {
			if n == 1 {
				p.remove(101) // gone by the next listing
			}
		}
		s := fakeSeize(t, p)
		if got := s.Threads(); !slices.Equal(got, []int{100, 102}) {
			t.Errorf("threads %v, want [100 102]", got)
		}
	})
	t.Run("a thread created while the others are seized is caught by listing again until the list is stable", func(t *testing.T) {
		p := newFakeProc(100, 100, 101)
		p.onList = func(p *fakeProc, n int) {
			if n == 1 {
				p.add(103) // made by 101 before it stopped: not traced
			}
		}
		s := fakeSeize(t, p)
		if got := s.Threads(); !slices.Equal(got, []int{100, 101, 103}) {
			t.Errorf("threads %v, want [100 101 103]", got)
		}
		if p.lists < 3 {
			t.Errorf("%d listings, want at least 3 (the last one showing nothing new)", p.lists)
		}
	})
	t.Run("a thread that ptrace refuses while it exits is listed again, not an error", func(t *testing.T) {
		p := newFakeProc(100, 100, 104)
		p.seizeErr[104] = []error{syscall.EPERM, syscall.EPERM}
		p.onList = func(p *fakeProc, n int) {
			if n == 2 {
				p.remove(104)
			}
		}
		s := fakeSeize(t, p)
		if got := s.Threads(); !slices.Equal(got, []int{100}) {
			t.Errorf("threads %v, want [100]", got)
		}
	})
	t.Run("a thread traced from its birth, whose clone event is still unread, is taken as seized", func(t *testing.T) {
		p := newFakeProc(100, 100)
		p.onList = func(p *fakeProc, n int) {
			if n == 1 {
				c := p.add(105)
				c.traced = true // auto-attached: PTRACE_SEIZE says EPERM
				c.queue = append(c.queue, wsEventStop)
			}
		}
		s := fakeSeize(t, p)
		if got := s.Threads(); !slices.Equal(got, []int{100, 105}) {
			t.Errorf("threads %v, want [100 105]", got)
		}
	})
	t.Run("a leader that called pthread_exit is left out and the live threads are seized", func(t *testing.T) {
		p := newFakeProc(100, 100, 101, 102)
		p.threads[100].state = 'Z'
		s := fakeSeize(t, p)
		if got := s.Threads(); !slices.Equal(got, []int{101, 102}) {
			t.Errorf("threads %v, want [101 102]", got)
		}
	})
	t.Run("a process whose every seize is refused is a permission error", func(t *testing.T) {
		// A PID that exists (sfdbg's own), as one that refuses would.
		pid := os.Getpid()
		p := newFakeProc(pid, pid)
		for i := 0; i < maxRounds; i++ {
			p.seizeErr[pid] = append(p.seizeErr[pid], syscall.EPERM)
		}
		_, err := seizeWith(pid, p)
		if !errors.Is(err, syscall.EPERM) {
			t.Errorf("err %v, want EPERM", err)
		}
	})
}

func TestStopHandlesExecAndExits(t *testing.T) {
	p := newFakeProc(100, 100, 101, 102)
	s := fakeSeize(t, p)
	if err := s.Resume(); err != nil {
		t.Fatal(err)
	}
	// Thread 102 calls execve: 101 exits (its exit must be reaped, or the
	// exec waits), then 102 reports the exec under the process ID.
	p.threads[101].queue = append(p.threads[101].queue, wsExit0)
	p.remove(102)
	p.threads[100].msg = 102
	p.threads[100].queue = append(p.threads[100].queue, wsEvent(unix.PTRACE_EVENT_EXEC))
	s.Wait(5*time.Millisecond, nil)
	if _, ok := p.threads[101]; ok {
		t.Errorf("thread 101's exit was not reaped while the process ran")
	}
	if !slices.Contains(p.log, "cont 100 0") {
		t.Errorf("the thread stopped at the exec event was not resumed: %v", p.log)
	}
	if err := s.Interrupt(); err != nil {
		t.Fatal(err)
	}
	if got := s.Threads(); !slices.Equal(got, []int{100}) {
		t.Errorf("threads after the exec %v, want [100]", got)
	}
	execs := s.Execs()
	if len(execs) != 1 || execs[0].Thread != 102 {
		t.Errorf("execs %+v, want one by thread 102", execs)
	}
}

func TestStopBreakpoints(t *testing.T) {
	const bp = 0x1000
	p := newFakeProc(100, 100, 101)
	p.mem[bp] = 0x55
	s := fakeSeize(t, p)
	if err := s.InsertBreakpoint(bp); err != nil {
		t.Fatal(err)
	}
	if !p.isBreak(bp) {
		t.Fatalf("no breakpoint instruction at %#x", bp)
	}
	got := []byte{breakInstr[0]}
	s.OriginalBytes(got, bp)
	if got[0] != 0x55 {
		t.Errorf("memory shows %#x under the breakpoint, want 0x55", got[0])
	}
	if err := s.Resume(); err != nil {
		t.Fatal(err)
	}
	// Thread 101 executes the int3.
	th := p.threads[101]
	setPtracePC(&th.regs, trapPC(bp))
	th.queue = append(th.queue, wsTrap)
	s.Wait(5*time.Millisecond, nil)
	for _, l := range p.log {
		if strings.HasPrefix(l, "cont 101 5") {
			t.Errorf("the breakpoint's SIGTRAP was passed on to the thread: %v", p.log)
		}
	}
	if err := s.Interrupt(); err != nil {
		t.Fatal(err)
	}
	if hits := s.Hits(); !slices.Equal(hits, []int{101}) {
		t.Errorf("hits %v, want [101]", hits)
	}
	if pc := ptracePC(&th.regs); pc != bp {
		t.Errorf("thread 101 at %#x after the hit, want it moved back to %#x", pc, bp)
	}
	// Resume: 101 steps over the breakpoint alone, with the original byte.
	if err := s.Resume(); err != nil {
		t.Fatal(err)
	}
	if pc := ptracePC(&th.regs); pc != bp+1 || !p.isBreak(bp) {
		t.Errorf("after the resume thread 101 at %#x, byte %#x: want past the breakpoint, with the int3 back", pc, p.mem[bp])
	}
	if err := s.Interrupt(); err != nil {
		t.Fatal(err)
	}
	// The leader executed the int3 but stopped for the interrupt first:
	// its SIGTRAP is pending. Detach must move it back and drop the trap.
	lead := p.threads[100]
	setPtracePC(&lead.regs, trapPC(bp))
	lead.trapPend = true
	if err := s.Detach(); err != nil {
		t.Fatal(err)
	}
	if p.mem[bp] != 0x55 {
		t.Errorf("byte %#x at the breakpoint after detach, want the original 0x55", p.mem[bp])
	}
	if pc := ptracePC(&lead.regs); pc != bp {
		t.Errorf("leader at %#x after detach, want moved back to %#x", pc, bp)
	}
	for _, l := range p.log {
		if strings.Contains(l, "killed") {
			t.Errorf("%s (log %v)", l, p.log)
		}
	}
	for tid, th := range p.threads {
		if th.traced {
			t.Errorf("thread %d still traced after detach", tid)
		}
	}
}

// TestStopAcrossAnExecDuringTheStop: a second thread calls execve while
// sfdbg stops the process. The leader turns zombie, the other threads
// exit, the exec'ing thread's ID goes away, and only later does the exec
// report under the process ID: the stop waits for it (it once gave up
// with "no thread stopped", taking the zombie leader for a pthread_exit).
func TestStopAcrossAnExecDuringTheStop(t *testing.T) {
	p := newFakeProc(100, 100, 101, 102)
	s := fakeSeize(t, p)
	if err := s.Resume(); err != nil {
		t.Fatal(err)
	}
	p.threads[101].queue = append(p.threads[101].queue, wsExit0)
	p.remove(102)
	lead := p.threads[100]
	lead.state = 'Z'
	lead.msg = 102
	lead.queue = append(lead.queue, wsEvent(unix.PTRACE_EVENT_EXEC))
	lead.delay = 50
	if err := s.Interrupt(); err != nil {
		t.Fatalf("interrupt across the exec: %v", err)
	}
	if got := s.Threads(); !slices.Equal(got, []int{100}) {
		t.Errorf("threads %v, want [100]", got)
	}
	if e := s.Execs(); len(e) != 1 || e[0].Thread != 102 {
		t.Errorf("execs %+v, want one by thread 102", e)
	}
}
