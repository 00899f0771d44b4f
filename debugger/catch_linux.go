package debugger

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"github.com/sirupsen/logrus"
	"golang.org/x/sys/unix"

	"github.com/sfdbg/sfdbg/compare"
	"github.com/sfdbg/sfdbg/debugger/proc"
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
	tr := proc.NewTracer()
	defer tr.Close()
	tr.Do(func() { err = c.run(path, argv) })
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
	pid, ws, ended, err := proc.StartTraced(path, argv, &os.ProcAttr{Env: c.opts.Env, Files: files}, o, true)
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
		tid, err := proc.Wait4(-1, &ws, unix.WALL)
		if err != nil {
			return fmt.Errorf("wait for process %d: %w", pid, err)
		}
		if done := c.event(tid, ws); done {
			return nil
		}
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
		if proc.IsStopSignal(ws.StopSignal()) {
			proc.Ptrace4(unix.PTRACE_LISTEN, tid, 0, 0)
		} else {
			proc.Cont(tid, 0)
		}
	case ws.StopSignal() == syscall.SIGTRAP && ws.TrapCause() > 0:
		c.ptraceEvent(tid, ws.TrapCause())
		proc.Cont(tid, 0)
	default:
		sig := ws.StopSignal()
		si, err := getSiginfo(tid)
		if err == nil && fatalSignals[sig] && c.reported(proc.TgidOf(tid)) && fatalFor(proc.TgidOf(tid), sig) {
			c.crash(tid, sig, si)
		}
		proc.Cont(tid, sig)
	}
	return false
}

// reported reports whether crashes of process pid are reported: the
// program's always, another process's (a child it forked) with FollowFork.
// (PTRACE_O_TRACECLONE also traces a child made by clone with an exit
// signal other than SIGCHLD, a process of its own.)
func (c *catcher) reported(pid int) bool { return pid == c.first || c.opts.FollowFork }

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
			if id != tid && (id == old || !proc.ProcessExists(id)) {
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

// getSiginfo is PTRACE_GETSIGINFO.
func getSiginfo(tid int) (*siginfo, error) {
	var si siginfo
	if err := proc.Ptrace4(unix.PTRACE_GETSIGINFO, tid, 0, uintptr(unsafe.Pointer(&si))); err != nil {
		return nil, err
	}
	return &si, nil
}

func readLink(p string) string {
	s, _ := os.Readlink(p)
	return s
}
