package cfi

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/sfdbg/sfdbg/sframe/sframetest"
)

// fuzzSection decodes a fuzz input: its first byte chooses the section
// kind (bit 0: .debug_frame), the byte order (bit 1: big-endian) and the
// address size (bit 2: 4 bytes); the rest is the section.
func fuzzSection(data []byte) Section {
	s := Section{Kind: EHFrame, Addr: 0x10000, Order: binary.LittleEndian, PtrSize: 8}
	if len(data) == 0 {
		return s
	}
	mode := data[0]
	if mode&1 != 0 {
		s.Kind = DebugFrame
	}
	if mode&2 != 0 {
		s.Order = binary.BigEndian
	}
	if mode&4 != 0 {
		s.PtrSize = 4
	}
	s.Data = data[1:]
	return s
}

// fuzzMode is the first byte of a fuzz input for a section.
func fuzzMode(kind Kind, order binary.ByteOrder) byte {
	m := byte(0)
	if kind == DebugFrame {
		m |= 1
	}
	if order == binary.BigEndian {
		m |= 2
	}
	return m
}

// fuzzSeeds adds the .eh_frame of small fixtures and built sections.
func fuzzSeeds(f *testing.F) {
	for _, name := range []string{"deep-v3-O2", "features-v3", "aarch64be-v3", "s390x-v3", "aarch64-v3"} {
		ef, err := elf.Open(filepath.Join("..", "..", "testdata", "bin", name))
		if err != nil {
			continue
		}
		if s := ef.Section(".eh_frame"); s != nil {
			if d, err := s.Data(); err == nil {
				f.Add(append([]byte{fuzzMode(EHFrame, ef.ByteOrder)}, d...))
			}
		}
		ef.Close()
	}
	for _, ft := range formats {
		b := newBuilder(ft.kind, ft.order, ft.dwarf64)
		b.addr = 0x10000
		cie := b.cie(cieSpec{version: 3, aug: "zPLR", fdeEnc: DW_EH_PE_pcrel | DW_EH_PE_sdata4, lsdaEnc: DW_EH_PE_udata4,
			persEnc: DW_EH_PE_udata4, pers: 0x1234, initial: in(cfaDefCFA, uleb(7), uleb(8))})
		b.fde(cie, fdeSpec{start: 0x20000, length: 0x40, lsda: 0x30000, instr: prog(in(cfaAdvanceLoc|1), in(cfaDefCFAOffset, uleb(16)),
			in(cfaOffset|6, uleb(2)), in(cfaRememberState), in(cfaAdvanceLoc1, []byte{4}), in(cfaAArch64NegateRAState),
			in(cfaDefCFAExpression, uleb(2), []byte{0x77, 8}), in(cfaAdvanceLoc2, b.fixed(2, 3)), in(cfaRestoreState), in(cfaRestore|6),
			in(cfaValOffset, uleb(12), uleb(1)), in(cfaRegister, uleb(3), uleb(4)))})
		b.fde(cie, fdeSpec{start: 0x20020, length: 0x10})
		f.Add(append([]byte{fuzzMode(ft.kind, ft.order)}, b.buf...))
	}
	// Hostile rows (cost_test.go), large enough that a cost per byte over
	// the budget exceeds its constant.
	for _, s := range []Section{offsetRows(32<<10, 40), initialRules(32 << 10), churnRows(32 << 10), rememberRows(8 << 10)} {
		f.Add(append([]byte{fuzzMode(EHFrame, binary.LittleEndian)}, s.Data...))
	}
}

// FuzzParse checks, for any section, that parsing and interpreting never
// panic and fail only with *Errors inside the section; that a parsed
// table's lookup of every FDE's start finds that FDE (or the one the
// lookup rule prefers at the same start); that rows cover their FDE; and
// that an .eh_frame_hdr built for the section answers as the table does
// wherever both answer; and that the work stays within cfiAllocs and
// cfiRows.
func FuzzParse(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		cfiAllocs.CheckAllocs(t, len(data), func() { fuzzParse(t, data) })
	})
}

// Budgets of the CFI reader's fuzz targets, per byte of section.
var (
	// cfiAllocs: a Table keeps an 88-byte FDE per record of at least 16
	// bytes and the hash map of CIEs; an FDE's rows cost a 96-byte Row per
	// instruction byte at most (each row but the last ends at an advance;
	// allocated once, rowBound), and their rules a 40-byte entry per rule
	// an instruction changed, with snapshots and doubling at most four
	// (RegSet): about 100 bytes per byte for the hostile sections of
	// BenchmarkRowsCost, 40 for libc's .eh_frame. Rows that copied their
	// rules cost up to 720 (16 rules of 40 bytes per byte, the
	// ruleEntriesPerByte limit), and the hostile seeds fail then.
	cfiAllocs = sframetest.AllocBudget(256)
	// cfiRows: a row ends at an advance instruction of at least one byte,
	// or at the end of its FDE, whose record takes at least 8 bytes.
	cfiRows = sframetest.Budget{What: "rows built", PerByte: 1, Const: 1}
)

