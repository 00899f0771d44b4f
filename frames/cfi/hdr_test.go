package cfi

import (
	"debug/elf"
	"encoding/binary"
	"errors"
	"io"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
)

// hdrFiles are the files with an .eh_frame_hdr: fixtures, libc and ld.so.
func hdrFiles() []string {
	var files []string
	for _, n := range []string{"deep-v1-O0", "deep-v1-O2", "deep-v2-O0", "deep-v2-O2", "deep-v3-O0", "deep-v3-O2", "sqlite-v2", "sqlite-v3"} {
		files = append(files, filepath.Join("..", "..", "testdata", "bin", n))
	}
	return append(files, "/lib/x86_64-linux-gnu/libc.so.6", "/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2")
}

// openHdr returns f's .eh_frame read through a ReaderAt and its
// .eh_frame_hdr bytes and address.
func openHdr(t testing.TB, f *elf.File) (eh Section, hdr []byte, hdrAddr uint64) {
	t.Helper()
	s, h := f.Section(".eh_frame"), f.Section(".eh_frame_hdr")
	if s == nil || h == nil {
		t.Skip("no .eh_frame_hdr")
	}
	hdr, err := h.Data()
	if err != nil {
		t.Fatal(err)
	}
	return Section{Kind: EHFrame, Addr: s.Addr, Order: f.ByteOrder, PtrSize: 8, Reader: s, Size: int64(s.Size)}, hdr, h.Addr
}

// probePCs returns the PCs at which the two lookups are compared: every
// FDE's start and last byte, up to 64 bytes inside it, and PCs in the gaps
// between FDEs, below the first and above the last.
func probePCs(t *Table) []uint64 {
	fdes := t.FDEs()
	var pcs []uint64
	if len(fdes) > 0 {
		pcs = append(pcs, 0, fdes[0].Start-1)
	}
	var reach uint64
	for i, f := range fdes {
		pcs = append(pcs, f.Start, f.End-1, f.Start+(f.End-f.Start)/2)
		step := max(61, (f.End-f.Start)/64)
		for k := uint64(0); k < 64 && k*step < f.End-f.Start; k++ {
			pcs = append(pcs, f.Start+k*step)
		}
		reach = max(reach, f.End)
		if i+1 < len(fdes) && fdes[i+1].Start > reach {
			next := fdes[i+1].Start
			pcs = append(pcs, reach, reach+(next-reach)/2, next-1)
		}
	}
	return append(pcs, reach, reach+0x1000, ^uint64(0))
}

// sameLookup checks that the table and the index answer alike at pc.
func sameLookup(t *testing.T, tab *Table, x *Index, pc uint64) {
	t.Helper()
	a, errA := tab.FDEForPC(pc)
	b, errB := x.FDEForPC(pc)
	switch {
	case errA != nil || errB != nil:
		if !errors.Is(errA, ErrNoFDE) || !errors.Is(errB, ErrNoFDE) {
			t.Fatalf("PC %#x: table %v, index %v", pc, errA, errB)
		}
	case a.Off != b.Off || a.Start != b.Start || a.End != b.End:
		t.Fatalf("PC %#x: table FDE at %#x, index FDE at %#x", pc, a.Off, b.Off)
	default:
		ra, errA := a.RowAt(pc)
		rb, errB := b.RowAt(pc)
		if errA != nil || errB != nil || !ra.Equal(&rb) {
			t.Fatalf("PC %#x: table row %+v %v, index row %+v %v", pc, ra, errA, rb, errB)
		}
	}
}

