package sframe

import (
	"encoding/binary"
	"fmt"
	"sort"
	"strings"

	"github.com/sfdbg/sfdbg/sframe/rule"
)

// Severity says how bad a Problem is.
type Severity uint8

// Severities.
const (
	// SeverityWarning: the section can be used, but something is unusual,
	// wasteful or only meaningful on another ABI (unused bits set, bytes no
	// FDE refers to, a first FRE that does not start at offset 0).
	SeverityWarning Severity = 1
	// SeverityError: the section violates the format; a stack tracer may
	// misread it or fail on it.
	SeverityError Severity = 2
)

func (s Severity) String() string {
	switch s {
	case SeverityWarning:
		return "warning"
	case SeverityError:
		return "error"
	}
	return fmt.Sprintf("Severity(%d)", uint8(s))
}

// ProblemKind classifies a Problem found by Validate.
type ProblemKind uint8

// Problem kinds. Header problems first, then FDE problems, then FRE
// problems; the comment gives the usual severity.
const (
	_ ProblemKind = iota
	// ProblemFlags (error): a flag not defined for the version is set (spec §2.1.3).
	ProblemFlags
	// ProblemABI (error): sfh_abi_arch is s390x in a version 1 section
	// (spec §2.2.1: s390x arrived with version 2 errata 1).
	ProblemABI
	// ProblemByteOrder (error): the byte order of the magic is not that of the ABI.
	ProblemByteOrder
	// ProblemFixedRAOffset: sfh_cfa_fixed_ra_offset is not -8 on AMD64
	// (error; spec §3.1.1), or not 0 on an ABI that tracks RA (warning).
	ProblemFixedRAOffset
	// ProblemFixedFPOffset (warning): sfh_cfa_fixed_fp_offset is set, which
	// no ABI does.
	ProblemFixedFPOffset
	// ProblemAuxHeader (warning): an auxiliary header, which no ABI defines.
	ProblemAuxHeader
	// ProblemSubsectionLayout: the FDE and FRE sub-sections overlap (error),
	// are in the other order, or do not tile the section (warning; spec §2.2).
	ProblemSubsectionLayout
	// ProblemTrailingData (warning): bytes after the end of the FRE sub-section.
	ProblemTrailingData
	// ProblemNumFREs (error): sfh_num_fres is not the sum of the FDEs' FRE counts.
	ProblemNumFREs
	// ProblemUnreferenced (warning): bytes of the FRE sub-section that no
	// FDE's FRE data covers (gaps or trailing garbage within sfh_fre_len).
	ProblemUnreferenced

	// ProblemUnsorted (error): SFRAME_F_FDE_SORTED is set but the FDEs are
	// not sorted on function start address.
	ProblemUnsorted
	// ProblemFuncOverlap (error): two functions overlap (or start at the same address).
	ProblemFuncOverlap
	// ProblemFuncRange (error): start + size of a function overflows 64 bits.
	ProblemFuncRange
	// ProblemZeroSize (warning): a function of zero bytes.
	ProblemZeroSize
	// ProblemFREOffset (error): an FDE's FRE data (v3: its FDE attribute)
	// lies outside the FRE sub-section.
	ProblemFREOffset
	// ProblemFREType (error): an unknown FRE type in the FDE info byte.
	ProblemFREType
	// ProblemFDEType (error): an unknown v3 FDE type in the info2 byte.
	ProblemFDEType
	// ProblemRepSize: a MASK FDE with a zero repetition size (error), or one
	// larger than the function (warning). (GNU ld writes 16 on the INC FDE
	// of the first PLT entry; that is legal.)
	ProblemRepSize
	// ProblemPAuthKey (warning): the pauth_key bit set on a non-AArch64 ABI.
	ProblemPAuthKey
	// ProblemUnusedBits (warning): unused or reserved bits set: FDE info bit 6
	// (v3) or bits 6-7 (v1, v2; bit 7 is v3's signal bit), info2 bits 5-7,
	// v2 padding, the base-register bit or other info bits of FLEX and
	// outermost FREs, bit 2 of FLEX control words.
	ProblemUnusedBits
	// ProblemNoFREs (warning): a v1/v2 FDE, or a v3 FLEX FDE, without FREs:
	// no PC of the function can be unwound. (A v3 DEFAULT FDE without FREs
	// marks an outermost frame and is legal.)
	ProblemNoFREs
	// ProblemFREOverlap (error): the FRE data of two FDEs overlap.
	ProblemFREOverlap

	// ProblemFREDecode (error): an FRE runs past the end of the FRE sub-section.
	ProblemFREDecode
	// ProblemDataWordSize (error): an unknown data-word size (3).
	ProblemDataWordSize
	// ProblemDataWordCount: a data-word count that the ABI and FDE type do
	// not allow (error), or no data words in a version 1 section, which
	// predates the "RA undefined" encoding (warning).
	ProblemDataWordCount
	// ProblemFlexLayout: FLEX data words that do not form control/offset
	// pairs for CFA, RA and FP (error: a CFA control word without reg_p, a
	// control word without its offset, words left over), or that gas would
	// not write (warning: RA padding with no FP after it, a zero FP control
	// word).
	ProblemFlexLayout
	// ProblemFREOrder (error): FRE start offsets not strictly increasing.
	ProblemFREOrder
	// ProblemFREOutside (error): an FRE start offset at or past the end of
	// the function (INC) or of the repeated block (MASK).
	ProblemFREOutside
	// ProblemFirstFRE (warning): the first FRE does not start at offset 0,
	// so the function's first PCs have no row.
	ProblemFirstFRE
	// ProblemMangledRA (warning): fre_mangled_ra_p set on a non-AArch64 ABI.
	ProblemMangledRA
	// ProblemOffsetValue (warning): a data word whose value no compiler
	// would emit: an AMD64 SP-based CFA offset below 8, RA or FP saved at or
	// above the CFA, an odd s390x v3 DEFAULT RA/FP offset (the v2 register
	// encoding, replaced by FLEX FDEs in v3).
	ProblemOffsetValue
	// ProblemBudget (error): FRE decoding stopped after more FREs than the
	// section can hold without sharing; FRE data must be shared by FDEs.
	ProblemBudget
	// ProblemMore: the problems of one FDE past the first
	// MaxProblemsPerFDE, counted in one problem of their highest severity.
	ProblemMore
	// ProblemFREAtEnd (warning): an FRE of an INC FDE starts exactly at
	// the function's end, so it covers no byte. GNU as writes one for a
	// .cfi_* directive after the function's last instruction; libsframe
	// and the kernel find no FRE past the function and accept it.
	ProblemFREAtEnd

	numProblemKinds
)

