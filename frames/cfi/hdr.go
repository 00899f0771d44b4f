package cfi

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"sync"
)

// Index finds the FDE for a PC through the binary search table of
// .eh_frame_hdr (LSB Core 5.0 §10.6.2), as libgcc's unwinder does, and
// reads and parses only that FDE and its CIE, on first use. It answers as
// Table.FDEForPC does on the same .eh_frame, provided that the table lists
// every FDE and no more (which NewIndex cannot check without reading all
// of .eh_frame: an FDE missing from the table is not found, one listed
// past a zero terminator is found here and not by Parse). Where a lookup
// reads a table entry that does not lead to an FDE starting at the entry's
// address, it fails with ErrBadHdr.
// It is safe for concurrent use: the table is immutable, parsed CIEs and
// FDEs are cached by offset under a mutex.
type Index struct {
	eh      Section
	ehSize  int64
	hdrOff  int64  // offset of the table in .eh_frame_hdr
	tab     []byte // the table: n entries of two values
	n       int
	vsize   int  // bytes per value: 2, 4 or 8
	signed  bool // values are sign-extended
	le, be  bool // the byte order is binary.LittleEndian, binary.BigEndian
	base    uint64
	ptrMask uint64

	mu   sync.Mutex
	cies map[int64]*cieEntry
	fdes map[int64]*fdeEntry
}

// cieEntry is a CIE read through the index, or why it could not be.
type cieEntry struct {
	h   recHead
	cie *CIE
	err error
}

// fdeEntry is an FDE read through the index, or why it could not be.
type fdeEntry struct {
	fde *FDE
	err error
}

// maxWalk bounds the table entries one lookup reads FDEs for: those with
// the start address found (all of them, to pick the one Table.FDEForPC
// picks) and, while those are all empty, the ones below. A table that
// needs more is refused with an ErrBadHdr error, and Parse serves instead.
const maxWalk = 64

// NewIndex reads the .eh_frame_hdr bytes hdr, mapped at the link-time
// address hdrAddr, and returns an index over eh, the .eh_frame it
// describes (eh.Kind must be EHFrame; eh.Data or eh.Reader). It checks the
// header: version 1; eh_frame_ptr leading to eh.Addr; a table
// (table_enc not DW_EH_PE_omit) of fixed-size values, absolute or
// DW_EH_PE_datarel (relative to hdrAddr), whose fde_count entries fit in
// hdr, are sorted by start address and lead into .eh_frame. Any error but
// a bad Section description is an *Error of .eh_frame_hdr, matching
// ErrBadHdr: the caller should Parse all of .eh_frame instead.
func NewIndex(hdr []byte, hdrAddr uint64, eh Section) (*Index, error) {
	if err := eh.check(); err != nil {
		return nil, err
	}
	if eh.Kind != EHFrame {
		return nil, fmt.Errorf("cfi: an .eh_frame_hdr indexes .eh_frame, not %v", eh.Kind)
	}
	x := &Index{eh: eh, ehSize: eh.size(), ptrMask: math.MaxUint64,
		cies: map[int64]*cieEntry{}, fdes: map[int64]*fdeEntry{}}
	if eh.PtrSize == 4 {
		x.ptrMask = math.MaxUint32
	}
	x.le, x.be = eh.Order == binary.LittleEndian, eh.Order == binary.BigEndian
	c := cursor{b: hdr, addr: hdrAddr, order: eh.Order, sec: SectionEHFrameHdr}
	version := c.u8("version")
	if c.err == nil && version != 1 {
		return nil, unsupported(SectionEHFrameHdr, 0, "version %d (want 1)", version)
	}
	ptrEnc := PtrEnc(c.u8("eh_frame_ptr_enc"))
	countEnc := PtrEnc(c.u8("fde_count_enc"))
	tableEnc := PtrEnc(c.u8("table_enc"))
	if c.err != nil {
		return nil, c.err
	}
	if ptrEnc == DW_EH_PE_omit || ptrEnc&DW_EH_PE_indirect != 0 {
		return nil, unsupported(SectionEHFrameHdr, 1, "eh_frame_ptr_enc %v", ptrEnc)
	}
	ehPtr := c.pointer(ptrEnc, eh.PtrSize, hdrAddr, true, "eh_frame_ptr")
	if c.err == nil && ehPtr != eh.Addr {
		return nil, malformed(SectionEHFrameHdr, 4, "eh_frame_ptr %#x is not the address of .eh_frame (%#x)", ehPtr, eh.Addr)
	}
	if countEnc == DW_EH_PE_omit || tableEnc == DW_EH_PE_omit {
		return nil, unsupported(SectionEHFrameHdr, 2, "no search table (fde_count_enc %v, table_enc %v)", countEnc, tableEnc)
	}
	if countEnc&^peFormat != 0 {
		return nil, unsupported(SectionEHFrameHdr, 2, "fde_count_enc %v", countEnc)
	}
	countOff := c.off()
	count := c.pointer(countEnc, eh.PtrSize, 0, false, "fde_count")
	if c.err != nil {
		return nil, c.err
	}
	x.vsize, x.signed = tableEnc.size(eh.PtrSize)
	switch {
	case x.vsize <= 0 || tableEnc&DW_EH_PE_indirect != 0:
		return nil, unsupported(SectionEHFrameHdr, 3, "table_enc %v (want a fixed-size format)", tableEnc)
	case tableEnc&peApplication == DW_EH_PE_datarel:
		x.base = hdrAddr
	case tableEnc&peApplication != 0:
		return nil, unsupported(SectionEHFrameHdr, 3, "table_enc %v (want absptr or datarel)", tableEnc)
	}
	if count == 0 {
		return nil, unsupported(SectionEHFrameHdr, countOff, "empty search table")
	}
	if count > uint64(c.left()/(2*x.vsize)) {
		return nil, malformed(SectionEHFrameHdr, countOff, "fde_count %d does not fit in the section (%d bytes of table)", count, c.left())
	}
	x.n, x.hdrOff = int(count), c.off()
	x.tab = hdr[c.i : c.i+2*x.vsize*x.n]
	if err := x.check(); err != nil {
		return nil, err
	}
	return x, nil
}

