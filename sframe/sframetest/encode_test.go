package sframetest

import (
	"github.com/sfdbg/sfdbg/sframe"
	"github.com/sfdbg/sfdbg/sframe/rule"

	"bytes"
	"encoding/binary"
	"fmt"
	"strings"
	"testing"
)

// abiFrames returns, for ABI abi, FREs of a prologue with the rows they
// must decode to: CFA on SP at entry, then FP and RA saved, then CFA on FP.
func abiFrames(t *testing.T, abi sframe.ABI) ([]FRESpec, []rule.Row) {
	fre := mustFRE(t)
	sp, fp := abi.SPReg(), abi.FPReg()
	same := rule.Rule{Kind: rule.SameValue, Reg: rule.CFA}
	val := func(r rule.Reg, off int64) rule.Rule {
		return rule.Rule{Kind: rule.ValOffset, Reg: r, Offset: off}
	}
	switch abi {
	case sframe.ABIAMD64LittleEndian:
		ra := cfaOff(-8)
		return []FRESpec{
				fre(DefaultFRE(abi, 0, sframe.BaseRegSP, 8, rule.Rule{}, rule.Rule{})),
				fre(DefaultFRE(abi, 1, sframe.BaseRegSP, 16, rule.Rule{}, cfaOff(-16))),
				fre(DefaultFRE(abi, 4, sframe.BaseRegFP, 16, rule.Rule{}, cfaOff(-16))),
			}, []rule.Row{
				{CFA: val(sp, 8), RA: ra, FP: same},
				{CFA: val(sp, 16), RA: ra, FP: cfaOff(-16)},
				{CFA: val(fp, 16), RA: ra, FP: cfaOff(-16)},
			}
	case sframe.ABIS390XBigEndian:
		return []FRESpec{
				fre(DefaultFRE(abi, 0, sframe.BaseRegSP, 160, rule.Rule{}, rule.Rule{})),
				fre(DefaultFRE(abi, 6, sframe.BaseRegSP, 160, cfaOff(-48), cfaOff(-72))),
				fre(DefaultFRE(abi, 10, sframe.BaseRegSP, 320, cfaOff(-48), rule.Rule{})),
				fre(DefaultFRE(abi, 14, sframe.BaseRegFP, 4256, rule.Rule{}, cfaOff(-72))),
			}, []rule.Row{
				{CFA: val(sp, 160), RA: same, FP: same, TopmostOnly: true, SPOffset: -160},
				{CFA: val(sp, 160), RA: cfaOff(-48), FP: cfaOff(-72), SPOffset: -160},
				{CFA: val(sp, 320), RA: cfaOff(-48), FP: same, SPOffset: -160},
				{CFA: val(fp, 4256), RA: same, FP: cfaOff(-72), TopmostOnly: true, SPOffset: -160},
			}
	default: // AArch64
		return []FRESpec{
				fre(DefaultFRE(abi, 0, sframe.BaseRegSP, 0, rule.Rule{}, rule.Rule{})),
				fre(DefaultFRE(abi, 4, sframe.BaseRegSP, 32, cfaOff(-24), cfaOff(-32))),
				fre(DefaultFRE(abi, 8, sframe.BaseRegFP, 32, cfaOff(-24), cfaOff(-32))),
				fre(DefaultFRE(abi, 12, sframe.BaseRegSP, 16, cfaOff(-8), rule.Rule{})),
			}, []rule.Row{
				{CFA: val(sp, 0), RA: same, FP: same, TopmostOnly: true},
				{CFA: val(sp, 32), RA: cfaOff(-24), FP: cfaOff(-32)},
				{CFA: val(fp, 32), RA: cfaOff(-24), FP: cfaOff(-32)},
				{CFA: val(sp, 16), RA: cfaOff(-8), FP: same},
			}
	}
}