var problemKindNames = [...]string{
	ProblemFlags:            "unknown-flags",
	ProblemABI:              "unknown-abi",
	ProblemByteOrder:        "byte-order",
	ProblemFixedRAOffset:    "fixed-ra-offset",
	ProblemFixedFPOffset:    "fixed-fp-offset",
	ProblemAuxHeader:        "aux-header",
	ProblemSubsectionLayout: "subsection-layout",
	ProblemTrailingData:     "trailing-data",
	ProblemNumFREs:          "num-fres",
	ProblemUnreferenced:     "unreferenced-bytes",
	ProblemUnsorted:         "unsorted",
	ProblemFuncOverlap:      "function-overlap",
	ProblemFuncRange:        "function-range",
	ProblemZeroSize:         "zero-size",
	ProblemFREOffset:        "fre-offset",
	ProblemFREType:          "fre-type",
	ProblemFDEType:          "fde-type",
	ProblemRepSize:          "rep-size",
	ProblemPAuthKey:         "pauth-key",
	ProblemUnusedBits:       "unused-bits",
	ProblemNoFREs:           "no-fres",
	ProblemFREOverlap:       "fre-overlap",
	ProblemFREDecode:        "fre-decode",
	ProblemDataWordSize:     "data-word-size",
	ProblemDataWordCount:    "data-word-count",
	ProblemFlexLayout:       "flex-layout",
	ProblemFREOrder:         "fre-order",
	ProblemFREOutside:       "fre-outside",
	ProblemFirstFRE:         "first-fre",
	ProblemMangledRA:        "mangled-ra",
	ProblemOffsetValue:      "offset-value",
	ProblemBudget:           "budget",
	ProblemMore:             "more",
	ProblemFREAtEnd:         "fre-at-end",
}

