package ehabi

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/sfdbg/sfdbg/sframe/sframetest"
)

// Budgets of FuzzDecode, per byte of input (the data is both the index
// and the table section).
var (
	// decodeOpBytes: Decoder.MaxOpBytes' default (8 per index byte plus
	// 4096), plus the last entry decoded before the limit is seen (an
	// entry reads at most 3 + 4*255 opcode bytes, its more-words count
	// clipped to 255 and to the section).
	decodeOpBytes = sframetest.Budget{What: "opcode bytes decoded", PerByte: 8, Const: 4096 + 1023}
	// decodeAllocs: each opcode byte costs its byte and at most one Op
	// (about 150 bytes with its text when printed): 8 per index byte make
	// about 1.2 KiB per byte, plus the constant part (4096+1023 opcode
	// bytes, under 1 MiB) spread over the smallest inputs.
	decodeAllocs = sframetest.Budget{What: "bytes allocated", PerByte: 2 << 10, Const: sframetest.AllocSlack + 2<<20}
)

// FuzzDecode decodes arbitrary bytes as an index section whose entries
// point into the same bytes (as a table section at another address), for
// ARM and C6000 in either byte order, with relocations as in an object or
// without, and prints them. It checks that
// nothing panics, that every entry error is a *DecodeError naming a
// section and an offset inside it, and that the work stays in budget.
// Seeds: the index and table sections of testdata/*.elf.
func FuzzDecode(f *testing.F) {
	paths, _ := filepath.Glob("testdata/*.elf")
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		ef, err := elf.NewFile(bytes.NewReader(data))
		if err != nil {
			f.Fatal(err)
		}
		var idx, tab []byte
		for _, s := range ef.Sections {
			if s.Type == shtExidx {
				idx, _ = s.Data()
			} else if s.Name == ".ARM.extab" || s.Name == ".c6xabi.extab" {
				tab, _ = s.Data()
			}
		}
		m := uint8(0)
		if ef.Machine == elf.EM_TI_C6000 {
			m = 1
		}
		seed := append(idx, tab...)
		f.Add(seed, m, ef.ByteOrder == binary.BigEndian)
		f.Add(seed, m|2, ef.ByteOrder == binary.BigEndian)
	}
	f.Fuzz(func(t *testing.T, data []byte, m uint8, be bool) {
		decodeAllocs.CheckAllocs(t, len(data), func() { fuzzDecode(t, data, m, be) })
	})
}

func fuzzDecode(t *testing.T, data []byte, m uint8, be bool) {
	var order binary.ByteOrder = binary.LittleEndian
	if be {
		order = binary.BigEndian
	}
	mach := ARM
	if m&1 == 1 {
		mach = C6000
	}
	idx := &Section{Name: ".ARM.exidx", Addr: 0x10000, Data: data, Order: order}
	tab := &Section{Name: ".ARM.extab", Addr: 0x20000, Data: data, Order: order}
	if m&2 != 0 {
		// As in an object: every word of both sections relocated against a
		// symbol of section 0 (undefined), 1 (the index) or 2 (the table)
		// whose value comes from the data, REL or RELA.
		relocs := make(map[uint64]Reloc, len(data)/4)
		for off := 0; off+4 <= len(data); off += 4 {
			w := order.Uint32(data[off:])
			relocs[uint64(off)] = Reloc{SymValue: uint64(w >> 8), SymShndx: off / 4 % 3, SymName: "sym", Addend: int64(int8(w)), RELA: w&0x80 != 0}
		}
		idx.Relocs, tab.Relocs = relocs, relocs
	}
	size := map[string]int{idx.Name: len(data), tab.Name: len(data)}
	d := &Decoder{
		Machine: mach,
		SectionAt: func(addr uint64) *Section {
			for _, s := range []*Section{idx, tab} {
				if addr >= s.Addr && addr-s.Addr < uint64(len(s.Data)) {
					return s
				}
			}
			return nil
		},
		IsGCC: func(addr uint64, _ Target) bool { return addr&4 == 0 },
		SectionByIndex: func(i int) *Section {
			return map[int]*Section{1: idx, 2: tab}[i]
		},
	}
	tb, err := d.Decode(idx)
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	if len(tb.Entries) != len(data)/8 {
		t.Fatalf("%d entries from %d bytes", len(tb.Entries), len(data))
	}
	opBytes := 0
	for _, e := range tb.Entries {
		if e.Err != nil {
			var de *DecodeError
			if !errors.As(e.Err, &de) {
				t.Fatalf("entry at %#x: %v is not a *DecodeError", e.Off, e.Err)
			}
			n, ok := size[de.Section]
			if !ok || de.Off < 0 || de.Off >= int64(max(n, 1)) {
				t.Fatalf("entry at %#x: %v: offset outside its %d-byte section", e.Off, e.Err, n)
			}
		}
		if e.Unwind != nil {
			for _, op := range e.Unwind.Ops {
				opBytes += len(op.Bytes)
				if op.Off < 0 || op.Off >= int64(len(data)) {
					t.Fatalf("op %v at %#x outside the section", op.Kind, op.Off)
				}
			}
		}
	}
	decodeOpBytes.Check(t, uint64(opBytes), len(data))
	ef := &File{Machine: mach, Tables: []*Table{tb}}
	var out bytes.Buffer
	if err := ef.WriteText(&out); err != nil {
		t.Fatal(err)
	}
}
