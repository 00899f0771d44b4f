package sframe

import (
	"encoding/binary"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"
)

// fdeAt returns the byte offset of FDE i of a section laid out by the
// encoder without padding.
func fdeAt(v Version, i int) int64 {
	return int64(HeaderSize + i*(&Header{Version: v}).FDESize())
}

// freAt returns the byte offset of FRE k of FDE i.
func freAt(t *testing.T, s *Section, i, k int) int64 {
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
func infoAt(s *Section, i int) int64 { return int64(s.FDEs()[i].infoOff(s)) }

// freInfoAt returns the byte offset of the info byte of FRE k of FDE i.
func freInfoAt(t *testing.T, s *Section, i, k int) int64 {
	return freAt(t, s, i, k) + int64(s.FDEs()[i].FREType.Size())
}

// wordAt returns the byte offset of data word w of FRE k of FDE i.
func wordAt(t *testing.T, s *Section, i, k, w int) int64 {
	t.Helper()
	off := freInfoAt(t, s, i, k)
	return off + 1 + int64(w*FREInfo(s.data[off]).DataWordSize().Bytes())
}

// moveFREsFirst rewrites an encoder-made section so that the FRE
// sub-section comes before the FDE sub-section.
func moveFREsFirst(d []byte) []byte {
	bo := binary.LittleEndian
	fdeOff, freOff, freLen := bo.Uint32(d[20:]), bo.Uint32(d[24:]), bo.Uint32(d[16:])
	fdes := d[HeaderSize+fdeOff : HeaderSize+freOff]
	fres := d[HeaderSize+freOff : HeaderSize+freOff+freLen]
	out := append([]byte(nil), d[:HeaderSize]...)
	out = append(append(out, fres...), fdes...)
	bo.PutUint32(out[20:], freLen)
	bo.PutUint32(out[24:], 0)
	return out
}

func TestValidateAcceptsWellFormedSections(t *testing.T) {
	for _, v := range []Version{Version1, Version2, Version3} {
		t.Run(fmt.Sprintf("a well-formed %v section has no problems", v), func(t *testing.T) {
			s := mustParse(t, amd64Section(v))
			if ps := s.Validate(); len(ps) != 0 {
				t.Errorf("problems: %v", ps)
			}
		})
	}
	for _, tc := range abiVersions {
		for _, b := range roundTripCases(tc.v, tc.abi)[:1] {
			t.Run(fmt.Sprintf("a well-formed %v %v section has no errors", tc.v, tc.abi), func(t *testing.T) {
				if ps := mustParse(t, b).Validate(); ps.Count(SeverityError) != 0 {
					t.Errorf("problems: %v", ps)
				}
			})
		}
	}
	t.Run("an unsorted section without SFRAME_F_FDE_SORTED is legal", func(t *testing.T) {
		b := amd64Section(Version3)
		b.Flags &^= FlagFDESorted
		b.FDEs[1], b.FDEs[2] = b.FDEs[2], b.FDEs[1]
		if ps := mustParse(t, b).Validate(); len(ps) != 0 {
			t.Errorf("problems: %v", ps)
		}
	})
	t.Run("a v3 DEFAULT FDE without FREs marks an outermost frame and is legal", func(t *testing.T) {
		b := amd64Section(Version3)
		b.FDEs[1].FREs = nil
		if ps := mustParse(t, b).Validate(); len(ps) != 0 {
			t.Errorf("problems: %v", ps)
		}
	})
}

// validateCase is one deliberately malformed section and the problem it
// must produce.
type validateCase struct {
	name     string
	versions []Version // nil: all three
	abi      ABI       // 0: AMD64
	edit     func(b *Builder, base *Section)
	patch    func(d []byte) []byte // applied to the encoded bytes
	kind     ProblemKind
	sev      Severity
	off      func(t *testing.T, s *Section, v Version, d []byte) int64 // s is nil if ParseAt fails
}

func at(off int64) func(*testing.T, *Section, Version, []byte) int64 {
	return func(*testing.T, *Section, Version, []byte) int64 { return off }
}

var validateCases = []validateCase{
	// Header.
	{name: "a 3-byte section", patch: func(d []byte) []byte { return d[:3] }, kind: ProblemTruncated, sev: SeverityError, off: at(0)},
	{name: "a section shorter than its header", patch: func(d []byte) []byte { return d[:20] }, kind: ProblemTruncated, sev: SeverityError, off: at(0)},
	{name: "a bad magic", edit: func(b *Builder, _ *Section) { b.Override.Magic = new(uint16(0x1234)) }, kind: ProblemMagic, sev: SeverityError, off: at(0)},
	{name: "an unknown version", edit: func(b *Builder, _ *Section) { b.Override.Version = new(uint8(4)) }, kind: ProblemVersion, sev: SeverityError, off: at(2)},
	{name: "an unknown flag bit", edit: func(b *Builder, _ *Section) { b.Flags |= 0x80 }, kind: ProblemFlags, sev: SeverityError, off: at(3)},
	{name: "the PC-relative flag in version 1", versions: []Version{Version1}, edit: func(b *Builder, _ *Section) { b.Flags |= FlagFDEFuncStartPCRel }, kind: ProblemFlags, sev: SeverityError, off: at(3)},
	{name: "the frame-pointer flag in version 3", versions: []Version{Version3}, edit: func(b *Builder, _ *Section) { b.Flags |= FlagFramePointer }, kind: ProblemFlags, sev: SeverityError, off: at(3)},
	{name: "an unknown ABI", edit: func(b *Builder, _ *Section) { b.Override.ABI = new(uint8(9)) }, kind: ProblemABI, sev: SeverityError, off: at(4)},
	{name: "the s390x ABI in version 1", versions: []Version{Version1}, edit: func(b *Builder, _ *Section) { b.ABI, b.CFAFixedRAOffset = ABIS390XBigEndian, 0 },
		kind: ProblemABI, sev: SeverityError, off: at(4)},
	{name: "an AMD64 section stored big-endian", edit: func(b *Builder, _ *Section) { b.ByteOrder = binary.BigEndian }, kind: ProblemByteOrder, sev: SeverityError, off: at(0)},
	{name: "an AMD64 fixed RA offset other than -8", edit: func(b *Builder, _ *Section) { b.CFAFixedRAOffset = -16 }, kind: ProblemFixedRAOffset, sev: SeverityError, off: at(6)},
	{name: "an AArch64 fixed RA offset", abi: ABIAArch64LittleEndian, edit: func(b *Builder, _ *Section) { b.CFAFixedRAOffset = -8 }, kind: ProblemFixedRAOffset, sev: SeverityWarning, off: at(6)},
	{name: "a fixed FP offset", edit: func(b *Builder, _ *Section) { b.CFAFixedFPOffset = -16 }, kind: ProblemFixedFPOffset, sev: SeverityWarning, off: at(5)},
	{name: "an auxiliary header past the end", edit: func(b *Builder, _ *Section) { b.FDEs = nil; b.Override.AuxHdrLen = new(uint8(200)) }, kind: ProblemAuxHeader, sev: SeverityError, off: at(7)},
	{name: "an auxiliary header", edit: func(b *Builder, _ *Section) { b.AuxHeader = []byte{1, 2, 3} }, kind: ProblemAuxHeader, sev: SeverityWarning, off: at(7)},
	{name: "an FDE count too large for the section", edit: func(b *Builder, _ *Section) { b.Override.NumFDEs = new(uint32(1000)) }, kind: ProblemSubsectionBounds, sev: SeverityError, off: at(20)},
	{name: "an FRE sub-section length past the end", edit: func(b *Builder, _ *Section) { b.Override.FRELen = new(uint32(1 << 20)) }, kind: ProblemSubsectionBounds, sev: SeverityError, off: at(24)},
	{name: "an FRE sub-section over the FDE sub-section", edit: func(b *Builder, _ *Section) { b.Override.FREOff = new(uint32(0)) }, kind: ProblemSubsectionLayout, sev: SeverityError, off: at(24)},
	{name: "the FRE sub-section before the FDE sub-section", patch: moveFREsFirst, kind: ProblemSubsectionLayout, sev: SeverityWarning, off: at(24)},
	{name: "bytes between the header and the FDEs", edit: func(b *Builder, _ *Section) { b.FDEPad = []byte{0} }, kind: ProblemSubsectionLayout, sev: SeverityWarning, off: at(20)},
	{name: "bytes between the FDEs and the FREs", edit: func(b *Builder, _ *Section) { b.FREPad = []byte{0, 0} }, kind: ProblemSubsectionLayout, sev: SeverityWarning, off: at(24)},
	{name: "bytes after the FRE sub-section", edit: func(b *Builder, _ *Section) { b.Trailer = []byte{1, 2, 3} },
		kind: ProblemTrailingData, sev: SeverityWarning, off: func(_ *testing.T, _ *Section, _ Version, d []byte) int64 { return int64(len(d) - 3) }},
	{name: "a header FRE count that is not the FDEs' sum", edit: func(b *Builder, _ *Section) { b.Override.NumFREs = new(uint32(99)) }, kind: ProblemNumFREs, sev: SeverityError, off: at(12)},
	{name: "garbage after a function's FREs", edit: func(b *Builder, _ *Section) { b.FDEs[1].Trailer = []byte{0xee, 0xee} },
		kind: ProblemUnreferenced, sev: SeverityWarning, off: func(t *testing.T, s *Section, _ Version, _ []byte) int64 { return freAt(t, s, 1, 3) + 4 }},

	// FDEs.
	{name: "FDEs out of order despite SFRAME_F_FDE_SORTED", edit: func(b *Builder, _ *Section) { b.FDEs[1], b.FDEs[2] = b.FDEs[2], b.FDEs[1] },
		kind: ProblemUnsorted, sev: SeverityError, off: func(_ *testing.T, _ *Section, v Version, _ []byte) int64 { return fdeAt(v, 2) }},
	{name: "overlapping functions", edit: func(b *Builder, _ *Section) { b.FDEs[1].Size = 0x200 },
		kind: ProblemFuncOverlap, sev: SeverityError, off: func(_ *testing.T, _ *Section, v Version, _ []byte) int64 { return fdeAt(v, 2) }},
	{name: "two functions at one address", edit: func(b *Builder, _ *Section) { b.FDEs[2] = amd64Func(0x1100, 40) },
		kind: ProblemFuncOverlap, sev: SeverityError, off: func(_ *testing.T, _ *Section, v Version, _ []byte) int64 { return fdeAt(v, 2) }},
	{name: "a function that wraps around the address space", versions: []Version{Version3},
		edit: func(b *Builder, _ *Section) { b.FDEs[3].Start = 1<<64 - 0x100 },
		kind: ProblemFuncRange, sev: SeverityError, off: func(_ *testing.T, _ *Section, v Version, _ []byte) int64 { return fdeAt(v, 3) }},
	{name: "a zero-size function", edit: func(b *Builder, _ *Section) { b.FDEs[1].Size = 0 },
		kind: ProblemZeroSize, sev: SeverityWarning, off: func(_ *testing.T, _ *Section, v Version, _ []byte) int64 {
			if v == Version3 {
				return fdeAt(v, 1) + 8
			}
			return fdeAt(v, 1) + 4
		}},
	{name: "an FRE offset past the FRE sub-section", edit: func(b *Builder, _ *Section) { b.FDEs[1].FREOff = new(uint32(0xffff)) },
		kind: ProblemFREOffset, sev: SeverityError, off: func(_ *testing.T, _ *Section, v Version, _ []byte) int64 {
			if v == Version3 {
				return fdeAt(v, 1) + 12
			}
			return fdeAt(v, 1) + 8
		}},
	{name: "a v3 FDE attribute that runs past the FRE sub-section", versions: []Version{Version3},
		edit: func(b *Builder, base *Section) {
			b.FDEs[1].FREOff = new(base.FRELen - 2)
		}, kind: ProblemFREOffset, sev: SeverityError, off: func(_ *testing.T, _ *Section, v Version, _ []byte) int64 { return fdeAt(v, 1) + 12 }},
	{name: "an unknown FRE type", edit: func(b *Builder, _ *Section) { b.FDEs[1].Info = new(uint8(0x03)) },
		kind: ProblemFREType, sev: SeverityError, off: func(_ *testing.T, s *Section, _ Version, _ []byte) int64 { return infoAt(s, 1) }},
	{name: "an unknown FDE type", versions: []Version{Version3}, edit: func(b *Builder, _ *Section) { b.FDEs[1].Info2 = new(uint8(0x02)) },
		kind: ProblemFDEType, sev: SeverityError, off: func(_ *testing.T, s *Section, _ Version, _ []byte) int64 { return infoAt(s, 1) + 1 }},
	{name: "a MASK FDE with a zero repetition size", versions: []Version{Version2, Version3}, edit: func(b *Builder, _ *Section) { b.FDEs[0].RepSize = 0 },
		kind: ProblemRepSize, sev: SeverityError, off: func(_ *testing.T, s *Section, v Version, _ []byte) int64 {
			if v == Version3 {
				return infoAt(s, 0) + 2
			}
			return infoAt(s, 0) + 1
		}},
	{name: "a repetition size larger than the function", versions: []Version{Version2, Version3}, edit: func(b *Builder, _ *Section) { b.FDEs[0].RepSize = 128 },
		kind: ProblemRepSize, sev: SeverityWarning, off: func(_ *testing.T, s *Section, v Version, _ []byte) int64 {
			if v == Version3 {
				return infoAt(s, 0) + 2
			}
			return infoAt(s, 0) + 1
		}},
	{name: "a PAuth key on AMD64", edit: func(b *Builder, _ *Section) { b.FDEs[1].PAuthKey = PAuthKeyB },
		kind: ProblemPAuthKey, sev: SeverityWarning, off: func(_ *testing.T, s *Section, _ Version, _ []byte) int64 { return infoAt(s, 1) }},
	{name: "the signal bit, unused before version 3", versions: []Version{Version1, Version2}, edit: func(b *Builder, _ *Section) { b.FDEs[1].Signal = true },
		kind: ProblemUnusedBits, sev: SeverityWarning, off: func(_ *testing.T, s *Section, _ Version, _ []byte) int64 { return infoAt(s, 1) }},
	{name: "unused bit 6 of the FDE info byte", versions: []Version{Version3}, edit: func(b *Builder, _ *Section) { b.FDEs[1].Info = new(uint8(0x40)) },
		kind: ProblemUnusedBits, sev: SeverityWarning, off: func(_ *testing.T, s *Section, _ Version, _ []byte) int64 { return infoAt(s, 1) }},
	{name: "unused bits of the FDE info2 byte", versions: []Version{Version3}, edit: func(b *Builder, _ *Section) { b.FDEs[1].Info2 = new(uint8(0x20)) },
		kind: ProblemUnusedBits, sev: SeverityWarning, off: func(_ *testing.T, s *Section, _ Version, _ []byte) int64 { return infoAt(s, 1) + 1 }},
	{name: "non-zero v2 FDE padding", versions: []Version{Version2}, edit: func(b *Builder, _ *Section) { b.FDEs[1].Padding = 1 },
		kind: ProblemUnusedBits, sev: SeverityWarning, off: func(_ *testing.T, _ *Section, v Version, _ []byte) int64 { return fdeAt(v, 1) + 18 }},
	{name: "a v1/v2 FDE without FREs", versions: []Version{Version1, Version2}, edit: func(b *Builder, _ *Section) { b.FDEs[1].FREs = nil },
		kind: ProblemNoFREs, sev: SeverityWarning, off: func(_ *testing.T, _ *Section, v Version, _ []byte) int64 { return fdeAt(v, 1) + 12 }},
	{name: "a FLEX FDE without FREs", versions: []Version{Version3}, edit: func(b *Builder, _ *Section) { b.FDEs[1].FREs, b.FDEs[1].Type = nil, FDETypeFlex },
		kind: ProblemNoFREs, sev: SeverityWarning, off: func(_ *testing.T, s *Section, _ Version, _ []byte) int64 { return infoAt(s, 1) - 2 }},
	{name: "two FDEs sharing FRE data", edit: func(b *Builder, base *Section) {
		b.FDEs[2] = amd64Func(0x1200, 40)
		b.FDEs[2].FREOff = new(base.FDEs()[1].FREOff)
	}, kind: ProblemFREOverlap, sev: SeverityError, off: func(_ *testing.T, _ *Section, v Version, _ []byte) int64 {
		if v == Version3 {
			return fdeAt(v, 2) + 12
		}
		return fdeAt(v, 2) + 8
	}},

	// FREs.
	{name: "an FRE count that runs past the FRE sub-section", edit: func(b *Builder, _ *Section) { b.FDEs[3].NumFREs = new(uint32(4)) },
		kind: ProblemFREDecode, sev: SeverityError, off: func(_ *testing.T, s *Section, _ Version, _ []byte) int64 {
			_, end := s.FRESubsection()
			return int64(end)
		}},
	{name: "an unknown data-word size", edit: func(b *Builder, _ *Section) { b.FDEs[1].FREs[1].Info = new(uint8(0x63)) },
		kind: ProblemDataWordSize, sev: SeverityError, off: func(t *testing.T, s *Section, _ Version, _ []byte) int64 {
			return freAt(t, s, 1, 0) + 3 + 1 // FRE 0 is 3 bytes; FRE 1's info follows its 1-byte start
		}},
	{name: "three data words on AMD64", edit: func(b *Builder, _ *Section) { b.FDEs[1].FREs[1].Words = []int32{16, -16, -24} },
		kind: ProblemDataWordCount, sev: SeverityError, off: func(t *testing.T, s *Section, _ Version, _ []byte) int64 { return freInfoAt(t, s, 1, 1) }},
	{name: "four data words on AArch64", abi: ABIAArch64LittleEndian, edit: func(b *Builder, _ *Section) { b.FDEs[1].FREs[1].Words = []int32{16, -8, -16, -24} },
		kind: ProblemDataWordCount, sev: SeverityError, off: func(t *testing.T, s *Section, _ Version, _ []byte) int64 { return freInfoAt(t, s, 1, 1) }},
	{name: "an FRE without data words in version 1", versions: []Version{Version1}, edit: func(b *Builder, _ *Section) { b.FDEs[1].FREs[1].Words = nil },
		kind: ProblemDataWordCount, sev: SeverityWarning, off: func(t *testing.T, s *Section, _ Version, _ []byte) int64 { return freInfoAt(t, s, 1, 1) }},
	{name: "a FLEX FRE with one data word", versions: []Version{Version3}, edit: func(b *Builder, _ *Section) { flexFDE(b, []int32{0x39}) },
		kind: ProblemDataWordCount, sev: SeverityError, off: func(t *testing.T, s *Section, _ Version, _ []byte) int64 { return freInfoAt(t, s, 1, 1) }},
	{name: "a FLEX CFA control word without reg_p", versions: []Version{Version3}, edit: func(b *Builder, _ *Section) { flexFDE(b, []int32{0x38, 8}) },
		kind: ProblemFlexLayout, sev: SeverityError, off: func(t *testing.T, s *Section, _ Version, _ []byte) int64 { return wordAt(t, s, 1, 1, 0) }},
	{name: "a FLEX RA control word without its offset", versions: []Version{Version3}, edit: func(b *Builder, _ *Section) { flexFDE(b, []int32{0x39, 8, 2}) },
		kind: ProblemFlexLayout, sev: SeverityError, off: func(t *testing.T, s *Section, _ Version, _ []byte) int64 { return wordAt(t, s, 1, 1, 2) }},
	{name: "a FLEX FP control word without its offset", versions: []Version{Version3}, edit: func(b *Builder, _ *Section) { flexFDE(b, []int32{0x39, 8, 0, 0x33}) },
		kind: ProblemFlexLayout, sev: SeverityError, off: func(t *testing.T, s *Section, _ Version, _ []byte) int64 { return wordAt(t, s, 1, 1, 3) }},
	{name: "FLEX data words left over", versions: []Version{Version3}, edit: func(b *Builder, _ *Section) { flexFDE(b, []int32{0x39, 8, 0, 0x33, 0, 7}) },
		kind: ProblemFlexLayout, sev: SeverityError, off: func(t *testing.T, s *Section, _ Version, _ []byte) int64 { return wordAt(t, s, 1, 1, 5) }},
	{name: "FLEX RA padding with nothing after it", versions: []Version{Version3}, edit: func(b *Builder, _ *Section) { flexFDE(b, []int32{0x39, 8, 0}) },
		kind: ProblemFlexLayout, sev: SeverityWarning, off: func(t *testing.T, s *Section, _ Version, _ []byte) int64 { return wordAt(t, s, 1, 1, 2) }},
	{name: "a zero FLEX FP control word", versions: []Version{Version3}, edit: func(b *Builder, _ *Section) { flexFDE(b, []int32{0x39, 8, 0, 0, 5}) },
		kind: ProblemFlexLayout, sev: SeverityWarning, off: func(t *testing.T, s *Section, _ Version, _ []byte) int64 { return wordAt(t, s, 1, 1, 3) }},
	{name: "unused bit 2 of a FLEX control word", versions: []Version{Version3}, edit: func(b *Builder, _ *Section) { flexFDE(b, []int32{0x3d, 8}) },
		kind: ProblemUnusedBits, sev: SeverityWarning, off: func(t *testing.T, s *Section, _ Version, _ []byte) int64 { return wordAt(t, s, 1, 1, 0) }},
	{name: "the base-register bit of a FLEX FRE", versions: []Version{Version3}, edit: func(b *Builder, _ *Section) {
		flexFDE(b, []int32{0x39, 8})
		b.FDEs[1].FREs[1].BaseReg = BaseRegSP
	}, kind: ProblemUnusedBits, sev: SeverityWarning, off: func(t *testing.T, s *Section, _ Version, _ []byte) int64 { return freInfoAt(t, s, 1, 1) }},
	{name: "info bits on an FRE without data words", versions: []Version{Version2, Version3}, edit: func(b *Builder, _ *Section) {
		b.FDEs[1].FREs[1].Words, b.FDEs[1].FREs[1].BaseReg = nil, BaseRegSP
	}, kind: ProblemUnusedBits, sev: SeverityWarning, off: func(t *testing.T, s *Section, _ Version, _ []byte) int64 { return freInfoAt(t, s, 1, 1) }},
	{name: "FRE start offsets that do not increase", edit: func(b *Builder, _ *Section) { b.FDEs[1].FREs[2].StartOff = 1 },
		kind: ProblemFREOrder, sev: SeverityError, off: func(t *testing.T, s *Section, _ Version, _ []byte) int64 { return freAt(t, s, 1, 2) }},
	{name: "an FRE past the end of its function", edit: func(b *Builder, _ *Section) { b.FDEs[1].FREs[3].StartOff = 40 },
		kind: ProblemFREOutside, sev: SeverityError, off: func(t *testing.T, s *Section, _ Version, _ []byte) int64 { return freAt(t, s, 1, 3) }},
	{name: "a MASK FRE past the end of the repeated block", edit: func(b *Builder, _ *Section) { b.FDEs[0].FREs[1].StartOff = 16 },
		kind: ProblemFREOutside, sev: SeverityError, off: func(t *testing.T, s *Section, _ Version, _ []byte) int64 { return freAt(t, s, 0, 1) }},
	{name: "a first FRE that does not start at 0", edit: func(b *Builder, _ *Section) { b.FDEs[1].FREs = b.FDEs[1].FREs[1:] },
		kind: ProblemFirstFRE, sev: SeverityWarning, off: func(t *testing.T, s *Section, _ Version, _ []byte) int64 { return freAt(t, s, 1, 0) }},
	{name: "a mangled RA on AMD64", edit: func(b *Builder, _ *Section) { b.FDEs[1].FREs[1].MangledRA = true },
		kind: ProblemMangledRA, sev: SeverityWarning, off: func(t *testing.T, s *Section, _ Version, _ []byte) int64 { return freInfoAt(t, s, 1, 1) }},
	{name: "an AMD64 CFA below the return address", edit: func(b *Builder, _ *Section) { b.FDEs[1].FREs[1].Words = []int32{4} },
		kind: ProblemOffsetValue, sev: SeverityWarning, off: func(t *testing.T, s *Section, _ Version, _ []byte) int64 { return wordAt(t, s, 1, 1, 0) }},
	{name: "an AMD64 FP saved above the CFA", edit: func(b *Builder, _ *Section) { b.FDEs[1].FREs[1].Words = []int32{16, 8} },
		kind: ProblemOffsetValue, sev: SeverityWarning, off: func(t *testing.T, s *Section, _ Version, _ []byte) int64 { return wordAt(t, s, 1, 1, 1) }},
	{name: "an odd s390x v3 RA offset", versions: []Version{Version3}, abi: ABIS390XBigEndian, edit: func(b *Builder, _ *Section) { b.FDEs[1].FREs[1].Words = []int32{2, 33} },
		kind: ProblemOffsetValue, sev: SeverityWarning, off: func(t *testing.T, s *Section, _ Version, _ []byte) int64 { return wordAt(t, s, 1, 1, 1) }},
}

// flexFDE makes FDE 1 a FLEX FDE whose FRE 1 has the given data words.
func flexFDE(b *Builder, words []int32) {
	f := &b.FDEs[1]
	f.Type = FDETypeFlex
	f.FREs = []FRESpec{
		{StartOff: 0, Words: []int32{0x39, 8}},
		{StartOff: 1, Words: words},
	}
}

// baseFor returns the well-formed section the validate cases edit.
func baseFor(v Version, abi ABI) *Builder {
	b := amd64Section(v)
	if abi != 0 && abi != ABIAMD64LittleEndian {
		b.ABI, b.CFAFixedRAOffset = abi, 0
		for i := range b.FDEs {
			for k := range b.FDEs[i].FREs {
				r := &b.FDEs[i].FREs[k]
				if abi == ABIS390XBigEndian {
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
			versions = []Version{Version1, Version2, Version3}
		}
		for _, v := range versions {
			abi := tc.abi
			if abi == 0 {
				abi = ABIAMD64LittleEndian
			}
			if abi == ABIS390XBigEndian && v == Version1 {
				continue
			}
			t.Run(fmt.Sprintf("%v %v with %s reports %v", v, abi, tc.name, tc.kind), func(t *testing.T) {
				b := baseFor(v, abi)
				base := mustParse(t, b)
				if ps := base.Validate(); ps.Count(SeverityError) > 0 || ps.Has(tc.kind) {
					t.Fatalf("the unmodified section already has problems: %v", ps)
				}
				if tc.edit != nil {
					tc.edit(b, base)
				}
				d := mustEncode(t, b)
				if tc.patch != nil {
					d = tc.patch(d)
				}
				s, ps := ValidateData(d, b.Addr)
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
				if s != nil {
					// Section.Validate agrees with ValidateData.
					if ps2 := s.Validate(); fmt.Sprint(ps2) != fmt.Sprint(ps) {
						t.Errorf("Section.Validate differs from ValidateData:\n%v\nvs\n%v", problemList(ps2), problemList(ps))
					}
				}
			})
		}
	}
}

func problemList(ps Problems) string {
	var b strings.Builder
	for _, p := range ps {
		fmt.Fprintf(&b, "\t%v\n", p)
	}
	return b.String()
}

func TestValidateReportsEveryViolationNotJustTheFirst(t *testing.T) {
	b := amd64Section(Version3)
	b.CFAFixedRAOffset = -16                   // header
	b.FDEs[0].RepSize = 0                      // FDE 0
	b.FDEs[1].FREs[2].StartOff = 1             // FDE 1, FRE order
	b.FDEs[2].FREs[1].Words = []int32{1, 2, 3} // FDE 2, data-word count
	b.FDEs[3].Info2 = new(uint8(0x21))         // FDE 3, unused bits
	b.Override.NumFREs = new(uint32(1))        // header count
	s := mustParse(t, b)
	ps := s.Validate()
	for _, k := range []ProblemKind{ProblemFixedRAOffset, ProblemRepSize, ProblemFREOrder, ProblemDataWordCount, ProblemUnusedBits, ProblemNumFREs} {
		if !ps.Has(k) {
			t.Errorf("no %v problem in:\n%v", k, problemList(ps))
		}
	}
	for i := 1; i < len(ps); i++ {
		if ps[i].Off < ps[i-1].Off {
			t.Errorf("problems not ordered by offset:\n%v", problemList(ps))
			break
		}
	}
	if err := ps.Err(); err == nil || !strings.Contains(err.Error(), "more errors") {
		t.Errorf("Err() = %v, want a summary of several errors", err)
	}
	if got := ps.Count(SeverityError); got < 5 {
		t.Errorf("%d errors, want at least 5", got)
	}
}

func TestValidateStaysLinearWhenFDEsShareFREs(t *testing.T) {
	// 2000 FDEs that all point at one block of 1000 FREs: decoding every
	// FDE's FREs would take 2 million steps for a 36 KB section.
	fres := make([]FRESpec, 1000)
	for i := range fres {
		fres[i] = FRESpec{StartOff: uint32(i), Words: []int32{8}}
	}
	b := &Builder{Version: Version2, ABI: ABIAMD64LittleEndian, CFAFixedRAOffset: -8}
	for i := 0; i < 2000; i++ {
		f := FDESpec{Start: uint64(0x10000 * (i + 1)), Size: 1000, FREOff: new(uint32(0)), NumFREs: new(uint32(1000))}
		if i == 0 {
			f.FREs = fres
		}
		b.FDEs = append(b.FDEs, f)
	}
	s := mustParse(t, b)
	ps := s.Validate()
	if !ps.Has(ProblemBudget) || !ps.Has(ProblemFREOverlap) {
		t.Errorf("want budget and FRE-overlap problems, got %d problems", len(ps))
	}
	if len(ps) > 2*len(s.Data()) {
		t.Errorf("%d problems for a %d-byte section", len(ps), len(s.Data()))
	}
}

func TestProblemAndKindStrings(t *testing.T) {
	for k := ProblemKind(1); k < numProblemKinds; k++ {
		if s := k.String(); s == "" || strings.HasPrefix(s, "ProblemKind(") {
			t.Errorf("kind %d has no name", k)
		}
	}
	p := Problem{Kind: ProblemFREOrder, Severity: SeverityError, Off: 0x40, FDE: 2, FuncStart: 0x1100, FRE: 1, Msg: "start offset 0x1 is not above the previous FRE's 0x1"}
	want := "error at byte 0x40: FDE 2 (function 0x1100) FRE 1: start offset 0x1 is not above the previous FRE's 0x1 [fre-order]"
	if got := p.String(); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestHugeCountsInATinySectionStayCheap(t *testing.T) {
	shared := func(v Version, fdes, fres int) *Builder {
		// fdes FDEs whose FRE data all start at FRE offset 0.
		b := &Builder{Version: v, ABI: ABIAMD64LittleEndian, CFAFixedRAOffset: -8}
		for i := 0; i < fdes; i++ {
			f := FDESpec{Start: uint64(0x10000 * (i + 1)), Size: 0x8000, FREOff: new(uint32(0)), NumFREs: new(uint32(0xffffffff))}
			if v == Version3 {
				f.NumFREs = new(uint32(0xffff))
			}
			if i == 0 {
				for k := 0; k < fres; k++ {
					f.FREs = append(f.FREs, FRESpec{StartOff: uint32(k), Words: []int32{8}})
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
			return mustEncode(t, &Builder{Version: Version2, ABI: ABIAMD64LittleEndian, Override: HeaderOverride{NumFDEs: new(uint32(0xffffffff))}})
		}},
		{"a header claiming 2^32-1 FREs in a 4 GiB FRE sub-section", func(t *testing.T) []byte {
			return mustEncode(t, &Builder{Version: Version2, ABI: ABIAMD64LittleEndian, Override: HeaderOverride{NumFREs: new(uint32(0xffffffff)), FRELen: new(uint32(0xffffffff))}})
		}},
		{"a v2 FDE claiming 2^32-1 FREs", func(t *testing.T) []byte { return mustEncode(t, shared(Version2, 1, 10)) }},
		{"4000 v2 FDEs sharing 30000 FREs", func(t *testing.T) []byte { return mustEncode(t, shared(Version2, 4000, 30000)) }},
		{"4000 v3 FDEs sharing one attribute of 65535 FREs", func(t *testing.T) []byte { return mustEncode(t, shared(Version3, 4000, 30000)) }},
	}
	for _, tc := range tests {
		t.Run(tc.name+" allocates in proportion to the section", func(t *testing.T) {
			data := tc.data(t)
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			start := time.Now()
			s, _ := ValidateData(data, 0)
			if s != nil {
				for i := range s.FDEs() {
					if i > 64 {
						break
					}
					s.Lookup(s.FDEs()[i].Start + 5)
				}
				SpecFrom(s)
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
