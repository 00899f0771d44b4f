package debugger

import (
	"strings"
	"testing"
	"time"

	"github.com/sfdbg/sfdbg/debugger/proc"
)

// waitExited waits until pid has exited (gone, or a zombie waiting for its
// parent, the test) and reports whether it did within two seconds.
func waitExited(pid int) bool {
	deadline := time.Now().Add(2 * time.Second)
	for time.Now().Before(deadline) {
		if st := proc.ProcState(pid); st == 0 || st == 'Z' {
			return true
		}
		time.Sleep(10 * time.Millisecond)
	}
	return false
}

func TestLiveKillAfterAttachEndsTheProcess(t *testing.T) {
	for _, mode := range []string{"spin", "threads"} {
		t.Run("a process in mode "+mode+" is gone after kill", func(t *testing.T) {
			// Started as a shell's background job, with SIGINT ignored:
			// Delve's detach-and-SIGINT leaves such a process running.
			cmd := startFixtureIgnoringSIGINT(t, "deep-v3-O2", mode)
			pid := cmd.Process.Pid
			s, ui := attachBatch(t, pid)
			defer s.Close()
			out := run(t, s, ui, "kill")
			if !waitExited(pid) {
				t.Fatalf("process %d still alive after kill (state %q, TracerPid %s):\n%s",
					pid, proc.ProcState(pid), proc.ProcStatus(pid)["TracerPid"], out)
			}
			if s.Target() != nil {
				t.Error("target still set after kill")
			}
		})
	}
}

func TestLiveKillAtATerminalAsksFirst(t *testing.T) {
	cmd := startFixtureIgnoringSIGINT(t, "deep-v3-O2", "spin")
	pid := cmd.Process.Pid
	tg, err := Attach(pid)
	skipIfNoPtrace(t, err)
	if err != nil {
		t.Fatal(err)
	}
	ui := &ScriptUI{Echo: true, Terminal: true, Lines: []string{"kill", "n", "bt 1", "kill", "y"}}
	s := NewSession(tg, ui)
	defer s.Close()
	if err := s.Run(); err != nil {
		t.Fatal(err)
	}
	out := ui.Out.String()
	if strings.Count(out, "Kill the program being debugged? (y or n) ") != 2 || !strings.Contains(out, "Not confirmed.") ||
		!strings.Contains(out, "#0  0x") {
		t.Errorf("kill did not ask, or the answer n did not keep the session:\n%s", out)
	}
	if !waitExited(pid) {
		t.Fatalf("process %d still alive after kill confirmed with y (state %q):\n%s", pid, proc.ProcState(pid), out)
	}
}
