package sframe

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// Builder describes an SFrame section to be written by Encode. Every field
// the format has can be given explicitly, and the Override fields and raw
// byte slices let tests build malformed sections on purpose; left at their
// zero values, Encode computes counts, offsets and lengths and lays the
// section out the way GNU as and ld do: header, auxiliary header, FDE
// sub-section, FRE sub-section, with FDEOff 0 and FRE data in FDE order.
type Builder struct {
	Version          Version // layout of the FDEs: 1, 2 or 3
	ABI              ABI     // also decides the byte order (see ByteOrder)
	Flags            Flags   // written as is
	CFAFixedFPOffset int8
	CFAFixedRAOffset int8
	AuxHeader        []byte // auxiliary header bytes; sfh_auxhdr_len is its length
	// Addr is the virtual address of the section's first byte. FDE function
	// start fields are computed from it and FDESpec.Start (spec §2.3.1).
	Addr uint64
	FDEs []FDESpec
	// FREOrder lists FDE indices in the order in which their FRE data is
	// laid out in the FRE sub-section; nil means FDE order. GNU ld sorts
	// FDEs but keeps FRE data in input order, so real sections need this to
	// be reproduced byte for byte. It must be a permutation of the indices.
	FREOrder []int
	// ByteOrder, if not nil, replaces the byte order implied by ABI.
	ByteOrder binary.ByteOrder
	// FDEPad is raw bytes between the (auxiliary) header and the FDE
	// sub-section; FDEOff is len(FDEPad).
	FDEPad []byte
	// FREPad is raw bytes between the FDE sub-section and the FRE sub-section.
	FREPad []byte
	// Trailer is raw bytes after the FRE sub-section, outside sfh_fre_len.
	Trailer []byte
	// Override replaces computed header fields.
	Override HeaderOverride
}

// HeaderOverride holds header field values that replace the ones Encode
// computes; nil fields are computed. Use them to build malformed sections.
type HeaderOverride struct {
	Magic     *uint16 // written in the section's byte order
	Version   *uint8  // the FDE layout still follows Builder.Version
	ABI       *uint8  // the byte order still follows Builder.ABI
	AuxHdrLen *uint8  // the auxiliary header bytes are still written
	NumFDEs   *uint32
	NumFREs   *uint32
	FRELen    *uint32
	FDEOff    *uint32
	FREOff    *uint32
}

// FDESpec describes one function descriptor entry and its FREs.
type FDESpec struct {
	Start  uint64    // function start address
	Size   uint32    // function size in bytes
	PCType FDEPCType // INC or MASK
	Type   FDEType   // version 3 only: DEFAULT or FLEX
	// FREType is the smallest FRE type to use: Encode widens it until every
	// FRE start offset and the function size fit, as gas does, unless
	// ExactFREType is set (start offsets are then truncated to fit).
	FREType      FREType
	ExactFREType bool
	// RepSize is sfde_func_rep_size (v2) / sfda_func_rep_size (v3), the size
	// of the repeated block of a MASK FDE. Version 1 has no such field; 0 or
	// the implied 16 are accepted there.
	RepSize  uint8
	PAuthKey PAuthKey // AArch64: key that signs return addresses
	// Signal sets the v3 signal-frame bit (bit 7 of the FDE info byte). In
	// versions 1 and 2 that bit is unused; Encode sets it all the same.
	Signal bool
	FREs   []FRESpec
	// Trailer is raw bytes written after the function's FREs, inside the FRE
	// sub-section (counted in sfh_fre_len).
	Trailer []byte

	// Overrides of computed fields, for malformed sections.
	StartField *int64  // raw function start field
	FREOff     *uint32 // raw FRE offset field
	NumFREs    *uint32 // raw FRE count (v3: truncated to 16 bits)
	Info       *uint8  // raw FDE info byte; FREs still use the computed FRE type
	Info2      *uint8  // raw v3 info2 byte
	Padding    uint16  // v2 sfde_func_padding2
}

