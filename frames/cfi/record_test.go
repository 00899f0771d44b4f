package cfi

import (
	"encoding/binary"
	"errors"
	"fmt"
	"testing"
)

func TestPointerEncodings(t *testing.T) {
	encs := []PtrEnc{DW_EH_PE_absptr, DW_EH_PE_udata2, DW_EH_PE_udata4, DW_EH_PE_udata8, DW_EH_PE_sdata2, DW_EH_PE_sdata4,
		DW_EH_PE_sdata8, DW_EH_PE_uleb128, DW_EH_PE_sleb128, DW_EH_PE_signed}
	for _, f := range formats {
		for _, format := range encs {
			for _, app := range []PtrEnc{0, DW_EH_PE_pcrel} {
				enc := format | app
				t.Run(fmt.Sprintf("%s: an FDE whose PC begin is %v decodes its range", formatName(f.kind, f.order, f.dwarf64), enc), func(t *testing.T) {
					b := newBuilder(f.kind, f.order, f.dwarf64)
					start := uint64(0x13000)
					if n, _ := enc.size(8); n == 2 && app == 0 {
						start = 0x3000
					}
					cie := b.cie(cieSpec{aug: "zR", fdeEnc: enc, initial: in(cfaDefCFA, uleb(7), uleb(8))})
					b.fde(cie, fdeSpec{start: start, length: 0x40})
					tab, err := Parse(b.section())
					if err != nil {
						t.Fatal(err)
					}
					fd := tab.FDEs()
					if len(fd) != 1 || fd[0].Start != start || fd[0].End != start+0x40 || fd[0].CIE.FDEEncoding != enc {
						t.Fatalf("FDEs %+v", fd)
					}
				})
			}
		}
	}
}

func TestAugmentations(t *testing.T) {
	const start = 0x13000
	cases := []struct {
		name  string
		cie   cieSpec
		fde   fdeSpec
		check func(t *testing.T, f *FDE)
	}{
		{"zPLR decodes the LSDA pointer and skips the personality pointer",
			cieSpec{aug: "zPLR", persEnc: DW_EH_PE_indirect | DW_EH_PE_pcrel | DW_EH_PE_sdata4, pers: 0x20000,
				lsdaEnc: DW_EH_PE_pcrel | DW_EH_PE_sdata4, fdeEnc: DW_EH_PE_pcrel | DW_EH_PE_sdata4},
			fdeSpec{start: start, length: 0x10, lsda: 0x18000},
			func(t *testing.T, f *FDE) {
				c := f.CIE
				if f.LSDA != 0x18000 || c.LSDAEncoding != DW_EH_PE_pcrel|DW_EH_PE_sdata4 || c.PersonalityEncoding != DW_EH_PE_indirect|DW_EH_PE_pcrel|DW_EH_PE_sdata4 {
					t.Errorf("LSDA %#x, CIE %+v", f.LSDA, c)
				}
			}},
		{"zL with an omitted LSDA has no LSDA",
			cieSpec{aug: "zL", lsdaEnc: DW_EH_PE_omit},
			fdeSpec{start: start, length: 0x10},
			func(t *testing.T, f *FDE) {
				if f.LSDA != 0 || f.CIE.LSDAEncoding != DW_EH_PE_omit {
					t.Errorf("LSDA %#x enc %v", f.LSDA, f.CIE.LSDAEncoding)
				}
			}},
		{"zRS marks a signal frame, on the CIE and every row",
			cieSpec{aug: "zRS", fdeEnc: DW_EH_PE_pcrel | DW_EH_PE_sdata4},
			fdeSpec{start: start, length: 0x10},
			func(t *testing.T, f *FDE) {
				r, err := f.RowAt(start)
				if !f.CIE.Signal || err != nil || !r.Signal || r.BKey {
					t.Errorf("CIE %+v row %+v %v", f.CIE, r, err)
				}
			}},
		{"zRB marks return addresses signed with the B key, and zRG MTE frames",
			cieSpec{aug: "zRBG", fdeEnc: DW_EH_PE_pcrel | DW_EH_PE_sdata4},
			fdeSpec{start: start, length: 0x10},
			func(t *testing.T, f *FDE) {
				r, err := f.RowAt(start)
				if !f.CIE.BKey || !f.CIE.MTE || err != nil || !r.BKey || r.Signal {
					t.Errorf("CIE %+v row %+v %v", f.CIE, r, err)
				}
			}},
		{"augmentation data longer than its fields is skipped, in the CIE and the FDE",
			cieSpec{aug: "zR", augData: []byte{byte(DW_EH_PE_udata8), 0xaa, 0xbb}},
			fdeSpec{start: start, length: 0x10, augData: []byte{1, 2, 3}, instr: in(cfaDefCFAOffset, uleb(32))},
			func(t *testing.T, f *FDE) {
				r, err := f.RowAt(start)
				if f.CIE.FDEEncoding != DW_EH_PE_udata8 || err != nil || r.CFA != cfaRule(7, 32) {
					t.Errorf("CIE %+v row %+v %v", f.CIE, r, err)
				}
			}},
		{"the legacy eh augmentation skips its pointer and has no augmentation data",
			cieSpec{aug: "eh"},
			fdeSpec{start: start, length: 0x10, instr: in(cfaDefCFAOffset, uleb(32))},
			func(t *testing.T, f *FDE) {
				r, err := f.RowAt(start)
				if err != nil || r.CFA != cfaRule(7, 32) || f.CIE.hasAugData {
					t.Errorf("row %+v %v", r, err)
				}
			}},
		{"a version 1 CIE has a one-byte RA column",
			cieSpec{version: 1, ra: 200},
			fdeSpec{start: start, length: 0x10},
			func(t *testing.T, f *FDE) {
				if f.CIE.RAReg != 200 || f.CIE.Version != 1 {
					t.Errorf("CIE %+v", f.CIE)
				}
			}},
		{"a version 3 CIE has a ULEB128 RA column",
			cieSpec{version: 3, ra: 200},
			fdeSpec{start: start, length: 0x10},
			func(t *testing.T, f *FDE) {
				if f.CIE.RAReg != 200 || f.CIE.Version != 3 {
					t.Errorf("CIE %+v", f.CIE)
				}
			}},
		{"a version 4 CIE with 4-byte addresses has 4-byte FDE addresses",
			cieSpec{version: 4, addrSize: 4},
			fdeSpec{start: start, length: 0x10},
			func(t *testing.T, f *FDE) {
				if f.CIE.AddressSize != 4 || f.Start != start || f.End != start+0x10 {
					t.Errorf("FDE %+v CIE %+v", f, f.CIE)
				}
			}},
	}
	for _, f := range formats {
		for _, tc := range cases {
			t.Run(formatName(f.kind, f.order, f.dwarf64)+": "+tc.name, func(t *testing.T) {
				b := newBuilder(f.kind, f.order, f.dwarf64)
				if tc.cie.initial == nil {
					tc.cie.initial = in(cfaDefCFA, uleb(7), uleb(8))
				}
				if tc.cie.lsdaEnc == 0 && tc.cie.aug != "zL" {
					tc.cie.lsdaEnc = DW_EH_PE_omit
				}
				cie := b.cie(tc.cie)
				b.fde(cie, tc.fde)
				tab, err := Parse(b.section())
				if err != nil {
					t.Fatal(err)
				}
				fd := tab.FDEs()
				if len(fd) != 1 || fd[0].Start != start || fd[0].CIE.Augmentation != tc.cie.aug {
					t.Fatalf("FDEs %+v", fd)
				}
				tc.check(t, fd[0])
			})
		}
	}
}

