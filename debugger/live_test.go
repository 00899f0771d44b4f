package debugger

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sfdbg/sfdbg/debugger/proc"
)

// attachFixture attaches Delve to a running fixture, skipping when ptrace
// is not permitted. The session is closed (detached) when the test ends.
// attachBatch attaches to process pid (skipping the test without ptrace)
// and returns a batch session on it and its script UI; the caller closes
// the session.
func attachBatch(t *testing.T, pid int) (*Session, *ScriptUI) {
	t.Helper()
	tg, err := Attach(pid)
	skipIfNoPtrace(t, err)
	if err != nil {
		t.Fatal(err)
	}
	ui := &ScriptUI{Echo: true}
	s := NewSession(tg, ui)
	s.Batch = true
	return s, ui
}

func attachFixture(t *testing.T, name string, args ...string) (*Session, *ScriptUI, int) {
	t.Helper()
	cmd := startFixture(t, name, args...)
	s, ui := attachBatch(t, cmd.Process.Pid)
	t.Cleanup(func() { s.Close() })
	return s, ui, cmd.Process.Pid
}

// run executes one command and returns its output.
func run(t *testing.T, s *Session, ui *ScriptUI, line string) string {
	t.Helper()
	n := ui.Out.Len()
	if err := s.Execute(line); err != nil {
		t.Fatalf("%s: %v\n%s", line, err, ui.Out.String())
	}
	return ui.Out.String()[n:]
}

// functions returns the function names of a gdb-style backtrace, innermost
// first. A frame line has the function's arguments between its
// parentheses (strings quoted, which may hold parentheses).
func functions(bt string) []string {
	re := regexp.MustCompile(`(?m)^#\d+\s+(?:0x[0-9a-f]+\s+(?:\S+\s+){0,5}?)?(?:in )?(\S+) \((?:[^()"]|"(?:[^"\\]|\\.)*")*\)`)
	var out []string
	for _, m := range re.FindAllStringSubmatch(bt, -1) {
		out = append(out, m[1])
	}
	return out
}

func wantPrefix(t *testing.T, what string, got, want []string) {
	t.Helper()
	if len(got) < len(want) || strings.Join(got[:len(want)], " ") != strings.Join(want, " ") {
		t.Errorf("%s: functions %q, want them to start with %q", what, got, want)
	}
}

func TestLiveBreakContinueFinishDetach(t *testing.T) {
	// "exit 60000": spin_until calls clock_gettime in a loop for 60 s.
	s, ui, pid := attachFixture(t, "deep-v3-O2", "exit", "60000")
	bt := run(t, s, ui, "bt")
	if !strings.Contains(bt, "spin_until") || !strings.Contains(bt, "level4_recursive") {
		t.Errorf("bt after attach lacks the chain:\n%s", bt)
	}
	out := run(t, s, ui, "break clock_gettime")
	if !strings.Contains(out, "Breakpoint 1 at") {
		t.Fatalf("break: %s", out)
	}
	// The attach may have stopped the thread inside libc's clock_gettime,
	// after its entry: its first hit is then the vDSO's location, and the
	// next one libc's entry, in the loop's next call.
	var names []string
	for try := 0; try < 3; try++ {
		out = run(t, s, ui, "continue")
		if !strings.Contains(out, "Breakpoint 1, ") || !strings.Contains(out, "clock_gettime") {
			t.Fatalf("continue did not stop at the breakpoint:\n%s", out)
		}
		bt = run(t, s, ui, "bt")
		if names = functions(bt); len(names) == 0 || names[0] != "__vdso_clock_gettime" {
			break
		}
	}
	if len(names) > 0 && names[0] == "__GI___clock_gettime" {
		names[0] = "clock_gettime" // gdb's DWARF name, where libc6-dbg is installed
	}
	wantPrefix(t, "bt at the breakpoint", names, []string{"clock_gettime", "spin_until", "level6_leafish", "level5_bigframe",
		"level4_recursive", "level4_recursive", "level4_recursive", "level3_indirect", "level2_alloca", "level1", "run_chain", "main"})
	// "break clock_gettime" has two locations, as in gdb: libc's and the
	// vDSO's, which libc's calls. Delete it so finish returns.
	run(t, s, ui, "delete")
	out = run(t, s, ui, "finish")
	if !regexp.MustCompile(`(?m)^(0x[0-9a-f]{16} in )?spin_until \(ms=.*\) at testdata/src/deep.c:\d+\n\d+\t`).MatchString(out) {
		t.Errorf("finish did not return to spin_until:\n%s", out)
	}
	// gdb's stepi in the same function: the source line, after the PC
	// when it is in the middle of the line.
	out = run(t, s, ui, "stepi")
	if !regexp.MustCompile(`(?m)^(0x[0-9a-f]{16}\t)?\d+\t`).MatchString(out) {
		t.Errorf("stepi printed no line:\n%s", out)
	}
	run(t, s, ui, "info frame")
	run(t, s, ui, "info registers rip")
	run(t, s, ui, "detach")
	if s.Target() != nil {
		t.Error("target still set after detach")
	}
	checkRunning(t, pid)
	t.Log("\n" + ui.Out.String())
}

