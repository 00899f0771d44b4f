package frames

import (
	"bytes"
	"cmp"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	dwframe "github.com/go-delve/delve/pkg/dwarf/frame"
)

// ehHdrEntry is one entry of a synthetic .eh_frame_hdr table: a function's
// start address and the byte offset of its FDE in .eh_frame.
type ehHdrEntry struct {
	loc uint64
	off int64
}

// buildEHFrameHdr lays out an .eh_frame_hdr mapped at hdrAddr for the
// .eh_frame at ehAddr, with the entries in the order given: eh_frame_ptr
// pcrel|sdata4 and fde_count udata4 as the linkers write them, the table
// encoded with tableEnc (datarel or absolute, 4 or 8 bytes).
func buildEHFrameHdr(hdrAddr, ehAddr uint64, tableEnc byte, entries []ehHdrEntry) []byte {
	le := binary.LittleEndian
	b := []byte{1, ehPEPCRel | ehPESdata4, ehPEUdata4, tableEnc}
	b = le.AppendUint32(b, uint32(ehAddr-(hdrAddr+4)))
	b = le.AppendUint32(b, uint32(len(entries)))
	base := uint64(0)
	if tableEnc&ehPEApplication == ehPEDataRel {
		base = hdrAddr
	}
	n, _ := ehPESize(tableEnc)
	for _, e := range entries {
		for _, v := range []uint64{e.loc - base, ehAddr + uint64(e.off) - base} {
			if n == 4 {
				b = le.AppendUint32(b, uint32(v))
			} else {
				b = le.AppendUint64(b, v)
			}
		}
	}
	return b
}

// ehHdrEntriesOf returns the table a linker writes for a well-formed
// .eh_frame: every FDE, sorted by start address.
func ehHdrEntriesOf(t testing.TB, eh []byte, ehAddr uint64, machine elf.Machine) []ehHdrEntry {
	t.Helper()
	fdes, err := parseCFISection(SectionEHFrame, eh, ehAddr, machine)
	if err != nil {
		t.Fatalf("parseCFISection: %v", err)
	}
	var out []ehHdrEntry
	for _, f := range fdes {
		out = append(out, ehHdrEntry{f.begin, f.off})
	}
	slices.SortStableFunc(out, func(a, b ehHdrEntry) int { return cmp.Compare(a.loc, b.loc) })
	return out
}

// cfiHdrIndexOf is newCFIHdrIndex over the .eh_frame bytes eh.
func cfiHdrIndexOf(hdr []byte, hdrAddr uint64, eh []byte, ehAddr uint64, machine elf.Machine, bias uint64) (*cfiTable, error) {
	return newCFIHdrIndex(hdr, hdrAddr, bytes.NewReader(eh), int64(len(eh)), ehAddr, machine, bias)
}

// cfiTestModule returns a module without a file whose CFI is the eager
// table eager (or the error eagerErr) and, for lookups at single PCs, the
// .eh_frame_hdr index lazy when not nil.
func cfiTestModule(name string, bias uint64, eager *cfiTable, eagerErr error, lazy *cfiTable) *Module {
	m := &Module{Name: name, Start: bias, End: bias + 1<<40, Bias: bias}
	m.once.Do(func() {})
	m.data = &moduleData{}
	m.data.cfiOnce.Do(func() { m.data.cfi, m.data.cfiErr = eager, eagerErr })
	m.data.cfiHdrOnce.Do(func() { m.data.cfiHdr = lazy })
	return m
}

// cfiSameOutcome reports why two lookups differ, or "" when they give the
// same row or the same kind of error: errCFINoFDE, errCFINoRow, a
// *CFIError of the same section and offset, or *StopErrors of the same
// reason wrapping such errors.
func cfiSameOutcome(eagerRow Row, eagerErr error, lazyRow Row, lazyErr error) string {
	if eagerErr == nil && lazyErr == nil {
		// The two come from different Module values: compare the rows
		// without them.
		eagerRow.Src.Module, lazyRow.Src.Module = nil, nil
		if !reflect.DeepEqual(eagerRow, lazyRow) {
			return fmt.Sprintf("row %s %q, eager %s %q", cfiRowString(lazyRow), lazyRow.Src.String(), cfiRowString(eagerRow), eagerRow.Src.String())
		}
		return ""
	}
	if (eagerErr == nil) != (lazyErr == nil) {
		return fmt.Sprintf("error %v, eager %v", lazyErr, eagerErr)
	}
	var es, ls *StopError
	if errors.As(eagerErr, &es) != errors.As(lazyErr, &ls) || es != nil && es.Reason != ls.Reason {
		return fmt.Sprintf("error %v, eager %v", lazyErr, eagerErr)
	}
	for _, kind := range []error{errCFINoFDE, errCFINoRow} {
		if errors.Is(eagerErr, kind) != errors.Is(lazyErr, kind) {
			return fmt.Sprintf("error %v, eager %v", lazyErr, eagerErr)
		}
	}
	var ec, lc *CFIError
	if errors.As(eagerErr, &ec) != errors.As(lazyErr, &lc) || ec != nil && (ec.Section != lc.Section || ec.Off != lc.Off) {
		return fmt.Sprintf("error %v, eager %v", lazyErr, eagerErr)
	}
	return ""
}

// cfiProbePCs returns the link-time PCs to compare lookups at: around and
// inside every FDE of the eager table (start, end-1, a spread inside, the
// bytes before and at the end, often gaps), and at every table entry.
func cfiProbePCs(eager *cfiTable, lazy *cfiTable) []uint64 {
	pcs := []uint64{0, 1, ^uint64(0)}
	for _, f := range eager.fdes {
		pcs = append(pcs, f.begin-1, f.begin, f.end-1, f.end, f.end+1)
		for k := uint64(1); k < 8; k++ {
			pcs = append(pcs, f.begin+(f.end-f.begin)*k/8)
		}
	}
	if h := lazy.hdr; h != nil {
		for i := range h.tab.n {
			loc, _ := h.tab.entry(i)
			pcs = append(pcs, loc-1, loc, loc+1)
		}
	}
	return pcs
}

// cfiCompareTables looks every probe PC up in both tables and reports
// differences; it returns the number of PCs compared.
func cfiCompareTables(t *testing.T, eager, lazy *cfiTable, pcs []uint64) int {
	t.Helper()
	bad := 0
	for _, pc := range pcs {
		er, ee := eager.row(pc)
		lr, le := lazy.row(pc)
		if d := cfiSameOutcome(er, ee, lr, le); d != "" {
			if bad++; bad <= 10 {
				t.Errorf("at %#x: %s", pc, d)
			}
		}
	}
	return len(pcs)
}

