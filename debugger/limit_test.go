package debugger

import (
	"strings"
	"testing"
)

func TestBacktraceLimitIsSetShownAndBounded(t *testing.T) {
	for _, tc := range []struct {
		name   string
		cmds   []string
		ok     bool
		levels string
		want   []string
		not    string // must not appear
	}{
		{"set backtrace limit 5 cuts bt at 5 frames and says more follow", []string{"set backtrace limit 5", "bt"}, true, "0 1 2 3 4",
			[]string{"(More stack frames follow...)", `"set backtrace limit N"`}, ""},
		{"bt 8 under a limit of 5 prints 5 frames", []string{"set backtrace limit 5", "bt 8"}, true, "0 1 2 3 4",
			[]string{"(More stack frames follow...)"}, ""},
		{"bt 3 under a limit of 5 needs no hint", []string{"set backtrace limit 5", "bt 3"}, true, "0 1 2",
			[]string{"(More stack frames follow...)"}, "set backtrace limit N"},
		{"bt -2 of a cut trace says it is cut", []string{"set backtrace limit 5", "bt -2"}, true, "3 4",
			[]string{`"set backtrace limit N"`}, ""},
		{"the limit applies to frame selection", []string{"set backtrace limit 3", "frame 5"}, false, "",
			[]string{"No frame at level 5."}, ""},
		{"show backtrace limit says the default", []string{"show backtrace limit"}, true, "",
			[]string{"Backtrace limit: 256 frames (the default)."}, ""},
		{"unlimited is sfdbg's bound", []string{"set backtrace limit unlimited", "show backtrace limit", "bt"}, true, "0 1 2 3 4 5 6 7 8 9 10",
			[]string{"Backtrace limit: unlimited (at most 1000000 frames)."}, ""},
		{"past-main off (gdb's default) ends the trace at main", []string{"show backtrace past-main", "bt"}, true, "0 1 2 3 4 5 6 7 8 9 10",
			[]string{`Whether backtraces should continue past "main" is off.`, " main (argc=2, argv=<optimized out>)"}, "_start"},
		{"past-main on shows the frames past main", []string{"set backtrace past-main on", "show backtrace past-main", "bt"}, true, "0 1 2 3 4 5 6 7 8 9 10 11",
			[]string{`Whether backtraces should continue past "main" is on.`, "\n#11 "}, ""},
		{"past-main takes on or off", []string{"set backtrace past-main maybe"}, false, "",
			[]string{`set backtrace past-main: "maybe" is not on or off.`}, ""},
		{"a negative limit is refused", []string{"set backtrace limit -1", "show backtrace limit"}, false, "",
			[]string{"set backtrace limit: -1 is not a frame count (1 to 1000000, or unlimited).", "Backtrace limit: 256 frames (the default)."}, ""},
		{"a limit beyond the bound is refused", []string{"set backtrace limit 1000001"}, false, "",
			[]string{"set backtrace limit: 1000001 is not a frame count (1 to 1000000, or unlimited)."}, ""},
		{"a word is refused", []string{"set backtrace limit many"}, false, "",
			[]string{`set backtrace limit: "many" is not a frame count (1 to 1000000, or unlimited).`}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := transcript(t, "deep-spin", tc.cmds)
			if ok != tc.ok {
				t.Errorf("%q succeeded = %v, want %v:\n%s", tc.cmds, ok, tc.ok, got)
			}
			if l := strings.Join(levels(got), " "); l != tc.levels {
				t.Errorf("%q printed frames %q, want %q:\n%s", tc.cmds, l, tc.levels, got)
			}
			if tc.not != "" && strings.Contains(got, tc.not) {
				t.Errorf("%q: output has %q:\n%s", tc.cmds, tc.not, got)
			}
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("%q: output lacks %q:\n%s", tc.cmds, w, got)
				}
			}
		})
	}
}
