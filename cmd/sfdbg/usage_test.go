package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestAScriptStopsAtItsFirstFailingCommandAndNamesFileAndLine(t *testing.T) {
	fx := startFixture(t, dumpFixture(t, "deep-v3-O2"), "spin")
	pid := fx.Process.Pid
	requirePtrace(t, pid)
	script := filepath.Join(t.TempDir(), "cmds")
	os.WriteFile(script, []byte("bt 1\n\n# a comment\nframe 99\nbt 2\n"), 0o644)
	code, out, errOut := runSfdbg("attach", "-batch", "-x", script, "-ex", "info frame", strconv.Itoa(pid))
	if code != exitError {
		t.Errorf("status %d, want %d", code, exitError)
	}
	if want := script + ":4: Error in sourced command file:\nNo frame at level 99.\n"; !strings.Contains(errOut, want) {
		t.Errorf("stderr lacks %q:\n%s", want, errOut)
	}
	if strings.Contains(out, "#1  0x") {
		t.Errorf("the script went on after its failing line (bt 2 ran):\n%s", out)
	}
	if !strings.Contains(out, "#0  0x") || !strings.Contains(out, "Stack level 0") {
		t.Errorf("want bt 1 of the script and the -ex command (run first):\n%s", out)
	}
	checkRunning(t, pid)
}

func TestCommandLineMistakesAndHelpSayWhatIsWhat(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		code int
		want []string // in stdout and stderr together
	}{
		{"bt with two PIDs says it takes one", []string{"bt", "123", "456"}, exitError,
			[]string{"sfdbg: bt: one process ID expected, got 2 (123 456); run sfdbg bt once per process"}},
		{"version --help prints help", []string{"version", "--help"}, exitOK, []string{"usage: sfdbg version", "print the sfdbg version"}},
		{"version with an argument is refused", []string{"version", "x"}, exitError, []string{"usage: sfdbg version"}},
		{"the top-level usage lists every flag", []string{"--help"}, exitOK,
			[]string{"--log-level LEVEL", "panic, fatal, error, warning, info, debug, trace", "--version", "-h, --help"}},
		{"run --help says batch mode kills the program", []string{"run", "--help"}, exitOK,
			[]string{"-batch", "then kill the program (sfdbg started it) and exit"}},
		{"attach --help says batch mode detaches", []string{"attach", "--help"}, exitOK,
			[]string{"then detach (the process runs on) and exit"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runSfdbg(tc.args...)
			if code != tc.code {
				t.Errorf("status %d, want %d", code, tc.code)
			}
			for _, w := range tc.want {
				if !strings.Contains(out+errOut, w) {
					t.Errorf("output lacks %q:\n%s%s", w, out, errOut)
				}
			}
		})
	}
}
