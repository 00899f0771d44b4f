package debugger

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/go-delve/delve/pkg/logflags"
	"github.com/go-delve/delve/pkg/proc"
	"github.com/go-delve/delve/pkg/proc/native"
	"github.com/sfdbg/sfdbg/frames"
	"github.com/sfdbg/sfdbg/sframe/rule"
)

// DelveTarget is a live process under Delve's native backend (pkg/proc/native
// and pkg/proc): attach, launch, threads, registers, breakpoints, continue,
// stepi, detach. Delve issues every ptrace request from its own locked OS
// thread. Stack memory is read with process_vm_readv (ProcMemory), with the
// original bytes shown where Delve has inserted breakpoints.
type DelveTarget struct {
	grp      *proc.TargetGroup
	pid      int
	launched bool
	mem      *ProcMemory

	mu      sync.Mutex // guards the fields below against Interrupt/Detach
	running bool
	dead    bool // detached, killed or exited
	exited  bool
	status  int
	mods    *frames.Modules
	modsOK  bool // mods is current (no resume since it was read)
	bpAddrs map[uint64]bool
	execed  bool // detached because the process called execve
}

func init() {
	// Delve logs through its own loggers; keep them quiet unless asked.
	logflags.Setup(false, "", "")
}

// Attach attaches to process pid, stopping it, for a debugging session.
// Every thread is seized with PTRACE_SEIZE (Stop), which sends no signal:
// a running process is debugged on sfdbg's own ptrace loop (liveTarget,
// which says why Delve's attach is not used), and a process in a group
// stop (state T: SIGSTOP, Ctrl-Z) stays stopped (stoppedTarget). A leader
// that called pthread_exit is no obstacle: its live threads are debugged.
// Errors are *AttachError with one sentence for humans.
func Attach(pid int) (Target, error) {
	if err := checkPid(pid); err != nil {
		return nil, err
	}
	stopped := ProcState(pid) == 'T'
	st, err := Seize(pid)
	if err != nil {
		return nil, err
	}
	if stopped {
		return &stoppedTarget{st: st}, nil
	}
	return &liveTarget{st: st}, nil
}

// Launch starts argv[0] with arguments argv[1:] under Delve, stopped at its
// first instruction (the dynamic loader's entry for a dynamic executable).
// The program's standard streams are sfdbg's. wd is its working directory
// ("" for sfdbg's).
func Launch(argv []string, wd string) (*DelveTarget, error) {
	if len(argv) == 0 {
		return nil, errors.New("launch: no program given")
	}
	path := argv[0]
	if !strings.Contains(path, "/") {
		if _, err := os.Stat(path); err != nil {
			// A relative $PATH entry is fine here (exec.ErrDot): the user
			// named the program, as in a shell.
			if p, err := exec.LookPath(path); err == nil || errors.Is(err, exec.ErrDot) {
				path = p
			}
		}
	}
	if st, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("cannot run %s: %w", argv[0], err)
	} else if st.IsDir() || st.Mode()&0o111 == 0 {
		return nil, fmt.Errorf("cannot run %s: not an executable file", argv[0])
	}
	cmd := append([]string{path}, argv[1:]...)
	// The program's stderr is sfdbg's (a duplicate, which Delve closes
	// after the start), not the os.Stderr swapped out below.
	var errOR proc.OutputRedirect
	if fd, err := syscall.Dup(2); err == nil {
		errOR.File = os.NewFile(uintptr(fd), "stderr")
	}
	var grp *proc.TargetGroup
	var err error
	withoutDelveWarnings(func() {
		grp, err = native.Launch(cmd, wd, 0, nil, "", "", proc.OutputRedirect{}, errOR)
	})
	if err != nil {
		return nil, fmt.Errorf("cannot run %s: %w", argv[0], err)
	}
	return newDelveTarget(grp, grp.Selected.Pid(), true), nil
}

