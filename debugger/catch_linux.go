package debugger

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"github.com/sirupsen/logrus"
	"golang.org/x/sys/unix"

	"github.com/sfdbg/sfdbg/compare"
)

// CatchOptions configure Catch.
type CatchOptions struct {
	// Trace are the unwinding options of the backtraces (as sfdbg bt's).
	Trace compare.Options
	// AllThreads unwinds every thread of a crashing process, not only
	// the one that received the signal.
	AllThreads bool
	// FollowFork traces the processes the program forks (and theirs),
	// and reports their crashes too (PTRACE_O_TRACEFORK, _TRACEVFORK).
	FollowFork bool
	// Env is the program's environment (nil: sfdbg's).
	Env []string
	// Files are the program's stdin, stdout and stderr (nil: sfdbg's).
	Files []*os.File
	// OnCrash is called for every crash while the process is still held,
	// before the signal is delivered; a report printed there comes before
	// anything the program's dying writes.
	OnCrash func(*Crash)
	// Started, if set, is called with the program's PID once it runs.
	Started func(pid int)
}

// fatalSignals are the signals Catch stops on, when the program has no
// handler for them: the ones whose default action dumps core because the
// program faulted (or asked to, with abort).
var fatalSignals = map[syscall.Signal]bool{
	syscall.SIGSEGV: true, syscall.SIGBUS: true, syscall.SIGFPE: true,
	syscall.SIGILL: true, syscall.SIGABRT: true, syscall.SIGTRAP: true,
}

// catchThread is one traced thread.
type catchThread struct {
	tid int
	// During a crash: held in a stop, the signal to pass on resuming, and
	// whether the stop is a group stop (resumed with PTRACE_LISTEN).
	held       bool
	pendingSig syscall.Signal
	groupStop  bool
}

type catcher struct {
	opts    CatchOptions
	first   int // the PID of the program started
	threads map[int]*catchThread
	res     *CatchResult
}

// holdTimeout bounds how long Catch waits for one thread of a crashing
// process to stop (a thread in uninterruptible sleep stops when it leaves
// it).
const holdTimeout = 2 * time.Second

// Catch runs argv (argv[0] found in $PATH) under ptrace, as glibc's
// catchsegv did: every signal is passed to the program as usual, but on a
// signal that is fatal for it (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT or
// SIGTRAP, with no handler installed and not ignored: /proc/PID/status
// SigCgt, SigIgn), every thread of the process is held with SIGSTOP, the
// crashing thread's backtrace (every thread's with AllThreads) is taken with
// compare.Unwind and given to OnCrash, and then the signal is delivered, so
// that the program dies of it as it would have (with a core if cores are
// enabled). Programs the process executes are followed (modules are read
// afresh at each crash); forked children only with FollowFork.
//
// It returns when the program started exits, with how it ended. Errors
// are those of starting the program (*os.PathError, exec.ErrNotFound
// wrapped) or of ptrace itself; Linux only, all ptrace requests from one
// locked OS thread.
//
// The program is started with PTRACE_TRACEME (the only way os.StartProcess
// offers), stopped at its first instruction with SIGSTOP, and traced from
// there on with PTRACE_SEIZE, so that job control works as without sfdbg:
// a SIGSTOP or SIGTSTP (Ctrl-Z) stops the program (PTRACE_LISTEN), SIGCONT
// resumes it. Processes still running when the program exits are detached
// by the kernel.
func Catch(argv []string, opts CatchOptions) (*CatchResult, error) {
	if len(argv) == 0 {
		return nil, errors.New("catch: no program given")
	}
	path, err := lookPath(argv[0])
	if err != nil {
		return nil, err
	}
	c := &catcher{opts: opts, threads: map[int]*catchThread{}}
	tr := newTracer()
	defer tr.close()
	tr.do(func() { err = c.run(path, argv) })
	return c.res, err
}

