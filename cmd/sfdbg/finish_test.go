package main

import (
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// TestFinishValueIsGdbs stops gdb and sfdbg run at the same function of
// clones-v3-O2 (a clone, a constprop clone, a plain function), runs finish
// and compares the "Value returned is $N = V" line.
func TestFinishValueIsGdbs(t *testing.T) {
	gdb, err := exec.LookPath("gdb")
	if err != nil {
		t.Skip("gdb not installed")
	}
	path, _ := filepathAbs(dumpFixture(t, "clones-v3-O2"))
	re := regexp.MustCompile(`(?m)^Value returned is .*$`)
	for _, fn := range []string{"weigh", "scale", "report"} {
		t.Run(fn, func(t *testing.T) {
			g, err := exec.Command(gdb, "-nx", "-batch", "-ex", "break "+fn, "-ex", "run", "-ex", "finish", path).CombinedOutput()
			if err != nil {
				t.Fatalf("gdb: %v\n%s", err, g)
			}
			want := re.FindString(string(g))
			if want == "" {
				t.Fatalf("gdb printed no value:\n%s", g)
			}
			code, out, errOut := runSfdbg("run", "-batch", "-ex", "break "+fn, "-ex", "continue", "-ex", "finish", "--", path)
			if strings.Contains(errOut, "operation not permitted") {
				t.Skipf("ptrace not permitted: %s", errOut)
			}
			if code != exitOK {
				t.Fatalf("status %d: %s\n%s", code, errOut, out)
			}
			if got := re.FindString(out); got != want {
				t.Errorf("sfdbg %q, gdb %q\n%s", got, want, out)
			}
		})
	}
}
