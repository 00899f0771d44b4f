package sframe_test

import (
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/sfdbg/sfdbg/sframe"
	"github.com/sfdbg/sfdbg/sframe/rule"
	"github.com/sfdbg/sfdbg/sframe/sframetest"
)

// fdeAt returns the byte offset of FDE i of a section laid out by the
// encoder without padding.
func fdeAt(v sframe.Version, i int) int64 {
	return int64(sframe.HeaderSize + i*(&sframe.Header{Version: v}).FDESize())
}

// freAt returns the byte offset of FRE k of FDE i.
func freAt(t *testing.T, s *sframe.Section, i, k int) int64 {
	t.Helper()
	it := s.FREs(&s.FDEs()[i])
	for it.Next() {
		if it.Index() == k {
			return int64(it.FRE().Off)
		}
	}
	t.Fatalf("FDE %d has no FRE %d (%v)", i, k, it.Err())
	return 0
}

// infoAt returns the byte offset of FDE i's info byte.
func infoAt(s *sframe.Section, i int) int64 { return int64(s.FDEs()[i].InfoOff(s)) }

// freInfoAt returns the byte offset of the info byte of FRE k of FDE i.
func freInfoAt(t *testing.T, s *sframe.Section, i, k int) int64 {
	return freAt(t, s, i, k) + int64(s.FDEs()[i].FREType.Size())
}

// wordAt returns the byte offset of data word w of FRE k of FDE i.
func wordAt(t *testing.T, s *sframe.Section, i, k, w int) int64 {
	t.Helper()
	off := freInfoAt(t, s, i, k)
	return off + 1 + int64(w*sframe.FREInfo(s.Data()[off]).DataWordSize().Bytes())
}

// moveFREsFirst rewrites an encoder-made section so that the FRE
// sub-section comes before the FDE sub-section.
func moveFREsFirst(d []byte) []byte {
	bo := binary.LittleEndian
	fdeOff, freOff, freLen := bo.Uint32(d[20:]), bo.Uint32(d[24:]), bo.Uint32(d[16:])
	fdes := d[sframe.HeaderSize+fdeOff : sframe.HeaderSize+freOff]
	fres := d[sframe.HeaderSize+freOff : sframe.HeaderSize+freOff+freLen]
	out := append([]byte(nil), d[:sframe.HeaderSize]...)
	out = append(append(out, fres...), fdes...)
	bo.PutUint32(out[20:], freLen)
	bo.PutUint32(out[24:], 0)
	return out
}

func TestValidateAcceptsWellFormedSections(t *testing.T) {
	for _, v := range []sframe.Version{sframe.Version1, sframe.Version2, sframe.Version3} {
		t.Run(fmt.Sprintf("a well-formed %v section has no problems", v), func(t *testing.T) {
			s := sframetest.MustParse(t, sframetest.AMD64Section(v))
			if ps := s.Validate(); len(ps) != 0 {
				t.Errorf("problems: %v", ps)
			}
		})
	}
	for _, tc := range sframetest.ABIVersions() {
		for _, b := range sframetest.Variants(tc.Version, tc.ABI)[:1] {
			t.Run(fmt.Sprintf("a well-formed %v %v section has no errors", tc.Version, tc.ABI), func(t *testing.T) {
				if ps := sframetest.MustParse(t, b).Validate(); count(ps, sframe.SeverityError) != 0 {
					t.Errorf("problems: %v", ps)
				}
			})
		}
	}
	t.Run("an unsorted section without SFRAME_F_FDE_SORTED is legal", func(t *testing.T) {
		b := sframetest.AMD64Section(sframe.Version3)
		b.Flags &^= sframe.FlagFDESorted
		b.FDEs[1], b.FDEs[2] = b.FDEs[2], b.FDEs[1]
		if ps := sframetest.MustParse(t, b).Validate(); len(ps) != 0 {
			t.Errorf("problems: %v", ps)
		}
	})
	t.Run("a v3 DEFAULT FDE without FREs marks an outermost frame and is legal", func(t *testing.T) {
		b := sframetest.AMD64Section(sframe.Version3)
		b.FDEs[1].FREs = nil
		if ps := sframetest.MustParse(t, b).Validate(); len(ps) != 0 {
			t.Errorf("problems: %v", ps)
		}
	})
}

// validateCase is one deliberately malformed section and the problem it
// must produce.
type validateCase struct {
	name     string
	versions []sframe.Version // nil: all three
	abi      sframe.ABI       // 0: AMD64
	edit     func(b *sframetest.Builder, base *sframe.Section)
	patch    func(d []byte) []byte // applied to the encoded bytes
	kind     sframe.ProblemKind
	sev      sframe.Severity
	off      func(t *testing.T, s *sframe.Section, v sframe.Version, d []byte) int64
}

func at(off int64) func(*testing.T, *sframe.Section, sframe.Version, []byte) int64 {
	return func(*testing.T, *sframe.Section, sframe.Version, []byte) int64 { return off }
}

