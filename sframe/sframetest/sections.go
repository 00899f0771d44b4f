package sframetest

import (
	"testing"

	"github.com/sfdbg/sfdbg/sframe"
	"github.com/sfdbg/sfdbg/sframe/rule"
)

// ABIVersion is one ABI in one SFrame version.
type ABIVersion struct {
	Version sframe.Version
	ABI     sframe.ABI
}

// ABIVersions lists every ABI each version defines, in version order (s390x
// arrived with version 2 errata 1).
func ABIVersions() []ABIVersion {
	return []ABIVersion{
		{sframe.Version1, sframe.ABIAMD64LittleEndian}, {sframe.Version1, sframe.ABIAArch64LittleEndian}, {sframe.Version1, sframe.ABIAArch64BigEndian},
		{sframe.Version2, sframe.ABIAMD64LittleEndian}, {sframe.Version2, sframe.ABIAArch64LittleEndian}, {sframe.Version2, sframe.ABIAArch64BigEndian}, {sframe.Version2, sframe.ABIS390XBigEndian},
		{sframe.Version3, sframe.ABIAMD64LittleEndian}, {sframe.Version3, sframe.ABIAArch64LittleEndian}, {sframe.Version3, sframe.ABIAArch64BigEndian}, {sframe.Version3, sframe.ABIS390XBigEndian},
	}
}

// AMD64Func returns the FDE of a typical AMD64 function of size bytes at
// start with a frame pointer: push %rbp at 0, mov %rsp,%rbp at 1, body from
// 4, leave at size-2, ret at size-1.
func AMD64Func(start uint64, size uint32) FDESpec {
	return FDESpec{
		Start: start, Size: size,
		FREs: []FRESpec{
			{StartOff: 0, BaseReg: sframe.BaseRegSP, Words: []int32{8}},
			{StartOff: 1, BaseReg: sframe.BaseRegSP, Words: []int32{16, -16}},
			{StartOff: 4, BaseReg: sframe.BaseRegFP, Words: []int32{16, -16}},
			{StartOff: size - 1, BaseReg: sframe.BaseRegSP, Words: []int32{8, -16}},
		},
	}
}

// AMD64Section returns a sorted AMD64 section of version v at address
// 0x10000 with four FDEs: a PLT (PC type MASK, 16-byte entries) at 0x1020,
// AMD64Func(0x1100, 40), AMD64Func(0x1200, 300) (2-byte start offsets) and
// a 70000-byte function at 0x1400 (4-byte start offsets and data words).
// From version 2 on, function starts are PC-relative.
func AMD64Section(v sframe.Version) *Builder {
	b := &Builder{
		Version: v, ABI: sframe.ABIAMD64LittleEndian, Flags: sframe.FlagFDESorted,
		CFAFixedRAOffset: -8, Addr: 0x10000,
		FDEs: []FDESpec{
			{Start: 0x1020, Size: 64, PCType: sframe.PCTypeMask, RepSize: 16, FREs: []FRESpec{
				{StartOff: 0, BaseReg: sframe.BaseRegSP, Words: []int32{8}},
				{StartOff: 11, BaseReg: sframe.BaseRegSP, Words: []int32{16}},
			}},
			AMD64Func(0x1100, 40),
			AMD64Func(0x1200, 300),
			{Start: 0x1400, Size: 70000, FREs: []FRESpec{
				{StartOff: 0, BaseReg: sframe.BaseRegSP, Words: []int32{8}},
				{StartOff: 1, BaseReg: sframe.BaseRegSP, Words: []int32{4112}},
				{StartOff: 69999, BaseReg: sframe.BaseRegSP, Words: []int32{131088}},
			}},
		},
	}
	if v == sframe.Version1 {
		b.FDEs[0].RepSize = 0
	}
	if v >= sframe.Version2 {
		b.Flags |= sframe.FlagFDEFuncStartPCRel
	}
	return b
}

// Variants returns one section of version v for ABI abi per combination of
// FRE type, data-word size (both exact), PC type and FDE type (FLEX in
// version 3 only). Each has two functions: at 0x1000 with FREs of 1 to 3
// data words (FLEX: 2 to 6) and one without, AArch64 mangled-RA bit on its
// second FRE; and at 0x2000 the same FREs with PAuth key B on AArch64 and,
// in version 3, the signal-frame bit.
func Variants(v sframe.Version, abi sframe.ABI) []*Builder {
	var out []*Builder
	for _, ft := range []sframe.FREType{sframe.FRETypeAddr1, sframe.FRETypeAddr2, sframe.FRETypeAddr4} {
		for _, ws := range []sframe.DataWordSize{sframe.DataWord1B, sframe.DataWord2B, sframe.DataWord4B} {
			for _, pc := range []sframe.FDEPCType{sframe.PCTypeInc, sframe.PCTypeMask} {
				for _, typ := range []sframe.FDEType{sframe.FDETypeDefault, sframe.FDETypeFlex} {
					if typ == sframe.FDETypeFlex && v != sframe.Version3 {
						continue
					}
					b := &Builder{Version: v, ABI: abi, Flags: sframe.FlagFDESorted, Addr: 0x7000}
					if abi == sframe.ABIAMD64LittleEndian {
						b.CFAFixedRAOffset = -8
					}
					if v == sframe.Version2 {
						b.Flags |= sframe.FlagFDEFuncStartPCRel
					}
					fde := FDESpec{Start: 0x1000, Size: 0x30, PCType: pc, Type: typ,
						FREType: ft, ExactFREType: true, PAuthKey: rule.PAuthKeyA}
					if pc == sframe.PCTypeMask && v != sframe.Version1 {
						fde.RepSize = 16
					}
					words := [][]int32{{8}, {16, -16}, {}}
					if abi != sframe.ABIAMD64LittleEndian {
						words = [][]int32{{0}, {16, -8}, {32, -24, -32}, {}}
					}
					if typ == sframe.FDETypeFlex {
						words = [][]int32{
							{int32(FlexControl(7, true, false)), 8},
							{int32(FlexControl(10, true, false)), 0, int32(FlexControl(0, false, true)), -8},
							{int32(FlexControl(6, true, true)), -8, 0, int32(FlexControl(6, true, true)), 0},
							{int32(FlexControl(7, true, false)), 16, int32(FlexControl(0, false, true)), -8, int32(FlexControl(0, false, true)), -16},
						}
					}
					for k, w := range words {
						fde.FREs = append(fde.FREs, FRESpec{StartOff: uint32(k * 3), BaseReg: sframe.BaseReg(k & 1),
							Words: w, WordSize: ws, ExactWordSize: true, MangledRA: abi.IsAArch64() && k == 1})
					}
					second := fde
					second.Start, second.Size = 0x2000, 0x10
					second.PAuthKey = rule.PAuthKeyB
					second.Signal = v == sframe.Version3
					if !abi.IsAArch64() {
						second.PAuthKey = rule.PAuthKeyA
					}
					b.FDEs = []FDESpec{fde, second}
					out = append(out, b)
				}
			}
		}
	}
	return out
}

// MustEncode encodes b or fails the test.
func MustEncode(tb testing.TB, b *Builder) []byte {
	tb.Helper()
	data, err := b.Encode()
	if err != nil {
		tb.Fatalf("Encode: %v", err)
	}
	return data
}

// MustParse encodes b and parses the result at b.Addr, or fails the test.
func MustParse(tb testing.TB, b *Builder) *sframe.Section {
	tb.Helper()
	s, err := sframe.ParseAt(MustEncode(tb, b), b.Addr)
	if err != nil {
		tb.Fatalf("ParseAt: %v", err)
	}
	return s
}
