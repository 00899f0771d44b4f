package frames

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/sfdbg/sfdbg/sframe/arch"
)

// fileMemory reads a fixture's loaded segments at link-time addresses.
type fileMemory struct{ f *elf.File }

func (m fileMemory) ReadAt(p []byte, a uint64) (int, error) {
	for _, pr := range m.f.Progs {
		if pr.Type == elf.PT_LOAD && a >= pr.Vaddr && a+uint64(len(p)) <= pr.Vaddr+pr.Filesz {
			return pr.ReadAt(p, int64(a-pr.Vaddr))
		}
	}
	return 0, errors.New("not in the file")
}

func varNames(vs []Var) string {
	var n []string
	for _, v := range vs {
		n = append(n, v.Name)
	}
	return strings.Join(n, " ")
}

// The variables of locals.c's leaf at -O2, read from the committed
// fixture without a process: gdb's order (parameters; locals innermost
// block first), a DW_AT_const_value, an optimized-out array, a global in
// .data, and entry values resolved through two call sites (middle's
// DW_OP_entry_value(rdx)+3, then outer's constant; outer's DW_OP_fbreg
// for r), as gdb prints "n=n@entry=5" and "r=r@entry=0x...".
func TestFrameScopeOfTheLocalsFixture(t *testing.T) {
	m := fixtureModule(t, "locals-v3-O2")
	f, err := elf.Open(fixture(t, "locals-v3-O2"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	space := &Space{Mem: fileMemory{f}, Modules: NewModules(m)}
	leaf := symbolAddr(t, m, "leaf")
	sc, err := m.FrameScope(leaf+0x40, 0) // the spin loop
	if err != nil {
		t.Fatal(err)
	}
	if got := varNames(sc.Params); got != "r n label" {
		t.Errorf("parameters %q", got)
	}
	if got := varNames(sc.Locals); got != "total small buf zeros fn w ok" {
		t.Errorf("locals %q", got)
	}
	frame := func(pc uint64, level int, cfa uint64) *VarFrame {
		regs := NewRegs(arch.AMD64Arch)
		regs.Set(RIP, pc)
		fr := &Frame{Level: level, PC: pc, Regs: regs, Interrupted: level == 0}
		fr.locate(space.Modules)
		return &VarFrame{Frame: fr, CFA: cfa, Space: space}
	}
	vf := frame(leaf+0x40, 0, 0x7fff0100)
	vf.Caller = frame(0x124e, 1, 0x7fff0200)        // middle, after its call of leaf
	vf.Caller.Caller = frame(0x12db, 2, 0x7fff1000) // outer, after its call of middle
	byName := func(vs []Var, n string) *Var {
		for i := range vs {
			if vs[i].Name == n {
				return &vs[i]
			}
		}
		t.Fatalf("no variable %s", n)
		return nil
	}
	small, err := sc.Read(byName(sc.Locals, "small"), vf)
	if err != nil || !bytes.Equal(small.Bytes, []byte{200}) {
		t.Errorf("small (DW_AT_const_value -56 as unsigned char): %v, %v", small.Bytes, err)
	}
	if _, err := sc.Read(byName(sc.Locals, "zeros"), vf); !errors.Is(err, ErrOptimizedOut) {
		t.Errorf("zeros: %v, want optimized out", err)
	}
	n, ok := sc.ReadEntry(byName(sc.Params, "n"), vf)
	if !ok || binary.LittleEndian.Uint32(n.Bytes) != 5 {
		t.Errorf("n@entry: %v %v, want 5 (outer's GREEN, 2, plus 3 in middle)", n.Bytes, ok)
	}
	r, ok := sc.ReadEntry(byName(sc.Params, "r"), vf)
	if !ok || binary.LittleEndian.Uint64(r.Bytes) != 0x7fff1000-64 {
		t.Errorf("r@entry: %x %v, want outer's CFA-64", r.Bytes, ok)
	}
	// Without the callers, entry values are not known.
	vf.Caller = nil
	if _, ok := sc.ReadEntry(byName(sc.Params, "n"), vf); ok {
		t.Error("n@entry known without a caller frame")
	}
	gsc, g, ok := m.LookupGlobal("counter")
	if !ok {
		t.Fatal("no global counter")
	}
	if v, err := gsc.Read(g, vf); err != nil || binary.LittleEndian.Uint32(v.Bytes) != 42 || !v.InMemory {
		t.Errorf("counter: %v %v", v, err)
	}
	if ty, ok := m.LookupType("struct rec"); !ok || ty.Size() != 48 {
		t.Errorf("struct rec: %v %v", ty, ok)
	}
	if _, err := m.FrameScope(leaf+0x40, 5); err == nil {
		t.Error("an inline depth deeper than the chain: no error")
	}
}

// FuzzFrameScope flips bytes of the locals fixture's .debug_info,
// .debug_abbrev and .debug_loclists and reads every variable of three
// frames, the globals and a type: hostile DWARF gives errors, never a
// panic, a hang or an unbounded allocation.
func FuzzFrameScope(f *testing.F) {
	path := fixture(f, "locals-v3-O2")
	bin, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	ef, err := elf.NewFile(bytes.NewReader(bin))
	if err != nil {
		f.Fatal(err)
	}
	var secs []*elf.Section
	for _, n := range []string{".debug_info", ".debug_abbrev", ".debug_loclists"} {
		s := ef.Section(n)
		if s == nil || s.Size == 0 {
			f.Fatalf("%s has no %s", path, n)
		}
		secs = append(secs, s)
	}
	f.Add(uint8(0), uint32(0), byte(0), uint8(2), uint32(0), byte(0))
	f.Add(uint8(0), uint32(0x620), byte(0xff), uint8(2), uint32(0x40), byte(0x80))
	f.Fuzz(func(t *testing.T, s1 uint8, off1 uint32, x1 byte, s2 uint8, off2 uint32, x2 byte) {
		b := append([]byte(nil), bin...)
		for _, m := range []struct {
			s   uint8
			off uint32
			x   byte
		}{{s1, off1, x1}, {s2, off2, x2}} {
			sec := secs[int(m.s)%len(secs)]
			b[sec.Offset+uint64(m.off)%sec.Size] ^= m.x
		}
		m := &Module{Name: "fuzz", ELF: b, Start: 0, End: 1 << 40}
		defer m.Close()
		space := &Space{Mem: fileMemory{ef}, Modules: NewModules(m)}
		for _, pc := range []uint64{0x11e0, 0x1240, 0x12d0} {
			sc, err := m.FrameScope(pc, 0)
			if err != nil {
				continue
			}
			regs := NewRegs(arch.AMD64Arch)
			regs.Set(RIP, pc)
			fr := &Frame{PC: pc, Regs: regs, Interrupted: true, Module: m}
			caller := &Frame{Level: 1, PC: 0x12db, Regs: regs, Module: m}
			vf := &VarFrame{Frame: fr, CFA: 0x7fff0100, Space: space, Caller: &VarFrame{Frame: caller, CFA: 0x7fff1000, Space: space}}
			for _, vs := range [][]Var{sc.Params, sc.Locals} {
				for i := range vs {
					sc.Read(&vs[i], vf)
					sc.ReadEntry(&vs[i], vf)
					sc.Address(&vs[i], vf)
				}
			}
		}
		if gsc, g, ok := m.LookupGlobal("counter"); ok {
			gsc.Read(g, &VarFrame{Frame: &Frame{Regs: NewRegs(arch.AMD64Arch)}, Space: space})
		}
		m.LookupType("struct rec")
	})
}
