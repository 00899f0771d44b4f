package debugger

import (
	"strings"
	"testing"
)

// TestSourceLevelSteppingIsRefusedNotAliased: gdb's step, next and until
// without a location (s, n, u) are source-level; sfdbg does not implement
// them and must say so, not run stepi or up under their names. (until
// LOCATION and advance LOCATION are implemented: TestLiveUntilAndAdvance.)
func TestSourceLevelSteppingIsRefusedNotAliased(t *testing.T) {
	for _, tc := range []struct{ line, want string }{
		{"s", "step: source-level stepping is not supported; use stepi (si)"},
		{"step", "step: source-level stepping is not supported; use stepi (si)"},
		{"step 3", "step: source-level stepping is not supported; use stepi (si)"},
		{"n", "next: source-level stepping is not supported; use stepi (si)"},
		{"next", "next: source-level stepping is not supported; use stepi (si)"},
		{"u", "until: source-level stepping is not supported; use until LOCATION, advance LOCATION, or finish"},
		{"until", "until: source-level stepping is not supported"},
		{"advance", "Argument required (a location)."},
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
