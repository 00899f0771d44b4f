package debugger

import (
	"strings"
	"testing"
)

// TestSourceLevelSteppingNeedsARunningProgram: gdb's step, next and until
// without a location (s, n, u) are source-level stepping (cmd_step.go,
// TestNextAndStepAreGdbs); on a snapshot, which cannot run, each says so
// and changes nothing, and none runs stepi or up under its name.
func TestSourceLevelSteppingNeedsARunningProgram(t *testing.T) {
	for _, tc := range []struct{ line, want string }{
		{"s", "not possible on a snapshot: it cannot run"},
		{"step", "not possible on a snapshot: it cannot run"},
		{"step 3", "not possible on a snapshot: it cannot run"},
		{"n", "not possible on a snapshot: it cannot run"},
		{"next", "not possible on a snapshot: it cannot run"},
		{"u", "not possible on a snapshot: it cannot run"},
		{"until", "not possible on a snapshot: it cannot run"},
		{"advance", "Argument required (a location)."},
		{"st", `Ambiguous command "st": start, stepi, step.`},
	} {
		t.Run(tc.line+" does not run a snapshot", func(t *testing.T) {
			got, ok := transcript(t, "deep-spin", []string{tc.line, "frame"})
			if ok {
				t.Errorf("%q succeeded", tc.line)
			}
			if !strings.Contains(got, tc.want) {
				t.Errorf("%q: want %q in\n%s", tc.line, tc.want, got)
			}
			if !strings.Contains(got, "\n#0  spin_here") || strings.Contains(got, "#1  ") {
				t.Errorf("%q changed the selected frame or the program:\n%s", tc.line, got)
			}
		})
	}
}