func TestIndexAgreesWithTable(t *testing.T) {
	for _, path := range hdrFiles() {
		t.Run("lookups through .eh_frame_hdr and the full table agree on "+filepath.Base(path), func(t *testing.T) {
			f, err := elf.Open(path)
			if err != nil {
				t.Skipf("cannot open %s: %v", path, err)
			}
			defer f.Close()
			eh, hdr, hdrAddr := openHdr(t, f)
			full := eh
			full.Data, err = io.ReadAll(io.NewSectionReader(eh.Reader, 0, eh.Size))
			if err != nil {
				t.Fatal(err)
			}
			full.Reader = nil
			tab, err := Parse(full)
			if err != nil {
				t.Fatal(err)
			}
			pcs := probePCs(tab)
			for _, src := range []Section{eh, full} {
				x, err := NewIndex(hdr, hdrAddr, src)
				if err != nil {
					t.Fatal(err)
				}
				if x.n != len(tab.all) {
					t.Errorf("table lists %d FDEs, .eh_frame has %d", x.n, len(tab.all))
				}
				for _, pc := range pcs {
					sameLookup(t, tab, x, pc)
				}
			}
			t.Logf("%d FDEs, %d PCs compared twice (read through a ReaderAt and from bytes)", len(tab.FDEs()), len(pcs))
		})
	}
	t.Run("lookups from several goroutines on one index agree with the table", func(t *testing.T) {
		f, err := elf.Open("/lib/x86_64-linux-gnu/libc.so.6")
		if err != nil {
			t.Skip(err)
		}
		defer f.Close()
		eh, hdr, hdrAddr := openHdr(t, f)
		x, err := NewIndex(hdr, hdrAddr, eh)
		if err != nil {
			t.Fatal(err)
		}
		secs := cfiSections(t, f)
		tab, err := Parse(secs[0])
		if err != nil {
			t.Fatal(err)
		}
		pcs := probePCs(tab)
		var wg sync.WaitGroup
		for g := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := g; i < len(pcs); i += 3 {
					sameLookup(t, tab, x, pcs[i])
				}
			}()
		}
		wg.Wait()
	})
}

// countingReader counts the reads of an io.ReaderAt.
type countingReader struct {
	r     io.ReaderAt
	reads atomic.Int64
	bytes atomic.Int64
}

func (c *countingReader) ReadAt(p []byte, off int64) (int, error) {
	c.reads.Add(1)
	c.bytes.Add(int64(len(p)))
	return c.r.ReadAt(p, off)
}

func TestIndexReadsOnlyWhatItNeeds(t *testing.T) {
	f, err := elf.Open("/lib/x86_64-linux-gnu/libc.so.6")
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	eh, hdr, hdrAddr := openHdr(t, f)
	cr := &countingReader{r: eh.Reader}
	eh.Reader = cr
	x, err := NewIndex(hdr, hdrAddr, eh)
	if err != nil {
		t.Fatal(err)
	}
	pc := x.loc(x.n/2) + 1
	fde, err := x.FDEForPC(pc)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fde.RowAt(pc); err != nil {
		t.Fatal(err)
	}
	if n, b := cr.reads.Load(), cr.bytes.Load(); n > 4 || b > 4*readAhead+2*int64(len(fde.Instructions)) {
		t.Errorf("one lookup read %d times, %d bytes of a %d-byte .eh_frame", n, b, eh.Size)
	}
	if _, err := x.FDEForPC(pc); err != nil {
		t.Fatal(err)
	}
	if n := cr.reads.Load(); n > 4 {
		t.Errorf("a second lookup of the same PC read again (%d reads in all)", n)
	}
}

// hdrCase builds a small .eh_frame and its .eh_frame_hdr.
type hdrCase struct {
	eh      Section
	hdr     []byte
	hdrAddr uint64
	tab     *Table
}

func newHdrCase(t *testing.T, order binary.ByteOrder, tableEnc PtrEnc, build func(b *builder, cie int64)) hdrCase {
	t.Helper()
	b := newBuilder(EHFrame, order, false)
	cie := b.cie(cieSpec{aug: "zR", fdeEnc: DW_EH_PE_pcrel | DW_EH_PE_sdata4, initial: in(cfaDefCFA, uleb(7), uleb(8))})
	build(b, cie)
	eh := b.section()
	tab, err := Parse(eh)
	if err != nil {
		t.Fatal(err)
	}
	hdrAddr := eh.Addr - 0x1000
	return hdrCase{eh: eh, hdr: buildHdr(order, hdrAddr, eh.Addr, hdrFor(tab, eh.Addr), tableEnc), hdrAddr: hdrAddr, tab: tab}
}