func TestDecodeSectionsBuiltWithTheEncoder(t *testing.T) {
	for _, tc := range ABIVersions() {
		for _, pcrel := range []bool{false, true} {
			if pcrel && tc.Version == sframe.Version1 {
				continue
			}
			name := fmt.Sprintf("a %v section for %v", tc.Version, tc.ABI)
			if pcrel {
				name += " with PC-relative function starts"
			}
			t.Run(name+" decodes to what was encoded", func(t *testing.T) {
				fres, rows := abiFrames(t, tc.ABI)
				b := &Builder{Version: tc.Version, ABI: tc.ABI, Flags: sframe.FlagFDESorted, Addr: 0x400000,
					FDEs: []FDESpec{
						{Start: 0x401000, Size: 40, FREs: fres},
						{Start: 0x401100, Size: 16, FREs: []FRESpec{OutermostFRE(0)}},
					}}
				if tc.ABI == sframe.ABIAMD64LittleEndian {
					b.CFAFixedRAOffset = -8
				}
				if pcrel {
					b.Flags |= sframe.FlagFDEFuncStartPCRel
				}
				data := MustEncode(t, b)
				s, err := sframe.ParseAt(data, b.Addr)
				if err != nil {
					t.Fatal(err)
				}
				wantBO := binary.ByteOrder(binary.LittleEndian)
				if tc.ABI.BigEndian() {
					wantBO = binary.BigEndian
				}
				if s.ByteOrder != wantBO {
					t.Errorf("byte order %v, want %v", s.ByteOrder, wantBO)
				}
				if d := diffSpec(b, s); d != "" {
					t.Fatal(d)
				}
				// The start field is relative to the section or to itself.
				f := &s.FDEs()[0]
				wantField := int64(0x1000)
				if pcrel {
					wantField -= int64(f.Off)
				}
				if f.StartField != wantField {
					t.Errorf("start field %#x, want %#x", f.StartField, wantField)
				}
				for k, want := range rows {
					var fre sframe.FRE
					if err := s.FindFRE(f, f.Start+uint64(fres[k].StartOff), &fre); err != nil {
						t.Fatal(err)
					}
					got, err := s.Row(f, &fre)
					if err != nil {
						t.Fatal(err)
					}
					if got != want {
						t.Errorf("row %d: got %+v, want %+v", k, got, want)
					}
				}
				for _, p := range s.Validate() {
					if p.Severity == sframe.SeverityError {
						t.Errorf("Validate: %v", p)
					}
				}
			})
		}
	}
}

func TestRoundTripEncodeDecode(t *testing.T) {
	for _, tc := range ABIVersions() {
		for _, b := range Variants(tc.Version, tc.ABI) {
			f, r := &b.FDEs[0], &b.FDEs[0].FREs[0]
			name := fmt.Sprintf("%v %v FDE %v %v %v with %v data words", tc.Version, tc.ABI, f.Type, f.PCType, f.FREType, r.WordSize)
			t.Run(name+" decodes to what was encoded and re-encodes to the same bytes", func(t *testing.T) {
				data := MustEncode(t, b)
				s, err := sframe.ParseAt(data, b.Addr)
				if err != nil {
					t.Fatal(err)
				}
				if d := diffSpec(b, s); d != "" {
					t.Fatal(d)
				}
				b2, err := SpecFrom(s)
				if err != nil {
					t.Fatal(err)
				}
				if again := MustEncode(t, b2); !bytes.Equal(again, data) {
					t.Fatalf("SpecFrom + Encode differs at byte %#x", firstDiff(again, data))
				}
				for i := range s.FDEs() {
					fde := &s.FDEs()[i]
					it := s.FREs(fde)
					for it.Next() {
						if _, err := s.Row(fde, it.FRE()); err != nil {
							t.Errorf("FDE %d FRE %d: %v", i, it.Index(), err)
						}
					}
				}
			})
		}
	}
}

