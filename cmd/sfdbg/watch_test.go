package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// watchBlocks returns the watchpoint lines of a gdb or sfdbg transcript:
// "Hardware watchpoint N: EXPR" (set and hit) and the Old/New value lines.
func watchBlocks(out string) []string {
	re := regexp.MustCompile(`^(Hardware watchpoint \d+: .*|Old value = .*|New value = .*)$`)
	var got []string
	for _, l := range strings.Split(out, "\n") {
		if re.MatchString(l) {
			got = append(got, l)
		}
	}
	return got
}

// TestWatchIsGdbs runs the same watchpoint session under gdb and sfdbg run
// on the fixture's "exit" mode (spin_until's loop writes spin_count for 1
// s, then the program exits): watch a global, then the same word through
// *(unsigned long *)&VAR, then *ADDR; the set and hit lines and the old
// and new values must be gdb's, info breakpoints must list the
// watchpoints, and after delete the program runs to its exit.
func TestWatchIsGdbs(t *testing.T) {
	gdb, err := exec.LookPath("gdb")
	if err != nil {
		t.Skip("gdb not installed")
	}
	path, _ := filepathAbs(dumpFixture(t, "deep-v3-O2"))
	script := []string{"info watchpoints", "watch spin_count", "continue", "continue", "delete 1",
		"watch *(unsigned long *)&spin_count", "continue", "watch *&spin_release", "info breakpoints", "info watchpoints", "delete", "continue"}
	gargs := []string{"-nx", "-batch"}
	for i, c := range script {
		if i == 2 {
			c = "run" // gdb starts the program with run, sfdbg run started it
		}
		gargs = append(gargs, "-ex", c)
	}
	gout, err := exec.Command(gdb, append(gargs, "--args", path, "exit", "1000")...).CombinedOutput()
	if err != nil {
		t.Fatalf("gdb: %v\n%s", err, gout)
	}
	args := []string{"run", "-batch"}
	for _, c := range script {
		args = append(args, "-ex", c)
	}
	code, out, errOut := runSfdbg(append(args, "--", path, "exit", "1000")...)
	if strings.Contains(errOut, "operation not permitted") {
		t.Skipf("ptrace not permitted: %s", errOut)
	}
	if code != exitOK {
		t.Fatalf("status %d: %s\n%s", code, errOut, out)
	}
	want, got := watchBlocks(string(gout)), watchBlocks(out)
	if len(want) < 9 || strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("watchpoint lines:\nsfdbg:\n%s\ngdb:\n%s\n\nsfdbg's transcript:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"), out)
	}
	for _, re := range []string{`(?m)^2 +hw watchpoint +keep y {22}\*\(unsigned long \*\)&spin_count\n\tbreakpoint already hit 1 time$`,
		`(?m)^3 +hw watchpoint +keep y {22}\*&spin_release$`, `\[Inferior 1 \(process \d+\) exited normally\]`} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("transcript lacks %s:\n%s", re, out)
		}
	}
	for _, o := range []string{string(gout), out} {
		if !strings.Contains(o, "No watchpoints.\n") {
			t.Errorf("info watchpoints before any:\n%s", o)
		}
	}
	if n := len(regexp.MustCompile(`(?m)^3 +hw watchpoint +keep y {22}\*&spin_release$`).FindAllString(out, -1)); n != 2 {
		t.Errorf("info breakpoints and info watchpoints list watchpoint 3 %d times, want 2:\n%s", n, out)
	}
	if !strings.Contains(string(gout), "exited normally]") {
		t.Errorf("gdb's program did not exit after delete:\n%s", gout)
	}
}