var validateCases = []validateCase{
	// Header.
	{name: "an unknown flag bit", edit: func(b *sframetest.Builder, _ *sframe.Section) { b.Flags |= 0x80 }, kind: sframe.ProblemFlags, sev: sframe.SeverityError, off: at(3)},
	{name: "the PC-relative flag in version 1", versions: []sframe.Version{sframe.Version1}, edit: func(b *sframetest.Builder, _ *sframe.Section) { b.Flags |= sframe.FlagFDEFuncStartPCRel }, kind: sframe.ProblemFlags, sev: sframe.SeverityError, off: at(3)},
	{name: "the frame-pointer flag in version 3", versions: []sframe.Version{sframe.Version3}, edit: func(b *sframetest.Builder, _ *sframe.Section) { b.Flags |= sframe.FlagFramePointer }, kind: sframe.ProblemFlags, sev: sframe.SeverityError, off: at(3)},
	{name: "the s390x ABI in version 1", versions: []sframe.Version{sframe.Version1}, edit: func(b *sframetest.Builder, _ *sframe.Section) {
		b.ABI, b.CFAFixedRAOffset = sframe.ABIS390XBigEndian, 0
	},
		kind: sframe.ProblemABI, sev: sframe.SeverityError, off: at(4)},
	{name: "an AMD64 section stored big-endian", edit: func(b *sframetest.Builder, _ *sframe.Section) { b.ByteOrder = binary.BigEndian }, kind: sframe.ProblemByteOrder, sev: sframe.SeverityError, off: at(0)},
	{name: "an AMD64 fixed RA offset other than -8", edit: func(b *sframetest.Builder, _ *sframe.Section) { b.CFAFixedRAOffset = -16 }, kind: sframe.ProblemFixedRAOffset, sev: sframe.SeverityError, off: at(6)},
	{name: "an AArch64 fixed RA offset", abi: sframe.ABIAArch64LittleEndian, edit: func(b *sframetest.Builder, _ *sframe.Section) { b.CFAFixedRAOffset = -8 }, kind: sframe.ProblemFixedRAOffset, sev: sframe.SeverityWarning, off: at(6)},
	{name: "a fixed FP offset", edit: func(b *sframetest.Builder, _ *sframe.Section) { b.CFAFixedFPOffset = -16 }, kind: sframe.ProblemFixedFPOffset, sev: sframe.SeverityWarning, off: at(5)},
	{name: "an auxiliary header", edit: func(b *sframetest.Builder, _ *sframe.Section) { b.AuxHeader = []byte{1, 2, 3} }, kind: sframe.ProblemAuxHeader, sev: sframe.SeverityWarning, off: at(7)},
	{name: "an FRE sub-section length past the end (read up to the section's end, as libsframe and llvm-readobj do)", edit: func(b *sframetest.Builder, _ *sframe.Section) { b.Override.FRELen = new(uint32(1 << 20)) },
		kind: sframe.ProblemSubsectionLayout, sev: sframe.SeverityError, off: at(24)},
	{name: "an FRE sub-section over the FDE sub-section", edit: func(b *sframetest.Builder, _ *sframe.Section) { b.Override.FREOff = new(uint32(0)) }, kind: sframe.ProblemSubsectionLayout, sev: sframe.SeverityError, off: at(24)},
	{name: "the FRE sub-section before the FDE sub-section", patch: moveFREsFirst, kind: sframe.ProblemSubsectionLayout, sev: sframe.SeverityWarning, off: at(24)},
	{name: "bytes between the header and the FDEs", edit: func(b *sframetest.Builder, _ *sframe.Section) { b.FDEPad = []byte{0} }, kind: sframe.ProblemSubsectionLayout, sev: sframe.SeverityWarning, off: at(20)},
	{name: "bytes between the FDEs and the FREs", edit: func(b *sframetest.Builder, _ *sframe.Section) { b.FREPad = []byte{0, 0} }, kind: sframe.ProblemSubsectionLayout, sev: sframe.SeverityWarning, off: at(24)},
	{name: "bytes after the FRE sub-section", edit: func(b *sframetest.Builder, _ *sframe.Section) { b.Trailer = []byte{1, 2, 3} },
		kind: sframe.ProblemTrailingData, sev: sframe.SeverityWarning, off: func(_ *testing.T, _ *sframe.Section, _ sframe.Version, d []byte) int64 { return int64(len(d) - 3) }},
	{name: "a header FRE count that is not the FDEs' sum", edit: func(b *sframetest.Builder, _ *sframe.Section) { b.Override.NumFREs = new(uint32(99)) }, kind: sframe.ProblemNumFREs, sev: sframe.SeverityError, off: at(12)},
	{name: "garbage after a function's FREs", edit: func(b *sframetest.Builder, _ *sframe.Section) { b.FDEs[1].Trailer = []byte{0xee, 0xee} },
		kind: sframe.ProblemUnreferenced, sev: sframe.SeverityWarning, off: func(t *testing.T, s *sframe.Section, _ sframe.Version, _ []byte) int64 { return freAt(t, s, 1, 3) + 4 }},

	// FDEs.
	{name: "FDEs out of order despite SFRAME_F_FDE_SORTED", edit: func(b *sframetest.Builder, _ *sframe.Section) { b.FDEs[1], b.FDEs[2] = b.FDEs[2], b.FDEs[1] },
		kind: sframe.ProblemUnsorted, sev: sframe.SeverityError, off: func(_ *testing.T, _ *sframe.Section, v sframe.Version, _ []byte) int64 { return fdeAt(v, 2) }},
	{name: "overlapping functions", edit: func(b *sframetest.Builder, _ *sframe.Section) { b.FDEs[1].Size = 0x200 },
		kind: sframe.ProblemFuncOverlap, sev: sframe.SeverityError, off: func(_ *testing.T, _ *sframe.Section, v sframe.Version, _ []byte) int64 { return fdeAt(v, 2) }},
	{name: "two functions at one address", edit: func(b *sframetest.Builder, _ *sframe.Section) { b.FDEs[2] = sframetest.AMD64Func(0x1100, 40) },
		kind: sframe.ProblemFuncOverlap, sev: sframe.SeverityError, off: func(_ *testing.T, _ *sframe.Section, v sframe.Version, _ []byte) int64 { return fdeAt(v, 2) }},
	{name: "a function that wraps around the address space", versions: []sframe.Version{sframe.Version3},
		edit: func(b *sframetest.Builder, _ *sframe.Section) { b.FDEs[3].Start = 1<<64 - 0x100 },
		kind: sframe.ProblemFuncRange, sev: sframe.SeverityError, off: func(_ *testing.T, _ *sframe.Section, v sframe.Version, _ []byte) int64 { return fdeAt(v, 3) }},
	{name: "a zero-size function", edit: func(b *sframetest.Builder, _ *sframe.Section) { b.FDEs[1].Size = 0 },
		kind: sframe.ProblemZeroSize, sev: sframe.SeverityWarning, off: func(_ *testing.T, _ *sframe.Section, v sframe.Version, _ []byte) int64 {
			if v == sframe.Version3 {
				return fdeAt(v, 1) + 8
			}
			return fdeAt(v, 1) + 4
		}},
	{name: "an FRE offset past the FRE sub-section", edit: func(b *sframetest.Builder, _ *sframe.Section) { b.FDEs[1].FREOff = new(uint32(0xffff)) },
		kind: sframe.ProblemFREOffset, sev: sframe.SeverityError, off: func(_ *testing.T, _ *sframe.Section, v sframe.Version, _ []byte) int64 {
			if v == sframe.Version3 {
				return fdeAt(v, 1) + 12
			}
			return fdeAt(v, 1) + 8
		}},
	{name: "a v3 FDE attribute that runs past the FRE sub-section", versions: []sframe.Version{sframe.Version3},
		edit: func(b *sframetest.Builder, base *sframe.Section) {
			b.FDEs[1].FREOff = new(base.FRELen - 2)
		}, kind: sframe.ProblemFREOffset, sev: sframe.SeverityError, off: func(_ *testing.T, _ *sframe.Section, v sframe.Version, _ []byte) int64 { return fdeAt(v, 1) + 12 }},
	{name: "an unknown FRE type", edit: func(b *sframetest.Builder, _ *sframe.Section) { b.FDEs[1].Info = new(uint8(0x03)) },
		kind: sframe.ProblemFREType, sev: sframe.SeverityError, off: func(_ *testing.T, s *sframe.Section, _ sframe.Version, _ []byte) int64 { return infoAt(s, 1) }},
	{name: "an unknown FDE type", versions: []sframe.Version{sframe.Version3}, edit: func(b *sframetest.Builder, _ *sframe.Section) { b.FDEs[1].Info2 = new(uint8(0x02)) },
		kind: sframe.ProblemFDEType, sev: sframe.SeverityError, off: func(_ *testing.T, s *sframe.Section, _ sframe.Version, _ []byte) int64 { return infoAt(s, 1) + 1 }},
	{name: "a MASK FDE with a zero repetition size", versions: []sframe.Version{sframe.Version2, sframe.Version3}, edit: func(b *sframetest.Builder, _ *sframe.Section) { b.FDEs[0].RepSize = 0 },
		kind: sframe.ProblemRepSize, sev: sframe.SeverityError, off: func(_ *testing.T, s *sframe.Section, v sframe.Version, _ []byte) int64 {
			if v == sframe.Version3 {
				return infoAt(s, 0) + 2
			}
			return infoAt(s, 0) + 1
		}},
	{name: "a repetition size larger than the function", versions: []sframe.Version{sframe.Version2, sframe.Version3}, edit: func(b *sframetest.Builder, _ *sframe.Section) { b.FDEs[0].RepSize = 128 },
		kind: sframe.ProblemRepSize, sev: sframe.SeverityWarning, off: func(_ *testing.T, s *sframe.Section, v sframe.Version, _ []byte) int64 {
			if v == sframe.Version3 {
				return infoAt(s, 0) + 2
			}
			return infoAt(s, 0) + 1
		}},
	{name: "a PAuth key on AMD64", edit: func(b *sframetest.Builder, _ *sframe.Section) { b.FDEs[1].PAuthKey = rule.PAuthKeyB },
		kind: sframe.ProblemPAuthKey, sev: sframe.SeverityWarning, off: func(_ *testing.T, s *sframe.Section, _ sframe.Version, _ []byte) int64 { return infoAt(s, 1) }},
	{name: "the signal bit, unused before version 3", versions: []sframe.Version{sframe.Version1, sframe.Version2}, edit: func(b *sframetest.Builder, _ *sframe.Section) { b.FDEs[1].Signal = true },
		kind: sframe.ProblemUnusedBits, sev: sframe.SeverityWarning, off: func(_ *testing.T, s *sframe.Section, _ sframe.Version, _ []byte) int64 { return infoAt(s, 1) }},
	{name: "unused bit 6 of the FDE info byte", versions: []sframe.Version{sframe.Version3}, edit: func(b *sframetest.Builder, _ *sframe.Section) { b.FDEs[1].Info = new(uint8(0x40)) },
		kind: sframe.ProblemUnusedBits, sev: sframe.SeverityWarning, off: func(_ *testing.T, s *sframe.Section, _ sframe.Version, _ []byte) int64 { return infoAt(s, 1) }},
	{name: "unused bits of the FDE info2 byte", versions: []sframe.Version{sframe.Version3}, edit: func(b *sframetest.Builder, _ *sframe.Section) { b.FDEs[1].Info2 = new(uint8(0x20)) },
		kind: sframe.ProblemUnusedBits, sev: sframe.SeverityWarning, off: func(_ *testing.T, s *sframe.Section, _ sframe.Version, _ []byte) int64 { return infoAt(s, 1) + 1 }},
	{name: "non-zero v2 FDE padding", versions: []sframe.Version{sframe.Version2}, edit: func(b *sframetest.Builder, _ *sframe.Section) { b.FDEs[1].Padding = 1 },
		kind: sframe.ProblemUnusedBits, sev: sframe.SeverityWarning, off: func(_ *testing.T, _ *sframe.Section, v sframe.Version, _ []byte) int64 { return fdeAt(v, 1) + 18 }},
	{name: "a v1/v2 FDE without FREs", versions: []sframe.Version{sframe.Version1, sframe.Version2}, edit: func(b *sframetest.Builder, _ *sframe.Section) { b.FDEs[1].FREs = nil },
		kind: sframe.ProblemNoFREs, sev: sframe.SeverityWarning, off: func(_ *testing.T, _ *sframe.Section, v sframe.Version, _ []byte) int64 { return fdeAt(v, 1) + 12 }},
	{name: "a FLEX FDE without FREs", versions: []sframe.Version{sframe.Version3}, edit: func(b *sframetest.Builder, _ *sframe.Section) {
		b.FDEs[1].FREs, b.FDEs[1].Type = nil, sframe.FDETypeFlex
	},
		kind: sframe.ProblemNoFREs, sev: sframe.SeverityWarning, off: func(_ *testing.T, s *sframe.Section, _ sframe.Version, _ []byte) int64 { return infoAt(s, 1) - 2 }},
	{name: "two FDEs sharing FRE data", edit: func(b *sframetest.Builder, base *sframe.Section) {
		b.FDEs[2] = sframetest.AMD64Func(0x1200, 40)
		b.FDEs[2].FREOff = new(base.FDEs()[1].FREOff)
	}, kind: sframe.ProblemFREOverlap, sev: sframe.SeverityError, off: func(_ *testing.T, _ *sframe.Section, v sframe.Version, _ []byte) int64 {
		if v == sframe.Version3 {
			return fdeAt(v, 2) + 12
		}
		return fdeAt(v, 2) + 8
	}},

	// FREs.
	{name: "an FRE count that runs past the FRE sub-section", edit: func(b *sframetest.Builder, _ *sframe.Section) { b.FDEs[3].NumFREs = new(uint32(4)) },
		kind: sframe.ProblemFREDecode, sev: sframe.SeverityError, off: func(_ *testing.T, s *sframe.Section, _ sframe.Version, _ []byte) int64 {
			return int64(s.HeaderLen()) + int64(s.FREOff) + int64(s.FRELen) // the end of the FRE sub-section
		}},
	{name: "an unknown data-word size", edit: func(b *sframetest.Builder, _ *sframe.Section) { b.FDEs[1].FREs[1].Info = new(uint8(0x63)) },
		kind: sframe.ProblemDataWordSize, sev: sframe.SeverityError, off: func(t *testing.T, s *sframe.Section, _ sframe.Version, _ []byte) int64 {
			return freAt(t, s, 1, 0) + 3 + 1 // FRE 0 is 3 bytes; FRE 1's info follows its 1-byte start
		}},
	{name: "three data words on AMD64", edit: func(b *sframetest.Builder, _ *sframe.Section) { b.FDEs[1].FREs[1].Words = []int32{16, -16, -24} },
		kind: sframe.ProblemDataWordCount, sev: sframe.SeverityError, off: func(t *testing.T, s *sframe.Section, _ sframe.Version, _ []byte) int64 { return freInfoAt(t, s, 1, 1) }},
	{name: "four data words on AArch64", abi: sframe.ABIAArch64LittleEndian, edit: func(b *sframetest.Builder, _ *sframe.Section) { b.FDEs[1].FREs[1].Words = []int32{16, -8, -16, -24} },
		kind: sframe.ProblemDataWordCount, sev: sframe.SeverityError, off: func(t *testing.T, s *sframe.Section, _ sframe.Version, _ []byte) int64 { return freInfoAt(t, s, 1, 1) }},
	{name: "an FRE without data words in version 1", versions: []sframe.Version{sframe.Version1}, edit: func(b *sframetest.Builder, _ *sframe.Section) { b.FDEs[1].FREs[1].Words = nil },
		kind: sframe.ProblemDataWordCount, sev: sframe.SeverityWarning, off: func(t *testing.T, s *sframe.Section, _ sframe.Version, _ []byte) int64 { return freInfoAt(t, s, 1, 1) }},
	{name: "a FLEX FRE with one data word", versions: []sframe.Version{sframe.Version3}, edit: func(b *sframetest.Builder, _ *sframe.Section) { flexFDE(b, []int32{0x39}) },
		kind: sframe.ProblemDataWordCount, sev: sframe.SeverityError, off: func(t *testing.T, s *sframe.Section, _ sframe.Version, _ []byte) int64 { return freInfoAt(t, s, 1, 1) }},
	{name: "a FLEX CFA control word without reg_p", versions: []sframe.Version{sframe.Version3}, edit: func(b *sframetest.Builder, _ *sframe.Section) { flexFDE(b, []int32{0x38, 8}) },
		kind: sframe.ProblemFlexLayout, sev: sframe.SeverityError, off: func(t *testing.T, s *sframe.Section, _ sframe.Version, _ []byte) int64 { return wordAt(t, s, 1, 1, 0) }},
	{name: "a FLEX RA control word without its offset", versions: []sframe.Version{sframe.Version3}, edit: func(b *sframetest.Builder, _ *sframe.Section) { flexFDE(b, []int32{0x39, 8, 2}) },
		kind: sframe.ProblemFlexLayout, sev: sframe.SeverityError, off: func(t *testing.T, s *sframe.Section, _ sframe.Version, _ []byte) int64 { return wordAt(t, s, 1, 1, 2) }},
	{name: "a FLEX FP control word without its offset", versions: []sframe.Version{sframe.Version3}, edit: func(b *sframetest.Builder, _ *sframe.Section) { flexFDE(b, []int32{0x39, 8, 0, 0x33}) },
		kind: sframe.ProblemFlexLayout, sev: sframe.SeverityError, off: func(t *testing.T, s *sframe.Section, _ sframe.Version, _ []byte) int64 { return wordAt(t, s, 1, 1, 3) }},
	{name: "FLEX data words left over", versions: []sframe.Version{sframe.Version3}, edit: func(b *sframetest.Builder, _ *sframe.Section) { flexFDE(b, []int32{0x39, 8, 0, 0x33, 0, 7}) },
		kind: sframe.ProblemFlexLayout, sev: sframe.SeverityError, off: func(t *testing.T, s *sframe.Section, _ sframe.Version, _ []byte) int64 { return wordAt(t, s, 1, 1, 5) }},
	{name: "FLEX RA padding with nothing after it", versions: []sframe.Version{sframe.Version3}, edit: func(b *sframetest.Builder, _ *sframe.Section) { flexFDE(b, []int32{0x39, 8, 0}) },
		kind: sframe.ProblemFlexLayout, sev: sframe.SeverityWarning, off: func(t *testing.T, s *sframe.Section, _ sframe.Version, _ []byte) int64 { return wordAt(t, s, 1, 1, 2) }},
	{name: "a zero FLEX FP control word", versions: []sframe.Version{sframe.Version3}, edit: func(b *sframetest.Builder, _ *sframe.Section) { flexFDE(b, []int32{0x39, 8, 0, 0, 5}) },
		kind: sframe.ProblemFlexLayout, sev: sframe.SeverityWarning, off: func(t *testing.T, s *sframe.Section, _ sframe.Version, _ []byte) int64 { return wordAt(t, s, 1, 1, 3) }},
	{name: "unused bit 2 of a FLEX control word", versions: []sframe.Version{sframe.Version3}, edit: func(b *sframetest.Builder, _ *sframe.Section) { flexFDE(b, []int32{0x3d, 8}) },
		kind: sframe.ProblemUnusedBits, sev: sframe.SeverityWarning, off: func(t *testing.T, s *sframe.Section, _ sframe.Version, _ []byte) int64 { return wordAt(t, s, 1, 1, 0) }},
	{name: "the base-register bit of a FLEX FRE", versions: []sframe.Version{sframe.Version3}, edit: func(b *sframetest.Builder, _ *sframe.Section) {
		flexFDE(b, []int32{0x39, 8})
		b.FDEs[1].FREs[1].BaseReg = sframe.BaseRegSP
	}, kind: sframe.ProblemUnusedBits, sev: sframe.SeverityWarning, off: func(t *testing.T, s *sframe.Section, _ sframe.Version, _ []byte) int64 { return freInfoAt(t, s, 1, 1) }},
	{name: "info bits on an FRE without data words", versions: []sframe.Version{sframe.Version2, sframe.Version3}, edit: func(b *sframetest.Builder, _ *sframe.Section) {
		b.FDEs[1].FREs[1].Words, b.FDEs[1].FREs[1].BaseReg = nil, sframe.BaseRegSP
	}, kind: sframe.ProblemUnusedBits, sev: sframe.SeverityWarning, off: func(t *testing.T, s *sframe.Section, _ sframe.Version, _ []byte) int64 { return freInfoAt(t, s, 1, 1) }},
	{name: "FRE start offsets that do not increase", edit: func(b *sframetest.Builder, _ *sframe.Section) { b.FDEs[1].FREs[2].StartOff = 1 },
		kind: sframe.ProblemFREOrder, sev: sframe.SeverityError, off: func(t *testing.T, s *sframe.Section, _ sframe.Version, _ []byte) int64 { return freAt(t, s, 1, 2) }},
	{name: "an FRE past the end of its function", edit: func(b *sframetest.Builder, _ *sframe.Section) { b.FDEs[1].FREs[3].StartOff = 41 },
		kind: sframe.ProblemFREOutside, sev: sframe.SeverityError, off: func(t *testing.T, s *sframe.Section, _ sframe.Version, _ []byte) int64 { return freAt(t, s, 1, 3) }},
	{name: "an FRE at the end of its function (a .cfi_* directive after the last instruction) is a warning", edit: func(b *sframetest.Builder, _ *sframe.Section) {
		b.FDEs[1].FREs[3].StartOff = b.FDEs[1].Size
	}, kind: sframe.ProblemFREAtEnd, sev: sframe.SeverityWarning, off: func(t *testing.T, s *sframe.Section, _ sframe.Version, _ []byte) int64 { return freAt(t, s, 1, 3) }},
	{name: "a MASK FRE past the end of the repeated block", edit: func(b *sframetest.Builder, _ *sframe.Section) { b.FDEs[0].FREs[1].StartOff = 16 },
		kind: sframe.ProblemFREOutside, sev: sframe.SeverityError, off: func(t *testing.T, s *sframe.Section, _ sframe.Version, _ []byte) int64 { return freAt(t, s, 0, 1) }},
	{name: "a first FRE that does not start at 0", edit: func(b *sframetest.Builder, _ *sframe.Section) { b.FDEs[1].FREs = b.FDEs[1].FREs[1:] },
		kind: sframe.ProblemFirstFRE, sev: sframe.SeverityWarning, off: func(t *testing.T, s *sframe.Section, _ sframe.Version, _ []byte) int64 { return freAt(t, s, 1, 0) }},
	{name: "a mangled RA on AMD64", edit: func(b *sframetest.Builder, _ *sframe.Section) { b.FDEs[1].FREs[1].MangledRA = true },
		kind: sframe.ProblemMangledRA, sev: sframe.SeverityWarning, off: func(t *testing.T, s *sframe.Section, _ sframe.Version, _ []byte) int64 { return freInfoAt(t, s, 1, 1) }},
	{name: "an AMD64 CFA below the return address", edit: func(b *sframetest.Builder, _ *sframe.Section) { b.FDEs[1].FREs[1].Words = []int32{4} },
		kind: sframe.ProblemOffsetValue, sev: sframe.SeverityWarning, off: func(t *testing.T, s *sframe.Section, _ sframe.Version, _ []byte) int64 { return wordAt(t, s, 1, 1, 0) }},
	{name: "an AMD64 FP saved above the CFA", edit: func(b *sframetest.Builder, _ *sframe.Section) { b.FDEs[1].FREs[1].Words = []int32{16, 8} },
		kind: sframe.ProblemOffsetValue, sev: sframe.SeverityWarning, off: func(t *testing.T, s *sframe.Section, _ sframe.Version, _ []byte) int64 { return wordAt(t, s, 1, 1, 1) }},
	{name: "an odd s390x v3 RA offset", versions: []sframe.Version{sframe.Version3}, abi: sframe.ABIS390XBigEndian, edit: func(b *sframetest.Builder, _ *sframe.Section) { b.FDEs[1].FREs[1].Words = []int32{2, 33} },
		kind: sframe.ProblemOffsetValue, sev: sframe.SeverityWarning, off: func(t *testing.T, s *sframe.Section, _ sframe.Version, _ []byte) int64 { return wordAt(t, s, 1, 1, 1) }},
}

