package frames

import (
	"encoding/binary"
	"errors"
	"slices"
	"testing"

	"github.com/sfdbg/sfdbg/frames/cfi"
	"github.com/sfdbg/sfdbg/frames/ehabi"
	"github.com/sfdbg/sfdbg/sframe/arch"
	"github.com/sfdbg/sfdbg/sframe/rule"
)

// ehabiUnwind decodes an .ARM.extab entry of the given words (the first
// one a compact model word: 0x81 personality 1, count, two opcode
// bytes), pointed to by a one-entry index at 0x1000.
func ehabiUnwind(t *testing.T, words ...uint32) *ehabi.Unwind {
	t.Helper()
	le := binary.LittleEndian
	idx := &ehabi.Section{Name: ".ARM.exidx", Addr: 0x1000, Data: make([]byte, 8), Order: le}
	le.PutUint32(idx.Data[0:], 0x7ffff000)            // prel31 -0x1000: function at 0
	le.PutUint32(idx.Data[4:], uint32(0x2000-0x1004)) // prel31 to the .extab entry
	tab := &ehabi.Section{Name: ".ARM.extab", Addr: 0x2000, Data: make([]byte, 4*len(words)), Order: le}
	for i, w := range words {
		le.PutUint32(tab.Data[4*i:], w)
	}
	d := &ehabi.Decoder{Machine: ehabi.ARM, SectionAt: func(addr uint64) *ehabi.Section {
		if addr >= 0x2000 && addr < 0x2000+uint64(len(tab.Data)) {
			return tab
		}
		return nil
	}}
	tb, err := d.Decode(idx)
	if err != nil || len(tb.Entries) != 1 || tb.Entries[0].Err != nil || tb.Entries[0].Unwind == nil {
		t.Fatalf("decode: %v %+v", err, tb)
	}
	return tb.Entries[0].Unwind
}

func TestEHABIRowIsTheStateAfterTheOpcodes(t *testing.T) {
	same := rule.Rule{Kind: rule.SameValue, Reg: rule.CFA}
	at := func(off int64) rule.Rule { return rule.Rule{Kind: rule.Offset, Reg: rule.CFA, Offset: off} }
	sp := func(r rule.Reg, off int64) rule.Rule { return rule.Rule{Kind: rule.ValOffset, Reg: r, Offset: off} }
	tests := []struct {
		name      string
		words     []uint32
		cfa, ra   rule.Rule
		fp        rule.Rule
		other     []cfi.RegRule
		wantNoRow bool
		wantErr   bool
	}{
		{"vsp += 48; vsp += 256; pop {r4, r14}", []uint32{0x81010b3f, 0xa8b0b0b0},
			sp(13, 312), at(-4), same, []cfi.RegRule{{Reg: 4, Rule: at(-8)}}, false, false},
		{"nothing popped: the RA stays in lr", []uint32{0x8100b0b0},
			sp(13, 0), same, same, nil, false, false},
		{"vsp = r7; pop {r4, r5, r7, r14}", []uint32{0x81019784, 0x0bb0b0b0},
			sp(7, 16), at(-4), same, []cfi.RegRule{{Reg: 4, Rule: at(-16)}, {Reg: 5, Rule: at(-12)}, {Reg: 7, Rule: at(-8)}}, false, false},
		{"pop {r11, r15}: RA is where pc was popped, FP is r11", []uint32{0x81018880, 0xb0b0b0b0},
			sp(13, 8), at(-4), at(-8), nil, false, false},
		{"pop {D8-D9} (VPUSH form) then {r4, r14}", []uint32{0x8101c981, 0xa8b0b0b0},
			sp(13, 24), at(-4), same, []cfi.RegRule{{Reg: 4, Rule: at(-8)}, {Reg: arch.ARMS0 + 16, Rule: at(-24)}, {Reg: arch.ARMS0 + 17, Rule: at(-20)},
				{Reg: arch.ARMS0 + 18, Rule: at(-16)}, {Reg: arch.ARMS0 + 19, Rule: at(-12)}}, false, false},
		{"FSTMFDX pop {D8} has a pad word", []uint32{0x8100b8b0},
			sp(13, 12), same, same, []cfi.RegRule{{Reg: arch.ARMS0 + 16, Rule: at(-12)}, {Reg: arch.ARMS0 + 17, Rule: at(-8)}}, false, false},
		{"pop r13 (a signal restorer's) is no row", []uint32{0x81008fff},
			rule.Rule{}, rule.Rule{}, rule.Rule{}, nil, true, true},
		{"reserved 0x9d is an error", []uint32{0x81009db0},
			rule.Rule{}, rule.Rule{}, rule.Rule{}, nil, false, true},
		{"vsp = r7 after a pop is an error", []uint32{0x8100a897},
			rule.Rule{}, rule.Rule{}, rule.Rule{}, nil, false, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			u := ehabiUnwind(t, tc.words...)
			row, err := EHABIRow(arch.ARMArch, u)
			if tc.wantErr {
				if err == nil || errors.Is(err, ErrEHABINoRow) != tc.wantNoRow {
					t.Fatalf("err %v, want an error (no row: %v)", err, tc.wantNoRow)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if row.CFA != tc.cfa || row.RA != tc.ra || row.FP != tc.fp {
				t.Errorf("CFA %v RA %v FP %v, want %v %v %v (ops %s)", row.CFA, row.RA, row.FP, tc.cfa, tc.ra, tc.fp, EHABIOpsText(u))
			}
			var other []cfi.RegRule
			row.Other.Each(func(reg rule.Reg, r rule.Rule) { other = append(other, cfi.RegRule{Reg: reg, Rule: r}) })
			if !slices.Equal(other, tc.other) {
				t.Errorf("other %v, want %v", other, tc.other)
			}
		})
	}
}