// TestWatchOnAnAttachedProcessIsGdbs: attach debugs on sfdbg's own
// ptrace loop, which sets the debug registers itself. gdb, then sfdbg,
// attach to the same process spinning in spin_here, watch spin_count and
// continue twice: each stop is gdb's "Hardware watchpoint 1: spin_count"
// with the value going up by one; after delete and detach, the process
// runs on, untraced (the "threads" mode has four threads writing it).
func TestWatchOnAnAttachedProcessIsGdbs(t *testing.T) {
	gdb, err := exec.LookPath("gdb")
	if err != nil {
		t.Skip("gdb not installed")
	}
	path, _ := filepathAbs(dumpFixture(t, "deep-v3-O2"))
	values := regexp.MustCompile(`(?m)^Old value = (\d+)\nNew value = (\d+)$`)
	check := func(who, out string) {
		t.Helper()
		if n := strings.Count(out, "\nHardware watchpoint 1: spin_count\n\nOld value = "); n != 2 {
			t.Errorf("%s: %d watchpoint stops, want 2:\n%s", who, n, out)
		}
		for _, m := range values.FindAllStringSubmatch(out, -1) {
			o, _ := strconv.ParseUint(m[1], 10, 64)
			n, _ := strconv.ParseUint(m[2], 10, 64)
			if n != o+1 {
				t.Errorf("%s: Old value %d, New value %d", who, o, n)
			}
		}
	}
	for _, mode := range []string{"spin", "threads"} {
		t.Run(mode, func(t *testing.T) {
			fx := startFixture(t, path, mode)
			pid := strconv.Itoa(fx.Process.Pid)
			requirePtrace(t, fx.Process.Pid)
			script := []string{"watch spin_count", "continue", "continue", "info breakpoints", "delete", "detach"}
			if mode == "spin" {
				gargs := []string{"-nx", "-batch", "-p", pid}
				for _, c := range script {
					gargs = append(gargs, "-ex", c)
				}
				g, err := exec.Command(gdb, gargs...).CombinedOutput()
				if err != nil {
					t.Fatalf("gdb: %v\n%s", err, g)
				}
				check("gdb", string(g))
			}
			args := []string{"attach", "-batch"}
			for _, c := range script {
				args = append(args, "-ex", c)
			}
			code, out, errOut := runSfdbg(append(args, pid)...)
			if code != exitOK {
				t.Fatalf("status %d: %s\n%s", code, errOut, out)
			}
			if mode == "spin" {
				check("sfdbg", out)
			} else if n := strings.Count(out, "\nHardware watchpoint 1: spin_count\n\nOld value = "); n != 2 {
				t.Errorf("%d watchpoint stops, want 2:\n%s", n, out)
			}
			if !regexp.MustCompile(`(?m)^1 +hw watchpoint +keep y {22}spin_count\n\tbreakpoint already hit 2 times$`).MatchString(out) {
				t.Errorf("info breakpoints:\n%s", out)
			}
			time.Sleep(300 * time.Millisecond) // a SIGTRAP left pending would kill it now
			checkRunning(t, fx.Process.Pid)
		})
	}
}

// TestWatchWithoutDWARFWatchesTheSymbolsSize: in a program built without
// -g, watch VAR watches a signed integer of the ELF symbol's size (gdb
// asks for a cast instead), under run as under attach.
func TestWatchWithoutDWARFWatchesTheSymbolsSize(t *testing.T) {
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("no C compiler to build a program without DWARF")
	}
	dir := t.TempDir()
	src, bin := filepath.Join(dir, "nog.c"), filepath.Join(dir, "nog")
	os.WriteFile(src, []byte("volatile int g;\nint main(void) { for (int i = 0; i < 3; i++) g++; return 0; }\n"), 0o644)
	if out, err := exec.Command(cc, "-O1", "-o", bin, src).CombinedOutput(); err != nil {
		t.Skipf("cc: %v: %s", err, out)
	}
	code, out, errOut := runSfdbg("run", "-batch", "-ex", "watch g", "-ex", "continue", "-ex", "continue", "--", bin)
	if strings.Contains(errOut, "operation not permitted") {
		t.Skipf("ptrace not permitted: %s", errOut)
	}
	for _, w := range []string{"Hardware watchpoint 1: g\n", "\nOld value = 0\nNew value = 1\n", "\nOld value = 1\nNew value = 2\n"} {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q; status %d, stderr %q, stdout:\n%s", w, code, errOut, out)
		}
	}
	if code != exitOK {
		t.Errorf("status %d, stderr %q", code, errOut)
	}
}

// TestWatchStopsStepiAsGdb: stepi 10 over spin_here's loop stops at the
// instruction that writes spin_count, with gdb's watchpoint lines.
func TestWatchStopsStepiAsGdb(t *testing.T) {
	gdb, err := exec.LookPath("gdb")
	if err != nil {
		t.Skip("gdb not installed")
	}
	path, _ := filepathAbs(dumpFixture(t, "deep-v3-O2"))
	gout, err := exec.Command(gdb, "-nx", "-batch", "-ex", "break spin_here", "-ex", "run", "-ex", "watch spin_count", "-ex", "stepi 10",
		"--args", path, "spin").CombinedOutput()
	if err != nil {
		t.Fatalf("gdb: %v\n%s", err, gout)
	}
	code, out, errOut := runSfdbg("run", "-batch", "-ex", "break spin_here", "-ex", "continue", "-ex", "watch spin_count", "-ex", "stepi 10", "--", path, "spin")
	if strings.Contains(errOut, "operation not permitted") {
		t.Skipf("ptrace not permitted: %s", errOut)
	}
	if code != exitOK {
		t.Fatalf("status %d: %s\n%s", code, errOut, out)
	}
	want, got := watchBlocks(string(gout)), watchBlocks(out)
	if len(want) != 4 || strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("watchpoint lines:\nsfdbg:\n%s\ngdb:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
