package frames

// Location lists: DWARF 4 .debug_loc (section 2.6.2) and DWARF 5
// .debug_loclists (section 2.6.2 and 7.7.3, with GCC's DW_LLE_GNU_view_pair
// entries), read for the one entry covering a PC. Every offset, length and
// index is checked against its section before use; a list is read for at
// most maxLocListEntries entries.

import (
	"debug/dwarf"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

const maxLocListEntries = 1 << 16

// DWARF 5 location list entry kinds (DWARF 5 section 7.7.3, table 7.10).
const (
	lleEndOfList       = 0x00
	lleBaseAddressx    = 0x01
	lleStartxEndx      = 0x02
	lleStartxLength    = 0x03
	lleOffsetPair      = 0x04
	lleDefaultLocation = 0x05
	lleBaseAddress     = 0x06
	lleStartEnd        = 0x07
	lleStartLength     = 0x08
	lleGNUViewPair     = 0x09 // GCC's location views (no range, no expression)
)

// locSections are the raw sections location lists need.
type locSections struct {
	loc, loclists, addr []byte
	order               binary.ByteOrder
	addrSize            int
}

// loadLocs reads the location-list sections of the line table's file once.
func (lt *lineTable) loadLocs() *locSections {
	lt.locsOnce.Do(func() {
		f := lt.file
		if f == nil {
			return
		}
		read := func(name string) []byte {
			s := f.Section(name)
			if s == nil || s.Type == elf.SHT_NOBITS {
				return nil
			}
			b, err := s.Data()
			if err != nil {
				return nil
			}
			return b
		}
		lt.locs = locSections{loc: read(".debug_loc"), loclists: read(".debug_loclists"), addr: read(".debug_addr"), order: f.ByteOrder, addrSize: 8}
		if f.Class == elf.ELFCLASS32 {
			lt.locs.addrSize = 4
		}
	})
	return &lt.locs
}

// unitStart returns the offset in .debug_info of the header of the unit
// whose DIE is at off (32-bit DWARF: 12 bytes before it for version 5, 11
// for versions 2-4), reading the header's bytes.
func (lt *lineTable) unitStart(off dwarf.Offset) (uint64, error) {
	s := lt.file.Section(".debug_info")
	if s == nil || off < 12 {
		return 0, fmt.Errorf("no .debug_info header before the unit at %#x", off)
	}
	var h [12]byte
	r := s.Open()
	if _, err := r.Seek(int64(off)-12, io.SeekStart); err != nil {
		return 0, fmt.Errorf(".debug_info: %w", err)
	}
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return 0, fmt.Errorf(".debug_info: unit header at %#x: %w", int64(off)-12, err)
	}
	order := lt.file.ByteOrder
	switch {
	case order.Uint16(h[4:]) == 5:
		return uint64(off) - 12, nil
	case order.Uint16(h[5:]) >= 2 && order.Uint16(h[5:]) <= 4:
		return uint64(off) - 11, nil
	}
	return 0, fmt.Errorf(".debug_info: no DWARF 2-5 unit header before the unit at %#x", off)
}

// locList returns the expression of the location list of unit u at off
// (a DW_FORM_loclistx index when index is set) that covers link-time pc;
// found is false when no entry covers it (optimized out there).
func (lt *lineTable) locList(u *lineUnit, off int64, index bool, pc uint64) (expr []byte, found bool, err error) {
	ls := lt.loadLocs()
	v5 := index || ls.loc == nil
	if !v5 && ls.loclists != nil {
		// Units of both versions: the unit's header says which.
		start, err := lt.unitStart(u.cu.Offset)
		if err != nil {
			return nil, false, err
		}
		v5 = uint64(u.cu.Offset)-start == 12
	}
	base, _ := u.cu.Val(dwarf.AttrLowpc).(uint64)
	if !v5 {
		return ls.findV4(off, base, pc)
	}
	if ls.loclists == nil {
		return nil, false, errors.New("location list without a .debug_loclists section")
	}
	if index {
		lb, _ := u.cu.Val(dwarf.AttrLoclistsBase).(int64)
		at := lb + off*4
		if lb < 0 || off < 0 || at < 0 || at+4 > int64(len(ls.loclists)) {
			return nil, false, fmt.Errorf("location list index %d outside .debug_loclists", off)
		}
		off = lb + int64(ls.order.Uint32(ls.loclists[at:]))
	}
	addrBase, _ := u.cu.Val(dwarf.AttrAddrBase).(int64)
	return ls.findV5(off, base, addrBase, pc)
}

// locReader is a bounds-checked cursor over a section.
type locReader struct {
	b   []byte
	off int
	err error
	ls  *locSections
	sec string
}

func (r *locReader) fail(what string) {
	if r.err == nil {
		r.err = fmt.Errorf("%s: %s at byte %#x", r.sec, what, r.off)
	}
}

func (r *locReader) need(n int) bool {
	if r.err != nil {
		return false
	}
	if n < 0 || r.off < 0 || n > len(r.b)-r.off {
		r.fail("truncated entry")
		return false
	}
	return true
}

func (r *locReader) u8() byte {
	if !r.need(1) {
		return 0
	}
	r.off++
	return r.b[r.off-1]
}

func (r *locReader) u16() uint64 {
	if !r.need(2) {
		return 0
	}
	r.off += 2
	return uint64(r.ls.order.Uint16(r.b[r.off-2:]))
}

