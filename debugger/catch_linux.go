package debugger

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"

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

// catcher is Catch's policy over a proc.Tree: which signal holds a
// process, and what is done while it is held.
type catcher struct {
	opts  CatchOptions
	first int // the PID of the program started
	res   *CatchResult
}

// Catch runs argv (argv[0] found in $PATH) under ptrace, as glibc's
// catchsegv did: every signal is passed to the program as usual, but on a
// signal that is fatal for it (proc.CrashSignal: SIGSEGV, SIGBUS, SIGFPE,
// SIGILL, SIGABRT, SIGSYS or SIGTRAP, with no handler installed and not
// ignored: /proc/PID/status SigCgt, SigIgn), every thread of the process
// is held (PTRACE_INTERRUPT), the crashing thread's backtrace (every
// thread's with AllThreads) is taken with compare.Unwind and given to
// OnCrash, and then the signal is delivered, so that the program dies of
// it as it would have (with a core if cores are enabled). Programs the
// process executes are followed (modules are read afresh at each crash);
// forked children only with FollowFork.
//
// It returns when the program started exits, with how it ended. Errors
// are those of starting the program (*os.PathError, exec.ErrNotFound
// wrapped) or of ptrace itself; Linux only. The tracing is proc.Tree's:
// the program is started with PTRACE_TRACEME and traced from its first
// instruction with PTRACE_SEIZE, so that job control works as without
// sfdbg: a SIGSTOP or SIGTSTP (Ctrl-Z) stops the program (PTRACE_LISTEN),
// SIGCONT resumes it. Processes still running when the program exits are
// let go by the kernel.
func Catch(argv []string, opts CatchOptions) (*CatchResult, error) {
	if len(argv) == 0 {
		return nil, errors.New("catch: no program given")
	}
	path, err := lookPath(argv[0])
	if err != nil {
		return nil, err
	}
	c := &catcher{opts: opts}
	files := opts.Files
	if files == nil {
		files = []*os.File{os.Stdin, os.Stdout, os.Stderr}
	}
	tree, err := proc.StartTree(path, argv, proc.TreeOptions{
		FollowFork: opts.FollowFork,
		Attr:       os.ProcAttr{Env: opts.Env, Files: files},
		Policy:     c.holds,
	})
	if err != nil {
		if errors.Is(err, syscall.EPERM) {
			return nil, fmt.Errorf("cannot trace %s: %w", path, err)
		}
		return nil, err
	}
	defer tree.Close()
	c.first = tree.Pid()
	c.res = &CatchResult{Pid: c.first}
	if opts.Started != nil && !tree.Ended() {
		opts.Started(c.first)
	}
	for {
		ev := tree.Next()
		if ev.Ended {
			c.ended(ev.Status)
			return c.res, nil
		}
		c.crash(ev)
	}
}

// holds is the Tree's signal policy: a crash signal for which the process
// has no handler, in the program or (with FollowFork) a process it forked,
// holds the process; every signal is passed on. It runs on the tracer
// thread, with thread tid in the signal's delivery stop.
func (c *catcher) holds(pid, tid int, sig syscall.Signal) (stop, pass bool) {
	if !proc.CrashSignal(sig) {
		return false, true
	}
	// PTRACE_O_TRACECLONE also traces a child made by clone with an exit
	// signal other than SIGCHLD: a process of its own, under the Stop of
	// its parent.
	tg := proc.TgidOf(tid)
	if tg != c.first && !c.opts.FollowFork {
		return false, true
	}
	return fatalFor(tg, sig), true
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

// ended records how the program started ended.
func (c *catcher) ended(ws unix.WaitStatus) {
	if ws.Signaled() {
		c.res.Signal = ws.Signal()
		c.res.CoreDumped = ws.CoreDump()
	} else {
		c.res.ExitCode = ws.ExitStatus()
	}
	logrus.Debugf("catch: process %d ended (%#x)", c.first, uint32(ws))
}
