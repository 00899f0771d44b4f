package frames

import (
	"cmp"
	"debug/elf"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/sfdbg/sfdbg/frames/cfi"
	"github.com/sfdbg/sfdbg/sframe/arch"

	"github.com/sfdbg/sfdbg/sframe/elfobj"
	"github.com/sfdbg/sfdbg/sframe/rule"
)

// cfiEquivFiles are the little-endian fixtures and the host's libc and
// ld.so.
func cfiEquivFiles(t *testing.T) []string {
	var files []string
	for _, n := range []string{"deep-v1-O0", "deep-v1-O2", "deep-v2-O0", "deep-v2-O2", "deep-v3-O0", "deep-v3-O2",
		"features-v1", "features-v2", "features-v3", "sqlite-v2", "sqlite-v3", "aarch64-v2", "aarch64-v3"} {
		files = append(files, filepath.Join("..", "testdata", "bin", n))
	}
	for _, p := range []string{"/lib/x86_64-linux-gnu/libc.so.6", "/lib64/ld-linux-x86-64.so.2"} {
		if _, err := os.Stat(p); err == nil {
			files = append(files, p)
		} else {
			t.Logf("%s: %v (not compared)", p, err)
		}
	}
	return files
}

// instructionPCs returns the link-time addresses of the instruction
// boundaries in [start, end) of f: arch.X86.Len's decoding on x86-64 (a byte at a
// time where it fails), every 4 bytes on AArch64.
func instructionPCs(f *elf.File, start, end uint64) []uint64 {
	var text []byte
	var base uint64
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD && p.Flags&elf.PF_X != 0 && start >= p.Vaddr && end <= p.Vaddr+p.Filesz {
			b := make([]byte, end-start)
			if _, err := p.ReadAt(b, int64(start-p.Vaddr)); err == nil {
				text, base = b, start
			}
		}
	}
	var pcs []uint64
	if text == nil {
		return []uint64{start, end - 1}
	}
	for off := 0; off < len(text); {
		pcs = append(pcs, base+uint64(off))
		n := 4
		if f.Machine == elf.EM_X86_64 {
			n = 1
			if k, ok := (arch.X86{}).Len(text[off:]); ok {
				n = k
			}
		}
		off += n
	}
	return pcs
}

// otherList returns the rules of o sorted by register.
func otherList(o OtherRules) []cfi.RegRule {
	var l []cfi.RegRule
	o.each(func(reg rule.Reg, r rule.Rule) { l = append(l, cfi.RegRule{Reg: reg, Rule: r}) })
	slices.SortFunc(l, func(a, b cfi.RegRule) int { return cmp.Compare(a.Reg, b.Reg) })
	return l
}

// sameOther reports whether a and b hold the same rules.
func sameOther(a, b OtherRules) bool {
	return slices.Equal(otherList(a), otherList(b))
}

func sameConvertedRow(a, b Row) bool {
	a.Src.Module, b.Src.Module = nil, nil
	return a.Row == b.Row && a.Src == b.Src && a.Start == b.Start && a.End == b.End && sameOther(a.Other, b.Other)
}

// TestCFILazyMatchesEager checks that the lazy table (.eh_frame_hdr) and
// the full table give the same rows and errors at every instruction
// boundary of the fixtures and the host's libc and ld.so. (Before the
// Delve-based reader was removed, commit 36da7e2 checked this reader
// against it the same way: identical rows at 1,003,356 instructions of
// 7,416 FDEs, the new reader tracking AArch64's RA signing besides.)
func TestCFILazyMatchesEager(t *testing.T) {
	const bias = 0x7f0000000000
	for _, path := range cfiEquivFiles(t) {
		t.Run("the lazy and the full table agree at every instruction of "+filepath.Base(path), func(t *testing.T) {
			f, err := elf.Open(path)
			if err != nil {
				t.Skip(err)
			}
			defer f.Close()
			eager, eerr := loadCFI(elfobj.Link(f), bias)
			lazy, lerr := loadCFIIndex(elfobj.Link(f), bias)
			if eerr != nil {
				t.Fatal(eerr)
			}
			if lazy == nil {
				t.Skipf("no index: %v", lerr)
			}
			n := 0
			for _, fd := range eager.fdes {
				for _, pc := range append(instructionPCs(f, fd.Start, fd.End), fd.End) {
					n++
					er, eerr := eager.row(pc)
					lr, lerr := lazy.row(pc)
					if (eerr == nil) != (lerr == nil) || eerr != nil && errors.Is(eerr, cfi.ErrNoFDE) != errors.Is(lerr, cfi.ErrNoFDE) {
						t.Fatalf("PC %#x: eager %v, lazy %v", pc, eerr, lerr)
					}
					if eerr == nil && !sameConvertedRow(er, lr) {
						t.Fatalf("PC %#x: lazy row %s, eager %s", pc, cfiRowString(lr), cfiRowString(er))
					}
				}
			}
			t.Logf("%d FDEs, %d PCs: identical", len(eager.fdes), n)
		})
	}
}

// TestCFIRowIsLazy checks that a module with a usable .eh_frame_hdr
// answers a lookup without parsing all of its CFI, and that concurrent
// lookups agree (run with -race).
func TestCFIRowIsLazy(t *testing.T) {
	p := filepath.Join("..", "testdata", "bin", "deep-v3-O2")
	const bias = 0x555555554000
	m := &Module{Name: "deep-v3-O2", OpenPath: p, Start: bias, End: bias + 0x5000, Bias: bias}
	defer m.Close()
	var wg sync.WaitGroup
	rows := make([]Row, 8)
	for i := range rows {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := m.CFIRow(bias + 0x1662)
			if err != nil {
				t.Error(err)
			}
			rows[i] = r
		}()
	}
	wg.Wait()
	for i := range rows {
		if !sameConvertedRow(rows[i], rows[0]) || RuleString(rows[i].CFA) != "rsp+16" {
			t.Errorf("lookup %d: %s, lookup 0: %s", i, cfiRowString(rows[i]), cfiRowString(rows[0]))
		}
	}
	if m.data.cfiHdr == nil || m.data.cfiHdr.index == nil || m.data.cfi != nil {
		t.Errorf("the lookup did not go through .eh_frame_hdr alone (index %v, full table %v)", m.data.cfiHdr, m.data.cfi)
	}
}

// TestCFIReaderReadsBigEndian checks that the big-endian fixtures, which
// the Delve-based reader refused, have rows at every FDE.
func TestCFIReaderReadsBigEndian(t *testing.T) {
	for _, n := range []string{"aarch64be-v2", "aarch64be-v3", "s390x-v3"} {
		t.Run(n+" has CFI rows", func(t *testing.T) {
			f, err := elf.Open(filepath.Join("..", "testdata", "bin", n))
			if err != nil {
				t.Skip(err)
			}
			defer f.Close()
			tab, err := loadCFI(elfobj.Link(f), 0)
			if err != nil || tab == nil || len(tab.fdes) == 0 {
				t.Fatalf("%v (%d FDEs)", err, len(tab.fdes))
			}
			for _, fd := range tab.fdes {
				if _, err := tab.row(fd.Start); err != nil && !errors.Is(err, cfi.ErrNoRow) {
					t.Errorf("FDE at %#x: %v", fd.Off, err)
				}
			}
		})
	}
}
