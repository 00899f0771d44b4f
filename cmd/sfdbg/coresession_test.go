package main

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestCoreIsADebuggerSession opens the crash-v3 core with -batch and the
// REPL's read-only commands, as "gdb PROG CORE" takes them: bt full,
// frame, info locals, info registers, print, x; continue is refused with
// gdb's words and makes the batch exit 2.
func TestCoreIsADebuggerSession(t *testing.T) {
	core := dumpFixture(t, filepath.Join("..", "cores", "crash-v3.core"))
	prog := dumpFixture(t, filepath.Join("..", "cores", "crash-v3"))
	code, out, errOut := runSfdbg("core", "-batch", "-ex", "bt full", "-ex", "frame 1", "-ex", "info locals",
		"-ex", "info registers rip", "-ex", "p $pc", "-ex", "x/i $pc", prog, core)
	if code != exitOK {
		t.Fatalf("status %d:\n%s%s", code, out, errOut)
	}
	for _, want := range []string{
		`(?m)^Core of process \d+ \(crash-v3\), 2 threads\.$`,
		`(?m)^Program terminated with signal SIGSEGV, Segmentation fault\.$`,
		// gdb prints the PC: the row at it is not a statement.
		`(?m)^#0  0x00000000004017d7 in crash_leaf \(n=1\) at testdata/src/crash.c:29\n29\t`,
		`(?m)^#1  0x[0-9a-f]+ in crash_3 \(n=n@entry=0\) at testdata/src/crash.c:30\n30\t`,
		`(?m)^pad = "`,
		`(?m)^rip +0x[0-9a-f]+ +0x[0-9a-f]+ <crash_3\+\d+>$`,
		`(?m)^=> 0x[0-9a-f]+ <crash_3\+\d+>:\t`,
	} {
		if !regexp.MustCompile(want).MatchString(out) {
			t.Errorf("no %s in:\n%s", want, out)
		}
	}
	code, out, errOut = runSfdbg("core", "-batch", "-ex", "continue", prog, core)
	if code != exitError || !strings.Contains(out+errOut, "The program is not being run.") {
		t.Errorf("continue on a core: status %d:\n%s%s", code, out, errOut)
	}
}

// TestAGcoreSnapshotIsNotATermination dumps a running fixture with gdb's
// gcore, which stops it with SIGSTOP to dump it: sfdbg core must say that
// the core is a snapshot, not that SIGSTOP terminated the process.
func TestAGcoreSnapshotIsNotATermination(t *testing.T) {
	gcore, err := exec.LookPath("gcore")
	if err != nil {
		t.Skip("gcore (gdb) not installed")
	}
	prog := mustAbs(t, dumpFixture(t, "deep-v3-O2"))
	fx := startFixture(t, prog, "sleep")
	requirePtrace(t, fx.Process.Pid)
	base := filepath.Join(t.TempDir(), "snap")
	if b, err := exec.Command(gcore, "-o", base, strconv.Itoa(fx.Process.Pid)).CombinedOutput(); err != nil {
		t.Fatalf("gcore: %v\n%s", err, b)
	}
	core := base + "." + strconv.Itoa(fx.Process.Pid)
	for _, args := range [][]string{{"core", core, prog}, {"core", "-batch", "-ex", "bt 1", core, prog}} {
		code, out, errOut := runSfdbg(args...)
		if code == exitError || strings.Contains(out, "terminated with signal SIGSTOP") ||
			!strings.Contains(out, "Program stopped by signal SIGSTOP, Stopped (signal): the core is a snapshot") {
			t.Errorf("%v: status %d:\n%s%s", args, code, out, errOut)
		}
	}
}
