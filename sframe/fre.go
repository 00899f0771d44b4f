package sframe

import "encoding/binary"

// FREInfo is the FRE info byte (spec v3 §2.4.1).
type FREInfo uint8

// BaseReg returns the fre_cfa_base_reg_id bit (bit 0).
func (i FREInfo) BaseReg() BaseReg { return BaseReg(i & 1) }

// DataWordCount returns fre_dataword_count (bits 1-4): 0 to 15.
func (i FREInfo) DataWordCount() int { return int(i>>1) & 0xf }

// DataWordSize returns fre_dataword_size (bits 5-6).
func (i FREInfo) DataWordSize() DataWordSize { return DataWordSize(i>>5) & 3 }

// MangledRA returns fre_mangled_ra_p (bit 7): the RA is signed (AArch64 PAuth).
func (i FREInfo) MangledRA() bool { return i&0x80 != 0 }

// FRE is one frame row entry, decoded (spec v3 §2.4). Data words are kept
// raw; Section.Row interprets them for the section's ABI and the FDE type.
type FRE struct {
	// Off is the byte offset of the FRE from the section start.
	Off uint32
	// StartOff is the offset of the first PC the FRE covers from the start of
	// the function (PCTypeInc) or of the repeated block (PCTypeMask), in bytes.
	StartOff uint32
	// Info is the FRE info byte.
	Info FREInfo
	// Words holds the first Info.DataWordCount() data words, sign-extended
	// from their stored size.
	Words [MaxDataWords]int32
}

// NumWords returns the number of data words.
func (r *FRE) NumWords() int { return r.Info.DataWordCount() }

// uword returns data word i read as an unsigned value of the stored size
// (used for FLEX control words).
func (r *FRE) uword(i int) uint32 {
	switch r.Info.DataWordSize() {
	case DataWord1B:
		return uint32(r.Words[i]) & 0xff
	case DataWord2B:
		return uint32(r.Words[i]) & 0xffff
	}
	return uint32(r.Words[i])
}

// decodeFRE decodes the FRE at byte offset off, which must end at or before
// s.freEnd. It returns the offset of the next FRE.
func (s *Section) decodeFRE(fre *FRE, off uint32, t FREType) (uint32, error) {
	as := uint32(t.Size())
	if uint64(off)+uint64(as)+1 > uint64(s.freEnd) {
		return 0, formatErr(int64(off), "FRE runs past the end of the FRE sub-section")
	}
	d := s.data[off:s.freEnd]
	big := s.data[0] == 0xde // the magic's first byte gives the byte order
	fre.StartOff = readStart(d, as, big)
	fre.Off = off
	fre.Info = FREInfo(d[as])
	n := fre.Info.DataWordCount()
	ws := fre.Info.DataWordSize().Bytes()
	if ws == 0 {
		return 0, formatErr(int64(off+as), msgWordSize+" %d", uint8(fre.Info.DataWordSize()))
	}
	end := as + 1 + uint32(n*ws)
	if end > uint32(len(d)) {
		return 0, formatErr(int64(off), "FRE with %d data words of %d bytes runs past the end of the FRE sub-section", n, ws)
	}
	readWords(fre, d[as+1:end], big)
	return off + end, nil
}

// readWords sets fre.Words from the data words p, whose count and size
// fre.Info gives, and zeroes the words past the count.
func readWords(fre *FRE, p []byte, big bool) {
	n := fre.Info.DataWordCount()
	w := fre.Words[:n]
	switch ws := fre.Info.DataWordSize(); {
	case ws == DataWord1B:
		for k := range w {
			w[k] = int32(int8(p[k]))
		}
	case ws == DataWord2B && big:
		for k := range w {
			w[k] = int32(int16(binary.BigEndian.Uint16(p[2*k:])))
		}
	case ws == DataWord2B:
		for k := range w {
			w[k] = int32(int16(binary.LittleEndian.Uint16(p[2*k:])))
		}
	case big:
		for k := range w {
			w[k] = int32(binary.BigEndian.Uint32(p[4*k:]))
		}
	default:
		for k := range w {
			w[k] = int32(binary.LittleEndian.Uint32(p[4*k:]))
		}
	}
	clear(fre.Words[n:])
}

// FREIter iterates over the FREs of one FDE without allocating:
//
//	it := s.FREs(fde)
//	for it.Next() { use(it.FRE()) }
//	if err := it.Err(); err != nil { ... }
type FREIter struct {
	s    *Section
	fde  *FDE
	i    uint32
	next uint32
	base uint32 // offset of s in the sequence the FDE came from
	cur  FRE
	err  error
}

// FREs returns an iterator over the FREs of fde, which must be one of
// s.FDEs().
func (s *Section) FREs(fde *FDE) FREIter {
	p, pf, base := s.partOf(fde)
	return FREIter{s: p, fde: pf, next: pf.firstFRE, base: base, err: shiftErr(pf.err, base)}
}

// Next decodes the next FRE and reports whether there was one.
func (it *FREIter) Next() bool {
	if it.err != nil || it.i >= it.fde.NumFREs {
		return false
	}
	it.next, it.err = it.s.decodeFRE(&it.cur, it.next, it.fde.FREType)
	if it.err != nil {
		it.err = shiftErr(it.err, it.base)
		return false
	}
	it.cur.Off += it.base
	it.i++
	return true
}

// FRE returns the current FRE.
func (it *FREIter) FRE() *FRE { return &it.cur }

// Index returns the index of the current FRE within its FDE.
func (it *FREIter) Index() int { return int(it.i) - 1 }

// End returns the byte offset just past the current FRE.
func (it *FREIter) End() uint32 { return it.next }

// Err returns the error that stopped the iteration, if any.
func (it *FREIter) Err() error { return it.err }

// AllFREs decodes every FRE of fde into a new slice.
func (s *Section) AllFREs(fde *FDE) ([]FRE, error) {
	var out []FRE
	it := s.FREs(fde)
	for it.Next() {
		out = append(out, *it.FRE())
	}
	return out, it.Err()
}

// MaxFREs returns an upper bound on the FREs the FRE sub-section can hold
// (every FRE takes at least 2 bytes): from fde's first FRE to the end of
// its sub-section, or, for a nil fde, in all of it. Iterating over an
// FDE's FREs (FREs, FindFRE) decodes at most this many, whatever its FRE
// count declares.
func (s *Section) MaxFREs(fde *FDE) int {
	if fde == nil {
		return int(s.FRELen)/2 + s.Parts()
	}
	p, pf, _ := s.partOf(fde)
	if pf.err != nil || pf.firstFRE > p.freEnd {
		return 0
	}
	return int(p.freEnd-pf.firstFRE)/2 + 1
}