func (r *locReader) addr() uint64 {
	if !r.need(r.ls.addrSize) {
		return 0
	}
	r.off += r.ls.addrSize
	if r.ls.addrSize == 4 {
		return uint64(r.ls.order.Uint32(r.b[r.off-4:]))
	}
	return r.ls.order.Uint64(r.b[r.off-8:])
}

func (r *locReader) uleb() uint64 {
	var v uint64
	for shift := uint(0); ; shift += 7 {
		c := r.u8()
		if r.err != nil {
			return 0
		}
		if shift < 64 {
			v |= uint64(c&0x7f) << shift
		}
		if c&0x80 == 0 {
			return v
		}
	}
}

func (r *locReader) bytes(n uint64) []byte {
	if n > uint64(len(r.b)) || !r.need(int(n)) {
		r.fail("expression longer than the section")
		return nil
	}
	r.off += int(n)
	return r.b[r.off-int(n) : r.off]
}

// findV4 looks pc up in the DWARF 2-4 location list at off in .debug_loc,
// whose offsets are relative to base (the unit's DW_AT_low_pc) until a
// base address selection entry.
func (ls *locSections) findV4(off int64, base, pc uint64) ([]byte, bool, error) {
	if off < 0 || off >= int64(len(ls.loc)) {
		return nil, false, fmt.Errorf("location list at %#x outside .debug_loc (%d bytes)", off, len(ls.loc))
	}
	r := &locReader{b: ls.loc, off: int(off), ls: ls, sec: ".debug_loc"}
	maxAddr := ^uint64(0)
	if ls.addrSize == 4 {
		maxAddr = 0xffffffff
	}
	for range maxLocListEntries {
		lo, hi := r.addr(), r.addr()
		if r.err != nil {
			return nil, false, r.err
		}
		if lo == 0 && hi == 0 {
			return nil, false, nil
		}
		if lo == maxAddr {
			base = hi
			continue
		}
		expr := r.bytes(r.u16())
		if r.err != nil {
			return nil, false, r.err
		}
		if pc >= base+lo && pc < base+hi {
			return expr, true, nil
		}
	}
	return nil, false, fmt.Errorf(".debug_loc: location list at %#x has more than %d entries", off, maxLocListEntries)
}

// debugAddr returns entry idx of the unit's .debug_addr table at addrBase.
func (ls *locSections) debugAddr(addrBase int64, idx uint64) (uint64, error) {
	at := uint64(addrBase) + idx*uint64(ls.addrSize)
	if addrBase < 0 || idx > uint64(len(ls.addr)) || at+uint64(ls.addrSize) > uint64(len(ls.addr)) {
		return 0, fmt.Errorf(".debug_addr: index %d at base %#x outside the section", idx, addrBase)
	}
	if ls.addrSize == 4 {
		return uint64(ls.order.Uint32(ls.addr[at:])), nil
	}
	return ls.order.Uint64(ls.addr[at:]), nil
}

// findV5 looks pc up in the DWARF 5 location list at off in
// .debug_loclists.
func (ls *locSections) findV5(off int64, base uint64, addrBase int64, pc uint64) ([]byte, bool, error) {
	if off < 0 || off >= int64(len(ls.loclists)) {
		return nil, false, fmt.Errorf("location list at %#x outside .debug_loclists (%d bytes)", off, len(ls.loclists))
	}
	r := &locReader{b: ls.loclists, off: int(off), ls: ls, sec: ".debug_loclists"}
	var dflt []byte
	for range maxLocListEntries {
		kind := r.u8()
		var lo, hi uint64
		ranged := true
		switch kind {
		case lleEndOfList:
			if r.err != nil {
				return nil, false, r.err
			}
			return dflt, dflt != nil, nil
		case lleBaseAddressx:
			a, err := ls.debugAddr(addrBase, r.uleb())
			if r.err == nil && err != nil {
				return nil, false, err
			}
			base = a
			continue
		case lleStartxEndx, lleStartxLength:
			a, err := ls.debugAddr(addrBase, r.uleb())
			if r.err == nil && err != nil {
				return nil, false, err
			}
			lo = a
			if kind == lleStartxEndx {
				if hi, err = ls.debugAddr(addrBase, r.uleb()); r.err == nil && err != nil {
					return nil, false, err
				}
			} else {
				hi = lo + r.uleb()
			}
		case lleOffsetPair:
			lo, hi = base+r.uleb(), base+r.uleb()
		case lleDefaultLocation:
			ranged = false
		case lleBaseAddress:
			base = r.addr()
			continue
		case lleStartEnd:
			lo, hi = r.addr(), r.addr()
		case lleStartLength:
			lo = r.addr()
			hi = lo + r.uleb()
		case lleGNUViewPair:
			r.uleb()
			r.uleb()
			continue
		default:
			r.fail(fmt.Sprintf("unknown location list entry kind %#x", kind))
		}
		expr := r.bytes(r.uleb())
		if r.err != nil {
			return nil, false, r.err
		}
		if !ranged {
			dflt = expr
			continue
		}
		if pc >= lo && pc < hi {
			return expr, true, nil
		}
	}
	return nil, false, fmt.Errorf(".debug_loclists: location list at %#x has more than %d entries", off, maxLocListEntries)
}