func TestEncoderChoosesTheSmallestSizes(t *testing.T) {
	tests := []struct {
		name     string
		size     uint32
		starts   []uint32
		words    []int32
		flex     bool
		wantType sframe.FREType
		wantWS   sframe.DataWordSize
	}{
		{"a 255-byte function uses 1-byte start offsets", 255, []uint32{0}, []int32{8}, false, sframe.FRETypeAddr1, sframe.DataWord1B},
		{"a 256-byte function uses 2-byte start offsets, as gas does", 256, []uint32{0}, []int32{8}, false, sframe.FRETypeAddr2, sframe.DataWord1B},
		{"a 65536-byte function uses 4-byte start offsets", 65536, []uint32{0}, []int32{8}, false, sframe.FRETypeAddr4, sframe.DataWord1B},
		{"a start offset past the function size widens the FRE type", 16, []uint32{0, 300}, []int32{8}, false, sframe.FRETypeAddr2, sframe.DataWord1B},
		{"offset 127 fits one byte", 16, []uint32{0}, []int32{127, -128}, false, sframe.FRETypeAddr1, sframe.DataWord1B},
		{"offset 128 needs two bytes", 16, []uint32{0}, []int32{128}, false, sframe.FRETypeAddr1, sframe.DataWord2B},
		{"offset -32769 needs four bytes", 16, []uint32{0}, []int32{8, -32769}, false, sframe.FRETypeAddr1, sframe.DataWord4B},
		{"a FLEX control word of 0x81 fits one unsigned byte", 16, []uint32{0}, []int32{0x81, 0}, true, sframe.FRETypeAddr1, sframe.DataWord1B},
		{"a FLEX control word of 0x100 needs two bytes", 16, []uint32{0}, []int32{0x100, 0}, true, sframe.FRETypeAddr1, sframe.DataWord2B},
		{"a FLEX offset of 0x81 needs two bytes", 16, []uint32{0}, []int32{0x39, 0x81}, true, sframe.FRETypeAddr1, sframe.DataWord2B},
		{"FLEX FP control word after RA padding is unsigned", 16, []uint32{0}, []int32{0x39, 8, 0, 0xf3, -16}, true, sframe.FRETypeAddr1, sframe.DataWord1B},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := FDESpec{Start: 0x1000, Size: tc.size}
			if tc.flex {
				f.Type = sframe.FDETypeFlex
			}
			for _, st := range tc.starts {
				f.FREs = append(f.FREs, FRESpec{StartOff: st, Words: tc.words})
			}
			b := &Builder{Version: sframe.Version3, ABI: sframe.ABIAMD64LittleEndian, CFAFixedRAOffset: -8, FDEs: []FDESpec{f}}
			s := MustParse(t, b)
			fde := &s.FDEs()[0]
			if fde.FREType != tc.wantType {
				t.Errorf("FRE type %v, want %v", fde.FREType, tc.wantType)
			}
			frs, err := s.AllFREs(fde)
			if err != nil {
				t.Fatal(err)
			}
			if got := frs[0].Info.DataWordSize(); got != tc.wantWS {
				t.Errorf("data-word size %v, want %v", got, tc.wantWS)
			}
			if d := diffSpec(b, s); d != "" {
				t.Error(d)
			}
		})
	}
}

func TestEncoderOverridesWriteMalformedFields(t *testing.T) {
	base := func() *Builder { return AMD64Section(sframe.Version2) }
	tests := []struct {
		name  string
		edit  func(b *Builder)
		check func(t *testing.T, d []byte)
	}{
		{"a magic override is written in the section's byte order", func(b *Builder) { b.Override.Magic = new(uint16(0x1234)) },
			func(t *testing.T, d []byte) { wantBytes(t, d, 0, 0x34, 0x12) }},
		{"a version override keeps the FDE layout", func(b *Builder) { b.Override.Version = new(uint8(9)) },
			func(t *testing.T, d []byte) { wantBytes(t, d, 2, 9) }},
		{"header count overrides are written as given", func(b *Builder) {
			b.Override.NumFDEs, b.Override.NumFREs, b.Override.FRELen = new(uint32(7)), new(uint32(8)), new(uint32(9))
		}, func(t *testing.T, d []byte) { wantBytes(t, d, 8, 7, 0, 0, 0, 8, 0, 0, 0, 9, 0, 0, 0) }},
		{"FDE overrides replace the start, FRE offset, count and info", func(b *Builder) {
			f := &b.FDEs[0]
			f.StartField, f.FREOff, f.NumFREs, f.Info, f.Padding = new(int64(-1)), new(uint32(5)), new(uint32(6)), new(uint8(0xff)), 0xabcd
		}, func(t *testing.T, d []byte) {
			wantBytes(t, d, 28, 0xff, 0xff, 0xff, 0xff, 64, 0, 0, 0, 5, 0, 0, 0, 6, 0, 0, 0, 0xff, 16, 0xcd, 0xab)
		}},
		{"an FRE info override keeps the data words", func(b *Builder) {
			b.FDEs[0].FREs[0].Info = new(uint8(0x7f))
		}, func(t *testing.T, d []byte) {
			off := sframe.HeaderSize + 4*sframe.FDESizeV2
			wantBytes(t, d, off, 0, 0x7f, 8)
		}},
		{"an exact FRE type truncates start offsets", func(b *Builder) {
			f := &b.FDEs[0]
			f.FREType, f.ExactFREType = sframe.FRETypeAddr1, true
			f.FREs[1].StartOff = 0x1ff
		}, func(t *testing.T, d []byte) {
			off := sframe.HeaderSize + 4*sframe.FDESizeV2
			wantBytes(t, d, off+3, 0xff)
		}},
		{"an exact data-word size truncates words", func(b *Builder) {
			r := &b.FDEs[0].FREs[0]
			r.Words, r.WordSize, r.ExactWordSize = []int32{0x1234}, sframe.DataWord1B, true
		}, func(t *testing.T, d []byte) {
			off := sframe.HeaderSize + 4*sframe.FDESizeV2
			wantBytes(t, d, off, 0, 0x03, 0x34)
		}},
		{"pads and trailers land between and after the sub-sections", func(b *Builder) {
			b.AuxHeader, b.FDEPad, b.FREPad, b.Trailer = []byte{0xa1}, []byte{0xa2, 0xa2}, []byte{0xa3}, []byte{0xa4}
			b.FDEs[3].Trailer = []byte{0xa5}
		}, func(t *testing.T, d []byte) {
			wantBytes(t, d, 7, 1)                  // sfh_auxhdr_len
			wantBytes(t, d, 20, 2, 0, 0, 0)        // sfh_fdeoff
			wantBytes(t, d, 24, 2+4*20+1, 0, 0, 0) // sfh_freoff
			wantBytes(t, d, 28, 0xa1, 0xa2, 0xa2)
			wantBytes(t, d, 31+4*20, 0xa3)
			wantBytes(t, d, len(d)-2, 0xa5, 0xa4)
		}},
		{"FRE order places FRE data in another order than the FDEs", func(b *Builder) {
			b.FREOrder = []int{3, 2, 1, 0}
		}, func(t *testing.T, d []byte) {
			wantBytes(t, d, 28+3*20+8, 0, 0, 0, 0) // FDE 3's FREs come first
		}},
		{"a foreign byte order writes an AMD64 section big-endian", func(b *Builder) { b.ByteOrder = binary.BigEndian },
			func(t *testing.T, d []byte) { wantBytes(t, d, 0, 0xde, 0xe2) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := base()
			tc.edit(b)
			tc.check(t, MustEncode(t, b))
		})
	}
}

