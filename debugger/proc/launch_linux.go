package proc

import (
	"fmt"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Launch starts path with arguments argv stopped at its first instruction
// (the dynamic loader's entry for a dynamic executable), traced on its own
// tracer thread as Seize's processes are: held, and stopping until the
// first resume. The program is started with PTRACE_TRACEME in a process
// group of its own and seized with PTRACE_SEIZE after its execve
// (StartTraced), so that PTRACE_INTERRUPT and job control work. Its
// standard streams are sfdbg's; wd is its working directory ("" for
// sfdbg's). Errors name argv[0].
func Launch(path string, argv []string, wd string) (*Stop, error) {
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
	return s, nil
}

// SetSIGINTStops says whether a SIGINT the program receives stops it and
// is dropped (a program that has sfdbg's terminal while it runs: the
// user's ^C is for sfdbg).
func (s *Stop) SetSIGINTStops(v bool) {
	s.mu.Lock()
	s.sigintStops = v
	s.mu.Unlock()
}
