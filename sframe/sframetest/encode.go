// Package sframetest is a test-only encoder of SFrame sections: versions 1,
// 2 and 3, every ABI the format defines, in either byte order. Tests and
// fixture generators use it to craft sections, well-formed ones as GNU as
// and ld lay them out and malformed ones on purpose (every header, FDE and
// FRE field can be overridden), and to turn a parsed section back into a
// description that re-encodes to the same bytes (SpecFrom).
//
// Builder describes a section and Encode writes it; DefaultFRE, FlexFRE and
// OutermostFRE build FREs from the rules they must decode to (package
// sframe's Rule); AMD64Section, Variants and ABIVersions give ready-made
// sections for table-driven tests.
//
// Production code must not import this package: sfdbg reads SFrame, it
// never writes it. The package imports only package sframe and the
// standard library.
package sframetest

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/sfdbg/sfdbg/sframe"
	"github.com/sfdbg/sfdbg/sframe/rule"
)

// Builder describes an SFrame section to be written by Encode. Every field
// the format has can be given explicitly, and the Override fields and raw
// byte slices let tests build malformed sections on purpose; left at their
// zero values, Encode computes counts, offsets and lengths and lays the
// section out the way GNU as and ld do: header, auxiliary header, FDE
// sub-section, FRE sub-section, with FDEOff 0 and FRE data in FDE order.
type Builder struct {
	Version          sframe.Version // layout of the FDEs: 1, 2 or 3
	ABI              sframe.ABI     // also decides the byte order (see ByteOrder)
	Flags            sframe.Flags   // written as is
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
	Start  uint64           // function start address
	Size   uint32           // function size in bytes
	PCType sframe.FDEPCType // INC or MASK
	Type   sframe.FDEType   // version 3 only: DEFAULT or FLEX
	// FREType is the smallest FRE type to use: Encode widens it until every
	// FRE start offset and the function size fit, as gas does, unless
	// ExactFREType is set (start offsets are then truncated to fit).
	FREType      sframe.FREType
	ExactFREType bool
	// RepSize is sfde_func_rep_size (v2) / sfda_func_rep_size (v3), the size
	// of the repeated block of a MASK FDE. Version 1 has no such field; 0 or
	// the implied 16 are accepted there.
	RepSize  uint8
	PAuthKey rule.PAuthKey // AArch64: key that signs return addresses
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
	BaseReg   sframe.BaseReg
	MangledRA bool
	// Words are the data words: offsets for DEFAULT FDEs, control/offset
	// pairs for FLEX FDEs. None means "RA undefined" (outermost frame).
	Words []int32
	// WordSize is the smallest data-word size to use: Encode widens it until
	// every word fits (FLEX control words as unsigned, all others as signed),
	// unless ExactWordSize is set (words are then truncated).
	WordSize      sframe.DataWordSize
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
func (r *FRESpec) wordSize(flex bool) (sframe.DataWordSize, error) {
	if r.ExactWordSize {
		if r.WordSize.Bytes() == 0 {
			return 0, fmt.Errorf("sframetest: cannot write data words of unknown size %v (set FRESpec.Info instead)", r.WordSize)
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
			return 0, fmt.Errorf("sframetest: data-word size %v is unknown", r.WordSize)
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
func (f *FDESpec) freType() (sframe.FREType, error) {
	if f.ExactFREType {
		if f.FREType.Size() == 0 {
			return 0, fmt.Errorf("sframetest: cannot write FREs of unknown FRE type %v (set FDESpec.Info instead)", f.FREType)
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
			return 0, fmt.Errorf("sframetest: FRE type %v is unknown", f.FREType)
		}
		if n == 4 || max < 1<<(8*n) {
			return t, nil
		}
	}
}

// fdeInfo returns the FDE info byte for FRE type t.
func (f *FDESpec) fdeInfo(t sframe.FREType) uint8 {
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
func (f *FDESpec) encodeFREs(out []byte, bo binary.ByteOrder, t sframe.FREType) ([]byte, error) {
	flex := f.Type == sframe.FDETypeFlex
	for k := range f.FREs {
		r := &f.FREs[k]
		if len(r.Words) > sframe.MaxDataWords {
			return nil, fmt.Errorf("sframetest: FRE %d has %d data words, at most %d fit", k, len(r.Words), sframe.MaxDataWords)
		}
		size, err := r.wordSize(flex)
		if err != nil {
			return nil, fmt.Errorf("FRE %d: %w", k, err)
		}
		switch t {
		case sframe.FRETypeAddr1:
			out = append(out, uint8(r.StartOff))
		case sframe.FRETypeAddr2:
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
	case sframe.Version1:
		fdeSize = sframe.FDESizeV1
	case sframe.Version2:
		fdeSize = sframe.FDESizeV2
	case sframe.Version3:
		fdeSize = sframe.FDEIndexSize
	default:
		return nil, fmt.Errorf("sframetest: cannot encode version %d", uint8(b.Version))
	}
	if len(b.AuxHeader) > math.MaxUint8 {
		return nil, fmt.Errorf("sframetest: auxiliary header of %d bytes is too long", len(b.AuxHeader))
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
			return nil, errors.New("sframetest: FREOrder is not a permutation of the FDE indices")
		}
		for _, i := range order {
			if i < 0 || i >= len(b.FDEs) || seen[i] {
				return nil, errors.New("sframetest: FREOrder is not a permutation of the FDE indices")
			}
			seen[i] = true
		}
	}

	// The FRE sub-section: each function's (v3: attribute and) FREs.
	var fre []byte
	freOff := make([]uint32, len(b.FDEs))
	freTypes := make([]sframe.FREType, len(b.FDEs))
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
		if b.Version == sframe.Version3 {
			n := uint32(len(f.FREs))
			if f.NumFREs != nil {
				n = *f.NumFREs
			} else if n > math.MaxUint16 {
				return nil, fmt.Errorf("sframetest: FDE %d: %d FREs do not fit a v3 FDE attribute", i, n)
			}
			info2 := uint8(f.Type) & 0x1f
			if f.Info2 != nil {
				info2 = *f.Info2
			}
			fre = app16(bo, fre, uint16(n))
			fre = append(fre, f.fdeInfo(t), info2, f.RepSize)
		} else if f.Type != sframe.FDETypeDefault && f.Info2 == nil {
			return nil, fmt.Errorf("sframetest: FDE %d: version %d has no FDE type %v", i, b.Version, f.Type)
		}
		if fre, err = f.encodeFREs(fre, bo, t); err != nil {
			return nil, fmt.Errorf("FDE %d: %w", i, err)
		}
		if uint64(len(fre)) > math.MaxUint32 {
			return nil, errors.New("sframetest: FRE sub-section longer than 4 GiB")
		}
	}

	hl := sframe.HeaderSize + len(b.AuxHeader)
	fdeStart := hl + len(b.FDEPad)
	freStart := fdeStart + len(b.FDEs)*fdeSize + len(b.FREPad)
	if uint64(freStart)+uint64(len(fre)) > math.MaxUint32 {
		return nil, errors.New("sframetest: section longer than 4 GiB")
	}
	pick := func(o *uint32, v int) uint32 {
		if o != nil {
			return *o
		}
		return uint32(v)
	}
	out := make([]byte, 0, freStart+len(fre)+len(b.Trailer))
	magic := uint16(sframe.Magic)
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
			return nil, errors.New("sframetest: more than 2^32 FREs")
		}
		out = app32(bo, out, uint32(numFREs))
	}
	out = app32(bo, out, pick(b.Override.FRELen, len(fre)))
	out = app32(bo, out, pick(b.Override.FDEOff, fdeStart-hl))
	out = app32(bo, out, pick(b.Override.FREOff, freStart-hl))
	out = append(out, b.AuxHeader...)
	out = append(out, b.FDEPad...)

	pcrel := b.Version >= sframe.Version2 && b.Flags&sframe.FlagFDEFuncStartPCRel != 0
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
			if b.Version < sframe.Version3 && start != int64(int32(start)) {
				return nil, fmt.Errorf("sframetest: FDE %d: function start %#x is %d bytes from its base %#x, too far for a 32-bit start field", i, f.Start, start, base)
			}
		}
		fo := freOff[i]
		if f.FREOff != nil {
			fo = *f.FREOff
		}
		switch b.Version {
		case sframe.Version1, sframe.Version2:
			if b.Version == sframe.Version1 && f.RepSize != 0 && f.RepSize != 16 {
				return nil, fmt.Errorf("sframetest: FDE %d: version 1 has no repetition size field (16 is implied), got %d", i, f.RepSize)
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
			if b.Version == sframe.Version2 {
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