// FRESpec describes one frame row entry.
type FRESpec struct {
	StartOff  uint32 // offset of the first PC covered, from the function (or block) start
	BaseReg   BaseReg
	MangledRA bool
	// Words are the data words: offsets for DEFAULT FDEs, control/offset
	// pairs for FLEX FDEs. None means "RA undefined" (outermost frame).
	Words []int32
	// WordSize is the smallest data-word size to use: Encode widens it until
	// every word fits (FLEX control words as unsigned, all others as signed),
	// unless ExactWordSize is set (words are then truncated).
	WordSize      DataWordSize
	ExactWordSize bool
	// Info, if set, is written as the FRE info byte; the data words are still
	// written with the computed size and len(Words).
	Info *uint8
}

func app16(bo binary.ByteOrder, b []byte, v uint16) []byte {
	var t [2]byte
	bo.PutUint16(t[:], v)
	return append(b, t[:]...)
}

func app32(bo binary.ByteOrder, b []byte, v uint32) []byte {
	var t [4]byte
	bo.PutUint32(t[:], v)
	return append(b, t[:]...)
}

func app64(bo binary.ByteOrder, b []byte, v uint64) []byte {
	var t [8]byte
	bo.PutUint64(t[:], v)
	return append(b, t[:]...)
}

// fits reports whether v fits in n bytes, as a signed or (unsigned) value.
func fits(v int64, n int, unsigned bool) bool {
	bits := uint(8 * n)
	if unsigned {
		return v >= 0 && v < 1<<bits
	}
	return v >= -(1<<(bits-1)) && v < 1<<(bits-1)
}

// flexControlWords returns a bit mask of the positions of control words
// among n data words of a FLEX FRE, whose word 2 is w2 (spec v3 §3.2).
func flexControlWords(n int, w2 int32) uint32 {
	m := uint32(1) // CFA control word
	if n > 2 {
		m |= 1 << 2 // RA control word or padding
		if w2 == 0 {
			m |= 1 << 3 // FP control word after the padding
		} else {
			m |= 1 << 4
		}
	}
	return m
}

// wordSize returns the data-word size to encode fre with.
func (r *FRESpec) wordSize(flex bool) (DataWordSize, error) {
	if r.ExactWordSize {
		if r.WordSize.Bytes() == 0 {
			return 0, fmt.Errorf("sframe: cannot write data words of unknown size %v (set FRESpec.Info instead)", r.WordSize)
		}
		return r.WordSize, nil
	}
	var ctl uint32
	if flex {
		var w2 int32
		if len(r.Words) > 2 {
			w2 = r.Words[2]
		}
		ctl = flexControlWords(len(r.Words), w2)
	}
	for size := r.WordSize; ; size++ {
		n := size.Bytes()
		if n == 0 {
			return 0, fmt.Errorf("sframe: data-word size %v is unknown", r.WordSize)
		}
		ok := true
		for i, w := range r.Words {
			if i < 32 && ctl&(1<<i) != 0 {
				// Control words are read unsigned; a decoded one may have
				// been sign-extended, so either reading must fit.
				ok = ok && (fits(int64(uint32(w)), n, true) || fits(int64(w), n, false))
			} else {
				ok = ok && fits(int64(w), n, false)
			}
		}
		if ok {
			return size, nil
		}
	}
}

// freType returns the FRE type to encode f's FREs with.
func (f *FDESpec) freType() (FREType, error) {
	if f.ExactFREType {
		if f.FREType.Size() == 0 {
			return 0, fmt.Errorf("sframe: cannot write FREs of unknown FRE type %v (set FDESpec.Info instead)", f.FREType)
		}
		return f.FREType, nil
	}
	// gas picks ADDR1 for functions of fewer than 256 bytes, ADDR2 for
	// fewer than 65536: the size itself must fit.
	max := uint64(f.Size)
	for _, r := range f.FREs {
		if uint64(r.StartOff) > max {
			max = uint64(r.StartOff)
		}
	}
	for t := f.FREType; ; t++ {
		n := t.Size()
		if n == 0 {
			return 0, fmt.Errorf("sframe: FRE type %v is unknown", f.FREType)
		}
		if n == 4 || max < 1<<(8*n) {
			return t, nil
		}
	}
}