// flexFDE makes FDE 1 a FLEX FDE whose FRE 1 has the given data words.
func flexFDE(b *sframetest.Builder, words []int32) {
	f := &b.FDEs[1]
	f.Type = sframe.FDETypeFlex
	f.FREs = []sframetest.FRESpec{
		{StartOff: 0, Words: []int32{0x39, 8}},
		{StartOff: 1, Words: words},
	}
}

// baseFor returns the well-formed section the validate cases edit.
func baseFor(v sframe.Version, abi sframe.ABI) *sframetest.Builder {
	b := sframetest.AMD64Section(v)
	if abi != 0 && abi != sframe.ABIAMD64LittleEndian {
		b.ABI, b.CFAFixedRAOffset = abi, 0
		for i := range b.FDEs {
			for k := range b.FDEs[i].FREs {
				r := &b.FDEs[i].FREs[k]
				if abi == sframe.ABIS390XBigEndian {
					r.Words = []int32{0}
				} else if len(r.Words) == 2 {
					r.Words = []int32{r.Words[0], -8, r.Words[1]}
				}
			}
		}
	}
	return b
}

func TestValidateReportsEachViolation(t *testing.T) {
	for _, tc := range validateCases {
		versions := tc.versions
		if versions == nil {
			versions = []sframe.Version{sframe.Version1, sframe.Version2, sframe.Version3}
		}
		for _, v := range versions {
			abi := tc.abi
			if abi == 0 {
				abi = sframe.ABIAMD64LittleEndian
			}
			if abi == sframe.ABIS390XBigEndian && v == sframe.Version1 {
				continue
			}
			t.Run(fmt.Sprintf("%v %v with %s reports %v", v, abi, tc.name, tc.kind), func(t *testing.T) {
				b := baseFor(v, abi)
				base := sframetest.MustParse(t, b)
				if ps := base.Validate(); count(ps, sframe.SeverityError) > 0 || has(ps, tc.kind) {
					t.Fatalf("the unmodified section already has problems: %v", ps)
				}
				if tc.edit != nil {
					tc.edit(b, base)
				}
				d := sframetest.MustEncode(t, b)
				if tc.patch != nil {
					d = tc.patch(d)
				}
				s, err := sframe.ParseAt(d, b.Addr)
				if err != nil {
					t.Fatalf("ParseAt: %v", err)
				}
				ps := s.Validate()
				want := tc.off(t, s, v, d)
				found := false
				for _, p := range ps {
					if p.Kind == tc.kind && p.Off == want && p.Severity == tc.sev {
						found = true
					}
				}
				if !found {
					t.Errorf("no %v %v at byte %#x; problems:\n%v", tc.sev, tc.kind, want, problemList(ps))
				}
			})
		}
	}
}