// withoutDelveWarnings runs f with os.Stderr pointing to /dev/null: Delve
// prints "Warning: no debug info found, some functionality will be
// missing..." straight to os.Stderr for binaries without DWARF, which is
// wrong for sfdbg (it unwinds and symbolizes without Delve's DWARF).
func withoutDelveWarnings(f func()) {
	devnull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		f()
		return
	}
	saved := os.Stderr
	os.Stderr = devnull
	defer func() {
		os.Stderr = saved
		devnull.Close()
	}()
	f()
}

func newDelveTarget(grp *proc.TargetGroup, pid int, launched bool) *DelveTarget {
	return &DelveTarget{grp: grp, pid: pid, launched: launched, mem: NewProcMemory(pid), bpAddrs: map[uint64]bool{}}
}

// Pid implements Target.
func (t *DelveTarget) Pid() int { return t.pid }

// Launched implements Target.
func (t *DelveTarget) Launched() bool { return t.launched }

// Exited implements Target.
func (t *DelveTarget) Exited() (bool, int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.exited, t.status
}

func (t *DelveTarget) live() (*proc.Target, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.exited {
		return nil, fmt.Errorf("process %d: %w (status %d)", t.pid, ErrExited, t.status)
	}
	if t.dead {
		return nil, fmt.Errorf("process %d is no longer being debugged", t.pid)
	}
	return t.grp.Selected, nil
}

// Threads implements Target.
func (t *DelveTarget) Threads() ([]int, error) {
	tgt, err := t.live()
	if err != nil {
		return nil, err
	}
	var tids []int
	for _, th := range tgt.ThreadList() {
		tids = append(tids, th.ThreadID())
	}
	sortTids(tids, t.pid)
	return tids, nil
}

// ThreadName implements Target.
func (t *DelveTarget) ThreadName(tid int) string {
	return threadName(t.pid, tid)
}

func (t *DelveTarget) thread(tid int) (proc.Thread, *proc.Target, error) {
	tgt, err := t.live()
	if err != nil {
		return nil, nil, err
	}
	for _, th := range tgt.ThreadList() {
		if th.ThreadID() == tid {
			return th, tgt, nil
		}
	}
	return nil, nil, fmt.Errorf("no thread %d in process %d", tid, t.pid)
}

// Regs implements Target.
func (t *DelveTarget) Regs(tid int) (frames.Regs, error) {
	th, tgt, err := t.thread(tid)
	if err != nil {
		return frames.Regs{}, err
	}
	r, err := th.Registers()
	if err != nil {
		return frames.Regs{}, fmt.Errorf("registers of thread %d: %w", tid, err)
	}
	dr := tgt.BinInfo().Arch.RegistersToDwarfRegisters(0, r)
	regs := frames.NewRegs(hostArch)
	for i := 0; i < dr.CurrentSize() && i < frames.MaxReg; i++ {
		if dr.Reg(uint64(i)) != nil {
			regs.Set(rule.Reg(i), dr.Uint64Val(uint64(i)))
		}
	}
	return regs, nil
}

// RegList implements Target.
func (t *DelveTarget) RegList(tid int) ([]RegValue, error) {
	th, _, err := t.thread(tid)
	if err != nil {
		return nil, err
	}
	r, err := th.Registers()
	if err != nil {
		return nil, err
	}
	sl, err := r.Slice(false)
	if err != nil {
		return nil, err
	}
	byName := map[string]uint64{}
	var names []string
	for _, reg := range sl {
		// orig_rax is Linux's, not a register gdb prints.
		if reg.Reg == nil || len(reg.Reg.Bytes) > 8 || strings.EqualFold(reg.Name, "orig_rax") {
			continue
		}
		n := strings.ToLower(reg.Name)
		if n == "rflags" {
			n = "eflags"
		}
		byName[n] = reg.Reg.Uint64Val
		names = append(names, n)
	}
	var out []RegValue
	seen := map[string]bool{}
	for _, n := range gdbRegOrder {
		if v, ok := byName[n]; ok {
			out = append(out, RegValue{n, v})
			seen[n] = true
		}
	}
	for _, n := range names {
		if !seen[n] {
			out = append(out, RegValue{n, byName[n]})
		}
	}
	return out, nil
}