// lookPath finds a program as execvp does: a name with a slash is a path.
func lookPath(name string) (string, error) {
	if strings.Contains(name, "/") {
		st, err := os.Stat(name)
		if err != nil {
			return "", err
		}
		if st.IsDir() || st.Mode()&0o111 == 0 {
			return "", &os.PathError{Op: "exec", Path: name, Err: syscall.EACCES}
		}
		return name, nil
	}
	return exec.LookPath(name)
}

// run runs on the tracer thread.
func (c *catcher) run(path string, argv []string) error {
	files := c.opts.Files
	if files == nil {
		files = []*os.File{os.Stdin, os.Stdout, os.Stderr}
	}
	o := unix.PTRACE_O_TRACECLONE | unix.PTRACE_O_TRACEEXEC
	if c.opts.FollowFork {
		o |= unix.PTRACE_O_TRACEFORK | unix.PTRACE_O_TRACEVFORK
	}
	pid, ws, ended, err := startTraced(path, argv, &os.ProcAttr{Env: c.opts.Env, Files: files}, o, true)
	if err != nil {
		if errors.Is(err, syscall.EPERM) {
			return fmt.Errorf("cannot trace %s: %w", path, err)
		}
		return err
	}
	c.first = pid
	c.res = &CatchResult{Pid: pid}
	if ended {
		c.ended(ws)
		return nil
	}
	c.threads[pid] = &catchThread{tid: pid}
	if c.opts.Started != nil {
		c.opts.Started(pid)
	}
	for {
		tid, err := wait4(-1, &ws, unix.WALL)
		if err != nil {
			return fmt.Errorf("wait for process %d: %w", pid, err)
		}
		if done := c.event(tid, ws); done {
			return nil
		}
	}
}

// startTraced starts path with arguments argv under PTRACE_TRACEME, on
// the tracer thread, and seizes it after its execve (seizeAfterExec with
// the options o; run: leave it running, else stopped at its first
// instruction). A program that ends before that stop is not an error:
// ended is true, with pid and its wait status ws. On an error no process
// is left behind; EPERM means ptrace is refused.
func startTraced(path string, argv []string, attr *os.ProcAttr, o int, run bool) (pid int, ws unix.WaitStatus, ended bool, err error) {
	a := *attr
	sys := syscall.SysProcAttr{}
	if a.Sys != nil {
		sys = *a.Sys
	}
	sys.Ptrace = true
	a.Sys = &sys
	p, err := os.StartProcess(path, argv, &a)
	if errors.Is(err, syscall.EPERM) {
		// PTRACE_TRACEME failed in the child (exec itself fails with EACCES).
		return 0, 0, false, fmt.Errorf("ptrace is not permitted here (a seccomp filter or a container's policy forbids it): %w", err)
	}
	if err != nil {
		return 0, 0, false, err
	}
	pid = p.Pid
	p.Release() // waited for with wait4 on this thread
	// PTRACE_TRACEME: the child stops with SIGTRAP after its execve.
	if _, err := wait4(pid, &ws, unix.WALL); err != nil {
		return 0, 0, false, fmt.Errorf("wait for process %d: %w", pid, err)
	}
	if !ws.Stopped() {
		return pid, ws, true, nil
	}
	if err := seizeAfterExec(pid, o, run); err != nil {
		unix.Kill(pid, syscall.SIGKILL)
		for {
			if _, err := wait4(pid, &ws, unix.WALL); err != nil || ws.Exited() || ws.Signaled() {
				break
			}
		}
		return 0, 0, false, fmt.Errorf("trace process %d: %w", pid, err)
	}
	return pid, 0, false, nil
}