// fdeInfo returns the FDE info byte for FRE type t.
func (f *FDESpec) fdeInfo(t FREType) uint8 {
	if f.Info != nil {
		return *f.Info
	}
	i := uint8(t)&0xf | uint8(f.PCType&1)<<4 | uint8(f.PAuthKey&1)<<5
	if f.Signal {
		i |= 0x80
	}
	return i
}

// encodeFREs appends the FREs of f (and its trailer) to out.
func (f *FDESpec) encodeFREs(out []byte, bo binary.ByteOrder, t FREType) ([]byte, error) {
	flex := f.Type == FDETypeFlex
	for k := range f.FREs {
		r := &f.FREs[k]
		if len(r.Words) > MaxDataWords {
			return nil, fmt.Errorf("sframe: FRE %d has %d data words, at most %d fit", k, len(r.Words), MaxDataWords)
		}
		size, err := r.wordSize(flex)
		if err != nil {
			return nil, fmt.Errorf("FRE %d: %w", k, err)
		}
		switch t {
		case FRETypeAddr1:
			out = append(out, uint8(r.StartOff))
		case FRETypeAddr2:
			out = app16(bo, out, uint16(r.StartOff))
		default:
			out = app32(bo, out, r.StartOff)
		}
		info := uint8(MakeFREInfo(r.BaseReg, len(r.Words), size, r.MangledRA))
		if r.Info != nil {
			info = *r.Info
		}
		out = append(out, info)
		for _, w := range r.Words {
			switch size.Bytes() {
			case 1:
				out = append(out, uint8(w))
			case 2:
				out = app16(bo, out, uint16(w))
			default:
				out = app32(bo, out, uint32(w))
			}
		}
	}
	return append(out, f.Trailer...), nil
}