var gdbRegOrder = []string{"rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "rsp",
	"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "rip", "eflags",
	"cs", "ss", "ds", "es", "fs", "gs", "fs_base", "gs_base"}

// Space implements Target.
func (t *DelveTarget) Space() (*frames.Space, error) {
	tgt, err := t.live()
	if err != nil {
		return nil, err
	}
	mem := &bpMemory{mem: t.mem, tgt: tgt}
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.modsOK {
		mods, err := loadModules(t.pid, t.mem)
		if err != nil {
			return nil, fmt.Errorf("modules of process %d: %w", t.pid, err)
		}
		t.mods = keepModules(t.mods, mods)
		t.modsOK = true
	}
	return &frames.Space{Mem: mem, Modules: t.mods}, nil
}

// bpMemory shows the original bytes under Delve's breakpoints.
type bpMemory struct {
	mem *ProcMemory
	tgt *proc.Target
}

func (m *bpMemory) ReadAt(p []byte, addr uint64) (int, error) {
	n, err := m.mem.ReadAt(p, addr)
	for a, bp := range m.tgt.Breakpoints().M {
		if bp == nil || len(bp.OriginalData) == 0 {
			continue
		}
		for i, b := range bp.OriginalData {
			if x := a + uint64(i); x >= addr && x < addr+uint64(n) {
				p[x-addr] = b
			}
		}
	}
	return n, err
}

// SetBreakpoint implements Target.
func (t *DelveTarget) SetBreakpoint(addr uint64) error {
	tgt, err := t.live()
	if err != nil {
		return err
	}
	if _, err := tgt.SetBreakpoint(0, addr, proc.UserBreakpoint, nil); err != nil {
		var exists proc.BreakpointExistsError
		if errors.As(err, &exists) {
			return nil
		}
		return fmt.Errorf("cannot insert a breakpoint at %#x: %w", addr, err)
	}
	t.mu.Lock()
	t.bpAddrs[addr] = true
	t.mu.Unlock()
	return nil
}

// ClearBreakpoint implements Target.
func (t *DelveTarget) ClearBreakpoint(addr uint64) error {
	tgt, err := t.live()
	if err != nil {
		t.mu.Lock()
		execed := t.execed
		t.mu.Unlock()
		if execed {
			return nil // the exec removed it with the old program
		}
		return err
	}
	t.mu.Lock()
	delete(t.bpAddrs, addr)
	t.mu.Unlock()
	if err := tgt.ClearBreakpoint(addr); err != nil {
		return fmt.Errorf("cannot remove the breakpoint at %#x: %w", addr, err)
	}
	return nil
}

func (t *DelveTarget) resumed() {
	t.mem.Invalidate()
	t.mu.Lock()
	t.modsOK = false
	t.mu.Unlock()
}

// Continue implements Target.
func (t *DelveTarget) Continue() (Event, error) {
	if _, err := t.live(); err != nil {
		return Event{}, err
	}
	t.resumed()
	t.mu.Lock()
	t.running = true
	t.mu.Unlock()
	image := programImage(t.pid)
	err := t.grp.Continue()
	t.mu.Lock()
	t.running = false
	t.mu.Unlock()
	if err != nil {
		if eerr := t.checkExec(image); eerr != nil {
			return Event{}, eerr
		}
	}
	return t.event(err)
}

// ExecError says that the process called execve during a resume. Delve's
// native backend does not follow an exec (its threads, modules and
// breakpoints are those of the old program, and its next ptrace request
// fails with EIO), so sfdbg detaches and the new program runs on.
type ExecError struct {
	Pid  int
	Path string // the new program, from /proc/PID/exe
}