func threeFDEs(b *builder, cie int64) {
	b.fde(cie, fdeSpec{start: 0x20000, length: 0x100})
	b.fde(cie, fdeSpec{start: 0x20200, length: 0x100})
	b.fde(cie, fdeSpec{start: 0x20100, length: 0x80})
}

func TestIndexOnBuiltSections(t *testing.T) {
	for _, order := range []binary.ByteOrder{binary.LittleEndian, binary.BigEndian} {
		for _, enc := range []PtrEnc{DW_EH_PE_datarel | DW_EH_PE_sdata4, DW_EH_PE_udata8, DW_EH_PE_udata4, DW_EH_PE_datarel | DW_EH_PE_sdata8} {
			t.Run("a "+order.String()+" index with a "+enc.String()+" table agrees with the table", func(t *testing.T) {
				hc := newHdrCase(t, order, enc, func(b *builder, cie int64) {
					threeFDEs(b, cie)
					b.fde(cie, fdeSpec{start: 0x20200, length: 0}) // empty, same start
					b.fde(cie, fdeSpec{start: 0x20300, length: 0}) // empty, alone
					b.fde(cie, fdeSpec{start: 0x20280, length: 0x10})
				})
				x, err := NewIndex(hc.hdr, hc.hdrAddr, hc.eh)
				if err != nil {
					t.Fatal(err)
				}
				for _, pc := range append(probePCs(hc.tab), 0x20300, 0x202f0) {
					sameLookup(t, hc.tab, x, pc)
				}
			})
		}
	}
}