func TestSectionWalk(t *testing.T) {
	t.Run("a zero length word ends .eh_frame", func(t *testing.T) {
		b := newBuilder(EHFrame, binary.LittleEndian, false)
		cie := b.cie(cieSpec{})
		b.fde(cie, fdeSpec{start: 0x1000, length: 0x10})
		b.terminator()
		b.fde(cie, fdeSpec{start: 0x2000, length: 0x10})
		tab, err := Parse(b.section())
		if err != nil || len(tab.FDEs()) != 1 || tab.FDEs()[0].Start != 0x1000 {
			t.Fatalf("%v %v", tab, err)
		}
	})
	t.Run("a zero length word in .debug_frame is padding", func(t *testing.T) {
		b := newBuilder(DebugFrame, binary.BigEndian, false)
		cie := b.cie(cieSpec{version: 3})
		b.fde(cie, fdeSpec{start: 0x1000, length: 0x10})
		b.terminator()
		b.fde(cie, fdeSpec{start: 0x2000, length: 0x10})
		tab, err := Parse(b.section())
		if err != nil || len(tab.FDEs()) != 2 {
			t.Fatalf("%v %v", tab, err)
		}
	})
	t.Run("a .debug_frame FDE may come before its CIE", func(t *testing.T) {
		b := newBuilder(DebugFrame, binary.LittleEndian, true)
		// The CIE will be at the offset just past the FDE.
		fdeSize := int64(20 + 8 + 8)
		b.cies[fdeSize] = cieSpec{addrSize: 8}
		b.fde(fdeSize, fdeSpec{start: 0x1000, length: 0x10})
		if got := b.cie(cieSpec{version: 3, initial: in(cfaDefCFA, uleb(7), uleb(16))}); got != fdeSize {
			t.Fatalf("CIE at %#x, want %#x", got, fdeSize)
		}
		tab, err := Parse(b.section())
		if err != nil {
			t.Fatal(err)
		}
		r, err := tab.FDEs()[0].RowAt(0x1000)
		if err != nil || r.CFA != cfaRule(7, 16) || r.CIEOff != fdeSize {
			t.Fatalf("%+v %v", r, err)
		}
	})
	t.Run("FDEs with an empty range are skipped by lookups", func(t *testing.T) {
		b := newBuilder(EHFrame, binary.LittleEndian, false)
		cie := b.cie(cieSpec{})
		b.fde(cie, fdeSpec{start: 0x1000, length: 0x100})
		b.fde(cie, fdeSpec{start: 0x1080, length: 0})
		tab, err := Parse(b.section())
		if err != nil || len(tab.FDEs()) != 1 || len(tab.all) != 2 {
			t.Fatalf("%v %v", tab, err)
		}
		if f, err := tab.FDEForPC(0x1090); err != nil || f.Start != 0x1000 {
			t.Fatalf("%v %v", f, err)
		}
		rows, err := tab.all[1].Rows()
		if err != nil || len(rows) != 0 {
			t.Fatalf("rows of an empty FDE: %v %v", rows, err)
		}
	})
	t.Run("overlapping FDEs are reported and looked up by the greatest start", func(t *testing.T) {
		b := newBuilder(EHFrame, binary.LittleEndian, false)
		cie := b.cie(cieSpec{})
		outer := b.fde(cie, fdeSpec{start: 0x1000, length: 0x100})
		inner := b.fde(cie, fdeSpec{start: 0x1010, length: 0x10})
		short := b.fde(cie, fdeSpec{start: 0x1000, length: 0x8})
		again := b.fde(cie, fdeSpec{start: 0x1000, length: 0x100})
		tab, err := Parse(b.section())
		if err != nil {
			t.Fatal(err)
		}
		if n := len(tab.Overlaps()); n != 3 {
			t.Errorf("%d overlaps, want 3", n)
		}
		for _, c := range []struct {
			pc   uint64
			want int64
		}{{0x1000, outer}, {0x1008, outer}, {0x1010, inner}, {0x101f, inner}} {
			f, err := tab.FDEForPC(c.pc)
			if err != nil || f.Off != c.want {
				t.Errorf("FDEForPC(%#x) = %v, %v; want the FDE at %#x", c.pc, f, err, c.want)
			}
		}
		if _, err := tab.FDEForPC(0x1020); !errors.Is(err, ErrNoFDE) {
			t.Errorf("in the outer FDE past the inner one: %v, want ErrNoFDE (libgcc's rule)", err)
		}
		_, _ = short, again
	})
	t.Run("a section read through a ReaderAt parses as its bytes do", func(t *testing.T) {
		b := newBuilder(EHFrame, binary.BigEndian, false)
		cie := b.cie(cieSpec{})
		b.fde(cie, fdeSpec{start: 0x1000, length: 0x100})
		s := b.section()
		r := s
		r.Reader, r.Size, r.Data = bytesReader(s.Data), int64(len(s.Data)), nil
		tab, err := Parse(r)
		if err != nil || len(tab.FDEs()) != 1 || tab.FDEs()[0].End != 0x1100 {
			t.Fatalf("%v %v", tab, err)
		}
	})
}