func (k ProblemKind) String() string {
	if k > 0 && k < numProblemKinds {
		return problemKindNames[k]
	}
	return fmt.Sprintf("ProblemKind(%d)", uint8(k))
}

// Problem is one violation of the format found by Validate.
type Problem struct {
	Kind     ProblemKind
	Severity Severity
	// Off is the byte offset, from the section start, of the field at fault.
	Off int64
	// FDE is the index of the FDE concerned, or -1 for section-wide problems.
	FDE int
	// FuncStart is the start address of the FDE's function (if FDE >= 0).
	FuncStart uint64
	// FRE is the index of the FRE within its FDE, or -1.
	FRE int
	Msg string
}

func (p Problem) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%v at byte %#x: ", p.Severity, p.Off)
	if p.FDE >= 0 {
		fmt.Fprintf(&b, "FDE %d (function %#x)", p.FDE, p.FuncStart)
		if p.FRE >= 0 {
			fmt.Fprintf(&b, " FRE %d", p.FRE)
		}
		b.WriteString(": ")
	}
	fmt.Fprintf(&b, "%s [%v]", p.Msg, p.Kind)
	return b.String()
}

// MaxProblemsPerFDE bounds the problems Validate lists for one FDE; one
// ProblemMore counts the rest. An FDE whose FRE count or offset is damaged
// can otherwise yield one problem per FRE the section holds.
const MaxProblemsPerFDE = 8

// validator collects problems.
type validator struct {
	s  *Section
	ps []Problem
	// listed counts the problems listed per FDE index; more holds, in
	// FDE order of first use, the ProblemMore standing for the rest of an
	// FDE's and how many they are; moreOf indexes it by FDE index.
	listed map[int]int
	more   []moreProblems
	moreOf map[int]int
}

// moreProblems is the ProblemMore of one FDE and the count it stands for.
type moreProblems struct {
	p Problem
	n int
}

func (v *validator) add(k ProblemKind, sev Severity, off int64, fde *FDE, fre int, format string, args ...any) {
	if fde != nil && k != ProblemBudget {
		if v.listed == nil {
			v.listed, v.moreOf = map[int]int{}, map[int]int{}
		}
		if v.listed[fde.Index] >= MaxProblemsPerFDE {
			i, ok := v.moreOf[fde.Index]
			if !ok {
				i = len(v.more)
				v.moreOf[fde.Index] = i
				v.more = append(v.more, moreProblems{p: Problem{Kind: ProblemMore, Severity: sev, Off: off, FDE: fde.Index, FuncStart: fde.Start, FRE: -1}})
			}
			m := &v.more[i]
			m.p.Severity = max(m.p.Severity, sev)
			m.n++
			return
		}
		v.listed[fde.Index]++
	}
	p := Problem{Kind: k, Severity: sev, Off: off, FDE: -1, FRE: fre, Msg: fmt.Sprintf(format, args...)}
	if fde != nil {
		p.FDE, p.FuncStart = fde.Index, fde.Start
	} else {
		p.FRE = -1
	}
	v.ps = append(v.ps, p)
}

// flushMore adds the ProblemMore of each FDE that had problems left out.
func (v *validator) flushMore() {
	for _, m := range v.more {
		m.p.Msg = fmt.Sprintf("%d more problems in this FDE, from this byte on, are not listed: at most %d are listed per FDE", m.n, MaxProblemsPerFDE)
		v.ps = append(v.ps, m.p)
	}
}

func (v *validator) errorf(k ProblemKind, off int64, fde *FDE, fre int, format string, args ...any) {
	v.add(k, SeverityError, off, fde, fre, format, args...)
}

func (v *validator) warnf(k ProblemKind, off int64, fde *FDE, fre int, format string, args ...any) {
	v.add(k, SeverityWarning, off, fde, fre, format, args...)
}