func wantBytes(t *testing.T, d []byte, off int, want ...byte) {
	t.Helper()
	if off+len(want) > len(d) {
		t.Fatalf("section of %d bytes has no bytes [%#x, %#x)", len(d), off, off+len(want))
	}
	if got := d[off : off+len(want)]; !bytes.Equal(got, want) {
		t.Errorf("bytes at %#x: % x, want % x", off, got, want)
	}
}

func TestSpecFromReproducesNonCanonicalLayouts(t *testing.T) {
	tests := []struct {
		name string
		edit func(b *Builder)
	}{
		{"FRE data in reverse FDE order", func(b *Builder) { b.FREOrder = []int{3, 2, 1, 0} }},
		{"padding, auxiliary header and trailing bytes", func(b *Builder) {
			b.AuxHeader, b.FDEPad, b.FREPad, b.Trailer = []byte{1, 2}, []byte{3}, []byte{4, 5}, []byte{6}
			b.FDEs[1].Trailer = []byte{7, 8}
		}},
		{"unused info bits and a wrong FRE count in the header", func(b *Builder) {
			b.FDEs[1].Info = new(uint8(0x40))
			b.FDEs[2].FREs[0].Info = new(uint8(0x83))
			b.Override.NumFREs = new(uint32(3))
		}},
		{"a foreign byte order", func(b *Builder) { b.ByteOrder = binary.BigEndian }},
	}
	for _, v := range []sframe.Version{sframe.Version1, sframe.Version2, sframe.Version3} {
		for _, tc := range tests {
			t.Run(fmt.Sprintf("%v section with %s re-encodes to the same bytes", v, tc.name), func(t *testing.T) {
				b := AMD64Section(v)
				tc.edit(b)
				data := MustEncode(t, b)
				if got := MustEncode(t, specOf(t, data, b.Addr)); !bytes.Equal(got, data) {
					t.Fatalf("differs at byte %#x", firstDiff(got, data))
				}
			})
		}
	}
}

func TestSpecFromRejectsLayoutsItCannotReproduce(t *testing.T) {
	b := AMD64Section(sframe.Version2)
	b.FDEs[1].FREOff = new(uint32(0)) // shares FDE 0's FRE data
	s := MustParse(t, b)
	if _, err := SpecFrom(s); err == nil || !strings.Contains(err.Error(), "overlaps") {
		t.Errorf("SpecFrom of a section with shared FRE data: err = %v, want an overlap error", err)
	}
}