// parseErrorCases are headers ParseAt cannot decode, with the offset of the
// bad field.
var parseErrorCases = []struct {
	name  string
	edit  func(b *sframetest.Builder)
	patch func(d []byte) []byte
	off   int64
}{
	{name: "a 3-byte section", patch: func(d []byte) []byte { return d[:3] }, off: 0},
	{name: "a section shorter than its header", patch: func(d []byte) []byte { return d[:20] }, off: 0},
	{name: "a bad magic", edit: func(b *sframetest.Builder) { b.Override.Magic = new(uint16(0x1234)) }, off: 0},
	{name: "an unknown version", edit: func(b *sframetest.Builder) { b.Override.Version = new(uint8(4)) }, off: 2},
	{name: "an unknown ABI", edit: func(b *sframetest.Builder) { b.Override.ABI = new(uint8(9)) }, off: 4},
	{name: "an auxiliary header past the end", edit: func(b *sframetest.Builder) { b.FDEs = nil; b.Override.AuxHdrLen = new(uint8(200)) }, off: 7},
	{name: "an FDE count too large for the section", edit: func(b *sframetest.Builder) { b.Override.NumFDEs = new(uint32(1000)) }, off: 20},
}

// TestParseAtRejectsHeadersItCannotDecode covers the header problems that
// keep a section from being decoded at all: they are ParseAt's
// *FormatError, with the offset of the bad field, not Validate problems.
func TestParseAtRejectsHeadersItCannotDecode(t *testing.T) {
	for _, v := range []sframe.Version{sframe.Version1, sframe.Version2, sframe.Version3} {
		for _, tc := range parseErrorCases {
			t.Run(fmt.Sprintf("ParseAt rejects a %v section with %s at byte %d", v, tc.name, tc.off), func(t *testing.T) {
				b := baseFor(v, sframe.ABIAMD64LittleEndian)
				if tc.edit != nil {
					tc.edit(b)
				}
				d := sframetest.MustEncode(t, b)
				if tc.patch != nil {
					d = tc.patch(d)
				}
				s, err := sframe.ParseAt(d, b.Addr)
				var fe *sframe.FormatError
				if s != nil || !errors.As(err, &fe) || fe.Off != tc.off {
					t.Fatalf("ParseAt = %v, %v; want a *FormatError at byte %d", s, err, tc.off)
				}
			})
		}
	}
}