func TestSetLocEncoding(t *testing.T) {
	for _, f := range formats {
		if f.kind != EHFrame {
			continue
		}
		t.Run(formatName(f.kind, f.order, f.dwarf64)+": DW_CFA_set_loc is encoded like the PC begin (pcrel|sdata4)", func(t *testing.T) {
			b := newBuilder(f.kind, f.order, f.dwarf64)
			enc := DW_EH_PE_pcrel | DW_EH_PE_sdata4
			cie := b.cie(cieSpec{aug: "zR", fdeEnc: enc, initial: in(cfaDefCFA, uleb(7), uleb(8))})
			// The operand follows the header, PC begin and range (4 bytes
			// each), the augmentation data length (1 byte) and the opcode.
			at := b.addr + uint64(b.off()) + uint64(b.headSize()) + 4 + 4 + 1 + 1
			b.fde(cie, fdeSpec{start: 0x20000, length: 0x40,
				instr: prog(in(cfaSetLoc, b.encode(enc, 0x20010, at, 8)), in(cfaDefCFAOffset, uleb(16)))})
			tab, err := Parse(b.section())
			if err != nil {
				t.Fatal(err)
			}
			rows, err := tab.FDEs()[0].Rows()
			if err != nil || len(rows) != 2 || rows[0].End != 0x20010 || rows[1].CFA != cfaRule(7, 16) {
				t.Fatalf("rows %+v, %v", rows, err)
			}
		})
	}
}