// seizeAfterExec turns the PTRACE_TRACEME tracee pid, in its stop after
// execve, into a PTRACE_SEIZE one with the options o: it detaches it into
// a SIGSTOP group stop, seizes it, and ends the group stop with a SIGCONT
// whose delivery is suppressed (the program sees neither signal). With
// run it leaves the program running; else stopped at its first
// instruction, in the SIGCONT's signal-delivery stop (resumed with
// PTRACE_CONT and no signal, the SIGCONT is dropped). It runs on the
// tracer thread.
func seizeAfterExec(pid int, o int, run bool) error {
	if err := ptrace4(unix.PTRACE_DETACH, pid, 0, uintptr(syscall.SIGSTOP)); err != nil {
		return fmt.Errorf("detach: %w", err)
	}
	var ws unix.WaitStatus
	for {
		// As its parent: WUNTRACED reports the group stop.
		if _, err := wait4(pid, &ws, unix.WUNTRACED); err != nil {
			return err
		}
		if !ws.Stopped() {
			return fmt.Errorf("process %d ended before it ran (%v)", pid, ws)
		}
		if ws.StopSignal() == syscall.SIGSTOP {
			break
		}
	}
	if err := ptrace4(unix.PTRACE_SEIZE, pid, 0, uintptr(o)); err != nil {
		return fmt.Errorf("seize: %w", err)
	}
	// Seizing a stopped process makes it report its group stop.
	for {
		if _, err := wait4(pid, &ws, unix.WALL); err != nil {
			return err
		}
		if !ws.Stopped() {
			return fmt.Errorf("process %d ended before it ran (%v)", pid, ws)
		}
		if int(ws)>>16 == unix.PTRACE_EVENT_STOP {
			break
		}
	}
	// The SIGCONT ends the group stop as it is sent; its delivery (a
	// signal-delivery stop) is suppressed below.
	if err := unix.Kill(pid, syscall.SIGCONT); err != nil {
		return err
	}
	if err := unix.PtraceCont(pid, 0); err != nil {
		return err
	}
	for {
		if _, err := wait4(pid, &ws, unix.WALL); err != nil {
			return err
		}
		if !ws.Stopped() {
			return fmt.Errorf("process %d ended before it ran (%v)", pid, ws)
		}
		sig := ws.StopSignal()
		if sig == syscall.SIGCONT && int(ws)>>16 == 0 {
			if run {
				cont(pid, 0)
			}
			return nil
		}
		cont(pid, 0)
	}
}

// event handles one wait status of tid; it returns true when the program
// started has ended.
func (c *catcher) event(tid int, ws unix.WaitStatus) bool {
	if c.threads[tid] == nil {
		// Auto-attached (PTRACE_O_TRACECLONE, _TRACEFORK), reported
		// before its parent's PTRACE_EVENT_CLONE.
		c.threads[tid] = &catchThread{tid: tid}
	}
	switch {
	case ws.Exited() || ws.Signaled():
		delete(c.threads, tid)
		if tid == c.first {
			c.ended(ws)
			return true
		}
	case !ws.Stopped():
	case int(ws)>>16 == unix.PTRACE_EVENT_STOP:
		// A group stop (SIGSTOP, SIGTSTP, ...): stay stopped until
		// SIGCONT, as without sfdbg. Else a new thread's first stop, the
		// end of a group stop, or the interrupt of a crash's hold that a
		// signal stop came before: go on.
		if isStopSignal(ws.StopSignal()) {
			ptrace4(unix.PTRACE_LISTEN, tid, 0, 0)
		} else {
			cont(tid, 0)
		}
	case ws.StopSignal() == syscall.SIGTRAP && ws.TrapCause() > 0:
		c.ptraceEvent(tid, ws.TrapCause())
		cont(tid, 0)
	default:
		sig := ws.StopSignal()
		si, err := getSiginfo(tid)
		if err == nil && fatalSignals[sig] && c.reported(tgidOf(tid)) && fatalFor(tgidOf(tid), sig) {
			c.crash(tid, sig, si)
		}
		cont(tid, sig)
	}
	return false
}

// reported reports whether crashes of process pid are reported: the
// program's always, another process's (a child it forked) with FollowFork.
// (PTRACE_O_TRACECLONE also traces a child made by clone with an exit
// signal other than SIGCHLD, a process of its own.)
func (c *catcher) reported(pid int) bool { return pid == c.first || c.opts.FollowFork }