func TestEncodeRejectsDescriptionsItCannotWrite(t *testing.T) {
	tests := []struct {
		name string
		b    *Builder
		want string
	}{
		{"an unknown version", &Builder{Version: 4}, "version"},
		{"a v1 repetition size other than 16", &Builder{Version: sframe.Version1, FDEs: []FDESpec{{PCType: sframe.PCTypeMask, RepSize: 8}}}, "repetition"},
		{"a FLEX FDE in version 2", &Builder{Version: sframe.Version2, FDEs: []FDESpec{{Type: sframe.FDETypeFlex}}}, "FDE type"},
		{"16 data words", &Builder{Version: sframe.Version2, FDEs: []FDESpec{{FREs: []FRESpec{{Words: make([]int32, 16)}}}}}, "data words"},
		{"a v2 function 4 GiB away from the section", &Builder{Version: sframe.Version2, Addr: 0x1_0000_0000, FDEs: []FDESpec{{Start: 0x10}}}, "too far"},
		{"an FRE order that is not a permutation", &Builder{Version: sframe.Version3, FDEs: []FDESpec{{}, {}}, FREOrder: []int{0, 0}}, "permutation"},
		{"an unknown exact FRE type", &Builder{Version: sframe.Version3, FDEs: []FDESpec{{FREType: 3, ExactFREType: true}}}, "FRE type"},
		{"an unknown exact data-word size", &Builder{Version: sframe.Version3, FDEs: []FDESpec{{FREs: []FRESpec{{Words: []int32{1}, WordSize: 3, ExactWordSize: true}}}}}, "size"},
		{"65536 FREs in a v3 FDE", &Builder{Version: sframe.Version3, FDEs: []FDESpec{{FREs: make([]FRESpec, 65536)}}}, "do not fit"},
	}
	for _, tc := range tests {
		t.Run("Encode rejects "+tc.name, func(t *testing.T) {
			_, err := tc.b.Encode()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want one mentioning %q", err, tc.want)
			}
		})
	}
}