func (e *ExecError) Error() string {
	return fmt.Sprintf("process %d is executing new program: %s\nsfdbg does not follow an exec: detached from process %d (it runs on); attach again to debug the new program", e.Pid, e.Path, e.Pid)
}

// programImage identifies the program process pid runs: its executable
// and its auxiliary vector (AT_ENTRY, AT_PHDR, AT_RANDOM, AT_EXECFN change
// at every execve).
func programImage(pid int) string {
	exe, _ := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
	auxv, _ := os.ReadFile(fmt.Sprintf("/proc/%d/auxv", pid))
	return exe + "\x00" + string(auxv)
}

// checkExec returns an *ExecError, after detaching, when the process no
// longer runs the program image identified.
func (t *DelveTarget) checkExec(image string) error {
	if !processExists(t.pid) || ProcState(t.pid) == 'Z' {
		return nil
	}
	now := programImage(t.pid)
	if now == image || now == "\x00" {
		return nil
	}
	if !t.markDead() {
		return nil
	}
	t.mu.Lock()
	t.execed = true
	t.mu.Unlock()
	// The breakpoints' addresses belong to the old program: restoring
	// their bytes would write into the new one. The exec removed them.
	tgt := t.grp.Selected
	for addr := range tgt.Breakpoints().M {
		delete(tgt.Breakpoints().M, addr)
	}
	// Threads that the exec ended may make Delve's detach stop early
	// (ESRCH); try again while the process is still traced by sfdbg.
	self := strconv.Itoa(os.Getpid())
	for i := 0; i < 8; i++ {
		t.grp.Detach(false)
		if procStatus(t.pid)["TracerPid"] != self {
			break
		}
	}
	if st := ProcState(t.pid); st == 't' || st == 'T' {
		syscall.Kill(t.pid, syscall.SIGCONT)
	}
	exe, _ := os.Readlink(fmt.Sprintf("/proc/%d/exe", t.pid))
	return &ExecError{Pid: t.pid, Path: exe}
}

// StepInstruction implements Target.
func (t *DelveTarget) StepInstruction(tid int) (Event, error) {
	tgt, err := t.live()
	if err != nil {
		return Event{}, err
	}
	if err := tgt.SwitchThread(tid); err != nil {
		return Event{}, err
	}
	t.resumed()
	image := programImage(t.pid)
	err = t.grp.StepInstruction(false)
	if err != nil {
		if eerr := t.checkExec(image); eerr != nil {
			return Event{}, eerr
		}
	}
	return t.event(err)
}

// event turns the result of a Delve resume into an Event.
func (t *DelveTarget) event(err error) (Event, error) {
	var pe proc.ErrProcessExited
	if errors.As(err, &pe) {
		t.mu.Lock()
		t.exited, t.dead, t.status = true, true, pe.Status
		t.mu.Unlock()
		t.grp.Detach(false) // releases Delve's state; the process is gone
		return Event{Kind: EventExited, Status: pe.Status}, nil
	}
	if err != nil {
		return Event{}, err
	}
	tgt := t.grp.Selected
	th := tgt.CurrentThread()
	ev := Event{Kind: EventStopped}
	if th != nil {
		ev.Thread = th.ThreadID()
		if r, err := th.Registers(); err == nil {
			ev.PC = r.PC()
		}
	}
	switch tgt.StopReason {
	case proc.StopManual:
		ev.Kind = EventInterrupt
	case proc.StopWatchpoint:
		// The thread that wrote: its breakpoint is the watchpoint.
		for _, o := range tgt.ThreadList() {
			if bp := o.Breakpoint().Breakpoint; bp != nil && bp.WatchType != 0 {
				ev.Kind, ev.Thread, ev.Watch = EventWatchpoint, o.ThreadID(), bp.Addr
				if r, err := o.Registers(); err == nil {
					ev.PC = r.PC()
				}
				break
			}
		}
	case proc.StopBreakpoint, proc.StopHardcodedBreakpoint:
		ev.Kind = EventBreakpoint
		// The thread at a user breakpoint, if the current one is not.
		if th == nil || th.Breakpoint().Breakpoint == nil {
			for _, o := range tgt.ThreadList() {
				if bp := o.Breakpoint().Breakpoint; bp != nil && t.bpAddrs[bp.Addr] {
					ev.Thread, ev.PC = o.ThreadID(), bp.Addr
					break
				}
			}
		}
	}
	return ev, nil
}

