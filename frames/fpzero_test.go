package frames

import (
	"errors"
	"strings"
	"testing"
)

// TestFPZeroEndsTheTraceOnlyWhereTheABISays: a frame pointer of 0 is the
// end of the chain in the entry point (_start cleared it) or a thread's
// start in clone; anywhere else a caller without frame pointers left it,
// and the trace is incomplete (it stopped silently as outermost).
func TestFPZeroEndsTheTraceOnlyWhereTheABISays(t *testing.T) {
	m := &Module{Name: "features-v3", OpenPath: fixture(t, "features-v3"), Start: 0x400000, End: 0x420000}
	defer m.Close()
	for _, tc := range []struct {
		name, fn string
		off      uint64
		reason   Reason
		msg      string
	}{
		{"0 in _start, the entry point, is the outermost frame", "_start", 0x10, ReasonOutermost, "end of the chain"},
		{"0 in another function leaves the trace incomplete", "fp_frame", 0x10, ReasonBadFrame,
			"in fp_frame, not _start or clone: not outermost"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newStack(stackBase, 64)
			sp := &Space{Mem: s.mem(), Modules: NewModules(m)}
			f := Frame{PC: symbolAddr(t, m, tc.fn) + tc.off, Interrupted: true, Regs: regs(0, stackBase, 0), Module: m}
			f.Regs.Set(RIP, f.PC)
			_, err := (&FPUnwinder{Space: sp}).Step(&f)
			var se *StopError
			if !errors.As(err, &se) || se.Reason != tc.reason || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("%v (%v), want %v: %q", err, se.Reason, tc.reason, tc.msg)
			}
			if f.Row.Outermost != (tc.reason == ReasonOutermost) {
				t.Errorf("row marked outermost = %v", f.Row.Outermost)
			}
		})
	}
	t.Run("0 in no known function cannot be told outermost", func(t *testing.T) {
		s := newStack(stackBase, 64)
		f := Frame{PC: 0x1234, Interrupted: true, Regs: regs(0x1234, stackBase, 0)}
		_, err := (&FPUnwinder{Space: &Space{Mem: s.mem()}}).Step(&f)
		var se *StopError
		if !errors.As(err, &se) || se.Reason != ReasonBadFrame || !strings.Contains(err.Error(), "in an unknown function: maybe not outermost") {
			t.Errorf("%v", err)
		}
	})
}
