package frames

import (
	"testing"
)

// A caller whose last instruction is a call to a noreturn function has a
// return address one past its own end: in the next function, or past the
// end of its module. gdb names such a frame, finds its line and its unwind
// row at PC-1 (get_frame_address_in_block); frame 0 and a frame a signal
// interrupted use the PC itself.
func TestReturnAddressPastItsFunctionIsLookedUpAtPCMinus1(t *testing.T) {
	X := uint64(stackBase + 0x1000)
	t.Run("the caller is named, located and unwound by the function of its call", func(t *testing.T) {
		s := newStack(stackBase, 4096)
		// leaf was called by mid's last instruction: the RA is leaf's own
		// first byte. mid's row at its last byte is CFA sp+8.
		s.put(X, rt(fnMid+0x40))
		s.put(X+8, rt(fnStart+0x10))
		sp := progSpace(t, s.mem())
		fs, err := Trace(&SFrameUnwinder{Space: sp}, regs(rt(fnLeaf+4), X, 0), sp, StackOptions{})
		if err != nil || len(fs) != 3 {
			t.Fatalf("%d frames, %v", len(fs), err)
		}
		f := &fs[1]
		if f.PC != rt(fnMid+0x40) || f.LookupPC() != rt(fnMid+0x3f) {
			t.Errorf("frame 1: PC %#x lookup PC %#x, want the RA %#x and RA-1", f.PC, f.LookupPC(), rt(fnMid+0x40))
		}
		if got := sp.DescribeFrame(f); got != "prog!mid+0x40" {
			t.Errorf("frame 1 is %q, want prog!mid+0x40", got)
		}
		if sym := f.Module.SymbolizeAt(f.PC, f.LookupPC()); sym.Name != "mid" || sym.Offset != 0x40 || sym.Addr != rt(fnMid) {
			t.Errorf("frame 1 symbol %+v, want mid at offset 0x40", sym)
		}
		if f.Row.Src.FDEStart != rt(fnMid) {
			t.Errorf("frame 1 unwound with the FDE at %#x, want mid's", f.Row.Src.FDEStart)
		}
		// Frame 0 at the same address is exact: leaf's first byte.
		f0 := Frame{PC: rt(fnLeaf), Interrupted: true}
		if got := sp.DescribeFrame(&f0); got != "prog!leaf+0x0" {
			t.Errorf("an interrupted frame at leaf's start is %q, want prog!leaf+0x0", got)
		}
	})
	t.Run("a return address at its module's end belongs to the module of the call", func(t *testing.T) {
		s := newStack(stackBase, 4096)
		// The module's mapping ends where _start does; _start's last
		// instruction called the function at frame 0.
		M := X + 0x40
		s.put(M, 0)
		s.put(M+8, rt(fnMain))
		prog := &Module{Name: "prog", Path: "/usr/bin/prog", ELF: progELF(t), Start: progBias, End: rt(fnMain), Bias: progBias}
		sp := &Space{Mem: s.mem(), Modules: NewModules(prog)}
		fs, _ := Trace(&FPUnwinder{Space: sp}, regs(rt(fnStart+4), X, M), sp, StackOptions{})
		if len(fs) < 2 {
			t.Fatalf("%d frames", len(fs))
		}
		if fs[1].Module != prog {
			t.Errorf("frame 1 (PC %#x) in module %v, want prog", fs[1].PC, fs[1].Module)
		}
		if got := sp.DescribeFrame(&fs[1]); got != "prog!_start+0x20" {
			t.Errorf("frame 1 is %q, want prog!_start+0x20", got)
		}
	})
}
