package frames

import (
	"fmt"
	"testing"
)

// stackOnly is the target's memory without its modules' pages: what a
// snapshot of the stacks holds. The code method reads code from the
// modules' files, never from the target.
type stackOnly struct {
	Memory
	mods *Modules
}

func (m stackOnly) ReadAt(p []byte, addr uint64) (int, error) {
	if m.mods.Find(addr) != nil {
		return 0, fmt.Errorf("%#x: a module's page, not in the snapshot", addr)
	}
	return m.Memory.ReadAt(p, addr)
}

// TestCodeUnwindsAsCFILive unwinds every thread of the deep fixtures (PIE,
// -O0 and -O2; a signal handler's chain through libc's __restore_rt,
// threads from clone3) with the code and with CFI, from memory that holds
// no code: the code finds CFI's frames, PC and CFA, and ends where CFI
// does, at the outermost frame.
func TestCodeUnwindsAsCFILive(t *testing.T) {
	if testing.Short() {
		t.Skip("live test")
	}
	for _, bin := range []string{"deep-v3-O0", "deep-v3-O2"} {
		for _, mode := range []string{"signal", "threads"} {
			t.Run(bin+" "+mode+": the code's frames are CFI's", func(t *testing.T) {
				p := startDeep(t, bin, mode)
				p.stopped(t, func(sp *Space, ths []threadRegs) {
					snap := &Space{Mem: stackOnly{sp.Mem, sp.Modules}, Modules: sp.Modules}
					for _, th := range ths {
						cfi := unwindLive(sp, &CFIUnwinder{Space: sp}, th.regs)
						code := unwindLive(snap, &CodeUnwinder{Space: snap}, th.regs)
						if len(code.frames) != len(cfi.frames) || !outermost(code.stop) || !outermost(cfi.stop) {
							t.Errorf("thread %d: the code %v\nCFI %v", th.tid, code, cfi)
							continue
						}
						for i := range cfi.frames {
							c, f := code.frames[i], cfi.frames[i]
							if c.PC != f.PC || (i+1 < len(cfi.frames) && c.CFA != f.CFA) {
								t.Errorf("thread %d #%d: the code PC %#x CFA %#x, CFI %#x %#x", th.tid, i, c.PC, c.CFA, f.PC, f.CFA)
							}
						}
					}
				})
			})
		}
	}
}

// outermost reports whether a trace ended at the outermost frame.
func outermost(e *StopError) bool { return e == nil || e.Reason == ReasonOutermost }