// Interrupt implements Target.
func (t *DelveTarget) Interrupt() error {
	t.mu.Lock()
	running := t.running
	t.mu.Unlock()
	if !running {
		return nil
	}
	return t.grp.RequestManualStop()
}

// Detach implements Target. Delve removes every breakpoint before it
// detaches; a process found in the stopped state afterwards gets SIGCONT.
// (A process that was stopped before the attach is a stoppedTarget, never
// a DelveTarget.)
func (t *DelveTarget) Detach() error {
	if !t.markDead() {
		return nil
	}
	err := t.grp.Detach(false)
	if err != nil && !processExists(t.pid) {
		return nil
	}
	if st := ProcState(t.pid); st == 't' || st == 'T' {
		// Make sure nothing is left stopped by the attach's SIGSTOP.
		syscall.Kill(t.pid, syscall.SIGCONT)
	}
	return err
}

// Kill implements Target. A process Delve started is killed by Delve. A
// process it attached to, Delve would only detach from and send SIGINT,
// which a process that ignores or handles SIGINT (a shell's background
// job) survives: it gets SIGKILL while still traced, its threads are
// reaped as its tracer (its parent then sees it killed), and only then is
// Delve's state released.
func (t *DelveTarget) Kill() error {
	if !t.markDead() {
		return nil
	}
	if t.launched {
		return t.grp.Detach(true)
	}
	tids, _ := listTasks(t.pid)
	if err := syscall.Kill(t.pid, syscall.SIGKILL); err != nil && err != syscall.ESRCH {
		return fmt.Errorf("kill process %d: %w", t.pid, err)
	}
	err := reapKilled(t.pid, tids)
	t.grp.Detach(true) // the threads are gone: this only releases Delve's state
	return err
}

// reapKilled waits, as their tracer, for the threads tids of process pid,
// which was sent SIGKILL: the other threads first, then the leader, which
// exits last. Any thread of sfdbg may wait for a tracee (wait4 looks at the
// tracees of every thread of the caller's thread group).
func reapKilled(pid int, tids []int) error {
	deadline := time.Now().Add(5 * time.Second)
	order := append(slices.DeleteFunc(slices.Clone(tids), func(tid int) bool { return tid == pid }), pid)
	for _, tid := range order {
		for {
			var ws syscall.WaitStatus
			wpid, err := syscall.Wait4(tid, &ws, syscall.WALL|syscall.WNOHANG, nil)
			if err == syscall.EINTR {
				continue
			}
			if err != nil || (wpid == tid && (ws.Exited() || ws.Signaled())) {
				break // ECHILD: reaped already, or not ours
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("process %d was sent SIGKILL but thread %d has not exited after 5 s", pid, tid)
			}
			time.Sleep(time.Millisecond)
		}
	}
	return nil
}

// markDead marks the target dead and reports whether it was alive: the
// caller that gets true releases the process, once.
func (t *DelveTarget) markDead() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.dead {
		return false
	}
	t.dead = true
	return true
}

// Breakpoints returns the addresses of the user breakpoints, sorted.
func (t *DelveTarget) Breakpoints() []uint64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]uint64, 0, len(t.bpAddrs))
	for a := range t.bpAddrs {
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}
