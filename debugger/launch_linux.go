package debugger

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/sfdbg/sfdbg/debugger/proc"
)

// Launch starts argv[0] with arguments argv[1:] stopped at its first
// instruction (the dynamic loader's entry for a dynamic executable), to be
// debugged on sfdbg's own ptrace loop as attach's processes are (a
// liveTarget, Launched): a fatal signal then stops it where it arrives,
// as in gdb, which Delve's native backend cannot do (v1.27.2's
// trapWaitInternal resumes every signal but SIGTRAP itself). The program
// is started with PTRACE_TRACEME in a process group of its own, and seized
// with PTRACE_SEIZE after its execve (proc.Launch), so that
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
	s, err := proc.Launch(path, argv, wd)
	if err != nil {
		return nil, err
	}
	lt := &liveTarget{st: s, launched: true, term: newTerminal(s.Pid())}
	s.SetSIGINTStops(lt.term != nil)
	return lt, nil
}