func TestRowHelpersEncodeRules(t *testing.T) {
	val := func(r rule.Reg, off int64) rule.Rule {
		return rule.Rule{Kind: rule.ValOffset, Reg: r, Offset: off}
	}
	deref := func(r rule.Reg, off int64) rule.Rule {
		return rule.Rule{Kind: rule.Offset, Reg: r, Offset: off}
	}
	same := rule.Rule{Kind: rule.SameValue, Reg: rule.CFA}
	tests := []struct {
		name      string
		Version   sframe.Version
		ABI       sframe.ABI
		fre       func() (FRESpec, error)
		flex      bool
		wantWords []int32
		want      rule.Row
	}{
		{"AMD64 CFA=sp+16 with FP at c-16", sframe.Version3, sframe.ABIAMD64LittleEndian,
			func() (FRESpec, error) {
				return DefaultFRE(sframe.ABIAMD64LittleEndian, 0, sframe.BaseRegSP, 16, rule.Rule{}, cfaOff(-16))
			}, false,
			[]int32{16, -16}, rule.Row{CFA: val(sframe.AMD64RegSP, 16), RA: cfaOff(-8), FP: cfaOff(-16)}},
		{"AMD64 DRAP CFA=*(rbp-8) with FP=*(rbp+0) as FLEX", sframe.Version3, sframe.ABIAMD64LittleEndian,
			func() (FRESpec, error) {
				return FlexFRE(sframe.ABIAMD64LittleEndian, 0, deref(sframe.AMD64RegFP, -8), rule.Rule{}, deref(sframe.AMD64RegFP, 0))
			}, true,
			[]int32{0x33, -8, 0, 0x33, 0}, rule.Row{CFA: deref(sframe.AMD64RegFP, -8), RA: cfaOff(-8), FP: deref(sframe.AMD64RegFP, 0), SPOffset: 0}},
		{"AMD64 CFA=r10+0 as FLEX marks a topmost-only row", sframe.Version3, sframe.ABIAMD64LittleEndian,
			func() (FRESpec, error) {
				return FlexFRE(sframe.ABIAMD64LittleEndian, 0, val(10, 0), rule.Rule{}, rule.Rule{})
			}, true,
			[]int32{0x51, 0}, rule.Row{CFA: val(10, 0), RA: cfaOff(-8), FP: same, TopmostOnly: true}},
		{"AArch64 RA saved without FP uses two words", sframe.Version2, sframe.ABIAArch64LittleEndian,
			func() (FRESpec, error) {
				return DefaultFRE(sframe.ABIAArch64LittleEndian, 0, sframe.BaseRegSP, 16, cfaOff(-16), rule.Rule{})
			}, false,
			[]int32{16, -16}, rule.Row{CFA: val(sframe.AArch64RegSP, 16), RA: cfaOff(-16), FP: same}},
		{"s390x FP without RA writes RA padding and scales the CFA offset", sframe.Version3, sframe.ABIS390XBigEndian,
			func() (FRESpec, error) {
				return DefaultFRE(sframe.ABIS390XBigEndian, 0, sframe.BaseRegSP, 176, rule.Rule{}, cfaOff(-72))
			}, false,
			[]int32{2, 0, -72}, rule.Row{CFA: val(sframe.S390XRegSP, 176), RA: same, FP: cfaOff(-72), TopmostOnly: true, SPOffset: -160}},
		{"s390x v2 RA in a register uses the register encoding", sframe.Version2, sframe.ABIS390XBigEndian,
			func() (FRESpec, error) {
				return DefaultFRE(sframe.ABIS390XBigEndian, 0, sframe.BaseRegSP, 160, rule.Rule{Kind: rule.Register, Reg: 16}, rule.Rule{Kind: rule.Register, Reg: 17})
			}, false,
			[]int32{0, 33, 35}, rule.Row{CFA: val(sframe.S390XRegSP, 160), RA: rule.Rule{Kind: rule.Register, Reg: 16}, FP: rule.Rule{Kind: rule.Register, Reg: 17}, TopmostOnly: true, SPOffset: -160}},
		{"s390x v3 RA in a register is a FLEX FDE with a scaled CFA offset", sframe.Version3, sframe.ABIS390XBigEndian,
			func() (FRESpec, error) {
				return FlexFRE(sframe.ABIS390XBigEndian, 0, val(sframe.S390XRegSP, 160), rule.Rule{Kind: rule.Register, Reg: 16}, rule.Rule{})
			}, true,
			[]int32{0x79, 0, 0x81, 0}, rule.Row{CFA: val(sframe.S390XRegSP, 160), RA: val(16, 0), FP: same, TopmostOnly: true, SPOffset: -160}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := tc.fre()
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(r.Words) != fmt.Sprint(tc.wantWords) {
				t.Errorf("words %v, want %v", r.Words, tc.wantWords)
			}
			f := FDESpec{Start: 0x1000, Size: 16, FREs: []FRESpec{r}}
			if tc.flex {
				f.Type = sframe.FDETypeFlex
			}
			b := &Builder{Version: tc.Version, ABI: tc.ABI, FDEs: []FDESpec{f}}
			if row := rowAt(t, b, 0x1000); row != tc.want {
				t.Errorf("row %+v, want %+v", row, tc.want)
			}
		})
	}
}

func TestRowHelpersRejectRulesTheFormatCannotHold(t *testing.T) {
	tests := []struct {
		name string
		err  func() error
	}{
		{"AMD64 RA away from CFA-8", func() error {
			_, err := DefaultFRE(sframe.ABIAMD64LittleEndian, 0, sframe.BaseRegSP, 8, cfaOff(-16), rule.Rule{})
			return err
		}},
		{"AArch64 FP saved without RA", func() error {
			_, err := DefaultFRE(sframe.ABIAArch64LittleEndian, 0, sframe.BaseRegSP, 16, rule.Rule{}, cfaOff(-16))
			return err
		}},
		{"an s390x CFA offset that is not 160 plus a multiple of 8", func() error {
			_, err := DefaultFRE(sframe.ABIS390XBigEndian, 0, sframe.BaseRegSP, 164, rule.Rule{}, rule.Rule{})
			return err
		}},
		{"a FLEX CFA based on the CFA", func() error {
			_, err := FlexFRE(sframe.ABIAMD64LittleEndian, 0, cfaOff(8), rule.Rule{}, rule.Rule{})
			return err
		}},
		{"a FLEX RA = CFA+0, which would be padding", func() error {
			_, err := FlexFRE(sframe.ABIAMD64LittleEndian, 0, rule.Rule{Kind: rule.ValOffset, Reg: 7, Offset: 8}, rule.Rule{Kind: rule.ValOffset, Reg: rule.CFA}, rule.Rule{})
			return err
		}},
	}
	for _, tc := range tests {
		t.Run("the helpers reject "+tc.name, func(t *testing.T) {
			if tc.err() == nil {
				t.Error("no error")
			}
		})
	}
}
