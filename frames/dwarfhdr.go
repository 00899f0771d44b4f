package frames

// The headers lazylines.go reads before a unit: .debug_aranges sets and
// abbreviation tables, decoded with every length checked against the
// bytes at hand.

import (
	"encoding/binary"
	"fmt"
)

// arange is one address range [lo, hi) of .debug_aranges and the offset
// of its unit's header in .debug_info.
type arange struct {
	lo, hi uint64
	unit   uint64
}

// maxArangeEntries bounds the address ranges read from .debug_aranges
// (16 bytes each for 64-bit addresses: the section's size bounds them too).
const maxArangeEntries = 1 << 24

// parseAranges reads every set of .debug_aranges (DWARF 5 section 6.1.2;
// versions 2 to 5 share the layout): unit_length, version, debug_info_offset,
// address_size, segment_selector_size, padding to twice the address size,
// then (address, length) pairs up to a (0, 0) pair. Empty ranges are left
// out. A set with segment selectors or an address size other than 4 or 8
// is an error, as is a set running past the section.
func parseAranges(b []byte, order binary.ByteOrder) ([]arange, error) {
	// A pair takes at least 16 bytes with 8-byte addresses: one
	// allocation for a 64-bit file's section (libc's: 2,083 sets).
	out := make([]arange, 0, min(len(b)/16, maxArangeEntries))
	for off := 0; off < len(b); {
		start := off
		if len(b)-off < 4 {
			return nil, &dwarfFormatError{".debug_aranges", off, "truncated set header"}
		}
		length := uint64(order.Uint32(b[off:]))
		off += 4
		offSize := 4
		if length == 0xffffffff {
			if len(b)-off < 8 {
				return nil, &dwarfFormatError{".debug_aranges", start, "truncated 64-bit set header"}
			}
			length, offSize = order.Uint64(b[off:]), 8
			off += 8
		} else if length >= 0xfffffff0 {
			return nil, &dwarfFormatError{".debug_aranges", start, fmt.Sprintf("reserved unit length %#x", length)}
		}
		if length > uint64(len(b)-off) {
			return nil, &dwarfFormatError{".debug_aranges", start, fmt.Sprintf("set of %d bytes runs past the section's end", length)}
		}
		end := off + int(length)
		if end-off < 2+offSize+2 {
			return nil, &dwarfFormatError{".debug_aranges", start, "set too short for its header"}
		}
		version := order.Uint16(b[off:])
		if version < 2 || version > 5 {
			return nil, &dwarfFormatError{".debug_aranges", start, fmt.Sprintf("version %d", version)}
		}
		var unit uint64
		if offSize == 8 {
			unit = order.Uint64(b[off+2:])
		} else {
			unit = uint64(order.Uint32(b[off+2:]))
		}
		off += 2 + offSize
		asize, ssize := int(b[off]), b[off+1]
		off += 2
		if asize != 4 && asize != 8 || ssize != 0 {
			return nil, &dwarfFormatError{".debug_aranges", start, fmt.Sprintf("address size %d, segment selector size %d", asize, ssize)}
		}
		// The pairs start at a multiple of twice the address size from
		// the set's start.
		if r := (off - start) % (2 * asize); r != 0 {
			off += 2*asize - r
		}
		for ; off+2*asize <= end; off += 2 * asize {
			var lo, n uint64
			if asize == 8 {
				lo, n = order.Uint64(b[off:]), order.Uint64(b[off+8:])
			} else {
				lo, n = uint64(order.Uint32(b[off:])), uint64(order.Uint32(b[off+4:]))
			}
			if lo == 0 && n == 0 {
				break
			}
			if n == 0 || lo+n < lo {
				continue
			}
			if len(out) >= maxArangeEntries {
				return nil, &dwarfFormatError{".debug_aranges", off, fmt.Sprintf("more than %d ranges", maxArangeEntries)}
			}
			out = append(out, arange{lo, lo + n, unit})
		}
		off = end
	}
	return out, nil
}

// dwarfFormatError is malformed DWARF at byte Off of a section.
type dwarfFormatError struct {
	Section string
	Off     int
	Msg     string
}

func (e *dwarfFormatError) Error() string {
	return fmt.Sprintf("%s at byte %#x: %s", e.Section, e.Off, e.Msg)
}

// Forms whose value is an offset outside the unit (another unit, a
// supplementary file, a type unit): a unit read alone cannot follow them.
var crossUnitForms = map[uint64]bool{
	0x10:   true, // DW_FORM_ref_addr
	0x1c:   true, // DW_FORM_ref_sup4
	0x20:   true, // DW_FORM_ref_sig8
	0x24:   true, // DW_FORM_ref_sup8
	0x1f20: true, // DW_FORM_GNU_ref_alt
}

// scanAbbrevTable walks the abbreviation table at off in b; complete is
// false when b ends before the table does.
func scanAbbrevTable(b []byte, off uint64) (end uint64, crossUnit, complete bool) {
	if off >= uint64(len(b)) {
		return 0, false, false
	}
	p := b[off:]
	uleb := func() (uint64, bool) {
		var v uint64
		for shift := uint(0); len(p) > 0; shift += 7 {
			c := p[0]
			p = p[1:]
			if shift < 64 {
				v |= uint64(c&0x7f) << shift
			}
			if c&0x80 == 0 {
				return v, true
			}
		}
		return 0, false
	}
	for {
		code, ok := uleb()
		if !ok {
			return 0, false, false
		}
		if code == 0 {
			return uint64(len(b) - len(p)), crossUnit, true
		}
		if _, ok := uleb(); !ok { // tag
			return 0, false, false
		}
		if len(p) == 0 {
			return 0, false, false
		}
		p = p[1:] // children
		for {
			attr, ok1 := uleb()
			form, ok2 := uleb()
			if !ok1 || !ok2 {
				return 0, false, false
			}
			if attr == 0 && form == 0 {
				break
			}
			if crossUnitForms[form] {
				crossUnit = true
			}
			if form == 0x21 { // DW_FORM_implicit_const: an SLEB128 value follows
				if _, ok := uleb(); !ok {
					return 0, false, false
				}
			}
		}
	}
}

// arangeSetUnits returns the .debug_info offsets of the units that
// .debug_aranges has a set for, those with no range included, in the
// order of the sets; nil for malformed sets (parseAranges tells why).
func arangeSetUnits(b []byte, order binary.ByteOrder) []uint64 {
	var out []uint64
	for off := 0; off < len(b); {
		if len(b)-off < 4 {
			return nil
		}
		length, offSize, at := uint64(order.Uint32(b[off:])), 4, off+4
		if length == 0xffffffff {
			if len(b)-off < 12 {
				return nil
			}
			length, offSize, at = order.Uint64(b[off+4:]), 8, off+12
		}
		if length > uint64(len(b)-at) || length < uint64(2+offSize) {
			return nil
		}
		if offSize == 8 {
			out = append(out, order.Uint64(b[at+2:]))
		} else {
			out = append(out, uint64(order.Uint32(b[at+2:])))
		}
		off = at + int(length)
	}
	return out
}