func problemList(ps []sframe.Problem) string {
	var b strings.Builder
	for _, p := range ps {
		fmt.Fprintf(&b, "\t%v\n", p)
	}
	return b.String()
}

func TestValidateReportsEveryViolationNotJustTheFirst(t *testing.T) {
	b := sframetest.AMD64Section(sframe.Version3)
	b.CFAFixedRAOffset = -16                   // header
	b.FDEs[0].RepSize = 0                      // FDE 0
	b.FDEs[1].FREs[2].StartOff = 1             // FDE 1, FRE order
	b.FDEs[2].FREs[1].Words = []int32{1, 2, 3} // FDE 2, data-word count
	b.FDEs[3].Info2 = new(uint8(0x21))         // FDE 3, unused bits
	b.Override.NumFREs = new(uint32(1))        // header count
	s := sframetest.MustParse(t, b)
	ps := s.Validate()
	for _, k := range []sframe.ProblemKind{sframe.ProblemFixedRAOffset, sframe.ProblemRepSize, sframe.ProblemFREOrder, sframe.ProblemDataWordCount, sframe.ProblemUnusedBits, sframe.ProblemNumFREs} {
		if !has(ps, k) {
			t.Errorf("no %v problem in:\n%v", k, problemList(ps))
		}
	}
	for i := 1; i < len(ps); i++ {
		if ps[i].Off < ps[i-1].Off {
			t.Errorf("problems not ordered by offset:\n%v", problemList(ps))
			break
		}
	}
	if got := count(ps, sframe.SeverityError); got < 5 {
		t.Errorf("%d errors, want at least 5", got)
	}
}