// isStopSignal reports whether sig's default action stops the process.
func isStopSignal(sig syscall.Signal) bool {
	switch sig {
	case syscall.SIGSTOP, syscall.SIGTSTP, syscall.SIGTTIN, syscall.SIGTTOU:
		return true
	}
	return false
}

// ptraceEvent handles a PTRACE_EVENT_* stop of tid.
func (c *catcher) ptraceEvent(tid int, ev int) {
	msg, err := unix.PtraceGetEventMsg(tid)
	if err != nil {
		return
	}
	switch ev {
	case unix.PTRACE_EVENT_CLONE, unix.PTRACE_EVENT_FORK, unix.PTRACE_EVENT_VFORK:
		if c.threads[int(msg)] == nil {
			c.threads[int(msg)] = &catchThread{tid: int(msg)} // its first stop is still to come
		}
	case unix.PTRACE_EVENT_EXEC:
		// The thread that called execve now has the process's ID; the
		// other threads are gone without an exit report.
		old := int(msg)
		logrus.Debugf("catch: process %d is executing new program %s", tid, readLink(fmt.Sprintf("/proc/%d/exe", tid)))
		for id := range c.threads {
			if id != tid && (id == old || !processExists(id)) {
				delete(c.threads, id)
			}
		}
	}
}

// ended records how the program started ended.
func (c *catcher) ended(ws unix.WaitStatus) {
	if ws.Signaled() {
		c.res.Signal = ws.Signal()
		c.res.CoreDumped = ws.CoreDump()
	} else {
		c.res.ExitCode = ws.ExitStatus()
	}
}

// tgidOf returns the process (thread group) of thread tid, or tid.
func tgidOf(tid int) int {
	if n, err := strconv.Atoi(procStatus(tid)["Tgid"]); err == nil && n > 0 {
		return n
	}
	return tid
}

// siginfo is the start of the kernel's siginfo_t (64-bit layout): 128 bytes.
type siginfo struct {
	Signo, Errno, Code, _ int32
	Fields                [112]byte
}

// addr is si_addr (CPU faults).
func (s *siginfo) addr() uint64 { return *(*uint64)(unsafe.Pointer(&s.Fields[0])) }

// sender is si_pid and si_uid (kill, tgkill, sigqueue).
func (s *siginfo) sender() (int, int) {
	return int(*(*int32)(unsafe.Pointer(&s.Fields[0]))), int(*(*uint32)(unsafe.Pointer(&s.Fields[4])))
}

// ptrace4 issues a ptrace request with an address and data.
func ptrace4(req, tid int, addr, data uintptr) error {
	_, _, e := unix.Syscall6(unix.SYS_PTRACE, uintptr(req), uintptr(tid), addr, data, 0, 0)
	if e != 0 {
		return e
	}
	return nil
}

// getSiginfo is PTRACE_GETSIGINFO.
func getSiginfo(tid int) (*siginfo, error) {
	var si siginfo
	_, _, e := unix.Syscall6(unix.SYS_PTRACE, unix.PTRACE_GETSIGINFO, uintptr(tid), 0, uintptr(unsafe.Pointer(&si)), 0, 0)
	if e != 0 {
		return nil, e
	}
	return &si, nil
}

func cont(tid int, sig syscall.Signal) {
	if err := unix.PtraceCont(tid, int(sig)); err != nil && !errors.Is(err, syscall.ESRCH) {
		logrus.Debugf("catch: resume thread %d: %v", tid, err)
	}
}

// wait4 is unix.Wait4, retried on EINTR.
func wait4(pid int, ws *unix.WaitStatus, opts int) (int, error) {
	for {
		wpid, err := unix.Wait4(pid, ws, opts, nil)
		if err != syscall.EINTR {
			return wpid, err
		}
	}
}

func readLink(p string) string {
	s, _ := os.Readlink(p)
	return s
}
