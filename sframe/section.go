package sframe

import (
	"encoding/binary"
	"sort"

	"github.com/sfdbg/sfdbg/sframe/rule"
)

// Sizes of the fixed-length structures, in bytes.
const (
	PreambleSize = 4  // sframe_preamble
	HeaderSize   = 28 // sframe_header without the auxiliary header
	FDESizeV1    = 17 // sframe_func_desc_entry, version 1
	FDESizeV2    = 20 // sframe_func_desc_entry, version 2
	FDEIndexSize = 16 // sframe_func_desc_idx, version 3
	FDEAttrSize  = 5  // sframe_func_desc_attr, version 3, stored in the FRE sub-section
	MaxDataWords = 15 // the 4-bit fre_dataword_count allows at most 15
)

// Header is the SFrame header (spec v3 §2.2), identical in layout for all
// three versions.
type Header struct {
	Magic            uint16
	Version          Version
	Flags            Flags
	ABI              ABI
	CFAFixedFPOffset int8   // sfh_cfa_fixed_fp_offset, bytes from the CFA; 0 if none
	CFAFixedRAOffset int8   // sfh_cfa_fixed_ra_offset, bytes from the CFA; 0 if none
	AuxHdrLen        uint8  // bytes of auxiliary header after the fixed header
	NumFDEs          uint32 // number of FDEs
	NumFREs          uint32 // number of FREs, all functions together
	FRELen           uint32 // length of the FRE sub-section in bytes
	FDEOff           uint32 // FDE sub-section offset from the end of the (aux) header
	FREOff           uint32 // FRE sub-section offset from the end of the (aux) header
}

// HeaderLen returns the size in bytes of the header with its auxiliary header.
func (h *Header) HeaderLen() int { return HeaderSize + int(h.AuxHdrLen) }

// FDESize returns the size of one entry of the FDE sub-section for the
// header's version: 17, 20 or 16 bytes.
func (h *Header) FDESize() int {
	switch h.Version {
	case Version1:
		return FDESizeV1
	case Version2:
		return FDESizeV2
	}
	return FDEIndexSize
}

// FDE is one function descriptor entry, decoded. In version 3 it combines
// the FDE index entry and the FDE attribute (spec v3 §2.3).
type FDE struct {
	// Index is the position of the FDE in the FDE sub-section.
	Index int
	// Off is the byte offset of the FDE (index) entry from the section start.
	Off uint32
	// Start is the function's start address: the section address given to
	// Parse plus the decoded start offset (spec §2.3.1, FlagFDEFuncStartPCRel).
	Start uint64
	// StartField is the raw value of the function start field.
	StartField int64
	// Size is the function's size in bytes.
	Size uint32
	// FREOff is the offset of the function's first FRE (version 3: of its
	// FDE attribute) from the start of the FRE sub-section.
	FREOff uint32
	// NumFREs is the number of FREs of the function.
	NumFREs uint32
	// Info and Info2 are the raw FDE info bytes (Info2 is version 3 only).
	Info, Info2 uint8
	// RepSize is the size of the repeated block for PCTypeMask FDEs, in
	// bytes. Version 1 has no such field; 16 is implied there (a PLT entry).
	RepSize uint8
	// FREType, PCType, Type, PAuthKey and Signal are decoded from the info bytes.
	FREType  FREType
	PCType   FDEPCType
	Type     FDEType
	PAuthKey rule.PAuthKey
	Signal   bool // v3 signal_p: the function is a signal trampoline
	// firstFRE is the byte offset of the first FRE from the section start.
	firstFRE uint32
	// part and local are, in a sequence (sequence.go), the index of the
	// section the FDE is in and its index there.
	part, local int32
	// err is set when the FDE's FREs cannot be decoded at all (its FRE
	// offset or attribute lies outside the FRE sub-section, or its FRE type
	// is unknown); FRE decoding and Validate report it.
	err error
}

// End returns the first address past the function.
func (f *FDE) End() uint64 { return f.Start + uint64(f.Size) }

// contains reports whether pc lies in the function.
func (f *FDE) contains(pc uint64) bool { return pc >= f.Start && pc-f.Start < uint64(f.Size) }