func TestValidateStaysLinearWhenFDEsShareFREs(t *testing.T) {
	// 2000 FDEs that all point at one block of 1000 FREs: decoding every
	// FDE's FREs would take 2 million steps for a 36 KB section.
	fres := make([]sframetest.FRESpec, 1000)
	for i := range fres {
		fres[i] = sframetest.FRESpec{StartOff: uint32(i), Words: []int32{8}}
	}
	b := &sframetest.Builder{Version: sframe.Version2, ABI: sframe.ABIAMD64LittleEndian, CFAFixedRAOffset: -8}
	for i := 0; i < 2000; i++ {
		f := sframetest.FDESpec{Start: uint64(0x10000 * (i + 1)), Size: 1000, FREOff: new(uint32(0)), NumFREs: new(uint32(1000))}
		if i == 0 {
			f.FREs = fres
		}
		b.FDEs = append(b.FDEs, f)
	}
	s := sframetest.MustParse(t, b)
	ps := s.Validate()
	if !has(ps, sframe.ProblemBudget) || !has(ps, sframe.ProblemFREOverlap) {
		t.Errorf("want budget and FRE-overlap problems, got %d problems", len(ps))
	}
	if len(ps) > 2*len(s.Data()) {
		t.Errorf("%d problems for a %d-byte section", len(ps), len(s.Data()))
	}
}