// Validate checks the section against the SFrame specification of its
// version and reports every violation found, ordered by byte offset:
// header sanity, sub-section layout, FDE order and overlap, FRE data
// bounds and sharing, FRE counts, and each FRE's start offset, data-word
// size and count and the values of its data words for the ABI and FDE
// type. It goes beyond what stack tracers check (for example the Linux
// kernel's sframe_validate_section): warnings name unused bits set and
// bytes no FDE refers to. Clean output of GNU as and ld yields no errors.
// The work done is linear in the section size. What keeps a section from
// being decoded at all (a bad magic, an unknown version or ABI, a
// sub-section past the end) is ParseAt's *FormatError instead.
func (s *Section) Validate() []Problem {
	if s.parts != nil {
		return s.validateSequence()
	}
	v := &validator{s: s}
	v.header()
	v.section()
	v.flushMore()
	sort.SliceStable(v.ps, func(i, j int) bool { return v.ps[i].Off < v.ps[j].Off })
	return v.ps
}

// header checks the header and the layout of the sub-sections. What ParseAt
// needs to decode the section (the magic, a known version and ABI, an
// auxiliary header and sub-sections inside the section) holds already.
func (v *validator) header() {
	s := v.s
	h := &s.Header
	if extra := h.Flags &^ KnownFlags(h.Version); extra != 0 {
		v.errorf(ProblemFlags, 3, nil, -1, "flags %v: %v not defined for %v", h.Flags, extra, h.Version)
	}
	big := s.ByteOrder == binary.BigEndian
	if h.ABI == ABIS390XBigEndian && h.Version == Version1 {
		v.errorf(ProblemABI, 4, nil, -1, "%v is defined from version 2 (errata 1) on", h.ABI)
	} else if h.ABI.BigEndian() != big {
		order := map[bool]string{true: "big-endian", false: "little-endian"}
		v.errorf(ProblemByteOrder, 0, nil, -1, "section is stored %s (by its magic) but ABI %v is %s", order[big], h.ABI, order[h.ABI.BigEndian()])
	}
	switch ra := h.CFAFixedRAOffset; {
	case h.ABI == ABIAMD64LittleEndian && ra != -8:
		v.errorf(ProblemFixedRAOffset, 6, nil, -1, "CFA fixed RA offset %d, AMD64 saves RA at CFA-8", ra)
	case h.ABI != ABIAMD64LittleEndian && ra != 0:
		v.warnf(ProblemFixedRAOffset, 6, nil, -1, "CFA fixed RA offset %d on %v, which tracks RA in its FREs", ra, h.ABI)
	}
	if fp := h.CFAFixedFPOffset; fp != 0 {
		v.warnf(ProblemFixedFPOffset, 5, nil, -1, "CFA fixed FP offset %d: no ABI saves FP at a fixed offset", fp)
	}
	if h.AuxHdrLen > 0 {
		v.warnf(ProblemAuxHeader, 7, nil, -1, "auxiliary header of %d bytes; no ABI defines one", h.AuxHdrLen)
	}
	hl := uint64(h.HeaderLen())
	size := uint64(len(s.data))
	fdeStart := hl + uint64(h.FDEOff)
	fdeEnd := fdeStart + uint64(h.NumFDEs)*uint64(h.FDESize())
	freStart, freEnd := uint64(s.freSub), uint64(s.freEnd)
	fdeEmpty, freEmpty := fdeStart == fdeEnd, freStart == freEnd
	if s.freClipped {
		v.errorf(ProblemSubsectionLayout, 24, nil, -1, "FRE sub-section (offset %#x, length %d) runs past the end of the %d-byte section; FREs were read up to its end",
			h.FREOff, h.FRELen, size)
	}
	switch {
	case !fdeEmpty && !freEmpty && fdeStart < freEnd && freStart < fdeEnd:
		v.errorf(ProblemSubsectionLayout, 24, nil, -1, "FRE sub-section [%#x, %#x) overlaps the FDE sub-section [%#x, %#x)", freStart, freEnd, fdeStart, fdeEnd)
	case freStart < fdeStart && !fdeEmpty:
		v.warnf(ProblemSubsectionLayout, 24, nil, -1, "FRE sub-section at %#x comes before the FDE sub-section at %#x", freStart, fdeStart)
	default:
		if fdeStart != hl {
			note := ""
			if h.Flags&FlagFDEFuncStartPCRel != 0 && h.Version >= Version2 {
				note = " (libsframe computes PC-relative function starts as if the FDE sub-section followed the header)"
			}
			v.warnf(ProblemSubsectionLayout, 20, nil, -1, "%d bytes between the header and the FDE sub-section at %#x%s", fdeStart-hl, fdeStart, note)
		}
		if freStart != fdeEnd {
			v.warnf(ProblemSubsectionLayout, 24, nil, -1, "%d bytes between the end of the FDE sub-section at %#x and the FRE sub-section at %#x (v1/v2 FRE offsets are defined from the former)", freStart-fdeEnd, fdeEnd, freStart)
		}
	}
	if end := max(fdeEnd, freEnd); end < size {
		note := ""
		for _, c := range s.data[end:] {
			if c != 0 {
				note = ", not all zero (libsframe rejects non-zero padding)"
				break
			}
		}
		v.warnf(ProblemTrailingData, int64(end), nil, -1, "%d bytes after the end of the last sub-section%s", size-end, note)
	}
}