func fuzzParse(t *testing.T, data []byte) {
	sec := fuzzSection(data)
	size := int64(len(sec.Data))
	tab, err := Parse(sec)
	if err != nil {
		var e *Error
		if !errors.As(err, &e) || e.Off < 0 || e.Off > size {
			t.Fatalf("Parse: %v", err)
		}
		return
	}
	nrows := 0
	for _, fde := range tab.FDEs() {
		g, err := tab.FDEForPC(fde.Start)
		if err != nil || g.Start != fde.Start || g != fde && g.End < fde.End || g.End == fde.End && g.Off > fde.Off {
			t.Fatalf("FDEForPC(%#x) = %v, %v; want the FDE at %#x or a preferred one", fde.Start, g, err, fde.Off)
		}
		rows, err := fde.Rows()
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Off < 0 || e.Off > size {
				t.Fatalf("Rows: %v", err)
			}
			continue
		}
		nrows += len(rows)
		if n := rowBound(fde.Instructions); len(rows) > n {
			t.Fatalf("FDE at %#x: %d rows, rowBound %d", fde.Off, len(rows), n)
		}
		next := fde.Start
		for _, r := range rows {
			if r.Start != next || r.End <= r.Start {
				t.Fatalf("FDE at %#x: row [%#x,%#x) after %#x", fde.Off, r.Start, r.End, next)
			}
			next = r.End
		}
		if next != fde.End {
			t.Fatalf("FDE at %#x: rows end at %#x, not %#x", fde.Off, next, fde.End)
		}
	}
	cfiRows.Check(t, uint64(nrows), len(data))
	all := make([]*FDE, len(tab.all))
	for i := range tab.all {
		all[i] = &tab.all[i]
	}
	for _, pc := range probePCs(tab) {
		got, err := tab.FDEForPC(pc)
		if want := scanFDEForPC(all, pc); got != want || (want == nil) != errors.Is(err, ErrNoFDE) {
			t.Fatalf("FDEForPC(%#x) = %v, %v; a linear scan of the section finds %v", pc, fdeText(got), err, fdeText(want))
		}
	}
	if sec.Kind != EHFrame || len(tab.all) == 0 {
		return
	}
	hdrAddr := sec.Addr - 0x1000
	hdr := buildHdr(sec.Order, hdrAddr, sec.Addr, hdrFor(tab, sec.Addr), DW_EH_PE_udata8)
	x, err := NewIndex(hdr, hdrAddr, sec)
	if err != nil {
		if sec.PtrSize == 4 {
			return // 64-bit table values are truncated to 32-bit addresses
		}
		t.Fatalf("NewIndex on a table built from Parse: %v", err)
	}
	for _, pc := range probePCs(tab) {
		a, errA := tab.FDEForPC(pc)
		b, errB := x.FDEForPC(pc)
		switch {
		case errA == nil && errB == nil:
			if a.Off != b.Off {
				t.Fatalf("PC %#x: table FDE at %#x, index FDE at %#x", pc, a.Off, b.Off)
			}
		case errors.Is(errA, ErrNoFDE) && errB == nil, errA == nil && errors.Is(errB, ErrNoFDE):
			t.Fatalf("PC %#x: table %v, index %v", pc, errA, errB)
		}
	}
}

// FuzzIndex checks, for any .eh_frame_hdr over a real .eh_frame, that the
// index never panics, that its errors are *Errors, and that an FDE it
// finds covers the PC.
func FuzzIndex(f *testing.F) {
	ef, err := elf.Open(filepath.Join("..", "..", "testdata", "bin", "deep-v3-O2"))
	if err != nil {
		f.Skip(err)
	}
	eh, hdr, hdrAddr := openHdr(f, ef)
	eh.Data = make([]byte, eh.Size)
	if _, err := eh.Reader.ReadAt(eh.Data, 0); err != nil {
		f.Fatal(err)
	}
	eh.Reader = nil
	ef.Close()
	tab, err := Parse(eh)
	if err != nil {
		f.Fatal(err)
	}
	pcs := probePCs(tab)
	f.Add(hdr)
	// The table in every fixed-size encoding that holds the fixture's
	// addresses, absolute and relative to the header.
	for _, enc := range []PtrEnc{DW_EH_PE_udata2, DW_EH_PE_sdata2, DW_EH_PE_udata4, DW_EH_PE_sdata4, DW_EH_PE_udata8, DW_EH_PE_sdata8,
		DW_EH_PE_datarel | DW_EH_PE_sdata2, DW_EH_PE_datarel | DW_EH_PE_sdata4, DW_EH_PE_datarel | DW_EH_PE_sdata8} {
		f.Add(buildHdr(eh.Order, hdrAddr, eh.Addr, hdrFor(tab, eh.Addr), enc))
	}
	f.Fuzz(func(t *testing.T, hdr []byte) {
		// The index reads the FDEs it is asked for, each once.
		indexAllocs.CheckAllocs(t, len(hdr)+len(eh.Data), func() { fuzzIndex(t, hdr, hdrAddr, eh, pcs) })
	})
}