// value returns the value at byte offset at of the table, applied.
func (x *Index) value(at int) uint64 {
	var v uint64
	switch x.vsize {
	case 2:
		v = uint64(x.eh.Order.Uint16(x.tab[at:]))
		if x.signed {
			v = uint64(int16(v))
		}
	case 4:
		v = uint64(x.u32(x.tab[at:]))
		if x.signed {
			v = uint64(int32(v))
		}
	default:
		v = x.eh.Order.Uint64(x.tab[at:])
	}
	return (x.base + v) & x.ptrMask
}

// u32 reads a 4-byte value, without an interface call for the two byte
// orders of encoding/binary.
func (x *Index) u32(b []byte) uint32 {
	switch {
	case x.le:
		return binary.LittleEndian.Uint32(b)
	case x.be:
		return binary.BigEndian.Uint32(b)
	}
	return x.eh.Order.Uint32(b)
}

// loc returns the start address of entry i.
func (x *Index) loc(i int) uint64 { return x.value(2 * x.vsize * i) }

// fdeOff returns the .eh_frame offset of entry i's FDE (as unsigned, it is
// below the section's size when check passed).
func (x *Index) fdeOff(i int) int64 {
	return int64((x.value(2*x.vsize*i+x.vsize) - x.eh.Addr) & x.ptrMask)
}

// entryOff returns the .eh_frame_hdr offset of entry i.
func (x *Index) entryOff(i int) int64 { return x.hdrOff + int64(2*x.vsize*i) }

// check makes one pass over the table: sorted start addresses, FDE
// addresses inside .eh_frame (room for at least a length and a CIE
// pointer).
func (x *Index) check() error {
	if x.ehSize < 8 {
		return malformed(SectionEHFrameHdr, x.hdrOff, "the table indexes an .eh_frame of %d bytes", x.ehSize)
	}
	lim := uint64(x.ehSize - 8)
	i := x.firstBad(lim)
	if i < 0 {
		return nil
	}
	if loc := x.loc(i); i > 0 && loc < x.loc(i-1) {
		return malformed(SectionEHFrameHdr, x.entryOff(i), "table entry %d (%#x) is below the one before (%#x)", i, loc, x.loc(i-1))
	}
	return malformed(SectionEHFrameHdr, x.entryOff(i)+int64(x.vsize), "table entry %d: FDE address %#x is not in .eh_frame [%#x, %#x)",
		i, x.value(2*x.vsize*i+x.vsize), x.eh.Addr, x.eh.Addr+uint64(x.ehSize))
}

// firstBad returns the first entry whose start is below the one before or
// whose FDE offset is above lim, or -1. The table's usual encoding,
// datarel|sdata4, has a loop of its own: every index is checked before use.
func (x *Index) firstBad(lim uint64) int {
	var prev uint64
	if x.vsize == 4 && x.signed && (x.le || x.be) {
		return x.firstBadSdata4(lim)
	}
	for i := range x.n {
		loc := x.loc(i)
		if i > 0 && loc < prev || uint64(x.fdeOff(i)) > lim {
			return i
		}
		prev = loc
	}
	return -1
}