// freBlock is the byte range of one FDE's FRE data (v3: with its attribute).
type freBlock struct {
	fde        *FDE
	start, end uint32 // from the section start
}

// section runs the checks that need the parsed FDEs.
func (v *validator) section() {
	s := v.s
	fdes := s.fdes

	// FDE order and function overlap.
	sorted := s.Flags&FlagFDESorted != 0
	for i := 1; i < len(fdes) && sorted; i++ {
		if fdes[i].Start < fdes[i-1].Start {
			f := &fdes[i]
			v.errorf(ProblemUnsorted, int64(f.Off), f, -1, "SFRAME_F_FDE_SORTED is set but function start %#x is below the previous FDE's %#x", f.Start, fdes[i-1].Start)
		}
	}
	var prev *FDE
	for k := range fdes {
		f := s.fdeAt(k)
		if prev != nil && f.Start < prev.End() && prev.Size > 0 {
			v.errorf(ProblemFuncOverlap, int64(f.Off), f, -1, "function [%#x, %#x) overlaps FDE %d's [%#x, %#x)", f.Start, f.End(), prev.Index, prev.Start, prev.End())
		} else if prev != nil && f.Start == prev.Start {
			v.errorf(ProblemFuncOverlap, int64(f.Off), f, -1, "function start %#x is also FDE %d's", f.Start, prev.Index)
		}
		if prev == nil || f.End() > prev.End() || f.End() < f.Start {
			prev = f
		}
	}

	var numFREs uint64
	blocks := make([]freBlock, 0, len(fdes))
	budget := len(s.data) + 1 // each FRE takes at least 2 bytes
	stopped := false
	for i := range fdes {
		f := &fdes[i]
		numFREs += uint64(f.NumFREs)
		if b, ok := v.fde(f, &budget, &stopped); ok {
			blocks = append(blocks, b)
		}
	}
	if numFREs != uint64(s.NumFREs) {
		v.errorf(ProblemNumFREs, 12, nil, -1, "header counts %d FREs, the FDEs %d", s.NumFREs, numFREs)
	}

	// FRE data of different FDEs must not overlap; bytes between them are
	// unreferenced. Blocks sort by start, then end, in FDE order among
	// equal ones.
	sort.SliceStable(blocks, func(i, j int) bool {
		if blocks[i].start != blocks[j].start {
			return blocks[i].start < blocks[j].start
		}
		return blocks[i].end < blocks[j].end
	})
	at := s.freSub
	var last *FDE
	for _, b := range blocks {
		if b.start == b.end {
			continue // an FDE without FRE data (v1/v2, no FREs)
		}
		if b.start < at {
			v.errorf(ProblemFREOverlap, int64(b.fde.Off)+v.freOffField(), b.fde, -1, "FRE data [%#x, %#x) overlaps FDE %d's, which ends at %#x", b.start, b.end, last.Index, at)
		} else if b.start > at {
			v.warnf(ProblemUnreferenced, int64(at), nil, -1, "%d bytes of the FRE sub-section before FDE %d's FRE data belong to no FDE", b.start-at, b.fde.Index)
		}
		if b.end > at {
			at, last = b.end, b.fde
		}
	}
	if at < s.freEnd && !stopped {
		v.warnf(ProblemUnreferenced, int64(at), nil, -1, "%d bytes at the end of the FRE sub-section belong to no FDE", s.freEnd-at)
	}
}