// Section is a parsed SFrame section. It keeps the section bytes and decodes
// FREs on demand; FDEs are decoded once by Parse. A Section is safe for
// concurrent use.
type Section struct {
	Header
	// ByteOrder is the byte order found from the magic.
	ByteOrder binary.ByteOrder
	// Addr is the virtual address of the section's first byte; FDE start
	// addresses are based on it.
	Addr uint64
	// CTFFrame is set when the section was read from the pre-release CTF
	// Frame format (ParseCTFAt), whose SFrame v1 form this is.
	CTFFrame bool
	// Name is the name of the ELF section the data came from, which
	// WriteText prints ("Contents of the SFrame section NAME:"); empty
	// means ".sframe" (a raw section, or data from the PT_GNU_SFRAME
	// segment). objdump prints the name of the section it dumps, which
	// objcopy --rename-section may have changed.
	Name string

	data   []byte
	fdes   []FDE
	byPC   []int32  // FDE indices sorted by Start, nil when fdes are sorted
	starts []uint64 // FDE start addresses in address order, FindFDE's search keys
	freSub uint32   // start of the FRE sub-section, from section start
	freEnd uint32   // end of the FRE sub-section, from section start
	idx    freIndex // FRE start offsets of FDEs with many FREs, built once lookups have paid for it
	rules  abiRules // ABI constants for RowInto
	parts  []part   // the sections of a sequence (sequence.go), nil for one section
	// freClipped: the header's FRE sub-section runs past the section's
	// end, and freSub/freEnd are clipped to it (ParseAt).
	freClipped bool
}

// Data returns the section bytes. The caller must not modify them.
func (s *Section) Data() []byte { return s.data }

// FDEs returns the FDEs in section order. The caller must not modify them.
func (s *Section) FDEs() []FDE { return s.fdes }

// Parse decodes an SFrame section located at virtual address 0. See ParseAt.
func Parse(data []byte) (*Section, error) { return ParseAt(data, 0) }

// ParseAt decodes the header and all FDEs of the SFrame section data, whose
// first byte is at virtual address addr. The byte order is taken from the
// magic. FREs are decoded on demand. Every count and offset is checked
// against len(data) before use; a problem is reported as a *FormatError with
// the byte offset of the bad field. ParseAt does not run the checks of
// Validate beyond what decoding needs.
//
// data may hold several SFrame sections back to back, as lld writes the
// .sframe sections of its inputs (each aligned to 8 bytes, zeros between):
// when the bytes after the first section's last sub-section are zero
// padding up to an 8-byte boundary followed by the magic, the rest is read
// as further sections, and the Section returned is their sequence
// (sequence.go): one set of FDEs, each decoded in its own section.
func ParseAt(data []byte, addr uint64) (*Section, error) {
	s, err := parseOne(data, addr)
	if err != nil {
		return nil, err
	}
	return parseSequence(s, data, addr)
}

// parseOne is ParseAt for a single section.
func parseOne(data []byte, addr uint64) (*Section, error) {
	if len(data) < PreambleSize {
		return nil, formatErr(0, "section of %d bytes is too short for the preamble", len(data))
	}
	s := &Section{data: data, Addr: addr, ByteOrder: MagicOrder(data)}
	if s.ByteOrder == nil {
		return nil, formatErr(0, "bad magic %#02x%02x, want 0xdee2 in either byte order", data[0], data[1])
	}
	h := &s.Header
	h.Magic = Magic
	h.Version = Version(data[2])
	h.Flags = Flags(data[3])
	if h.Version < Version1 || h.Version > Version3 {
		return nil, formatErr(2, "unsupported version %d", data[2])
	}
	if len(data) < HeaderSize {
		return nil, formatErr(0, "section of %d bytes is too short for the %d-byte header", len(data), HeaderSize)
	}
	bo := s.ByteOrder
	h.ABI = ABI(data[4])
	h.CFAFixedFPOffset = int8(data[5])
	h.CFAFixedRAOffset = int8(data[6])
	h.AuxHdrLen = data[7]
	h.NumFDEs = bo.Uint32(data[8:])
	h.NumFREs = bo.Uint32(data[12:])
	h.FRELen = bo.Uint32(data[16:])
	h.FDEOff = bo.Uint32(data[20:])
	h.FREOff = bo.Uint32(data[24:])
	if !h.ABI.Known() {
		return nil, formatErr(4, "unknown ABI/arch %d", data[4])
	}
	s.rules = newABIRules(h)
	hl := uint64(h.HeaderLen())
	if hl > uint64(len(data)) {
		return nil, formatErr(7, "auxiliary header of %d bytes runs past the end of the %d-byte section", h.AuxHdrLen, len(data))
	}
	size := uint64(len(data))
	fdeStart := hl + uint64(h.FDEOff)
	fdeSize := h.FDESize()
	fdeLen := uint64(h.NumFDEs) * uint64(fdeSize)
	if fdeStart > size || fdeLen > size-fdeStart {
		return nil, formatErr(20, "FDE sub-section (offset %#x, %d FDEs of %d bytes) runs past the end of the %d-byte section", h.FDEOff, h.NumFDEs, fdeSize, size)
	}
	freStart := hl + uint64(h.FREOff)
	freEnd := freStart + uint64(h.FRELen)
	if freStart > size || uint64(h.FRELen) > size-freStart {
		// libsframe (sframe_decode) and llvm-readobj read the FDEs of
		// such a section all the same, and each FRE where the section
		// holds it: so does this one, up to the section's end.
		// Validate reports the header (ProblemSubsectionLayout).
		freStart, freEnd = min(freStart, size), size
		s.freClipped = true
	}
	s.freSub = uint32(freStart)
	s.freEnd = uint32(freEnd)

	s.fdes = make([]FDE, h.NumFDEs) // bounded: NumFDEs*FDESize <= len(data)
	sorted := true
	for i := range s.fdes {
		off := uint32(fdeStart) + uint32(i*fdeSize)
		s.decodeFDE(&s.fdes[i], i, off)
		if i > 0 && s.fdes[i].Start < s.fdes[i-1].Start {
			sorted = false
		}
	}
	s.indexByPC(sorted)
	return s, nil
}

