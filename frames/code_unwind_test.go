package frames

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sfdbg/sfdbg/sframe/arch"
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

// TestCodeSaysNothingWhereNoCallEnters checks the code method at PLT0 of
// deep-v3-O2's .plt (0x1020): a jump from a PLT entry enters it with the
// relocation index pushed (.eh_frame: CFA=rsp+16 there), as glibc's
// _dl_runtime_resolve is entered from it with two words pushed. The walk
// from a call's state would say CFA=rsp+8 (what sfdbg verify found against
// the execution): the method must have no row there, not a wrong one.
func TestCodeSaysNothingWhereNoCallEnters(t *testing.T) {
	p := filepath.Join("..", "testdata", "bin", "deep-v3-O2")
	const bias = 0x555555554000
	m := &Module{Name: "deep-v3-O2", OpenPath: p, Start: bias, End: bias + 0x5000, Bias: bias}
	defer m.Close()
	sp := &Space{Mem: nopMemory{}, Modules: NewModules(m)}
	if r, err := m.CFIRow(bias + 0x1020); err != nil || RuleString(r.CFA) != "rsp+16" {
		t.Fatalf("the fixture's CFI at PLT0 is not CFA=rsp+16: %s, %v", cfiRowString(r), err)
	}
	regs := NewRegs(arch.AMD64Arch)
	regs.Set(RIP, bias+0x1020)
	regs.Set(RSP, 0x7ffff000)
	f := Frame{Level: 0, PC: bias + 0x1020, Regs: regs, Method: MethodRegs, Interrupted: true, Module: m}
	_, err := (&CodeUnwinder{Space: sp}).Step(&f)
	if f.Row.Found() || err == nil {
		t.Fatalf("the code method claims a row at PLT0: %s (err %v)", f.Row, err)
	}
	if !strings.Contains(err.Error(), "not by a call") {
		t.Errorf("the reason does not say that no call enters PLT0: %v", err)
	}
}
