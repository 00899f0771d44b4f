package cfi

import (
	"debug/elf"
	"encoding/binary"
	"path/filepath"
	"testing"
)

// reorder returns call frame instructions with the operands whose byte
// order matters (DW_CFA_advance_loc2/4, DW_CFA_set_loc) rewritten from one
// byte order to another.
func reorder(t *testing.T, instr []byte, from, to binary.ByteOrder, addrSize int) []byte {
	t.Helper()
	out := append([]byte(nil), instr...)
	c := cursor{b: instr, order: from, sec: "test"}
	swap := func(n int) {
		at := c.i
		v := c.fixed(n, "")
		switch n {
		case 2:
			to.PutUint16(out[at:], uint16(v))
		case 4:
			to.PutUint32(out[at:], uint32(v))
		case 8:
			to.PutUint64(out[at:], v)
		}
	}
	for c.i < len(instr) && c.err == nil {
		op := cfaOp(c.u8(""))
		switch op & 0xc0 {
		case cfaAdvanceLoc, cfaRestore:
			continue
		case cfaOffset:
			c.uleb("")
			continue
		}
		switch op {
		case cfaNop, cfaRememberState, cfaRestoreState, cfaAArch64NegateRAState:
		case cfaSetLoc:
			swap(addrSize)
		case cfaAdvanceLoc1:
			c.u8("")
		case cfaAdvanceLoc2:
			swap(2)
		case cfaAdvanceLoc4:
			swap(4)
		case cfaOffsetExtended, cfaRegister, cfaDefCFA, cfaValOffset, cfaGNUNegativeOffsetExtended:
			c.uleb("")
			c.uleb("")
		case cfaOffsetExtendedSF, cfaDefCFASF, cfaValOffsetSF:
			c.uleb("")
			c.sleb("")
		case cfaRestoreExtended, cfaUndefined, cfaSameValue, cfaDefCFARegister, cfaDefCFAOffset, cfaGNUArgsSize:
			c.uleb("")
		case cfaDefCFAOffsetSF:
			c.sleb("")
		case cfaDefCFAExpression:
			c.bytes(c.uleb(""), "")
		case cfaExpression, cfaValExpression:
			c.uleb("")
			c.bytes(c.uleb(""), "")
		default:
			t.Fatalf("instruction %v the test cannot reorder", op)
		}
	}
	if c.err != nil {
		t.Fatal(c.err)
	}
	return out
}

// transcode re-encodes every CIE and FDE of tab, parsed from an .eh_frame
// in byte order from, as a section of the given kind, byte order and
// DWARF format: .eh_frame with augmentation "zR" (pcrel|sdata4), or
// .debug_frame version 3 without augmentation, which Delve reads too.
func transcode(t *testing.T, tab *Table, from binary.ByteOrder, kind Kind, order binary.ByteOrder, dwarf64 bool) Section {
	b := newBuilder(kind, order, dwarf64)
	cies := map[*CIE]int64{}
	for i := range tab.all {
		f := &tab.all[i]
		c, ok := cies[f.CIE]
		if !ok {
			spec := cieSpec{version: 3, caf: f.CIE.CodeAlign, daf: f.CIE.DataAlign, ra: uint64(f.CIE.RAReg),
				initial: reorder(t, f.CIE.Initial, from, order, 8)}
			if kind == EHFrame {
				spec.aug, spec.fdeEnc = "zR", DW_EH_PE_pcrel|DW_EH_PE_sdata4
			}
			c = b.cie(spec)
			cies[f.CIE] = c
		}
		b.fde(c, fdeSpec{start: f.Start, length: f.End - f.Start, instr: reorder(t, f.Instructions, from, order, 8)})
	}
	return b.section()
}

// TestTranscodedCFI re-encodes the .eh_frame of libc (and an AArch64
// fixture, for DW_CFA_AARCH64_negate_ra_state) in every byte order, 32-
// and 64-bit DWARF, as .eh_frame and as .debug_frame, and checks that the
// rows are those of the original; the little-endian 32-bit .debug_frame
// of libc is also compared with Delve's .debug_frame reader at every
// instruction boundary.
func TestTranscodedCFI(t *testing.T) {
	for _, path := range []string{"/lib/x86_64-linux-gnu/libc.so.6", "../../testdata/bin/aarch64-v3"} {
		f, err := elf.Open(path)
		if err != nil {
			t.Logf("skipping %s: %v", path, err)
			continue
		}
		defer f.Close()
		secs := cfiSections(t, f)
		if len(secs) == 0 || secs[0].Kind != EHFrame {
			t.Fatalf("%s: no .eh_frame", path)
		}
		orig, err := Parse(secs[0])
		if err != nil {
			t.Fatal(err)
		}
		for _, ft := range formats {
			t.Run(filepath.Base(path)+" re-encoded as "+formatName(ft.kind, ft.order, ft.dwarf64)+" has the same rows", func(t *testing.T) {
				sec := transcode(t, orig, f.ByteOrder, ft.kind, ft.order, ft.dwarf64)
				tab, err := Parse(sec)
				if err != nil {
					t.Fatal(err)
				}
				if len(tab.all) != len(orig.all) {
					t.Fatalf("%d FDEs, want %d", len(tab.all), len(orig.all))
				}
				nrows := 0
				for i := range tab.all {
					a, b := &orig.all[i], &tab.all[i]
					ra, err1 := a.Rows()
					rb, err2 := b.Rows()
					if err1 != nil || err2 != nil || a.Start != b.Start || a.End != b.End || len(ra) != len(rb) {
						t.Fatalf("FDE %d: [%#x,%#x) %d rows %v; re-encoded [%#x,%#x) %d rows %v", i, a.Start, a.End, len(ra), err1, b.Start, b.End, len(rb), err2)
					}
					for j := range ra {
						x, y := ra[j], rb[j]
						x.Section, x.FDEOff, x.CIEOff, x.Signal, x.BKey = y.Section, y.FDEOff, y.CIEOff, y.Signal, y.BKey
						if !x.Equal(&y) {
							t.Fatalf("FDE %d row %d: %+v, re-encoded %+v", i, j, ra[j], rb[j])
						}
						nrows++
					}
				}
				if ft.kind == DebugFrame && ft.order == binary.LittleEndian && !ft.dwarf64 {
					nfde, npc := compareWithDelve(t, f.Machine, sec, newTextReader(f))
					t.Logf("%d rows equal; Delve: %d FDEs, %d PCs compared", nrows, nfde, npc)
				}
			})
		}
	}
}