// Encode writes the section described by b. It returns an error when the
// description cannot be written at all (an unknown version, a start offset
// that does not fit a v1/v2 FDE, too many data words, an FREOrder that is
// not a permutation); malformed values that can be written are written.
func (b *Builder) Encode() ([]byte, error) {
	var fdeSize int
	switch b.Version {
	case Version1:
		fdeSize = FDESizeV1
	case Version2:
		fdeSize = FDESizeV2
	case Version3:
		fdeSize = FDEIndexSize
	default:
		return nil, fmt.Errorf("sframe: cannot encode version %d", uint8(b.Version))
	}
	if len(b.AuxHeader) > math.MaxUint8 {
		return nil, fmt.Errorf("sframe: auxiliary header of %d bytes is too long", len(b.AuxHeader))
	}
	bo := b.ByteOrder
	if bo == nil {
		bo = binary.ByteOrder(binary.LittleEndian)
		if b.ABI.BigEndian() {
			bo = binary.BigEndian
		}
	}
	order := b.FREOrder
	if order == nil {
		order = make([]int, len(b.FDEs))
		for i := range order {
			order[i] = i
		}
	} else {
		seen := make([]bool, len(b.FDEs))
		if len(order) != len(b.FDEs) {
			return nil, errors.New("sframe: FREOrder is not a permutation of the FDE indices")
		}
		for _, i := range order {
			if i < 0 || i >= len(b.FDEs) || seen[i] {
				return nil, errors.New("sframe: FREOrder is not a permutation of the FDE indices")
			}
			seen[i] = true
		}
	}

	// The FRE sub-section: each function's (v3: attribute and) FREs.
	var fre []byte
	freOff := make([]uint32, len(b.FDEs))
	freTypes := make([]FREType, len(b.FDEs))
	var numFREs uint64
	for _, i := range order {
		f := &b.FDEs[i]
		t, err := f.freType()
		if err != nil {
			return nil, fmt.Errorf("FDE %d: %w", i, err)
		}
		freTypes[i] = t
		freOff[i] = uint32(len(fre))
		numFREs += uint64(len(f.FREs))
		if b.Version == Version3 {
			n := uint32(len(f.FREs))
			if f.NumFREs != nil {
				n = *f.NumFREs
			} else if n > math.MaxUint16 {
				return nil, fmt.Errorf("sframe: FDE %d: %d FREs do not fit a v3 FDE attribute", i, n)
			}
			info2 := uint8(f.Type) & 0x1f
			if f.Info2 != nil {
				info2 = *f.Info2
			}
			fre = app16(bo, fre, uint16(n))
			fre = append(fre, f.fdeInfo(t), info2, f.RepSize)
		} else if f.Type != FDETypeDefault && f.Info2 == nil {
			return nil, fmt.Errorf("sframe: FDE %d: version %d has no FDE type %v", i, b.Version, f.Type)
		}
		if fre, err = f.encodeFREs(fre, bo, t); err != nil {
			return nil, fmt.Errorf("FDE %d: %w", i, err)
		}
		if uint64(len(fre)) > math.MaxUint32 {
			return nil, errors.New("sframe: FRE sub-section longer than 4 GiB")
		}
	}

	hl := HeaderSize + len(b.AuxHeader)
	fdeStart := hl + len(b.FDEPad)
	freStart := fdeStart + len(b.FDEs)*fdeSize + len(b.FREPad)
	if uint64(freStart)+uint64(len(fre)) > math.MaxUint32 {
		return nil, errors.New("sframe: section longer than 4 GiB")
	}
	pick := func(o *uint32, v int) uint32 {
		if o != nil {
			return *o
		}
		return uint32(v)
	}
	out := make([]byte, 0, freStart+len(fre)+len(b.Trailer))
	magic := uint16(Magic)
	if b.Override.Magic != nil {
		magic = *b.Override.Magic
	}
	out = app16(bo, out, magic)
	ver, abi, aux := uint8(b.Version), uint8(b.ABI), uint8(len(b.AuxHeader))
	if b.Override.Version != nil {
		ver = *b.Override.Version
	}
	if b.Override.ABI != nil {
		abi = *b.Override.ABI
	}
	if b.Override.AuxHdrLen != nil {
		aux = *b.Override.AuxHdrLen
	}
	out = append(out, ver, uint8(b.Flags), abi, uint8(b.CFAFixedFPOffset), uint8(b.CFAFixedRAOffset), aux)
	out = app32(bo, out, pick(b.Override.NumFDEs, len(b.FDEs)))
	if b.Override.NumFREs != nil {
		out = app32(bo, out, *b.Override.NumFREs)
	} else {
		if numFREs > math.MaxUint32 {
			return nil, errors.New("sframe: more than 2^32 FREs")
		}
		out = app32(bo, out, uint32(numFREs))
	}
	out = app32(bo, out, pick(b.Override.FRELen, len(fre)))
	out = app32(bo, out, pick(b.Override.FDEOff, fdeStart-hl))
	out = app32(bo, out, pick(b.Override.FREOff, freStart-hl))
	out = append(out, b.AuxHeader...)
	out = append(out, b.FDEPad...)

	pcrel := b.Version >= Version2 && b.Flags&FlagFDEFuncStartPCRel != 0
	for i := range b.FDEs {
		f := &b.FDEs[i]
		off := uint64(len(out))
		var start int64
		if f.StartField != nil {
			start = *f.StartField
		} else {
			base := b.Addr
			if pcrel {
				base += off
			}
			start = int64(f.Start - base)
			if b.Version < Version3 && start != int64(int32(start)) {
				return nil, fmt.Errorf("sframe: FDE %d: function start %#x is %d bytes from its base %#x, too far for a 32-bit start field", i, f.Start, start, base)
			}
		}
		fo := freOff[i]
		if f.FREOff != nil {
			fo = *f.FREOff
		}
		switch b.Version {
		case Version1, Version2:
			if b.Version == Version1 && f.RepSize != 0 && f.RepSize != 16 {
				return nil, fmt.Errorf("sframe: FDE %d: version 1 has no repetition size field (16 is implied), got %d", i, f.RepSize)
			}
			n := uint32(len(f.FREs))
			if f.NumFREs != nil {
				n = *f.NumFREs
			}
			out = app32(bo, out, uint32(start))
			out = app32(bo, out, f.Size)
			out = app32(bo, out, fo)
			out = app32(bo, out, n)
			out = append(out, f.fdeInfo(freTypes[i]))
			if b.Version == Version2 {
				out = append(out, f.RepSize)
				out = app16(bo, out, f.Padding)
			}
		default:
			out = app64(bo, out, uint64(start))
			out = app32(bo, out, f.Size)
			out = app32(bo, out, fo)
		}
	}
	out = append(out, b.FREPad...)
	out = append(out, fre...)
	return append(out, b.Trailer...), nil
}