// freOffField returns the offset of the FRE offset field within an FDE entry.
func (v *validator) freOffField() int64 {
	if v.s.Version == Version3 {
		return 12
	}
	return 8
}

// fde checks one FDE and its FREs, and returns the extent of its FRE data.
func (v *validator) fde(f *FDE, budget *int, stopped *bool) (freBlock, bool) {
	s := v.s
	infoOff := int64(f.infoOff(s))
	if f.Start+uint64(f.Size) < f.Start {
		v.errorf(ProblemFuncRange, int64(f.Off), f, -1, "function [%#x, +%d) wraps around the address space", f.Start, f.Size)
	}
	if f.Size == 0 {
		v.warnf(ProblemZeroSize, int64(f.Off)+v.sizeField(), f, -1, "function of zero bytes")
	}
	// FRE data bounds (ParseAt recorded them in f.err).
	attr := uint32(0)
	if s.Version == Version3 {
		attr = FDEAttrSize
	}
	if uint64(s.freSub)+uint64(f.FREOff)+uint64(attr) > uint64(s.freEnd) {
		what := "FRE data"
		if attr > 0 {
			what = "FDE attribute"
		}
		v.errorf(ProblemFREOffset, int64(f.Off)+v.freOffField(), f, -1, "%s at FRE offset %#x lies outside the %d-byte FRE sub-section", what, f.FREOff, s.FRELen)
		return freBlock{}, false
	}

	// Info bytes.
	if f.FREType.Size() == 0 {
		v.errorf(ProblemFREType, infoOff, f, -1, "unknown FRE type %d", uint8(f.FREType))
	}
	switch s.Version {
	case Version3:
		if f.Info&0x40 != 0 {
			v.warnf(ProblemUnusedBits, infoOff, f, -1, "unused bit 6 of the FDE info byte %#02x is set", f.Info)
		}
		if f.Info2&0xe0 != 0 {
			v.warnf(ProblemUnusedBits, infoOff+1, f, -1, "unused bits 5-7 of the FDE info2 byte %#02x are set", f.Info2)
		}
		if f.Type != FDETypeDefault && f.Type != FDETypeFlex {
			v.errorf(ProblemFDEType, infoOff+1, f, -1, "unknown FDE type %d", uint8(f.Type))
		}
	default:
		if f.Info&0xc0 != 0 {
			v.warnf(ProblemUnusedBits, infoOff, f, -1, "unused bits 6-7 of the FDE info byte %#02x are set (bit 7 is the signal bit only in version 3)", f.Info)
		}
		if s.Version == Version2 {
			if pad := s.ByteOrder.Uint16(s.data[f.Off+18:]); pad != 0 {
				v.warnf(ProblemUnusedBits, int64(f.Off)+18, f, -1, "sfde_func_padding2 is %#x, not 0", pad)
			}
		}
	}
	if f.PAuthKey != rule.PAuthKeyA && !s.ABI.IsAArch64() {
		v.warnf(ProblemPAuthKey, infoOff, f, -1, "pauth_key B set on %v", s.ABI)
	}
	repOff := infoOff + 1
	if s.Version == Version3 {
		repOff = infoOff + 2
	}
	switch {
	case f.PCType == PCTypeMask && f.RepSize == 0:
		v.errorf(ProblemRepSize, repOff, f, -1, "PC type MASK with a zero repetition size")
	case f.PCType == PCTypeMask && uint32(f.RepSize) > f.Size:
		v.warnf(ProblemRepSize, repOff, f, -1, "repetition size %d is larger than the %d-byte function", f.RepSize, f.Size)
	}
	if f.NumFREs == 0 && (s.Version < Version3 || f.Type == FDETypeFlex) {
		off := int64(f.Off) + 12
		if s.Version == Version3 {
			off = infoOff - 2
		}
		v.warnf(ProblemNoFREs, off, f, -1, "FDE has no FREs: no PC of the function can be unwound")
	}

	block := freBlock{fde: f, start: s.freSub + f.FREOff, end: f.firstFRE}
	if f.FREType.Size() == 0 {
		return block, false // extent unknown
	}
	if *stopped {
		return block, false
	}
	next := f.firstFRE
	var fre FRE
	var prevStart uint32
	for i := uint32(0); i < f.NumFREs; i++ {
		if *budget--; *budget < 0 {
			v.errorf(ProblemBudget, int64(next), f, int(i), "stopped checking FREs: more FREs decoded than the section can hold, FRE data must be shared by FDEs")
			*stopped = true
			return block, false
		}
		as := uint32(f.FREType.Size())
		if uint64(next)+uint64(as) < uint64(s.freEnd) {
			if info := FREInfo(s.data[next+as]); info.DataWordSize().Bytes() == 0 {
				v.errorf(ProblemDataWordSize, int64(next+as), f, int(i), "unknown data-word size %d in FRE info byte %#02x", uint8(info.DataWordSize()), uint8(info))
				return block, false
			}
		}
		end, err := s.decodeFRE(&fre, next, f.FREType)
		if err != nil {
			v.errorf(ProblemFREDecode, int64(next), f, int(i), "FRE %d of %d runs past the end of the FRE sub-section at %#x", i, f.NumFREs, s.freEnd)
			return block, false
		}
		next, block.end = end, end
		switch {
		case i > 0 && fre.StartOff <= prevStart:
			v.errorf(ProblemFREOrder, int64(fre.Off), f, int(i), "start offset %#x is not above the previous FRE's %#x", fre.StartOff, prevStart)
		case i == 0 && fre.StartOff != 0:
			v.warnf(ProblemFirstFRE, int64(fre.Off), f, int(i), "first FRE starts at offset %#x, not 0: the function's first PCs have no row", fre.StartOff)
		}
		prevStart = fre.StartOff
		switch {
		case f.PCType == PCTypeInc && f.Size > 0 && fre.StartOff == f.Size:
			v.warnf(ProblemFREAtEnd, int64(fre.Off), f, int(i), "start offset %#x is the end of the %d-byte function: the FRE covers no byte (a .cfi_* directive after the last instruction)", fre.StartOff, f.Size)
		case f.PCType == PCTypeInc && f.Size > 0 && fre.StartOff > f.Size:
			v.errorf(ProblemFREOutside, int64(fre.Off), f, int(i), "start offset %#x is not inside the %d-byte function", fre.StartOff, f.Size)
		case f.PCType == PCTypeMask && f.RepSize > 0 && fre.StartOff >= uint32(f.RepSize):
			v.errorf(ProblemFREOutside, int64(fre.Off), f, int(i), "start offset %#x is not inside the %d-byte repeated block", fre.StartOff, f.RepSize)
		}
		v.fre(f, &fre, int(i))
	}
	return block, true
}

