package debugger

import (
	"regexp"
	"strings"
	"testing"
)

// levels returns the frame levels of the backtrace rows in out.
func levels(out string) []string {
	var l []string
	for _, m := range regexp.MustCompile(`(?m)^#(\d+)\s+\S`).FindAllStringSubmatch(out, -1) {
		l = append(l, m[1])
	}
	return l
}

func TestBacktraceCountsMethodsAndThreadsAsGdbReadsThem(t *testing.T) {
	for _, tc := range []struct {
		name, snap string
		cmds       []string
		levels     string // frame levels printed, in order
		want       []string
	}{
		{"bt 3 compare prints the innermost 3 frames", "deep-spin", []string{"bt 3 compare"}, "0 1 2", []string{"(More stack frames follow...)"}},
		{"bt compare 3 is the same", "deep-spin", []string{"bt compare 3"}, "0 1 2", []string{"(More stack frames follow...)"}},
		{"bt 2 sframe counts in the sframe trace", "deep-spin", []string{"bt 2 sframe"}, "0 1", nil},
		{"bt -3 prints the outermost 3 frames, main's the last (past-main off)", "deep-spin", []string{"bt -3"}, "8 9 10", nil},
		{"info frame 3 describes frame 3", "deep-spin", []string{"info frame 3"}, "3", []string{"Stack level 3, frame at 0x"}},
		{"thread apply 2 bt runs bt in thread 2 only", "deep-threads", []string{"thread apply 2 bt 1"}, "0", []string{"Thread 2 (Thread 2 "}},
		{"thread apply 1 3 bt runs bt in threads 1 and 3", "deep-threads", []string{"thread apply 1 3 bt 1"}, "0 0", []string{"Thread 1 (Thread 1 ", "Thread 3 (Thread 3 "}},
		{"thread apply 1-2 bt runs bt in threads 1 to 2", "deep-threads", []string{"thread apply 1-2 bt 1"}, "0 0", []string{"Thread 1 (Thread 1 ", "Thread 2 (Thread 2 "}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := transcript(t, tc.snap, tc.cmds)
			if !ok {
				t.Errorf("%q failed:\n%s", tc.cmds, got)
			}
			if l := strings.Join(levels(got), " "); l != tc.levels {
				t.Errorf("%q printed frames %q, want %q:\n%s", tc.cmds, l, tc.levels, got)
			}
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("%q: output lacks %q:\n%s", tc.cmds, w, got)
				}
			}
		})
	}
	t.Run("errors name every method and say what thread apply takes", func(t *testing.T) {
		got, _ := transcript(t, "deep-threads", []string{"bt bogus", "thread apply 9 bt", "thread apply x bt", "thread apply 2"})
		for _, w := range []string{"(sframe, cfi, fp, code, ehabi, all, compare)", "Unknown thread 9.", `Invalid thread ID "x": thread apply takes all, N, N-M or a list of them, then a command.`, "Please specify a command at the end of 'thread apply 2'."} {
			if !strings.Contains(got, w) {
				t.Errorf("output lacks %q:\n%s", w, got)
			}
		}
	})
}