// SpecFrom returns a Builder that encodes to the bytes of s: the header,
// FDEs and FREs of s with their exact FRE types, data-word sizes and info
// bytes, the FRE data in the order it has in the section, and any padding
// between the parts as raw bytes. Encode(SpecFrom(s)) reproduces s.Data()
// for every section whose FRE data starts at the beginning of the FRE
// sub-section and whose functions' FRE data do not overlap; SpecFrom
// returns an error for other layouts and for sections whose FREs cannot be
// decoded.
func SpecFrom(s *Section) (*Builder, error) {
	d := s.data
	h := &s.Header
	b := &Builder{
		Version:          h.Version,
		ABI:              h.ABI,
		Flags:            h.Flags,
		CFAFixedFPOffset: h.CFAFixedFPOffset,
		CFAFixedRAOffset: h.CFAFixedRAOffset,
		Addr:             s.Addr,
		FDEs:             make([]FDESpec, len(s.fdes)),
	}
	if h.AuxHdrLen > 0 {
		b.AuxHeader = append([]byte(nil), d[HeaderSize:h.HeaderLen()]...)
	}
	if s.ABI.BigEndian() != (s.ByteOrder == binary.BigEndian) {
		b.ByteOrder = s.ByteOrder
	}
	hl := uint32(h.HeaderLen())
	fdeStart := hl + h.FDEOff
	fdeEnd := fdeStart + uint32(len(s.fdes)*h.FDESize())
	if s.freSub < fdeEnd {
		return nil, errors.New("sframe: SpecFrom: the FRE sub-section does not follow the FDE sub-section")
	}
	b.FDEPad = append([]byte(nil), d[hl:fdeStart]...)
	b.FREPad = append([]byte(nil), d[fdeEnd:s.freSub]...)
	b.Trailer = append([]byte(nil), d[s.freEnd:]...)

	blocks := make([]freBlock, len(s.fdes))
	var numFREs, decoded uint64
	for i := range s.fdes {
		f := &s.fdes[i]
		if f.err != nil {
			return nil, fmt.Errorf("sframe: SpecFrom: %w", f.err)
		}
		spec := FDESpec{
			Start:        f.Start,
			Size:         f.Size,
			PCType:       f.PCType,
			Type:         f.Type,
			FREType:      f.FREType,
			ExactFREType: true,
			RepSize:      f.RepSize,
			PAuthKey:     f.PAuthKey,
			Signal:       f.Signal,
		}
		if s.Version == Version1 {
			spec.RepSize = 0
		}
		if s.Version == Version2 {
			spec.Padding = s.ByteOrder.Uint16(d[f.Off+18:])
		}
		if info := spec.fdeInfo(f.FREType); info != f.Info {
			spec.Info = new(f.Info)
		}
		if s.Version == Version3 && f.Info2 != uint8(f.Type) {
			spec.Info2 = new(f.Info2)
		}
		it := s.FREs(f)
		for it.Next() {
			// FRE data that does not overlap holds at most one FRE per 2
			// bytes; more means FDEs share it, which SpecFrom rejects
			// below. Stopping here keeps the work linear.
			if decoded++; decoded > uint64(h.FRELen)/2 {
				return nil, errors.New("sframe: SpecFrom: FDEs share FRE data")
			}
			r := it.FRE()
			fs := FRESpec{
				StartOff:      r.StartOff,
				BaseReg:       r.Info.BaseReg(),
				MangledRA:     r.Info.MangledRA(),
				Words:         append([]int32(nil), r.Words[:r.NumWords()]...),
				WordSize:      r.Info.DataWordSize(),
				ExactWordSize: true,
			}
			if uint8(MakeFREInfo(fs.BaseReg, len(fs.Words), fs.WordSize, fs.MangledRA)) != uint8(r.Info) {
				fs.Info = new(uint8(r.Info))
			}
			spec.FREs = append(spec.FREs, fs)
		}
		if err := it.Err(); err != nil {
			return nil, fmt.Errorf("sframe: SpecFrom: FDE %d: %w", i, err)
		}
		numFREs += uint64(f.NumFREs)
		end := f.firstFRE
		if len(spec.FREs) > 0 {
			end = it.End()
		}
		blocks[i] = freBlock{fde: f, start: s.freSub + f.FREOff, end: end}
		b.FDEs[i] = spec
	}
	if numFREs != uint64(h.NumFREs) {
		b.Override.NumFREs = new(h.NumFREs)
	}
	sortBlocks(blocks)
	at := s.freSub
	for k, bl := range blocks {
		if bl.start != at {
			if k == 0 || bl.start < at {
				return nil, fmt.Errorf("sframe: SpecFrom: FRE data of FDE %d at FRE offset %#x overlaps or does not follow the previous function's (%#x)", bl.fde.Index, bl.start-s.freSub, at-s.freSub)
			}
			prev := &b.FDEs[blocks[k-1].fde.Index]
			prev.Trailer = append(prev.Trailer, d[at:bl.start]...)
		}
		b.FREOrder = append(b.FREOrder, bl.fde.Index)
		at = bl.end
	}
	if at < s.freEnd {
		if len(blocks) == 0 {
			return nil, errors.New("sframe: SpecFrom: FRE sub-section holds bytes but there are no FDEs")
		}
		last := &b.FDEs[blocks[len(blocks)-1].fde.Index]
		last.Trailer = append(last.Trailer, d[at:s.freEnd]...)
	}
	inOrder := true
	for k, i := range b.FREOrder {
		inOrder = inOrder && k == i
	}
	if inOrder {
		b.FREOrder = nil
	}
	return b, nil
}