// sizeField returns the offset of the function size field within an FDE entry.
func (v *validator) sizeField() int64 {
	if v.s.Version == Version3 {
		return 8
	}
	return 4
}

// fre checks the info byte and data words of one FRE.
func (v *validator) fre(f *FDE, fre *FRE, i int) {
	s := v.s
	infoOff := int64(fre.Off) + int64(f.FREType.Size())
	info := fre.Info
	n := info.DataWordCount()
	if info.MangledRA() && !s.ABI.IsAArch64() {
		v.warnf(ProblemMangledRA, infoOff, f, i, "mangled-RA bit set on %v", s.ABI)
	}
	if n == 0 {
		if s.Version == Version1 {
			v.warnf(ProblemDataWordCount, infoOff, f, i, "FRE without data words: version 1 predates the \"RA undefined\" encoding")
		}
		if info&0x7f != 0 {
			v.warnf(ProblemUnusedBits, infoOff, f, i, "FRE info byte %#02x of an FRE without data words has base-register or size bits set", uint8(info))
		}
		return
	}
	wordOff := func(k int) int64 { return infoOff + 1 + int64(k*info.DataWordSize().Bytes()) }
	if f.Type == FDETypeFlex {
		v.flex(f, fre, i, infoOff, wordOff)
		return
	}
	if f.Type != FDETypeDefault {
		return // reported on the FDE
	}
	maxN := 3
	if s.ABI == ABIAMD64LittleEndian {
		maxN = 2
	}
	if n > maxN {
		v.errorf(ProblemDataWordCount, infoOff, f, i, "%d data words; a DEFAULT FDE on %v has 1 to %d", n, s.ABI, maxN)
		return
	}
	w := fre.Words
	switch s.ABI {
	case ABIAMD64LittleEndian:
		if info.BaseReg() == BaseRegSP && w[0] < 8 {
			v.warnf(ProblemOffsetValue, wordOff(0), f, i, "CFA = SP%+d: the return address at CFA-8 would lie below SP", w[0])
		}
		if n == 2 && w[1] >= 0 {
			v.warnf(ProblemOffsetValue, wordOff(1), f, i, "FP saved at CFA%+d, at or above the CFA", w[1])
		}
	case ABIAArch64BigEndian, ABIAArch64LittleEndian:
		for k := 1; k < n; k++ {
			if w[k] >= 0 {
				v.warnf(ProblemOffsetValue, wordOff(k), f, i, "%s saved at CFA%+d, at or above the CFA", [...]string{"", "RA", "FP"}[k], w[k])
			}
		}
	case ABIS390XBigEndian:
		for k := 1; k < n; k++ {
			what := [...]string{"", "RA", "FP"}[k]
			switch {
			case k == 1 && w[k] == RAOffsetInvalid:
				// RA not saved (padding before an FP offset).
			case w[k]&1 != 0 && s.Version >= Version3:
				v.warnf(ProblemOffsetValue, wordOff(k), f, i, "odd %s offset %d: the v2 register encoding, which v3 replaces with FLEX FDEs", what, w[k])
			case w[k]&1 == 0 && w[k] >= 0:
				v.warnf(ProblemOffsetValue, wordOff(k), f, i, "%s saved at CFA%+d, at or above the CFA", what, w[k])
			}
		}
	}
}

