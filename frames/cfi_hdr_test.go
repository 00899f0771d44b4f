package frames

import (
	"bytes"
	"cmp"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
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
		if !reflect.DeepEqual(eagerRow, lazyRow) {
			return fmt.Sprintf("row %s %q, eager %s %q", cfiRowString(lazyRow), lazyRow.Source, cfiRowString(eagerRow), eagerRow.Source)
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
	path := fixture(t, "sqlite-v3")
	m := &Module{Name: "sqlite-v3", OpenPath: path, Start: 0, End: 1 << 40}
	defer m.Close()
	addr, _, ok := m.LookupSymbol("sqlite3_open")
	if !ok {
		t.Fatal("no sqlite3_open")
	}
	if _, err := m.CFIRow(addr); err != nil {
		t.Fatal(err)
	}
	x := m.data.cfiHdr.hdr
	if x == nil || len(x.fdes) != 1 || len(x.cies) != 1 || m.data.cfi != nil {
		t.Fatalf("after one lookup: index %v, %d FDEs and %d CIEs parsed, eager table %v", x != nil, len(x.fdes), len(x.cies), m.data.cfi != nil)
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
// (run with -race): every goroutine gets the eager table's rows.
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
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := g; i < len(eager.fdes); i += 3 {
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
// ReasonFormat wrapping a *CFIError of .eh_frame at the record's offset),
// while lookups elsewhere go on working.
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