// cfiHdrFixtures lists the amd64 committed fixtures and the host's libc and
// dynamic loader.
func cfiHdrFixtures() []string {
	var files []string
	for _, v := range []int{1, 2, 3} {
		for _, o := range []string{"O0", "O2"} {
			files = append(files, filepath.Join("..", "testdata", "bin", fmt.Sprintf("deep-v%d-%s", v, o)))
		}
		files = append(files, filepath.Join("..", "testdata", "bin", fmt.Sprintf("features-v%d", v)))
	}
	return append(files,
		filepath.Join("..", "testdata", "bin", "sqlite-v2"),
		filepath.Join("..", "testdata", "bin", "sqlite-v3"),
		"/lib/x86_64-linux-gnu/libc.so.6",
		"/lib64/ld-linux-x86-64.so.2")
}

// TestCFIHdrMatchesEager checks that lookups through .eh_frame_hdr give
// exactly the rows (or errors) of the eager table, at every FDE start,
// end-1, a spread of PCs inside, the bytes around and at every table
// entry: with the table itself (cfiTable.row) and through modules
// (CFIRow, and cfiFrameRow for frames whose PC is a return address and
// for interrupted ones). The features fixtures have no .eh_frame_hdr: they
// get one built the way the linkers do.
func TestCFIHdrMatchesEager(t *testing.T) {
	const bias = 0x7f0000000000
	for _, path := range cfiHdrFixtures() {
		t.Run(filepath.Base(path), func(t *testing.T) {
			f, err := elf.Open(path)
			if err != nil {
				if strings.HasPrefix(path, "/") {
					t.Skipf("no %s on this host: %v", path, err)
				}
				t.Fatalf("fixture: %v", err)
			}
			defer f.Close()
			eager, err := loadCFI(f, bias)
			if err != nil || eager == nil {
				t.Fatalf("loadCFI: %v, %v", eager, err)
			}
			ehSec := f.Section(SectionEHFrame)
			eh, err := ehSec.Data()
			if err != nil {
				t.Fatal(err)
			}
			entries := ehHdrEntriesOf(t, eh, ehSec.Addr, f.Machine)
			lazy, why := loadCFIIndex(f, bias)
			hdrSec := f.Section(SectionEHFrameHdr)
			hasHdr := hdrSec != nil
			switch {
			case hasHdr && lazy == nil:
				t.Fatalf("loadCFIIndex: %v", why)
			case hasHdr:
				// The helper writes what the linker wrote.
				hdr, _ := hdrSec.Data()
				if !bytes.HasPrefix(hdr, buildEHFrameHdr(hdrSec.Addr, ehSec.Addr, ehPEDataRel|ehPESdata4, entries)) {
					t.Errorf("buildEHFrameHdr does not write the linker's table")
				}
			case lazy != nil:
				t.Fatalf("loadCFIIndex succeeded without %s", SectionEHFrameHdr)
			default:
				t.Logf("no %s (%v): using a built one", SectionEHFrameHdr, why)
				hdrAddr := ehSec.Addr + uint64(len(eh))
				hdr := buildEHFrameHdr(hdrAddr, ehSec.Addr, ehPEDataRel|ehPESdata4, entries)
				if lazy, err = cfiHdrIndexOf(hdr, hdrAddr, eh, ehSec.Addr, f.Machine, bias); err != nil {
					t.Fatal(err)
				}
			}

			pcs := cfiProbePCs(eager, lazy)
			n := cfiCompareTables(t, eager, lazy, pcs)

			// The same through modules; the lazy one must not parse the
			// whole section.
			name := filepath.Base(path)
			em := cfiTestModule(name, bias, eager, nil, nil)
			lm := &Module{Name: name, OpenPath: path, Start: bias, End: bias + 1<<40, Bias: bias}
			defer lm.Close()
			if !hasHdr {
				lm = cfiTestModule(name, bias, nil, errors.New("eager table used"), lazy)
			}
			frames := 0
			for _, pc := range pcs {
				rt := pc + bias
				er, ee := em.CFIRow(rt)
				lr, le := lm.CFIRow(rt)
				if d := cfiSameOutcome(er, ee, lr, le); d != "" {
					t.Errorf("CFIRow(%#x): %s", rt, d)
				}
				for _, interrupted := range []bool{false, true} {
					fr := Frame{Level: 1, PC: rt, Interrupted: interrupted}
					er, ee := em.cfiFrameRow(&fr)
					lr, le := lm.cfiFrameRow(&fr)
					if d := cfiSameOutcome(er, ee, lr, le); d != "" {
						t.Errorf("cfiFrameRow(PC %#x, interrupted %v): %s", rt, interrupted, d)
					}
					frames++
				}
			}
			if hasHdr && (lm.data.cfi != nil || lm.data.cfiErr != nil) {
				t.Errorf("the lazy module parsed all of its CFI")
			}
			t.Logf("%d FDEs, %d table entries: %d PCs compared in the tables, %d through modules, %d frames",
				len(eager.fdes), lazy.hdr.tab.n, n, len(pcs), frames)
		})
	}
}

// TestCFIHdrIsLazy checks that a lookup parses only the FDE it needs and
// that whole-module walks still see every FDE.
func TestCFIHdrIsLazy(t *testing.T) {
	m := fixtureModule(t, "sqlite-v3")
	if _, err := m.CFIRow(symbolAddr(t, m, "sqlite3_open")); err != nil {
		t.Fatal(err)
	}
	if m.data.cfiHdr == nil || m.data.cfiHdr.hdr == nil {
		t.Fatalf("after one lookup: no %s index (eager table loaded: %v)", SectionEHFrameHdr, m.data.cfi != nil)
	}
	x := m.data.cfiHdr.hdr
	if len(x.fdes) != 1 || len(x.cies) != 1 || m.data.cfi != nil {
		t.Fatalf("after one lookup: %d FDEs and %d CIEs parsed, eager table %v", len(x.fdes), len(x.cies), m.data.cfi != nil)
	}
	fdes, err := m.CFIFDEs()
	if err != nil || len(fdes) < 1000 {
		t.Errorf("CFIFDEs: %d FDEs, %v", len(fdes), err)
	}
	if len(x.fdes) != 1 {
		t.Errorf("CFIFDEs went through the index")
	}
}