// flex checks the data words of an FRE of a FLEX FDE (spec v3 §3.2).
func (v *validator) flex(f *FDE, fre *FRE, i int, infoOff int64, wordOff func(int) int64) {
	n := fre.NumWords()
	if fre.Info&1 != 0 {
		v.warnf(ProblemUnusedBits, infoOff, f, i, "base-register bit set in the FRE info byte of a FLEX FDE, which does not use it")
	}
	if n < 2 || n > 6 {
		v.errorf(ProblemDataWordCount, infoOff, f, i, "%d data words; a FLEX FRE has 2 to 6", n)
		return
	}
	ctl := func(k int) {
		if c := fre.uword(k); c&4 != 0 {
			v.warnf(ProblemUnusedBits, wordOff(k), f, i, "unused bit 2 of control word %#x is set", c)
		}
	}
	if c := fre.uword(0); c&flexRegP == 0 {
		v.errorf(ProblemFlexLayout, wordOff(0), f, i, "CFA control word %#x has no base register (reg_p clear)", c)
	}
	ctl(0)
	k := 2
	if k < n {
		if fre.uword(k) == 0 {
			if k+1 == n {
				v.warnf(ProblemFlexLayout, wordOff(k), f, i, "RA padding word with no FP rule after it")
			}
			k++
		} else {
			ctl(k)
			if k+1 == n {
				v.errorf(ProblemFlexLayout, wordOff(k), f, i, "RA control word without its offset word")
				return
			}
			k += 2
		}
	}
	if k < n {
		if k+1 == n {
			v.errorf(ProblemFlexLayout, wordOff(k), f, i, "FP control word without its offset word")
			return
		}
		if fre.uword(k) == 0 {
			v.warnf(ProblemFlexLayout, wordOff(k), f, i, "zero FP control word: FP has no rule, the pair is wasted")
		}
		ctl(k)
		k += 2
	}
	if k != n {
		v.errorf(ProblemFlexLayout, wordOff(k), f, i, "%d data words left over after the CFA, RA and FP rules", n-k)
	}
}
