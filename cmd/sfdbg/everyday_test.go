package main

import (
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestEverydayCommandsAreGdbsOnTheSameProcess attaches gdb, then sfdbg,
// to a thread spinning in spin_here and compares what each prints for the
// commands a gdb user types in the first hour: info proc, info proc
// mappings, info inferiors, x/s (rsi holds deep.c's "ready\n"), and
// sub-registers of registers the spin loop leaves alone (rbx, r12).
// Trailing blanks are not compared (gdb pads info inferiors' last column).
func TestEverydayCommandsAreGdbsOnTheSameProcess(t *testing.T) {
	gdb, err := exec.LookPath("gdb")
	if err != nil {
		t.Skip("gdb not installed")
	}
	path, _ := filepathAbs(dumpFixture(t, "deep-v3-O2"))
	fx := startFixture(t, path, "spin")
	pid := strconv.Itoa(fx.Process.Pid)
	requirePtrace(t, fx.Process.Pid)
	lines := func(s string) []string {
		var out []string
		for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
			out = append(out, strings.TrimRight(l, " "))
		}
		return out
	}
	for _, cmd := range []string{"info proc", "info proc mappings", "info inferiors", "x/s $rsi", "x/2s $rsi",
		"p $ebx", "p/x $bx", "p $bl", "p $r12d", "p/x $r12w", "p $bh"} {
		t.Run(cmd, func(t *testing.T) {
			_, out, errOut := runSfdbg("attach", "-batch", "-ex", cmd, pid)
			ours := lines(out)
			if len(ours) < 4 || !strings.HasPrefix(ours[0], "Attached to process") {
				t.Fatalf("sfdbg attach:\n%s%s", out, errOut)
			}
			// The attach message and frame 0 (its line, its source line,
			// its verdicts).
			for len(ours) > 0 && !strings.HasPrefix(ours[0], "    sframe") {
				ours = ours[1:]
			}
			if len(ours) > 0 {
				ours = ours[1:]
			}
			g, err := exec.Command(gdb, "-nx", "-batch", "-p", pid, "-ex", cmd).CombinedOutput()
			if err != nil {
				t.Fatalf("gdb: %v\n%s", err, g)
			}
			theirs := lines(string(g))
			if n := len(theirs); n > 0 && strings.HasPrefix(theirs[n-1], "[Inferior 1 (process") {
				theirs = theirs[:n-1]
			}
			if len(theirs) < len(ours) {
				t.Fatalf("gdb printed less than sfdbg:\ngdb:\n%s\nsfdbg:\n%s", g, out)
			}
			theirs = theirs[len(theirs)-len(ours):]
			if strings.Join(ours, "\n") != strings.Join(theirs, "\n") {
				t.Errorf("%s:\nsfdbg:\n%s\ngdb:\n%s", cmd, strings.Join(ours, "\n"), strings.Join(theirs, "\n"))
			}
		})
	}
	// The flags change from one stop of the spinning target to the next:
	// the shape is gdb's (its i386_eflags type), "[ PF ZF IF ]".
	flags := regexp.MustCompile(`^\$1 = \[ ((CF|PF|AF|ZF|SF|TF|IF|DF|OF) )*\]$`)
	for _, run := range []func() string{
		func() string { _, out, _ := runSfdbg("attach", "-batch", "-ex", "p $eflags", pid); return out },
		func() string {
			g, _ := exec.Command(gdb, "-nx", "-batch", "-p", pid, "-ex", "p $eflags").CombinedOutput()
			return string(g)
		},
	} {
		l := lines(run())
		if n := len(l); n > 0 && strings.HasPrefix(l[n-1], "[Inferior 1 (process") {
			l = l[:n-1]
		}
		if len(l) == 0 || !flags.MatchString(l[len(l)-1]) {
			t.Errorf("p $eflags: %q, want gdb's form [ PF ZF IF ]", l)
		}
	}
}
