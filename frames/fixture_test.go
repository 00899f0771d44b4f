package frames

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/sfdbg/sfdbg/sframe/arch"
)

// TestFeaturesFixtures unwinds synthetic stacks laid out to match the rows
// that real assemblers (binutils 2.40, 2.44, 2.47.50) emitted for
// testdata/src/features-x86_64.s: a classic frame-pointer frame, gcc's
// DRAP prologue (v3 FLEX FDE), a signal trampoline (v3 signal bit) and
// _start, marked outermost in v3.
func TestFeaturesFixtures(t *testing.T) {
	for _, v := range []int{1, 2, 3} {
		t.Run(fmt.Sprintf("v%d", v), func(t *testing.T) {
			name := fmt.Sprintf("features-v%d", v)
			m := &Module{Name: name, OpenPath: fixture(t, name), Start: 0x400000, End: 0x420000}
			defer m.Close()
			sym := func(s string) uint64 {
				a, _, ok := m.LookupSymbol(s)
				if !ok {
					t.Fatalf("no symbol %s", s)
				}
				return a
			}
			X := uint64(stackBase + 0x1000)
			run := func(t *testing.T, s *stackImage, r Regs) ([]string, *StopError) {
				sp := &Space{Mem: s.mem(), Modules: NewModules(m)}
				st := NewStack(&SFrameUnwinder{Space: sp}, r, sp, StackOptions{})
				var fs []Frame
				for st.Next() {
					fs = append(fs, st.Frame())
				}
				return names(sp, fs), st.Stop()
			}
			t.Run("a frame-pointer frame below _start", func(t *testing.T) {
				s := newStack(stackBase, 1024)
				D := X + 0x40
				s.put(X, sym("fp_frame")+0x10)
				s.put(D, 0)
				s.put(D+8, sym("_start")+0x10)
				got, stop := run(t, s, regs(sym("leaf"), X, D))
				want := []string{"leaf", "fp_frame+0x10", "_start+0x10"}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("frames %q, want %q (%v)", got, want, stop)
				}
				if stop.Reason != ReasonOutermost {
					t.Errorf("stopped with %v", stop)
				}
			})
			t.Run("gcc's DRAP prologue", func(t *testing.T) {
				s := newStack(stackBase, 1024)
				D, C := X+0x40, X+0x80
				s.put(X, sym("flex_drap")+0x20)
				s.put(D-8, C)
				s.put(D, 0)
				s.put(C-8, sym("_start")+0x10)
				got, stop := run(t, s, regs(sym("leaf"), X, D))
				if v < 3 {
					// gas before v3 cannot describe DRAP and skips the function.
					if stop.Reason != ReasonNoFDE {
						t.Errorf("stopped with %v, want no FDE", stop)
					}
					return
				}
				want := []string{"leaf", "flex_drap+0x20", "_start+0x10"}
				if !reflect.DeepEqual(got, want) || stop.Reason != ReasonOutermost {
					t.Errorf("frames %q (%v), want %q", got, stop, want)
				}
			})
			t.Run("a signal trampoline", func(t *testing.T) {
				if v < 3 {
					t.Skip("the signal bit is new in v3")
				}
				s := newStack(stackBase, 1024)
				D, Y := X+0x400, X+0x3f0
				U := X + 8
				s.put(X, sym("sig_trampoline"))
				mc := U + uint64(arch.AMD64Arch.Signal.Regs)
				s.put(mc+8*10, D)
				s.put(mc+8*15, Y)
				s.put(mc+8*16, sym("fp_frame")+4)
				s.put(D, 0)
				s.put(D+8, sym("_start")+0x10)
				got, stop := run(t, s, regs(sym("leaf"), X, 0x7777))
				want := []string{"leaf", "sig_trampoline", "fp_frame+0x4", "_start+0x10"}
				if !reflect.DeepEqual(got, want) || stop.Reason != ReasonOutermost {
					t.Errorf("frames %q (%v), want %q", got, stop, want)
				}
			})
		})
	}
}

// TestPLTFixtures steps out of a PLT entry of the deep fixtures, whose PLT
// FDEs real ld wrote with PC type MASK: before the entry's push the CFA is
// sp+8, after it sp+16 (the PLT entry at index 2 has the same rows as the
// one at index 0).
func TestPLTFixtures(t *testing.T) {
	for _, v := range []int{1, 2, 3} {
		name := fmt.Sprintf("deep-v%d-O2", v)
		t.Run(name, func(t *testing.T) {
			m := fixtureModule(t, name)
			plt := symbolAddr(t, m, "write@plt")
			ret, _, _ := m.LookupSymbol("announce_ready")
			ret += 0x10
			X := uint64(stackBase + 0x100)
			s := newStack(stackBase, 128)
			s.put(X, 7) // the relocation index pushed by the entry
			s.put(X+8, ret)
			sp := &Space{Mem: s.mem(), Modules: NewModules(m)}
			for _, c := range []struct {
				pc, sp uint64
				cfa    string
			}{
				{plt + 2, X + 8, "rsp+8"},
				{plt + 12, X, "rsp+16"},
			} {
				f := Frame{PC: c.pc, Regs: regs(c.pc, c.sp, 0), Interrupted: true}
				caller, err := (&SFrameUnwinder{Space: sp}).Step(&f)
				if err != nil {
					t.Fatalf("step from write@plt+%#x: %v", c.pc-plt, err)
				}
				if RuleString(f.Row.CFA) != c.cfa || caller.PC != ret || caller.Regs.SP() != X+16 {
					t.Errorf("write@plt+%#x: row %v, caller PC %#x SP %#x; want CFA %s, PC %#x, SP %#x",
						c.pc-plt, f.Row, caller.PC, caller.Regs.SP(), c.cfa, ret, X+16)
				}
			}
		})
	}
}
