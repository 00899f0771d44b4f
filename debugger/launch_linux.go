package debugger

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Launch starts argv[0] with arguments argv[1:] stopped at its first
// instruction (the dynamic loader's entry for a dynamic executable), to be
// debugged on sfdbg's own ptrace loop as attach's processes are (a
// liveTarget, Launched): a fatal signal then stops it where it arrives,
// as in gdb, which Delve's native backend cannot do (v1.27.2's
// trapWaitInternal resumes every signal but SIGTRAP itself). The program
// is started with PTRACE_TRACEME in a process group of its own, and seized
// with PTRACE_SEIZE after its execve (startTraced), so that
// PTRACE_INTERRUPT and job control work. Its standard streams are
// sfdbg's, and at a terminal it has the terminal while it runs
// (terminal); wd is its working directory ("" for sfdbg's).
func Launch(argv []string, wd string) (Target, error) {
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
	tr := newTracer()
	var pid int
	var err error
	var ws unix.WaitStatus
	var ended bool
	tr.do(func() {
		pid, ws, ended, err = startTraced(path, argv, &os.ProcAttr{Dir: wd, Files: []*os.File{os.Stdin, os.Stdout, os.Stderr},
			Sys: &syscall.SysProcAttr{Setpgid: true}}, seizeOptions, false)
	})
	if err == nil && ended {
		err = fmt.Errorf("process %d ended before it ran (%v)", pid, ws)
	}
	if err != nil {
		tr.close()
		return nil, fmt.Errorf("cannot run %s: %w", argv[0], err)
	}
	s := &Stop{
		pid:     pid,
		tr:      tr,
		ops:     sysOps{},
		threads: map[int]*seizedThread{pid: {tid: pid, want: true, stopped: true}},
		mem:     NewProcMemory(pid),
		kick:    make(chan struct{}, 1),
		Timeout: 2 * time.Second,
		// As Seize leaves a Stop: held, and stopping until the first
		// resume (a thread created before it stays stopped).
		held:     true,
		stopping: true,
	}
	tr.do(func() {
		t := s.threads[pid]
		t.regsOK = true
		if t.regsErr = s.ops.regs(pid, &t.raw); t.regsErr == nil {
			t.regs = regsFromPtrace(&t.raw)
		} else {
			t.regsErr = fmt.Errorf("read registers of thread %d: %w", pid, t.regsErr)
		}
		s.mem.readThrough(pid)
	})
	lt := &liveTarget{st: s, launched: true, term: newTerminal(pid)}
	s.sigintStops = lt.term != nil
	return lt, nil
}