// indexByPC builds the lookup index of s.fdes: byPC, the FDEs in start
// order where they are not sorted already, and starts, each FDE's start in
// that order.
func (s *Section) indexByPC(sorted bool) {
	s.byPC = nil
	if !sorted {
		s.byPC = make([]int32, len(s.fdes))
		for i := range s.byPC {
			s.byPC[i] = int32(i)
		}
		sort.SliceStable(s.byPC, func(a, b int) bool { return s.fdes[s.byPC[a]].Start < s.fdes[s.byPC[b]].Start })
	}
	s.starts = make([]uint64, len(s.fdes))
	for k := range s.starts {
		s.starts[k] = s.fdeAt(k).Start
	}
}

// MagicOrder returns the byte order in which d starts with Magic (spec
// §2.1: the preamble is in the section's byte order), or nil if it does in
// neither or d is shorter than the magic.
func MagicOrder(d []byte) binary.ByteOrder {
	switch {
	case len(d) < 2:
		return nil
	case d[0] == 0xde && d[1] == 0xe2:
		return binary.BigEndian
	case d[0] == 0xe2 && d[1] == 0xde:
		return binary.LittleEndian
	}
	return nil
}

// decodeFDE decodes the FDE entry at byte offset off (already known to lie
// inside the FDE sub-section). A problem that keeps its FREs from being read
// is recorded in f.err rather than failing the whole section, so that
// Validate can report every bad FDE.
func (s *Section) decodeFDE(f *FDE, i int, off uint32) {
	bo, d := s.ByteOrder, s.data[off:]
	f.Index, f.Off = i, off
	var info uint8
	switch s.Version {
	case Version1, Version2:
		f.StartField = int64(int32(bo.Uint32(d)))
		f.Size = bo.Uint32(d[4:])
		f.FREOff = bo.Uint32(d[8:])
		f.NumFREs = bo.Uint32(d[12:])
		info = d[16]
		if s.Version == Version2 {
			f.RepSize = d[17]
		} else {
			f.RepSize = 16
		}
		f.firstFRE = s.freSub + f.FREOff
		if uint64(s.freSub)+uint64(f.FREOff) > uint64(s.freEnd) && f.NumFREs > 0 {
			f.err = formatErr(int64(off)+8, "FDE %d: FRE offset %#x is past the end of the FRE sub-section (length %d)", i, f.FREOff, s.FRELen)
		}
	default:
		f.StartField = int64(bo.Uint64(d))
		f.Size = bo.Uint32(d[8:])
		f.FREOff = bo.Uint32(d[12:])
		a := uint64(s.freSub) + uint64(f.FREOff)
		if a+FDEAttrSize > uint64(s.freEnd) {
			f.err = formatErr(int64(off)+12, "FDE %d: FDE attribute at FRE offset %#x runs past the end of the FRE sub-section (length %d)", i, f.FREOff, s.FRELen)
			break
		}
		ad := s.data[a:]
		f.NumFREs = uint32(bo.Uint16(ad))
		info = ad[2]
		f.Info2 = ad[3]
		f.RepSize = ad[4]
		f.Type = FDEType(f.Info2 & 0x1f)
		f.Signal = info&0x80 != 0
		f.firstFRE = uint32(a) + FDEAttrSize
	}
	f.Info = info
	f.FREType = FREType(info & 0xf)
	f.PCType = FDEPCType((info >> 4) & 1)
	f.PAuthKey = rule.PAuthKey((info >> 5) & 1)
	if s.Flags&FlagFDEFuncStartPCRel != 0 && s.Version >= Version2 {
		f.Start = s.Addr + uint64(off) + uint64(f.StartField)
	} else {
		f.Start = s.Addr + uint64(f.StartField)
	}
	if f.FREType.Size() == 0 && f.err == nil {
		f.err = formatErr(int64(f.infoOff(s)), "FDE %d: unknown FRE type %d", i, uint8(f.FREType))
	}
}

// infoOff returns the byte offset of the FDE's (first) info byte.
func (f *FDE) infoOff(s *Section) uint32 {
	if s.Version == Version3 {
		return s.freSub + f.FREOff + 2
	}
	return f.Off + 16
}