// firstBadSdata4 is firstBad for a table of sdata4 values in one of
// encoding/binary's byte orders.
func (x *Index) firstBadSdata4(lim uint64) int {
	base, fdeBase, mask := x.base, x.base-x.eh.Addr, x.ptrMask
	prev := uint64(0)
	d := x.tab[:8*x.n]
	if x.le {
		for i := 0; len(d) >= 8; i++ {
			loc := (base + uint64(int32(binary.LittleEndian.Uint32(d)))) & mask
			off := (fdeBase + uint64(int32(binary.LittleEndian.Uint32(d[4:])))) & mask
			if loc < prev || off > lim {
				return i
			}
			prev, d = loc, d[8:]
		}
		return -1
	}
	for i := 0; len(d) >= 8; i++ {
		loc := (base + uint64(int32(binary.BigEndian.Uint32(d)))) & mask
		off := (fdeBase + uint64(int32(binary.BigEndian.Uint32(d[4:])))) & mask
		if loc < prev || off > lim {
			return i
		}
		prev, d = loc, d[8:]
	}
	return -1
}

// FDEForPC returns the FDE that covers the link-time address pc, by the
// rule of Table.FDEForPC: the FDE with the greatest start at or below pc,
// skipping empty ones. Errors: ErrNoFDE; an *Error of .eh_frame for a
// malformed or unsupported FDE or CIE on the way; an *Error of
// .eh_frame_hdr (ErrBadHdr) when a table entry leads to something else
// than an FDE starting at the entry's address, or the lookup would read
// more than maxWalk FDEs; a plain error when reading eh.Reader fails.
func (x *Index) FDEForPC(pc uint64) (*FDE, error) {
	lo, hi := 0, x.n
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if x.loc(m) <= pc {
			lo = m + 1
		} else {
			hi = m
		}
	}
	next := lo // the first entry above pc
	walked := 0
	for i := next - 1; i >= 0; {
		start := x.loc(i)
		var best *FDE
		j := i
		for ; j >= 0 && x.loc(j) == start; j-- {
			if walked++; walked > maxWalk {
				return nil, unsupported(SectionEHFrameHdr, x.entryOff(j), "more than %d table entries to read for %#x", maxWalk, pc)
			}
			f, err := x.entry(j)
			if err != nil {
				return nil, err
			}
			if f.End <= f.Start {
				continue
			}
			if best == nil || f.End > best.End || f.End == best.End && f.Off < best.Off {
				best = f
			}
		}
		if best != nil {
			if pc < best.End {
				return best, nil
			}
			break
		}
		i = j
	}
	// A gap. An entry whose address is above its FDE's real start would
	// hide that FDE from the PCs in between: check the next one.
	if next < x.n {
		if _, err := x.entry(next); errors.Is(err, ErrBadHdr) {
			return nil, err
		}
	}
	return nil, ErrNoFDE
}

// entry returns the FDE of table entry i, checking that it starts at the
// entry's address.
func (x *Index) entry(i int) (*FDE, error) {
	f, err := x.fdeAt(x.fdeOff(i), i)
	if err != nil {
		return nil, err
	}
	if loc := x.loc(i); f.Start != loc {
		return nil, malformed(SectionEHFrameHdr, x.entryOff(i), "table entry %d for %#x leads to the FDE at %#x, which starts at %#x", i, loc, f.Off, f.Start)
	}
	return f, nil
}

// fdeAt returns the FDE at byte offset off of .eh_frame, which table entry
// i leads to, parsing it on first use.
func (x *Index) fdeAt(off int64, i int) (*FDE, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if e := x.fdes[off]; e != nil {
		return e.fde, e.err
	}
	f, err := x.parseFDE(off, i)
	var ioErr bool
	if err != nil {
		var e *Error
		ioErr = !errors.As(err, &e)
	}
	if !ioErr { // read errors may pass; format errors do not
		x.fdes[off] = &fdeEntry{fde: f, err: err}
	}
	return f, err
}

// parseFDE reads and parses the FDE at off and its CIE. x.mu is held.
func (x *Index) parseFDE(off int64, i int) (*FDE, error) {
	h, rec, err := x.eh.record(off, x.ehSize)
	if err != nil {
		return nil, err
	}
	if h.zero || h.cie {
		what := "a CIE"
		if h.zero {
			what = "a terminator"
		}
		return nil, malformed(SectionEHFrameHdr, x.entryOff(i)+int64(x.vsize), "table entry %d leads to %s at .eh_frame offset %#x", i, what, off)
	}
	ce := x.cies[h.cieOff]
	if ce == nil {
		ce = &cieEntry{}
		var crec []byte
		ce.h, crec, ce.err = x.eh.record(h.cieOff, x.ehSize)
		if ce.err != nil {
			var e *Error
			if !errors.As(ce.err, &e) {
				return nil, ce.err // a read error: try again next time
			}
		} else if ce.h.cie {
			if c, err := x.eh.parseCIE(ce.h, crec); err != nil {
				ce.err = err
			} else {
				ce.cie = c
			}
		}
		x.cies[h.cieOff] = ce
	}
	if ce.err != nil {
		return nil, ce.err
	}
	if err := x.eh.cieCheck(ce.h, off); err != nil {
		return nil, err // not a CIE, or the FDE itself
	}
	f := new(FDE)
	if err := x.eh.parseFDE(h, rec, ce.cie, f); err != nil {
		return nil, err
	}
	return f, nil
}
