package main

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/sfdbg/sfdbg/debugger/proc"
)

// TestRunAndStartStartTheProgramAgain drives a gdb user's day in one
// session: run to a breakpoint, continue to the exit, run again (the
// breakpoint, kept, is hit in the new process), kill, run again, then
// start (main). Each run is a new process; none is left at the end.
func TestRunAndStartStartTheProgramAgain(t *testing.T) {
	path, _ := filepath.Abs(dumpFixture(t, "locals-v3-O2"))
	code, out, errOut := runSfdbg("run", "-batch", "-ex", "break leaf", "-ex", "run", "-ex", "continue", "-ex", "run",
		"-ex", "kill", "-ex", "run", "-ex", "info breakpoints", "-ex", "start", "--", path, "exit")
	if strings.Contains(errOut, "ptrace") && code == exitError {
		t.Skipf("ptrace not permitted: %s", errOut)
	}
	if code != exitOK {
		t.Fatalf("status %d:\n%s%s", code, out, errOut)
	}
	if n := strings.Count(out, "Starting program: "+path+" exit\n"); n != 4 {
		t.Errorf("%d starts, want 4 (run, run, run, start):\n%s", n, out)
	}
	if n := len(regexp.MustCompile(`(?m)^Breakpoint 1, leaf \(`).FindAllString(out, -1)); n != 3 {
		t.Errorf("breakpoint 1 hit %d times, want 3 (once per run):\n%s", n, out)
	}
	if !regexp.MustCompile(`(?m)^Temporary breakpoint 2, main \(`).MatchString(out) {
		t.Errorf("start did not stop at main:\n%s", out)
	}
	if !regexp.MustCompile(`(?m)^1 +breakpoint +keep y +0x[0-9a-f]+ in leaf at testdata/src/locals.c:\d+\n\tbreakpoint already hit 3 times$`).MatchString(out) {
		t.Errorf("info breakpoints does not count 3 hits:\n%s", out)
	}
	pids := regexp.MustCompile(`\(process (\d+)\) (exited normally|killed)`).FindAllStringSubmatch(out, -1)
	if len(pids) != 2 || pids[0][1] == pids[1][1] {
		t.Errorf("the runs were not new processes: %v\n%s", pids, out)
	}
	for _, m := range regexp.MustCompile(`Started process (\d+)`).FindAllStringSubmatch(out, -1) {
		if pid, _ := strconv.Atoi(m[1]); proc.ProcessExists(pid) && proc.ProcState(pid) != 'Z' {
			t.Errorf("process %d is left behind", pid)
		}
	}
}

// TestRunIsRefusedOnAnAttachedProcess: sfdbg restarts only what it
// started, and says so.
func TestRunIsRefusedOnAnAttachedProcess(t *testing.T) {
	fx := startFixture(t, mustAbs(t, dumpFixture(t, "deep-v3-O2")), "spin")
	requirePtrace(t, fx.Process.Pid)
	code, out, errOut := runSfdbg("attach", "-batch", "-ex", "run", strconv.Itoa(fx.Process.Pid))
	if code != exitError || !strings.Contains(out+errOut, "sfdbg runs only a program it started") {
		t.Errorf("status %d:\n%s%s", code, out, errOut)
	}
	checkRunning(t, fx.Process.Pid)
}

func mustAbs(t *testing.T, p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
