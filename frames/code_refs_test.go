package frames

import (
	"debug/elf"
	"path/filepath"
	"slices"
	"testing"

	"golang.org/x/arch/x86/x86asm"
)

// TestNextRefIsX86asmsRIPOperands: the addresses nextRef knows are the
// RIP-relative operands x86asm finds in the file's code, decoded linearly
// (sqlite-v3: PIE, thousands of them).
func TestNextRefIsX86asmsRIPOperands(t *testing.T) {
	path := filepath.Join("..", "testdata", "bin", "sqlite-v3")
	m := &Module{Name: "sqlite-v3", OpenPath: path, Path: path, Start: 0, End: 1 << 40}
	defer m.Close()
	c, err := m.CodeAnalyzer()
	if err != nil {
		t.Fatal(err)
	}
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var want []uint64
	for _, s := range f.Sections {
		if s.Flags&elf.SHF_EXECINSTR == 0 {
			continue
		}
		b, err := s.Data()
		if err != nil {
			t.Fatal(err)
		}
		for off := 0; off < len(b); {
			in, err := x86asm.Decode(b[off:], 64)
			if err != nil || in.Len == 0 {
				off++
				continue
			}
			for _, a := range in.Args {
				if mem, ok := a.(x86asm.Mem); ok && mem.Base == x86asm.RIP {
					want = append(want, s.Addr+uint64(off+in.Len)+uint64(int64(int32(mem.Disp)))) // x86asm leaves a negative disp32 zero-extended
				}
			}
			off += in.Len
		}
	}
	slices.Sort(want)
	want = slices.Compact(want)
	if len(want) < 10 {
		t.Fatalf("only %d RIP-relative operands in %s", len(want), path)
	}
	for i, w := range want {
		if got := c.nextRef(w - 1); got != w {
			t.Errorf("nextRef(%#x) = %#x, want %#x (operand %d of %d)", w-1, got, w, i, len(want))
		}
	}
	if got := c.nextRef(want[len(want)-1]); got != 0 {
		t.Errorf("nextRef past the last operand = %#x, want 0", got)
	}
}