func TestBadIndex(t *testing.T) {
	le := binary.LittleEndian
	sdata4 := DW_EH_PE_datarel | DW_EH_PE_sdata4
	// Entry i of a datarel|sdata4 table starts at byte 12+8i.
	cases := []struct {
		name   string
		build  func(b *builder, cie int64)
		patch  func(hc *hdrCase)
		pc     uint64 // 0: NewIndex fails
		want   error
		msg    string
		off    int64
		badHdr bool
	}{
		{"a header of version 2 is refused", threeFDEs, func(hc *hdrCase) { hc.hdr[0] = 2 }, 0, ErrUnsupported, "version 2", 0, true},
		{"a truncated header is malformed", threeFDEs, func(hc *hdrCase) { hc.hdr = hc.hdr[:2] }, 0, ErrMalformed, "truncated", 2, true},
		{"an eh_frame_ptr that is not .eh_frame's address is malformed", threeFDEs, func(hc *hdrCase) { hc.hdr[4]++ }, 0, ErrMalformed, "not the address of .eh_frame", 4, true},
		{"a header without a table is refused", threeFDEs, func(hc *hdrCase) { hc.hdr[3] = byte(DW_EH_PE_omit) }, 0, ErrUnsupported, "no search table", 2, true},
		{"a table of LEB128 values is refused", threeFDEs, func(hc *hdrCase) { hc.hdr[3] = byte(DW_EH_PE_datarel | DW_EH_PE_uleb128) }, 0, ErrUnsupported, "fixed-size", 3, true},
		{"a pc-relative table is refused", threeFDEs, func(hc *hdrCase) { hc.hdr[3] = byte(DW_EH_PE_pcrel | DW_EH_PE_sdata4) }, 0, ErrUnsupported, "absptr or datarel", 3, true},
		{"an fde_count past the end of the section is malformed", threeFDEs, func(hc *hdrCase) { hc.hdr[8] = 4 }, 0, ErrMalformed, "does not fit", 8, true},
		{"an unsorted table is malformed", threeFDEs, func(hc *hdrCase) {
			a, b := le.Uint32(hc.hdr[12:]), le.Uint32(hc.hdr[20:])
			le.PutUint32(hc.hdr[12:], b)
			le.PutUint32(hc.hdr[20:], a)
		}, 0, ErrMalformed, "below the one before", 20, true},
		{"an FDE address outside .eh_frame is malformed", threeFDEs, func(hc *hdrCase) { le.PutUint32(hc.hdr[24:], 0x7fff0000) }, 0, ErrMalformed, "not in .eh_frame", 24, true},
		{"a table entry that leads to a CIE is malformed", threeFDEs, func(hc *hdrCase) { le.PutUint32(hc.hdr[16:], 0x1000) }, 0x20010, ErrMalformed, "leads to a CIE", 16, true},
		{"a table entry whose address is not its FDE's start is malformed", threeFDEs, func(hc *hdrCase) { le.PutUint32(hc.hdr[12:], le.Uint32(hc.hdr[12:])+4) }, 0x20010, ErrMalformed, "which starts at 0x20000", 12, true},
		{"an entry above its FDE's start is found from the gap below it", threeFDEs, func(hc *hdrCase) { le.PutUint32(hc.hdr[28:], le.Uint32(hc.hdr[28:])+8) }, 0x20204, ErrMalformed, "which starts at 0x20200", 28, true},
		{"more than 64 empty FDEs at one address are refused", func(b *builder, cie int64) {
			for range 70 {
				b.fde(cie, fdeSpec{start: 0x20000, length: 0})
			}
		}, nil, 0x20000, ErrUnsupported, "more than 64 table entries", -1, true},
		{"a malformed FDE found through the table is malformed .eh_frame, not a bad index", func(b *builder, cie int64) {
			b.fde(cie, fdeSpec{start: 0x20000, length: 0x10})
			b.fde(cie, fdeSpec{start: 0x20100, length: 0x10, augData: []byte{}})
			b.buf[len(b.buf)-1] = 0x40 // augmentation data length past the record
		}, nil, 0x20100, ErrMalformed, "augmentation data of 64 bytes", -1, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := newBuilder(EHFrame, le, false)
			cie := b.cie(cieSpec{aug: "zR", fdeEnc: DW_EH_PE_pcrel | DW_EH_PE_sdata4, initial: in(cfaDefCFA, uleb(7), uleb(8))})
			tc.build(b, cie)
			eh := b.section()
			var entries []hdrEntry
			for off := int64(0); off < int64(len(eh.Data)); {
				h, err := eh.head(eh.Data[off:], off, int64(len(eh.Data)))
				if err != nil {
					t.Fatal(err)
				}
				if !h.cie {
					c := cursor{b: eh.Data[h.body:], addr: eh.Addr + uint64(h.body), order: le}
					entries = append(entries, hdrEntry{loc: c.pointer(DW_EH_PE_pcrel|DW_EH_PE_sdata4, 8, 0, false, ""), fde: eh.Addr + uint64(off)})
				}
				off = h.end
			}
			hdrAddr := eh.Addr - 0x1000
			hc := hdrCase{eh: eh, hdrAddr: hdrAddr, hdr: buildHdr(le, hdrAddr, eh.Addr, entries, sdata4)}
			if tc.patch != nil {
				tc.patch(&hc)
			}
			x, err := NewIndex(hc.hdr, hc.hdrAddr, hc.eh)
			if tc.pc != 0 {
				if err != nil {
					t.Fatal(err)
				}
				_, err = x.FDEForPC(tc.pc)
			}
			sec := SectionEHFrameHdr
			if !tc.badHdr {
				sec = SectionEHFrame
			}
			e := checkError(t, err, sec, tc.want, tc.msg, int64(max(len(hc.hdr), len(eh.Data))))
			if errors.Is(err, ErrBadHdr) != tc.badHdr {
				t.Errorf("errors.Is(err, ErrBadHdr) = %v", !tc.badHdr)
			}
			if tc.off >= 0 && e.Off != tc.off {
				t.Errorf("error at %#x, want %#x: %v", e.Off, tc.off, err)
			}
		})
	}
	t.Run("an index over .debug_frame is a usage error", func(t *testing.T) {
		_, err := NewIndex([]byte{1, 0, 0, 0}, 0, Section{Kind: DebugFrame, Order: le, PtrSize: 8})
		var e *Error
		if err == nil || errors.As(err, &e) {
			t.Fatalf("error %v", err)
		}
	})
}