// TestCFIHdrConcurrent looks PCs up in one index from several goroutines
// (run with -race): every goroutine gets the eager table's rows. The FDEs
// are dealt out in four shares, each walked by two goroutines in step, so
// that every FDE is parsed while another goroutine wants it too, and
// different FDEs sharing a CIE are parsed at the same time.
func TestCFIHdrConcurrent(t *testing.T) {
	f, err := elf.Open(fixture(t, "sqlite-v3"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	eager, err := loadCFI(f, 0)
	if err != nil {
		t.Fatal(err)
	}
	lazy, why := loadCFIIndex(f, 0)
	if lazy == nil {
		t.Fatal(why)
	}
	const goroutines, shares = 8, 4
	var wg sync.WaitGroup
	errs := make(chan string, goroutines)
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := g % shares; i < len(eager.fdes); i += shares {
				pc := eager.fdes[i].begin + 1
				er, ee := eager.row(pc)
				lr, le := lazy.row(pc)
				if d := cfiSameOutcome(er, ee, lr, le); d != "" {
					errs <- fmt.Sprintf("at %#x: %s", pc, d)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// cfiHdrSynthetic is a small .eh_frame at 0x2000 with its .eh_frame_hdr
// at 0x3000: FDEs for [0x1000,0x1020), [0x1020,0x1040) (with a prologue)
// and [0x1100,0x1110), and the table entries a linker writes for them.
func cfiHdrSynthetic() (eh *ehBuilder, entries []ehHdrEntry) {
	eh = &ehBuilder{addr: 0x2000}
	cie := eh.stdCIE()
	a := eh.fde(cie, 0x1000, 0x20, nil)
	b := eh.fde(cie, 0x1020, 0x20, cfiProg().advance(1).defCFAOffset(16).offset(6, 2).advance(3).defCFARegister(6).bytes())
	c := eh.fde(cie, 0x1100, 0x10, nil)
	return eh, []ehHdrEntry{{0x1000, int64(a)}, {0x1020, int64(b)}, {0x1100, int64(c)}}
}

const cfiHdrAddr = 0x3000

// TestCFIHdrHostile feeds broken .eh_frame_hdr sections to the index: a
// header it cannot use must be refused with a *CFIError (the module then
// parses all of .eh_frame), and a table that disagrees with .eh_frame must
// still give the eager table's rows; nothing may panic.
func TestCFIHdrHostile(t *testing.T) {
	eh, entries := cfiHdrSynthetic()
	sec := eh.section()
	good := func() []byte { return buildEHFrameHdr(cfiHdrAddr, eh.addr, ehPEDataRel|ehPESdata4, entries) }
	patch := func(off int, b ...byte) []byte { h := good(); copy(h[off:], b); return h }
	u32 := func(v uint32) []byte { return binary.LittleEndian.AppendUint32(nil, v) }
	le := binary.LittleEndian
	refused := []struct {
		name    string
		hdr     []byte
		hdrAddr uint64 // cfiHdrAddr if 0
	}{
		{"empty", nil, 0},
		{"a truncated header", []byte{1, 0x1b, 0x03}, 0},
		{"a truncated eh_frame_ptr", good()[:6], 0},
		{"a truncated fde_count", good()[:10], 0},
		{"version 2", patch(0, 2), 0},
		{"eh_frame_ptr omitted", patch(1, ehPEOmit), 0},
		{"eh_frame_ptr in ULEB128", patch(1, 0x11), 0},
		{"eh_frame_ptr indirect", patch(1, 0x9b), 0},
		{"eh_frame_ptr textrel", patch(1, 0x2b), 0},
		{"eh_frame_ptr elsewhere", patch(4, u32(0x100)...), 0},
		{"fde_count pc-relative", patch(2, 0x13), 0},
		{"fde_count in an unknown format", patch(2, 0x07), 0},
		{"fde_count 0", patch(8, u32(0)...), 0},
		{"fde_count one too many", patch(8, u32(uint32(len(entries)+1))...), 0},
		{"fde_count 0xffffffff", patch(8, u32(0xffffffff)...), 0},
		{"fde_count 2^63 in udata8", func() []byte {
			h := good()
			h[2] = ehPEUdata8
			return append(append(h[:8:8], le.AppendUint64(nil, 1<<63)...), h[12:]...)
		}(), 0},
		{"no table", patch(3, ehPEOmit), 0},
		{"a pc-relative table", patch(3, ehPEPCRel|ehPESdata4), 0},
		{"a table in udata2", patch(3, ehPEDataRel|ehPEUdata2), 0},
		{"a table in ULEB128", patch(3, ehPEDataRel|0x01), 0},
		{"a truncated table", good()[:len(good())-1], 0},
		{"an unsorted table", buildEHFrameHdr(cfiHdrAddr, eh.addr, ehPEDataRel|ehPESdata4, []ehHdrEntry{entries[1], entries[0], entries[2]}), 0},
		{"an FDE before .eh_frame", buildEHFrameHdr(cfiHdrAddr, eh.addr, ehPEDataRel|ehPESdata4, []ehHdrEntry{entries[0], {0x1020, -8}, entries[2]}), 0},
		{"an FDE past .eh_frame", buildEHFrameHdr(cfiHdrAddr, eh.addr, ehPEDataRel|ehPESdata4, []ehHdrEntry{entries[0], {0x1020, int64(len(sec))}, entries[2]}), 0},
		{"an FDE in the last 7 bytes", buildEHFrameHdr(cfiHdrAddr, eh.addr, ehPEDataRel|ehPESdata4, []ehHdrEntry{entries[0], {0x1020, int64(len(sec) - 7)}, entries[2]}), 0},
		{"a first FDE past .eh_frame", buildEHFrameHdr(cfiHdrAddr, eh.addr, ehPEDataRel|ehPESdata4, []ehHdrEntry{{0x1000, int64(len(sec)) + 0x100}, entries[1], entries[2]}), 0},
		{"an unsorted table in sdata8", buildEHFrameHdr(cfiHdrAddr, eh.addr, ehPEDataRel|ehPESdata8, []ehHdrEntry{entries[0], entries[2], entries[1]}), 0},
		{"an FDE past .eh_frame in udata8", buildEHFrameHdr(cfiHdrAddr, eh.addr, ehPEDataRel|ehPEUdata8, []ehHdrEntry{entries[0], entries[1], {0x1100, 1 << 40}}), 0},
		{"an FDE before .eh_frame in udata4", buildEHFrameHdr(0x800, eh.addr, ehPEDataRel|ehPEUdata4, []ehHdrEntry{entries[0], {0x1020, -0x10}, entries[2]}), 0x800},
	}
	for _, tt := range refused {
		t.Run(tt.name, func(t *testing.T) {
			tab, err := cfiHdrIndexOf(tt.hdr, cmp.Or(tt.hdrAddr, cfiHdrAddr), sec, eh.addr, elf.EM_X86_64, 0)
			var ce *CFIError
			if tab != nil || !errors.As(err, &ce) || ce.Section != SectionEHFrameHdr {
				t.Fatalf("newCFIHdrIndex: %v, %v; want a %s error", tab, err, SectionEHFrameHdr)
			}
			t.Log(err)
		})
	}
	if _, err := cfiHdrIndexOf(good(), cfiHdrAddr, sec, 0, elf.EM_X86_64, 0); err == nil {
		t.Errorf(".eh_frame at address 0 accepted")
	}

	eager, err := parseCFI(sec, eh.addr, nil, elf.EM_X86_64, 0)
	if err != nil {
		t.Fatal(err)
	}
	// Tables the index accepts: the answers are the eager table's.
	accepted := []struct {
		name    string
		hdr     []byte
		stale   bool   // the lookups find out and parse all of .eh_frame
		hdrAddr uint64 // cfiHdrAddr if 0
	}{
		{"the linker's table", good(), false, 0},
		// Unsigned offsets need the section below the functions and .eh_frame.
		{"datarel udata4", buildEHFrameHdr(0x800, eh.addr, ehPEDataRel|ehPEUdata4, entries), false, 0x800},
		{"datarel sdata8", buildEHFrameHdr(cfiHdrAddr, eh.addr, ehPEDataRel|ehPESdata8, entries), false, 0},
		{"datarel udata8", buildEHFrameHdr(cfiHdrAddr, eh.addr, ehPEDataRel|ehPEUdata8, entries), false, 0},
		{"absolute udata8", buildEHFrameHdr(cfiHdrAddr, eh.addr, ehPEUdata8, entries), false, 0},
		{"absolute absptr", buildEHFrameHdr(cfiHdrAddr, eh.addr, ehPEAbsptr, entries), false, 0},
		{"eh_frame_ptr datarel", func() []byte {
			h := good()
			h[1] = ehPEDataRel | ehPESdata4
			le.PutUint32(h[4:], uint32(eh.addr-cfiHdrAddr))
			return h
		}(), false, 0},
		{"eh_frame_ptr absolute udata8", func() []byte {
			h := good()
			h[1] = ehPEUdata8
			return append(append(h[:4:4], le.AppendUint64(nil, eh.addr)...), h[8:]...)
		}(), false, 0},
		{"a duplicate entry", buildEHFrameHdr(cfiHdrAddr, eh.addr, ehPEDataRel|ehPESdata4, []ehHdrEntry{entries[0], entries[1], entries[1], entries[2]}), false, 0},
		{"an entry leading to the CIE", buildEHFrameHdr(cfiHdrAddr, eh.addr, ehPEDataRel|ehPESdata4, []ehHdrEntry{entries[0], {0x1020, 0}, entries[2]}), true, 0},
		{"an entry at the wrong address", buildEHFrameHdr(cfiHdrAddr, eh.addr, ehPEDataRel|ehPESdata4, []ehHdrEntry{entries[0], {0x1024, entries[1].off}, entries[2]}), true, 0},
		{"an entry leading to another FDE", buildEHFrameHdr(cfiHdrAddr, eh.addr, ehPEDataRel|ehPESdata4, []ehHdrEntry{entries[0], {0x1020, entries[2].off}, entries[2]}), true, 0},
	}
	for _, tt := range accepted {
		t.Run(tt.name, func(t *testing.T) {
			lazy, err := cfiHdrIndexOf(tt.hdr, cmp.Or(tt.hdrAddr, cfiHdrAddr), sec, eh.addr, elf.EM_X86_64, 0)
			if err != nil {
				t.Fatal(err)
			}
			cfiCompareTables(t, eager, lazy, cfiProbePCs(eager, lazy))
			if lazy.hdr.stale != tt.stale {
				t.Errorf("stale = %v, want %v", lazy.hdr.stale, tt.stale)
			}
		})
	}
	// An entry leading into the middle of a record: whatever the bytes
	// there say, no panic.
	for skew := int64(1); skew < 24; skew++ {
		hdr := buildEHFrameHdr(cfiHdrAddr, eh.addr, ehPEDataRel|ehPESdata4, []ehHdrEntry{entries[0], {0x1020, entries[1].off + skew}, entries[2]})
		lazy, err := cfiHdrIndexOf(hdr, cfiHdrAddr, sec, eh.addr, elf.EM_X86_64, 0)
		if err != nil {
			continue
		}
		for pc := uint64(0x1018); pc < 0x1048; pc++ {
			lazy.row(pc)
		}
	}
}

// TestCFIHdrModuleFallback corrupts the .eh_frame_hdr of a fixture: the
// module must then parse all of .eh_frame and answer as before.
func TestCFIHdrModuleFallback(t *testing.T) {
	path := fixture(t, "deep-v3-O2")
	img, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	hdr := f.Section(SectionEHFrameHdr)
	eager, err := loadCFI(f, 0)
	f.Close()
	if err != nil || hdr == nil {
		t.Fatalf("%v, %v", hdr, err)
	}
	em := cfiTestModule("deep", 0, eager, nil, nil)
	for _, c := range []struct {
		name  string
		at    int
		bytes []byte
	}{
		{"version 0", 0, []byte{0}},
		{"fde_count 0x7fffffff", 8, []byte{0xff, 0xff, 0xff, 0x7f}},
		{"an unknown table encoding", 3, []byte{0x3f}},
	} {
		t.Run(c.name, func(t *testing.T) {
			bad := bytes.Clone(img)
			copy(bad[hdr.Offset+uint64(c.at):], c.bytes)
			m := &Module{Name: "deep", ELF: bad, Start: 0, End: 1 << 40}
			for _, fde := range eager.fdes {
				for _, pc := range []uint64{fde.begin, fde.end - 1} {
					er, ee := em.CFIRow(pc)
					lr, le := m.CFIRow(pc)
					if d := cfiSameOutcome(er, ee, lr, le); d != "" {
						t.Errorf("CFIRow(%#x): %s", pc, d)
					}
				}
			}
			if m.data.cfiHdr != nil || m.data.cfi == nil {
				t.Errorf("the module did not fall back to the eager table")
			}
		})
	}
}

// TestCFIHdrDeclines checks that the index is not used where the eager
// table answers differently or reports an error: a file with .debug_frame
// (its FDEs win over .eh_frame's) and a big-endian file (unsupported).
func TestCFIHdrDeclines(t *testing.T) {
	t.Run(".debug_frame", func(t *testing.T) {
		img, err := os.ReadFile(fixture(t, "deep-v3-O0"))
		if err != nil {
			t.Fatal(err)
		}
		// Rename .debug_line_str: its strings do not parse as CFI, so the
		// eager table skips the section and answers from .eh_frame.
		i := bytes.Index(img, []byte(".debug_line_str\x00"))
		if i < 0 {
			t.Fatal("no .debug_line_str")
		}
		copy(img[i:], ".debug_frame\x00\x00\x00\x00")
		f, err := elf.NewFile(bytes.NewReader(img))
		if err != nil {
			t.Fatal(err)
		}
		if tab, why := loadCFIIndex(f, 0); tab != nil || !strings.Contains(fmt.Sprint(why), SectionDebugFrame) {
			t.Errorf("loadCFIIndex: %v, %v; want a refusal naming %s", tab, why, SectionDebugFrame)
		}
		m := &Module{Name: "deep", ELF: img, Start: 0, End: 1 << 40}
		addr, _, _ := m.LookupSymbol("main")
		if _, err := m.CFIRow(addr); err != nil || m.data.cfi == nil {
			t.Errorf("CFIRow(main): %v (eager table loaded: %v)", err, m.data.cfi != nil)
		}
	})
	t.Run("big-endian", func(t *testing.T) {
		f, err := elf.Open(fixture(t, "aarch64be-v3"))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if tab, why := loadCFIIndex(f, 0); tab != nil || why == nil {
			t.Errorf("loadCFIIndex: %v, %v", tab, why)
		}
		m := &Module{Name: "be", OpenPath: fixture(t, "aarch64be-v3"), Start: 0, End: 1 << 40}
		defer m.Close()
		if _, err := m.CFIRow(0x40011c); !errors.Is(err, ErrUnsupportedCFI) {
			t.Errorf("CFIRow: %v, want ErrUnsupportedCFI", err)
		}
	})
}

// TestCFIHdrMalformedFDE checks that a malformed record found through the
// index gives the error the eager parse gives for it (a *StopError with
// ReasonFormat wrapping a *CFIError of .eh_frame at the record's offset,
// with the same message), while lookups elsewhere go on working.
func TestCFIHdrMalformedFDE(t *testing.T) {
	const badPC = 0x1040
	tests := []struct {
		name string
		// build adds the bad record after a CIE and an FDE at good; a
		// bad CIE gets an FDE using it.
		build func(eh *ehBuilder, good int) (bad int)
	}{
		{"an FDE pointing to no CIE", func(eh *ehBuilder, _ int) int {
			off := eh.fde(0, badPC, 0x10, nil)
			binary.LittleEndian.PutUint32(eh.buf[off+4:], uint32(off+4-1))
			return off
		}},
		{"an FDE pointing to an FDE", func(eh *ehBuilder, good int) int {
			return eh.fde(good, badPC, 0x10, nil)
		}},
		{"an FDE pointing past itself", func(eh *ehBuilder, _ int) int {
			off := eh.fde(0, badPC, 0x10, nil)
			binary.LittleEndian.PutUint32(eh.buf[off+4:], 2)
			return off
		}},
		{"a CIE with an unknown augmentation", func(eh *ehBuilder, _ int) int {
			return eh.cie("zX", nil)
		}},
		{"an FDE running past the section", func(eh *ehBuilder, _ int) int {
			off := eh.fde(0, badPC, 0x10, nil)
			binary.LittleEndian.PutUint32(eh.buf[off:], 0x1000)
			return off
		}},
		{"a malformed instruction", func(eh *ehBuilder, _ int) int {
			return eh.fde(0, badPC, 0x10, cfiProg().op(dwframe.DW_CFA_restore_state).bytes())
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			eh := &ehBuilder{addr: 0x2000}
			cie := eh.stdCIE()
			good := eh.fde(cie, 0x1000, 0x20, nil)
			bad := tt.build(eh, good)
			entries := []ehHdrEntry{{0x1000, int64(good)}}
			if binary.LittleEndian.Uint32(eh.buf[bad+4:]) == 0 {
				// A bad CIE: an FDE using it.
				bad = eh.fde(bad, badPC, 0x10, nil)
			}
			entries = append(entries, ehHdrEntry{badPC, int64(bad)})
			sec := eh.section()
			if tt.name == "an FDE running past the section" {
				sec = eh.buf
			}
			eager, eagerErr := parseCFI(sec, eh.addr, nil, elf.EM_X86_64, 0)
			hdr := buildEHFrameHdr(cfiHdrAddr, eh.addr, ehPEDataRel|ehPESdata4, entries)
			lazy, err := cfiHdrIndexOf(hdr, cfiHdrAddr, sec, eh.addr, elf.EM_X86_64, 0)
			if err != nil {
				t.Fatal(err)
			}
			em := cfiTestModule("bad", 0, eager, eagerErr, nil)
			lm := cfiTestModule("bad", 0, nil, errors.New("eager table used"), lazy)
			er, ee := em.CFIRow(badPC + 4)
			lr, le := lm.CFIRow(badPC + 4)
			var se *StopError
			var ce *CFIError
			if !errors.As(le, &se) || se.Reason != ReasonFormat || !errors.As(le, &ce) || ce.Section != SectionEHFrame {
				t.Fatalf("lookup in the bad FDE: %v, want ReasonFormat with a .eh_frame *CFIError", le)
			}
			if d := cfiSameOutcome(er, ee, lr, le); d != "" {
				t.Errorf("%s", d)
			}
			// Delve's offsets are rewritten as offsets in .eh_frame.
			var ec *CFIError
			if errors.As(ee, &ec) && ec.Msg != ce.Msg {
				t.Errorf("message %q, eager %q", ce.Msg, ec.Msg)
			}
			t.Logf("lazy: %v\neager: %v", le, ee)
			if _, err := lm.CFIRow(0x1004); err != nil {
				t.Errorf("lookup in the good FDE: %v", err)
			}
			fr := Frame{Level: 1, PC: badPC + 5}
			_, fe := lm.cfiFrameRow(&fr)
			if d := cfiSameOutcome(Row{}, le, Row{}, fe); d != "" {
				t.Errorf("cfiFrameRow in the bad FDE: %s", d)
			}
		})
	}
}

// FuzzEHFrameHdr feeds arbitrary .eh_frame_hdr and .eh_frame bytes at
// arbitrary addresses to the index and looks up the PCs of its table and
// around them: errors are fine, panics and hangs are not.
func FuzzEHFrameHdr(f *testing.F) {
	eh, entries := cfiHdrSynthetic()
	f.Add(buildEHFrameHdr(cfiHdrAddr, eh.addr, ehPEDataRel|ehPESdata4, entries), eh.section(), uint64(cfiHdrAddr), eh.addr)
	f.Add(buildEHFrameHdr(cfiHdrAddr, eh.addr, ehPEUdata8, entries), eh.section(), uint64(cfiHdrAddr), eh.addr)
	if file, err := elf.Open(filepath.Join("..", "testdata", "bin", "deep-v3-O2")); err == nil {
		h, e := file.Section(SectionEHFrameHdr), file.Section(SectionEHFrame)
		if h != nil && e != nil {
			hd, err1 := h.Data()
			ed, err2 := e.Data()
			if err1 == nil && err2 == nil {
				f.Add(hd, ed, h.Addr, e.Addr)
			}
		}
		file.Close()
	}
	f.Fuzz(func(t *testing.T, hdr, eh []byte, hdrAddr, ehAddr uint64) {
		tab, err := cfiHdrIndexOf(hdr, hdrAddr, eh, ehAddr, elf.EM_X86_64, 0)
		if err != nil {
			return
		}
		for i := range min(tab.hdr.tab.n, 64) {
			loc, _ := tab.hdr.tab.entry(i)
			for _, pc := range []uint64{loc - 1, loc, loc + 1, loc + 16} {
				tab.row(pc)
			}
		}
	})
}

// cfiHdrAllocated returns the bytes f allocates.
func cfiHdrAllocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// cfiHdrMaxAlloc is more than any test here needs to allocate, and far
// less than a section or record size taken on trust would.
const cfiHdrMaxAlloc = 256 << 20

// TestCFIHdrSectionPastEOF gives a fixture an .eh_frame that claims 1 TiB
// (debug/elf does not check that sections lie in the file) and a table
// entry that makes the index parse all of .eh_frame: loadCFIIndex must
// decline, and lookups must fail with an error naming the section and
// offset, quickly and without allocating for the bytes that are not there.
func TestCFIHdrSectionPastEOF(t *testing.T) {
	img, err := os.ReadFile(fixture(t, "deep-v3-O2"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := elf.NewFile(bytes.NewReader(img))
	if err != nil {
		t.Fatal(err)
	}
	ehIdx := slices.IndexFunc(f.Sections, func(s *elf.Section) bool { return s.Name == SectionEHFrame })
	hs := f.Section(SectionEHFrameHdr)
	if ehIdx < 0 || hs == nil {
		t.Fatal("no .eh_frame or .eh_frame_hdr")
	}
	eh := f.Sections[ehIdx]
	hdr, err := hs.Data()
	if err != nil || !bytes.HasPrefix(hdr, []byte{1, ehPEPCRel | ehPESdata4, ehPEUdata4, ehPEDataRel | ehPESdata4}) {
		t.Fatalf("unexpected %s header % x (%v)", SectionEHFrameHdr, hdr[:min(4, len(hdr))], err)
	}
	tab, err := parseEHFrameHdr(hdr, hs.Addr, eh.Addr, int64(eh.Size))
	if err != nil {
		t.Fatal(err)
	}
	// An entry moved one byte up from its FDE's start: stale.
	i := tab.n / 2
	for ; i+1 < tab.n && tab.loc(i)+1 >= tab.loc(i+1); i++ {
	}
	loc := tab.loc(i)
	le := binary.LittleEndian
	bad := bytes.Clone(img)
	shdr := le.Uint64(img[0x28:]) + uint64(ehIdx)*uint64(le.Uint16(img[0x3a:]))
	le.PutUint64(bad[shdr+0x20:], 1<<40) // sh_size
	at := hs.Offset + 12 + uint64(8*i)
	le.PutUint32(bad[at:], le.Uint32(bad[at:])+1)

	bf, err := elf.NewFile(bytes.NewReader(bad))
	if err != nil {
		t.Fatal(err)
	}
	if s := bf.Section(SectionEHFrame); s.Size != 1<<40 {
		t.Fatalf("patched .eh_frame has %#x bytes", s.Size)
	}
	tabBad, why := loadCFIIndex(bf, 0)
	if tabBad != nil || why == nil || !strings.Contains(why.Error(), SectionEHFrame) {
		t.Errorf("loadCFIIndex: %v, %v; want a refusal naming %s", tabBad, why, SectionEHFrame)
	}
	t.Logf("loadCFIIndex: %v", why)
	m := &Module{Name: "deep", ELF: bad, Start: 0, End: 1 << 40}
	var rowErr error
	n := cfiHdrAllocated(func() { _, rowErr = m.CFIRow(loc + 1) })
	var se *StopError
	if !errors.As(rowErr, &se) || se.Reason != ReasonNoData || !strings.Contains(rowErr.Error(), SectionEHFrame) {
		t.Errorf("CFIRow: %v; want ReasonNoData naming %s", rowErr, SectionEHFrame)
	}
	if n > cfiHdrMaxAlloc {
		t.Errorf("CFIRow allocated %d MiB", n>>20)
	}
	t.Logf("CFIRow: %v (%d MiB allocated)", rowErr, n>>20)
}

// cfiHdrReaderAt serves b, as .eh_frame, to the index: with eofAtEnd, a
// read that reaches the end of b returns io.EOF along with its bytes (as
// io.ReaderAt allows); with err, every read fails.
type cfiHdrReaderAt struct {
	b        []byte
	eofAtEnd bool
	err      error
}

func (r *cfiHdrReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if r.err != nil {
		return 0, r.err
	}
	if off < 0 || off > int64(len(r.b)) {
		return 0, io.EOF
	}
	n := copy(p, r.b[off:])
	if n < len(p) || r.eofAtEnd && off+int64(n) == int64(len(r.b)) {
		return n, io.EOF
	}
	return n, nil
}

// TestCFIHdrShortReader gives the index an .eh_frame that claims far more
// bytes than its reader has, or a reader that fails: lookups must give an
// error naming .eh_frame and the byte offset, which modules report as
// ReasonNoData (not malformed CFI), without allocating for the bytes
// claimed.
func TestCFIHdrShortReader(t *testing.T) {
	eh := &ehBuilder{addr: 0x2000}
	cie := eh.stdCIE()
	a := eh.fde(cie, 0x1000, 0x20, nil)
	b := eh.fde(cie, 0x1100, 0x10, nil)
	// A record whose length reaches almost 4 GiB past it, with bytes enough
	// after its header for the first read.
	huge := len(eh.buf)
	eh.buf = binary.LittleEndian.AppendUint32(eh.buf, 0xfffffff0)
	eh.buf = binary.LittleEndian.AppendUint32(eh.buf, uint32(huge+4-cie))
	eh.buf = append(eh.buf, make([]byte, 2*cfiHdrReadAhead)...)
	sec := eh.buf
	tests := []struct {
		name    string
		r       *cfiHdrReaderAt
		size    int64
		entries []ehHdrEntry
		pc      uint64
		want    string // in the error
	}{
		{"a 4 GiB record", &cfiHdrReaderAt{b: sec}, 1 << 40,
			[]ehHdrEntry{{0x1000, int64(a)}, {0x1100, int64(b)}, {0x1200, int64(huge)}}, 0x1204, "at byte 0x"},
		{"a stale table over 1 TiB", &cfiHdrReaderAt{b: sec}, 1 << 40,
			[]ehHdrEntry{{0x1000, int64(a)}, {0x1104, int64(b)}}, 0x1108, "at byte 0x"},
		{"a failing reader", &cfiHdrReaderAt{err: errors.New("I/O error")}, int64(len(sec)),
			[]ehHdrEntry{{0x1000, int64(a)}, {0x1100, int64(b)}}, 0x1004, "I/O error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hdr := buildEHFrameHdr(cfiHdrAddr, eh.addr, ehPEDataRel|ehPESdata4, tt.entries)
			lazy, err := newCFIHdrIndex(hdr, cfiHdrAddr, tt.r, tt.size, eh.addr, elf.EM_X86_64, 0)
			if err != nil {
				t.Fatal(err)
			}
			m := cfiTestModule("short", 0, nil, errors.New("eager table used"), lazy)
			var rowErr error
			n := cfiHdrAllocated(func() { _, rowErr = m.CFIRow(tt.pc) })
			var se *StopError
			var ce *CFIError
			switch {
			case !errors.As(rowErr, &se) || se.Reason != ReasonNoData || errors.As(rowErr, &ce):
				t.Errorf("CFIRow: %v; want ReasonNoData, not a *CFIError", rowErr)
			case !strings.Contains(rowErr.Error(), SectionEHFrame) || !strings.Contains(rowErr.Error(), tt.want):
				t.Errorf("CFIRow: %v; want an error naming %s and %q", rowErr, SectionEHFrame, tt.want)
			}
			if n > cfiHdrMaxAlloc {
				t.Errorf("CFIRow allocated %d MiB", n>>20)
			}
			t.Logf("CFIRow: %v (%d KiB allocated)", rowErr, n>>10)
		})
	}
}

// TestCFIHdrEOFWithFullRead reads .eh_frame through an io.ReaderAt that
// returns io.EOF with the reads that reach its end: the lookups must give
// the eager table's rows.
func TestCFIHdrEOFWithFullRead(t *testing.T) {
	eh, entries := cfiHdrSynthetic()
	sec := eh.section()
	eager, err := parseCFI(sec, eh.addr, nil, elf.EM_X86_64, 0)
	if err != nil {
		t.Fatal(err)
	}
	hdr := buildEHFrameHdr(cfiHdrAddr, eh.addr, ehPEDataRel|ehPESdata4, entries)
	lazy, err := newCFIHdrIndex(hdr, cfiHdrAddr, &cfiHdrReaderAt{b: sec, eofAtEnd: true}, int64(len(sec)), eh.addr, elf.EM_X86_64, 0)
	if err != nil {
		t.Fatal(err)
	}
	cfiCompareTables(t, eager, lazy, cfiProbePCs(eager, lazy))
	// And when the whole section is read, once the table is found stale.
	entries[1].loc += 4
	hdr = buildEHFrameHdr(cfiHdrAddr, eh.addr, ehPEDataRel|ehPESdata4, entries)
	if lazy, err = newCFIHdrIndex(hdr, cfiHdrAddr, &cfiHdrReaderAt{b: sec, eofAtEnd: true}, int64(len(sec)), eh.addr, elf.EM_X86_64, 0); err != nil {
		t.Fatal(err)
	}
	cfiCompareTables(t, eager, lazy, cfiProbePCs(eager, lazy))
	if !lazy.hdr.stale {
		t.Errorf("the stale table was not found out")
	}
}

// TestCFIHdrFrameRowNeighbour unwinds a frame whose return address is the
// first byte of a function with a malformed FDE: the frame's own FDE (at
// PC-1) is fine, and the lookup at the PC, which only probes for a signal
// frame's FDE, must not make it fail.
func TestCFIHdrFrameRowNeighbour(t *testing.T) {
	eh := &ehBuilder{addr: 0x2000}
	cie := eh.stdCIE()
	a := eh.fde(cie, 0x1000, 0x20, cfiProg().advance(1).defCFAOffset(16).bytes())
	badCIE := eh.cie("zX", nil)
	b := eh.fde(badCIE, 0x1020, 0x10, nil)
	sec := eh.section()
	hdr := buildEHFrameHdr(cfiHdrAddr, eh.addr, ehPEDataRel|ehPESdata4, []ehHdrEntry{{0x1000, int64(a)}, {0x1020, int64(b)}})
	lazy, err := cfiHdrIndexOf(hdr, cfiHdrAddr, sec, eh.addr, elf.EM_X86_64, 0)
	if err != nil {
		t.Fatal(err)
	}
	m := cfiTestModule("neighbour", 0, nil, errors.New("eager table used"), lazy)
	want, err := m.CFIRow(0x101f)
	if err != nil {
		t.Fatal(err)
	}
	fr := Frame{Level: 1, PC: 0x1020}
	if got, err := m.cfiFrameRow(&fr); err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("cfiFrameRow(return address %#x): %s, %v; want %s", fr.PC, cfiRowString(got), err, cfiRowString(want))
	}
	// The interrupted frame's own FDE is the malformed one.
	fr.Interrupted = true
	var se *StopError
	if _, err := m.cfiFrameRow(&fr); !errors.As(err, &se) || se.Reason != ReasonFormat {
		t.Errorf("cfiFrameRow(interrupted at %#x): %v; want ReasonFormat", fr.PC, err)
	}
}

// TestCFIHdrDroppedFDEs compares lazy and eager lookups over FDEs the
// eager table drops or passes over: empty ones, FDEs at address 0 that
// overlap real ones (and one that ends where the first real one starts),
// groups with the same start whose first FDE is empty, groups of empty
// FDEs only (whose PCs belong to an FDE below), with the table's entries
// in section order within a group and reversed.
func TestCFIHdrDroppedFDEs(t *testing.T) {
	eh := &ehBuilder{addr: 0x8000}
	cie := eh.stdCIE()
	prog := cfiProg().advance(1).defCFAOffset(16).bytes()
	var entries []ehHdrEntry
	add := func(begin, size uint64, instr []byte) {
		entries = append(entries, ehHdrEntry{begin, int64(eh.fde(cie, begin, size, instr))})
	}
	add(0, 0x2000, prog)     // at 0, overlapping 0x1000: dropped
	add(0, 0, nil)           // empty
	add(0, 0x1000, nil)      // at 0, ending where 0x1000 starts: kept
	add(0x800, 0, nil)       // empty: not the first real FDE
	add(0x1000, 0, prog)     // empty, first of its group
	add(0x1000, 0x20, prog)  // kept
	add(0x1000, 0x40, nil)   // a duplicate
	add(0x1080, 0x100, prog) // covers the group of empty FDEs at 0x1100
	add(0x1100, 0, nil)
	add(0x1100, 0, prog)
	add(0x1200, 0, nil) // empty, above every FDE
	sec := eh.section()
	eager, err := parseCFI(sec, eh.addr, nil, elf.EM_X86_64, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(eager.fdes) != 3 {
		t.Fatalf("eager table: %d FDEs, want 3", len(eager.fdes))
	}
	sorted := slices.Clone(entries)
	slices.SortStableFunc(sorted, func(a, b ehHdrEntry) int { return cmp.Compare(a.loc, b.loc) })
	reversed := slices.Clone(sorted)
	slices.SortStableFunc(reversed, func(a, b ehHdrEntry) int { return cmp.Or(cmp.Compare(a.loc, b.loc), cmp.Compare(b.off, a.off)) })
	for _, tt := range []struct {
		name    string
		entries []ehHdrEntry
	}{{"section order", sorted}, {"reversed groups", reversed}} {
		t.Run(tt.name, func(t *testing.T) {
			hdr := buildEHFrameHdr(cfiHdrAddr, eh.addr, ehPEDataRel|ehPESdata4, tt.entries)
			lazy, err := cfiHdrIndexOf(hdr, cfiHdrAddr, sec, eh.addr, elf.EM_X86_64, 0)
			if err != nil {
				t.Fatal(err)
			}
			pcs := append(cfiProbePCs(eager, lazy), 0x7ff, 0x800, 0x1020, 0x1100, 0x117f, 0x1180, 0x1200)
			cfiCompareTables(t, eager, lazy, pcs)
			if lazy.hdr.stale {
				t.Errorf("the index parsed all of .eh_frame")
			}
		})
	}
}

// TestCFIHdrLongWalk builds tables where a lookup would go through more
// than cfiHdrMaxWalk entries of FDEs the eager table drops: the index
// must then parse all of .eh_frame (and give the eager table's rows),
// while shorter runs are walked.
func TestCFIHdrLongWalk(t *testing.T) {
	tests := []struct {
		name string
		// build lays out the FDEs of n dropped entries and returns the
		// PC whose lookup goes through them.
		build func(eh *ehBuilder, cie int, n int) (pc uint64)
	}{
		{"empty FDEs at distinct addresses", func(eh *ehBuilder, cie, n int) uint64 {
			eh.fde(cie, 0x1000, 0x10000, nil)
			for i := range n {
				eh.fde(cie, 0x1001+uint64(i), 0, nil)
			}
			return 0x1000 + uint64(n) + 8
		}},
		{"empty FDEs at the same address", func(eh *ehBuilder, cie, n int) uint64 {
			eh.fde(cie, 0x1000, 0x10000, nil)
			for range n {
				eh.fde(cie, 0x2000, 0, nil)
			}
			return 0x2008
		}},
		{"empty FDEs before the first real one", func(eh *ehBuilder, cie, n int) uint64 {
			eh.fde(cie, 0, 0x10, nil)
			for i := range n {
				eh.fde(cie, 0x1000+uint64(i), 0, nil)
			}
			eh.fde(cie, 0x8000, 0x10, nil)
			return 8
		}},
	}
	for _, tt := range tests {
		for _, n := range []int{cfiHdrMaxWalk - 8, cfiHdrMaxWalk + 8} {
			t.Run(fmt.Sprintf("%s/%d", tt.name, n), func(t *testing.T) {
				eh := &ehBuilder{addr: 0x100000}
				pc := tt.build(eh, eh.stdCIE(), n)
				sec := eh.section()
				eager, err := parseCFI(sec, eh.addr, nil, elf.EM_X86_64, 0)
				if err != nil {
					t.Fatal(err)
				}
				hdr := buildEHFrameHdr(cfiHdrAddr, eh.addr, ehPEDataRel|ehPESdata4, ehHdrEntriesOf(t, sec, eh.addr, elf.EM_X86_64))
				lazy, err := cfiHdrIndexOf(hdr, cfiHdrAddr, sec, eh.addr, elf.EM_X86_64, 0)
				if err != nil {
					t.Fatal(err)
				}
				cfiCompareTables(t, eager, lazy, []uint64{pc})
				if want := n > cfiHdrMaxWalk; lazy.hdr.stale != want {
					t.Errorf("after the lookup at %#x: parsed all of .eh_frame %v, want %v", pc, lazy.hdr.stale, want)
				}
				cfiCompareTables(t, eager, lazy, cfiProbePCs(eager, lazy))
			})
		}
	}
}