// indexAllocs is the budget of FuzzIndex, per byte of .eh_frame_hdr and
// .eh_frame: every table entry (at least 4 bytes) may lead to one FDE read
// and kept (its record, an FDE and a map entry, under 300 bytes), and the
// harness lists them; the seeds need about 20.
var indexAllocs = sframetest.AllocBudget(256)

func fuzzIndex(t *testing.T, hdr []byte, hdrAddr uint64, eh Section, pcs []uint64) {
	x, err := NewIndex(hdr, hdrAddr, eh)
	if err != nil {
		var e *Error
		if !errors.As(err, &e) || !errors.Is(err, ErrBadHdr) {
			t.Fatalf("NewIndex: %v", err)
		}
		return
	}
	// When every table entry leads to an FDE starting at its address,
	// a lookup agrees with a linear scan of the FDEs the table lists.
	listed, ok := make([]*FDE, 0, x.n), true
	for i := 0; i < x.n && ok; i++ {
		f, err := x.entry(i)
		listed, ok = append(listed, f), err == nil
	}
	for _, pc := range pcs {
		if !ok {
			break
		}
		got, err := x.FDEForPC(pc)
		want := scanFDEForPC(listed, pc)
		switch {
		case err == nil && got.Off != want.Off, errors.Is(err, ErrNoFDE) && want != nil:
			t.Fatalf("FDEForPC(%#x) = %v, %v; a linear scan of the table's FDEs finds %v", pc, fdeText(got), err, fdeText(want))
		case err == nil && want == nil:
			t.Fatalf("FDEForPC(%#x) = %v; a linear scan of the table's FDEs finds none", pc, fdeText(got))
		}
	}
	for _, pc := range pcs {
		fde, err := x.FDEForPC(pc)
		if err != nil {
			var e *Error
			if !errors.Is(err, ErrNoFDE) && !errors.As(err, &e) {
				t.Fatalf("FDEForPC(%#x): %v", pc, err)
			}
			continue
		}
		if pc < fde.Start || pc >= fde.End {
			t.Fatalf("FDEForPC(%#x) = FDE at %#x [%#x,%#x)", pc, fde.Off, fde.Start, fde.End)
		}
	}
	// Read through an io.ReaderAt, as a module reads its file's
	// .eh_frame, the index reads only the records it looks up, and
	// answers as it does over the bytes.
	r := eh
	r.Data, r.Reader, r.Size = nil, bytes.NewReader(eh.Data), int64(len(eh.Data))
	xr, err := NewIndex(hdr, hdrAddr, r)
	if err != nil {
		t.Fatalf("NewIndex over a reader: %v; over the bytes it succeeds", err)
	}
	for _, pc := range pcs {
		a, errA := x.FDEForPC(pc)
		b, errB := xr.FDEForPC(pc)
		switch {
		case (errA == nil) != (errB == nil), errA != nil && errA.Error() != errB.Error():
			t.Fatalf("FDEForPC(%#x): %v over the bytes, %v over a reader", pc, errA, errB)
		case errA == nil && (a.Off != b.Off || a.Start != b.Start || a.End != b.End):
			t.Fatalf("FDEForPC(%#x): %v over the bytes, %v over a reader", pc, fdeText(a), fdeText(b))
		}
	}
}

// scanFDEForPC is the lookup rule of Table.FDEForPC and Index.FDEForPC by a
// linear scan of fdes: among the FDEs with a non-empty range starting at
// or below pc, the one with the greatest start, then the greatest end,
// then the first in the section; nil unless it covers pc.
func scanFDEForPC(fdes []*FDE, pc uint64) *FDE {
	var best *FDE
	for _, f := range fdes {
		if f.End <= f.Start || f.Start > pc {
			continue
		}
		if best == nil || f.Start > best.Start || f.Start == best.Start && (f.End > best.End || f.End == best.End && f.Off < best.Off) {
			best = f
		}
	}
	if best == nil || pc >= best.End {
		return nil
	}
	return best
}

// fdeText describes an FDE for failure messages.
func fdeText(f *FDE) string {
	if f == nil {
		return "no FDE"
	}
	return fmt.Sprintf("the FDE at %#x [%#x, %#x)", f.Off, f.Start, f.End)
}
