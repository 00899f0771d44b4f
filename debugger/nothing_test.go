package debugger

import (
	"strings"
	"testing"
)

// A thread whose frames all lie in modules without SFrame must not read as
// a success: bt says that nothing was compared, and why.
func TestBacktraceWithoutSFrameSaysNothingWasCompared(t *testing.T) {
	got, ok := transcript(t, "deep-threads", []string{"bt", "bt sframe", "thread 2", "bt"})
	if !ok {
		t.Errorf("a command failed:\n%s", got)
	}
	want := "Nothing was compared: no frame of this thread is covered by both SFrame and DWARF CFI (no .sframe section in libc.so.6).\n"
	if strings.Count(got, want) != 1 {
		t.Errorf("want %q once, after thread 1's bt only:\n%s", want, got)
	}
	if strings.Contains(got, "No SFrame disagreements") {
		t.Errorf("bt reads as a success:\n%s", got)
	}
}
