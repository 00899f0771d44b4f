package debugger

import (
	"strings"
	"testing"
)

// TestSourceLevelSteppingIsRefusedNotAliased: gdb's step, next, until and
// advance (s, n, u) are source-level; sfdbg does not implement them and
// must say so, not run stepi or up under their names.
func TestSourceLevelSteppingIsRefusedNotAliased(t *testing.T) {
	for _, tc := range []struct{ line, want string }{
		{"s", "step: source-level stepping is not supported; use stepi (si)"},
		{"step", "step: source-level stepping is not supported; use stepi (si)"},
		{"step 3", "step: source-level stepping is not supported; use stepi (si)"},
		{"n", "next: source-level stepping is not supported; use stepi (si)"},
		{"next", "next: source-level stepping is not supported; use stepi (si)"},
		{"u", "until: source-level stepping is not supported"},
		{"until", "until: source-level stepping is not supported"},
		{"advance spin_here", "advance: not supported"},
		{"st", `Ambiguous command "st": stepi, step.`},
	} {
		t.Run(tc.line+" is refused", func(t *testing.T) {
			got, ok := transcript(t, "deep-spin", []string{tc.line, "frame"})
			if ok {
				t.Errorf("%q succeeded", tc.line)
			}
			if !strings.Contains(got, tc.want) {
				t.Errorf("%q: want %q in\n%s", tc.line, tc.want, got)
			}
			if !strings.Contains(got, "\n#0  0x") || strings.Contains(got, "#1  0x") {
				t.Errorf("%q changed the selected frame or the program:\n%s", tc.line, got)
			}
		})
	}
}