func TestProblemAndKindStrings(t *testing.T) {
	for k := sframe.ProblemKind(1); k < sframe.NumProblemKinds; k++ {
		if s := k.String(); s == "" || strings.HasPrefix(s, "ProblemKind(") {
			t.Errorf("kind %d has no name", k)
		}
	}
	p := sframe.Problem{Kind: sframe.ProblemFREOrder, Severity: sframe.SeverityError, Off: 0x40, FDE: 2, FuncStart: 0x1100, FRE: 1, Msg: "start offset 0x1 is not above the previous FRE's 0x1"}
	want := "error at byte 0x40: FDE 2 (function 0x1100) FRE 1: start offset 0x1 is not above the previous FRE's 0x1 [fre-order]"
	if got := p.String(); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestHugeCountsInATinySectionStayCheap(t *testing.T) {
	shared := func(v sframe.Version, fdes, fres int) *sframetest.Builder {
		// fdes FDEs whose FRE data all start at FRE offset 0.
		b := &sframetest.Builder{Version: v, ABI: sframe.ABIAMD64LittleEndian, CFAFixedRAOffset: -8}
		for i := 0; i < fdes; i++ {
			f := sframetest.FDESpec{Start: uint64(0x10000 * (i + 1)), Size: 0x8000, FREOff: new(uint32(0)), NumFREs: new(uint32(0xffffffff))}
			if v == sframe.Version3 {
				f.NumFREs = new(uint32(0xffff))
			}
			if i == 0 {
				for k := 0; k < fres; k++ {
					f.FREs = append(f.FREs, sframetest.FRESpec{StartOff: uint32(k), Words: []int32{8}})
				}
			}
			b.FDEs = append(b.FDEs, f)
		}
		return b
	}
	tests := []struct {
		name string
		data func(t *testing.T) []byte
	}{
		{"a header claiming 2^32-1 FDEs", func(t *testing.T) []byte {
			return sframetest.MustEncode(t, &sframetest.Builder{Version: sframe.Version2, ABI: sframe.ABIAMD64LittleEndian, Override: sframetest.HeaderOverride{NumFDEs: new(uint32(0xffffffff))}})
		}},
		{"a header claiming 2^32-1 FREs in a 4 GiB FRE sub-section", func(t *testing.T) []byte {
			return sframetest.MustEncode(t, &sframetest.Builder{Version: sframe.Version2, ABI: sframe.ABIAMD64LittleEndian, Override: sframetest.HeaderOverride{NumFREs: new(uint32(0xffffffff)), FRELen: new(uint32(0xffffffff))}})
		}},
		{"a v2 FDE claiming 2^32-1 FREs", func(t *testing.T) []byte { return sframetest.MustEncode(t, shared(sframe.Version2, 1, 10)) }},
		{"4000 v2 FDEs sharing 30000 FREs", func(t *testing.T) []byte { return sframetest.MustEncode(t, shared(sframe.Version2, 4000, 30000)) }},
		{"4000 v3 FDEs sharing one attribute of 65535 FREs", func(t *testing.T) []byte { return sframetest.MustEncode(t, shared(sframe.Version3, 4000, 30000)) }},
	}
	for _, tc := range tests {
		t.Run(tc.name+" allocates in proportion to the section", func(t *testing.T) {
			data := tc.data(t)
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			start := time.Now()
			if s, err := sframe.ParseAt(data, 0); err == nil {
				s.Validate()
				for i := range s.FDEs() {
					if i > 64 {
						break
					}
					lookup(s, s.FDEs()[i].Start+5)
				}
				sframetest.SpecFrom(s)
			}
			elapsed := time.Since(start)
			runtime.ReadMemStats(&after)
			if got := after.TotalAlloc - before.TotalAlloc; got > 100*uint64(len(data))+1<<20 {
				t.Errorf("%d bytes allocated for a %d-byte section", got, len(data))
			}
			t.Logf("%d-byte section: %v, %d bytes allocated", len(data), elapsed, after.TotalAlloc-before.TotalAlloc)
		})
	}
}

func TestValidateListsAtMostMaxProblemsPerFDE(t *testing.T) {
	fx := fixtureByName(t, "sqlite-v3")
	s, err := sframe.ParseAt(fx.data, fx.addr)
	if err != nil {
		t.Fatal(err)
	}
	// The FDE with the most FREs, shrunk to 1 byte: every FRE but the
	// first then starts outside it, one problem each.
	best := 0
	for i, f := range s.FDEs() {
		if f.NumFREs > s.FDEs()[best].NumFREs {
			best = i
		}
	}
	fde := s.FDEs()[best]
	if fde.NumFREs < 2*sframe.MaxProblemsPerFDE {
		t.Skipf("no FDE of sqlite-v3 has %d FREs", 2*sframe.MaxProblemsPerFDE)
	}
	data := append([]byte(nil), fx.data...)
	s.ByteOrder.PutUint32(data[fde.Off+8:], 1) // v3 FDE index entry: size after the 8-byte start
	s, err = sframe.ParseAt(data, fx.addr)
	if err != nil {
		t.Fatal(err)
	}
	listed, more := 0, 0
	for _, p := range s.Validate() {
		switch {
		case p.FDE != best:
		case p.Kind == sframe.ProblemMore:
			more++
			if p.Severity != sframe.SeverityError {
				t.Errorf("%v: want the severity of the errors it stands for", p)
			}
		default:
			listed++
		}
	}
	if listed != sframe.MaxProblemsPerFDE || more != 1 {
		t.Errorf("FDE %d with %d FREs outside it: %d problems listed and %d ProblemMore, want %d and 1",
			best, fde.NumFREs-1, listed, more, sframe.MaxProblemsPerFDE)
	}
}