// DefaultFRE builds the FRE of a DEFAULT FDE of ABI a that starts at start
// (bytes from the function start) and gives CFA = base + cfaOffset, with
// RA and FP recovered by the rules ra and fp (spec v3 §3.1):
//
//   - AMD64: ra must be the zero Rule or c-8 (the header's fixed RA offset
//     applies); fp is RuleOffset from the CFA or not saved (zero Rule or
//     RuleSameValue).
//   - AArch64: ra and fp are RuleOffset from the CFA or not saved; FP cannot
//     be saved without RA.
//   - s390x: cfaOffset is scaled and adjusted (S390XEncodeCFAOffset); ra and
//     fp are RuleOffset from the CFA, not saved, or RuleRegister, which
//     uses the version 2 register encoding ((reg << 1) | 1) and so belongs in
//     version 2 sections only.
//
// For an FRE that marks the outermost frame use OutermostFRE.
func (a ABI) DefaultFRE(start uint32, base BaseReg, cfaOffset int64, ra, fp Rule) (FRESpec, error) {
	r := FRESpec{StartOff: start, BaseReg: base}
	cfa := cfaOffset
	if a == ABIS390XBigEndian {
		var ok bool
		if cfa, ok = S390XEncodeCFAOffset(cfaOffset); !ok {
			return r, fmt.Errorf("sframe: s390x CFA offset %d is not %d plus a multiple of %d", cfaOffset, -S390XCFAOffsetAdjustment, S390XCFAOffsetAlignFactor)
		}
	}
	if cfa != int64(int32(cfa)) {
		return r, fmt.Errorf("sframe: CFA offset %d does not fit a data word", cfaOffset)
	}
	r.Words = append(r.Words, int32(cfa))
	word := func(x Rule, what string) (w int32, saved bool, err error) {
		switch {
		case x.Kind == RuleUndefined && x == Rule{}, x.Kind == RuleSameValue:
			return 0, false, nil
		case x.Kind == RuleOffset && x.Reg == RegCFA && x.Offset == int64(int32(x.Offset)):
			return int32(x.Offset), true, nil
		case x.Kind == RuleRegister && a == ABIS390XBigEndian && x.Reg >= 0:
			return int32(x.Reg)<<1 | 1, true, nil
		}
		return 0, false, fmt.Errorf("sframe: %v cannot encode %s rule %v in a DEFAULT FDE", a, what, x)
	}
	fw, fpSaved, err := word(fp, "FP")
	if err != nil {
		return r, err
	}
	if a == ABIAMD64LittleEndian {
		if ra != (Rule{}) && ra != (Rule{Kind: RuleOffset, Reg: RegCFA, Offset: -8}) {
			return r, fmt.Errorf("sframe: %v cannot encode RA rule %v: RA is at the header's fixed offset", a, ra)
		}
		if fpSaved {
			r.Words = append(r.Words, fw)
		}
		return r, nil
	}
	rw, raSaved, err := word(ra, "RA")
	if err != nil {
		return r, err
	}
	switch {
	case raSaved:
		r.Words = append(r.Words, rw)
	case fpSaved && a == ABIS390XBigEndian:
		r.Words = append(r.Words, RAOffsetInvalid) // padding: FP without RA
	case fpSaved:
		return r, fmt.Errorf("sframe: %v cannot encode FP saved without RA", a)
	}
	if fpSaved {
		r.Words = append(r.Words, fw)
	}
	return r, nil
}