func TestLiveThreadsAndSignalFrames(t *testing.T) {
	t.Run("every thread unwinds to its thread function", func(t *testing.T) {
		s, ui, pid := attachFixture(t, "deep-v3-O2", "threads")
		out := run(t, s, ui, "info threads")
		if n := strings.Count(out, "Thread "); n != 4 {
			t.Errorf("info threads lists %d threads, want 4:\n%s", n, out)
		}
		out = run(t, s, ui, "thread apply all bt sframe")
		for _, fn := range []string{"alpha_2", "alpha_1", "thread_alpha", "beta_3", "beta_1", "thread_beta", "gamma_1", "thread_gamma"} {
			if !strings.Contains(out, " "+fn+" (") {
				t.Errorf("thread apply all bt lacks %s:\n%s", fn, out)
			}
		}
		run(t, s, ui, "quit")
		checkRunning(t, pid)
	})
	t.Run("a signal handler unwinds into the interrupted code", func(t *testing.T) {
		s, ui, pid := attachFixture(t, "deep-v3-O2", "signal")
		bt := run(t, s, ui, "bt")
		fns := functions(bt)
		wantPrefix(t, "signal bt", fns, []string{"spin_here", "sig_chain2", "sig_chain1", "on_signal"})
		if !strings.Contains(bt, "presignal_spin") || !strings.Contains(bt, "level6_leafish") {
			t.Errorf("signal bt does not reach the interrupted chain:\n%s", bt)
		}
		run(t, s, ui, "quit")
		checkRunning(t, pid)
	})
}

func TestLiveLaunchInterruptAndKill(t *testing.T) {
	tg, err := Launch([]string{fixture(t, "deep-v3-O2"), "spin"}, "")
	skipIfNoPtrace(t, err)
	if err != nil {
		t.Fatal(err)
	}
	pid := tg.Pid()
	ui := &ScriptUI{Echo: true}
	s := NewSession(tg, ui)
	s.Batch = true
	defer s.Close()
	if st := proc.ProcState(pid); st != 't' {
		t.Errorf("launched process in state %q, want traced-stopped 't'", st)
	}
	go func() {
		time.Sleep(500 * time.Millisecond)
		tg.Interrupt()
	}()
	out := run(t, s, ui, "continue")
	if !strings.Contains(out, "interrupted") {
		t.Errorf("continue was not interrupted:\n%s", out)
	}
	bt := run(t, s, ui, "bt sframe")
	wantPrefix(t, "bt after interrupt", functions(bt), []string{"spin_here", "level6_leafish", "level5_bigframe"})
	run(t, s, ui, "kill")
	if proc.ProcessExists(pid) && proc.ProcState(pid) != 'Z' {
		t.Errorf("process %d still exists after kill (state %q)", pid, proc.ProcState(pid))
	}
}

func TestLiveExitIsReported(t *testing.T) {
	tg, err := Launch([]string{fixture(t, "deep-v3-O2"), "exit", "50"}, "")
	skipIfNoPtrace(t, err)
	if err != nil {
		t.Fatal(err)
	}
	ui := &ScriptUI{Echo: true}
	s := NewSession(tg, ui)
	s.Batch = true
	defer s.Close()
	out := run(t, s, ui, "continue")
	if !strings.Contains(out, "exited normally") {
		t.Errorf("continue to the end: %s", out)
	}
	if err := s.Execute("bt"); err == nil || !strings.Contains(err.Error(), "not being run") {
		t.Errorf("bt after exit: %v", err)
	}
}

func TestLiveProcessKilledWhileAttachedIsReported(t *testing.T) {
	s, ui, pid := attachFixture(t, "deep-v3-O2", "spin")
	run(t, s, ui, "bt 1")
	if err := syscallKill(pid); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	for _, c := range []string{"bt", "info threads", "continue", "info registers"} {
		s.Execute(c) // errors are fine; panics and hangs are not
	}
	if err := s.Close(); err != nil {
		t.Logf("close after the process died: %v", err)
	}
	t.Log("\n" + ui.Out.String())
}
