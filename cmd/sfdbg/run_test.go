package main

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/sfdbg/sfdbg/debugger"
)

func TestRunBatchStartsStopsAtBreakpointAndKillsAtTheEnd(t *testing.T) {
	path, _ := filepathAbs(dumpFixture(t, "deep-v3-O2"))
	code, out, errOut := runSfdbg("run", "-batch", "-ex", "break level5_bigframe", "-ex", "continue", "-ex", "bt sframe", "-ex", "info breakpoints", "--", path, "spin")
	if code != exitOK {
		if strings.Contains(errOut, "operation not permitted") {
			t.Skipf("ptrace not permitted: %s", errOut)
		}
		t.Fatalf("status %d, stderr:\n%s\nstdout:\n%s", code, errOut, out)
	}
	m := regexp.MustCompile(`Started process (\d+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no start message:\n%s", out)
	}
	pid, _ := strconv.Atoi(m[1])
	for _, want := range []string{"hit Breakpoint 1", "#0  0x", "in level5_bigframe ()", "in level4_recursive ()", "in main ()"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if _, err := os.Stat("/proc/" + strconv.Itoa(pid)); err == nil && debugger.ProcState(pid) != 'Z' {
		t.Errorf("process %d started by sfdbg run still exists (state %q)", pid, debugger.ProcState(pid))
	}
}

func TestRunRejectsAMissingProgram(t *testing.T) {
	code, _, errOut := runSfdbg("run", "-batch", "--", "/nonexistent/prog")
	if code != exitError || !strings.Contains(errOut, "cannot run /nonexistent/prog") {
		t.Errorf("status %d, stderr %q", code, errOut)
	}
	if code, _, _ := runSfdbg("run", "-batch"); code != exitError {
		t.Errorf("run without a program: status %d", code)
	}
}