// FlexFRE builds the FRE of a FLEX FDE (spec v3 §3.2) that starts at start
// and recovers CFA, RA and FP by the given rules: RuleValOffset (Reg +
// Offset) or RuleOffset (*(Reg + Offset)), where Reg is a DWARF register or,
// for RA and FP only, RegCFA; RuleRegister (the value of Reg); and for RA
// and FP the zero Rule or RuleSameValue for "no rule" (the header's fixed
// offsets apply). On s390x the CFA offset is scaled and adjusted as in
// DEFAULT FDEs, as gas does.
func (a ABI) FlexFRE(start uint32, cfa, ra, fp Rule) (FRESpec, error) {
	r := FRESpec{StartOff: start}
	pair := func(x Rule, what string) (ctl uint32, off int32, ok bool, err error) {
		switch x.Kind {
		case RuleUndefined, RuleSameValue:
			if x.Kind == RuleSameValue || x == (Rule{}) {
				return 0, 0, false, nil
			}
		case RuleRegister:
			if x.Reg >= 0 {
				return FlexControl(x.Reg, true, false), 0, true, nil
			}
		case RuleOffset, RuleValOffset:
			if x.Offset != int64(int32(x.Offset)) || (x.Reg < 0 && x.Reg != RegCFA) {
				break
			}
			ctl := FlexControl(0, false, x.Kind == RuleOffset)
			if x.Reg != RegCFA {
				ctl = FlexControl(x.Reg, true, x.Kind == RuleOffset)
			}
			if ctl == 0 {
				return 0, 0, false, fmt.Errorf("sframe: FLEX cannot encode %s = CFA+0 (a zero control word is padding)", what)
			}
			return ctl, int32(x.Offset), true, nil
		}
		return 0, 0, false, fmt.Errorf("sframe: FLEX cannot encode %s rule %v", what, x)
	}
	if cfa.Reg == RegCFA || cfa.Kind == RuleUndefined || cfa.Kind == RuleSameValue {
		return r, fmt.Errorf("sframe: FLEX CFA rule %v has no base register", cfa)
	}
	ctl, off, _, err := pair(cfa, "CFA")
	if err != nil {
		return r, err
	}
	if a == ABIS390XBigEndian {
		enc, ok := S390XEncodeCFAOffset(int64(off))
		if !ok || enc != int64(int32(enc)) {
			return r, fmt.Errorf("sframe: s390x CFA offset %d is not %d plus a multiple of %d", off, -S390XCFAOffsetAdjustment, S390XCFAOffsetAlignFactor)
		}
		off = int32(enc)
	}
	r.Words = append(r.Words, int32(ctl), off)
	rc, ro, raOK, err := pair(ra, "RA")
	if err != nil {
		return r, err
	}
	fc, fo, fpOK, err := pair(fp, "FP")
	if err != nil {
		return r, err
	}
	switch {
	case raOK:
		r.Words = append(r.Words, int32(rc), ro)
	case fpOK:
		r.Words = append(r.Words, 0) // padding for RA
	}
	if fpOK {
		r.Words = append(r.Words, int32(fc), fo)
	}
	return r, nil
}

// OutermostFRE returns an FRE with no data words: RA undefined, the
// outermost frame (spec v2 errata 2, v3 §2.4.1).
func OutermostFRE(start uint32) FRESpec { return FRESpec{StartOff: start} }
