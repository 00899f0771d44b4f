package cfi

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Section names, as they appear in Error.Section.
const (
	SectionEHFrame    = ".eh_frame"
	SectionDebugFrame = ".debug_frame"
	SectionEHFrameHdr = ".eh_frame_hdr"
)

// Kind says which of the two CFI formats a section holds.
type Kind uint8

const (
	// EHFrame is .eh_frame (LSB Core 5.0 §10.6.1): CIE id 0, CIE pointers
	// relative to their own position, pointers in DW_EH_PE encodings, a
	// zero length word ends the section.
	EHFrame Kind = 1 + iota
	// DebugFrame is .debug_frame (DWARF 5 §6.4.1): CIE id 0xffffffff
	// (0xffffffffffffffff in 64-bit DWARF), CIE pointers are section
	// offsets, addresses are address_size bytes.
	DebugFrame
)

// String returns the section name, ".eh_frame" or ".debug_frame".
func (k Kind) String() string {
	switch k {
	case EHFrame:
		return SectionEHFrame
	case DebugFrame:
		return SectionDebugFrame
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// PtrEnc is a DW_EH_PE pointer encoding (LSB Core 5.0 §10.5.1): the low
// four bits give the format of the value, bits 4-6 how it is applied, bit 7
// (DW_EH_PE_indirect) that the result is the address of the pointer.
type PtrEnc uint8

// Pointer encodings (LSB Core 5.0 §10.5.1, Tables 10-5 and 10-6).
const (
	DW_EH_PE_absptr  PtrEnc = 0x00 // format: an address, address_size bytes
	DW_EH_PE_uleb128 PtrEnc = 0x01
	DW_EH_PE_udata2  PtrEnc = 0x02
	DW_EH_PE_udata4  PtrEnc = 0x03
	DW_EH_PE_udata8  PtrEnc = 0x04
	DW_EH_PE_signed  PtrEnc = 0x08 // format: a signed address, address_size bytes
	DW_EH_PE_sleb128 PtrEnc = 0x09
	DW_EH_PE_sdata2  PtrEnc = 0x0a
	DW_EH_PE_sdata4  PtrEnc = 0x0b
	DW_EH_PE_sdata8  PtrEnc = 0x0c

	DW_EH_PE_pcrel   PtrEnc = 0x10 // application: relative to the value's own address
	DW_EH_PE_textrel PtrEnc = 0x20 // relative to the start of .text: refused
	DW_EH_PE_datarel PtrEnc = 0x30 // relative to a data base (.eh_frame_hdr: its own address)
	DW_EH_PE_funcrel PtrEnc = 0x40 // relative to the function start: refused
	DW_EH_PE_aligned PtrEnc = 0x50 // aligned to address_size: refused

	DW_EH_PE_indirect PtrEnc = 0x80 // the value is the address of the pointer
	DW_EH_PE_omit     PtrEnc = 0xff // no value

	peFormat      PtrEnc = 0x0f
	peApplication PtrEnc = 0x70
)

// String names the encoding as readelf does: "pcrel|sdata4", "omit".
func (e PtrEnc) String() string {
	if e == DW_EH_PE_omit {
		return "omit"
	}
	var s string
	switch e & peFormat {
	case DW_EH_PE_absptr:
		s = "absptr"
	case DW_EH_PE_uleb128:
		s = "uleb128"
	case DW_EH_PE_udata2:
		s = "udata2"
	case DW_EH_PE_udata4:
		s = "udata4"
	case DW_EH_PE_udata8:
		s = "udata8"
	case DW_EH_PE_signed:
		s = "signed"
	case DW_EH_PE_sleb128:
		s = "sleb128"
	case DW_EH_PE_sdata2:
		s = "sdata2"
	case DW_EH_PE_sdata4:
		s = "sdata4"
	case DW_EH_PE_sdata8:
		s = "sdata8"
	default:
		s = fmt.Sprintf("format%#x", uint8(e&peFormat))
	}
	switch e & peApplication {
	case DW_EH_PE_pcrel:
		s = "pcrel|" + s
	case DW_EH_PE_textrel:
		s = "textrel|" + s
	case DW_EH_PE_datarel:
		s = "datarel|" + s
	case DW_EH_PE_funcrel:
		s = "funcrel|" + s
	case DW_EH_PE_aligned:
		s = "aligned|" + s
	case 0:
	default:
		s = fmt.Sprintf("application%#x|%s", uint8(e&peApplication), s)
	}
	if e&DW_EH_PE_indirect != 0 {
		s = "indirect|" + s
	}
	return s
}

// size returns the size in bytes of the encoding's fixed-size format (with
// addrSize for absptr and signed), whether it is signed, or 0 for LEB128
// formats, -1 for an unknown format.
func (e PtrEnc) size(addrSize int) (n int, signed bool) {
	switch e & peFormat {
	case DW_EH_PE_absptr:
		return addrSize, false
	case DW_EH_PE_signed:
		return addrSize, true
	case DW_EH_PE_udata2:
		return 2, false
	case DW_EH_PE_udata4:
		return 4, false
	case DW_EH_PE_udata8:
		return 8, false
	case DW_EH_PE_sdata2:
		return 2, true
	case DW_EH_PE_sdata4:
		return 4, true
	case DW_EH_PE_sdata8:
		return 8, true
	case DW_EH_PE_uleb128, DW_EH_PE_sleb128:
		return 0, false
	}
	return -1, false
}

// cursor reads the fields of one record (or of .eh_frame_hdr) with a
// sticky error: b[0] is at byte offset base of the section named sec, and
// at section address addr (for pc-relative pointers). Reads past the end of
// b fail and return zeros; the first failure is kept in err, an *Error at
// the offset of the field that failed.
type cursor struct {
	b     []byte
	i     int
	base  int64
	addr  uint64
	order binary.ByteOrder
	sec   string
	err   *Error
}

// off returns the section offset of the next byte.
func (c *cursor) off() int64 { return c.base + int64(c.i) }

// left returns the number of bytes not read yet.
func (c *cursor) left() int { return len(c.b) - c.i }

// fail records a malformed-field error at the current position (the
// first one only).
func (c *cursor) fail(format string, args ...any) {
	if c.err == nil {
		c.err = malformed(c.sec, c.off(), format, args...)
	}
}

// refuse records an unsupported-form error at the current position.
func (c *cursor) refuse(format string, args ...any) {
	if c.err == nil {
		c.err = unsupported(c.sec, c.off(), format, args...)
	}
}

// need checks that n more bytes are there, failing with what otherwise.
func (c *cursor) need(n int, what string) bool {
	if c.err != nil {
		return false
	}
	if n > c.left() {
		c.fail("truncated %s (%d bytes, %d left)", what, n, c.left())
		return false
	}
	return true
}

func (c *cursor) u8(what string) uint8 {
	if !c.need(1, what) {
		return 0
	}
	c.i++
	return c.b[c.i-1]
}

// fixed reads an n-byte unsigned integer (n = 1, 2, 4 or 8).
func (c *cursor) fixed(n int, what string) uint64 {
	if !c.need(n, what) {
		return 0
	}
	p := c.b[c.i : c.i+n]
	c.i += n
	switch n {
	case 1:
		return uint64(p[0])
	case 2:
		return uint64(c.order.Uint16(p))
	case 4:
		return uint64(c.order.Uint32(p))
	}
	return c.order.Uint64(p)
}

// uleb reads an unsigned LEB128 (DWARF 5 §7.6). Encodings longer than
// needed are accepted; a value that does not fit in 64 bits is malformed.
func (c *cursor) uleb(what string) uint64 {
	if c.err == nil && c.i < len(c.b) && c.b[c.i] < 0x80 {
		c.i++
		return uint64(c.b[c.i-1])
	}
	start := c.i
	var v uint64
	for shift := uint(0); ; shift += 7 {
		if c.err != nil {
			return 0
		}
		if c.i >= len(c.b) {
			c.i = start
			c.fail("truncated LEB128 %s", what)
			return 0
		}
		b := c.b[c.i]
		c.i++
		p := uint64(b & 0x7f)
		if shift >= 64 && p != 0 || shift == 63 && p > 1 {
			c.i = start
			c.fail("LEB128 %s does not fit in 64 bits", what)
			return 0
		}
		if shift < 64 {
			v |= p << shift
		}
		if b < 0x80 {
			return v
		}
	}
}

// sleb reads a signed LEB128 (DWARF 5 §7.6); a value that does not fit in
// 64 bits is malformed.
func (c *cursor) sleb(what string) int64 {
	if c.err == nil && c.i < len(c.b) && c.b[c.i] < 0x80 {
		c.i++
		return int64(int8(c.b[c.i-1]<<1) >> 1) // bit 6 is the sign
	}
	start := c.i
	var v int64
	for shift := uint(0); ; shift += 7 {
		if c.err != nil {
			return 0
		}
		if c.i >= len(c.b) {
			c.i = start
			c.fail("truncated LEB128 %s", what)
			return 0
		}
		b := c.b[c.i]
		c.i++
		p := int64(b & 0x7f)
		switch {
		case shift < 63:
			v |= p << shift
		case shift == 63:
			// Bit 63 is the last bit of the value; the others are its
			// sign extension.
			if p != 0 && p != 0x7f {
				c.i = start
				c.fail("LEB128 %s does not fit in 64 bits", what)
				return 0
			}
			v |= p << 63
		default:
			if want := int64(0x7f) * int64(uint64(v)>>63); p != want {
				c.i = start
				c.fail("LEB128 %s does not fit in 64 bits", what)
				return 0
			}
		}
		if b < 0x80 {
			if shift+7 < 64 && b&0x40 != 0 {
				v |= -1 << (shift + 7)
			}
			return v
		}
	}
}

// bytes returns the next n bytes.
func (c *cursor) bytes(n uint64, what string) []byte {
	if c.err != nil {
		return nil
	}
	if n > uint64(c.left()) {
		c.fail("%s of %d bytes runs past the end (%d bytes left)", what, n, c.left())
		return nil
	}
	p := c.b[c.i : c.i+int(n)]
	c.i += int(n)
	return p
}

// cstring reads a NUL-terminated string.
func (c *cursor) cstring(what string) string {
	if c.err != nil {
		return ""
	}
	for j := c.i; j < len(c.b); j++ {
		if c.b[j] == 0 {
			s := string(c.b[c.i:j])
			c.i = j + 1
			return s
		}
	}
	c.fail("%s is not NUL-terminated", what)
	return ""
}

// pointer reads a value encoded with enc (not DW_EH_PE_omit) and applies
// it: pc-relative to its own address, or data-relative to dataBase when
// haveData is set. DW_EH_PE_indirect is ignored here (the caller decides
// whether it may appear). textrel, funcrel, aligned and datarel without a
// base are refused (ErrUnsupported); unknown formats are malformed.
// Results are truncated to 32 bits when addrSize is 4.
func (c *cursor) pointer(enc PtrEnc, addrSize int, dataBase uint64, haveData bool, what string) uint64 {
	if c.err != nil {
		return 0
	}
	from := c.i
	at := c.addr + uint64(c.i)
	var v uint64
	n, signed := enc.size(addrSize)
	switch {
	case n < 0:
		c.fail("%s: unknown pointer encoding %#x", what, uint8(enc))
		return 0
	case n == 0 && enc&peFormat == DW_EH_PE_uleb128:
		v = c.uleb(what)
	case n == 0:
		v = uint64(c.sleb(what))
	default:
		v = c.fixed(n, what)
		if signed {
			shift := uint(64 - 8*n)
			v = uint64(int64(v<<shift) >> shift)
		}
	}
	switch enc & peApplication {
	case 0:
	case DW_EH_PE_pcrel:
		v += at
	case DW_EH_PE_datarel:
		if !haveData {
			c.i = from
			c.refuse("%s: pointer encoding %v without a data base", what, enc)
			return 0
		}
		v += dataBase
	case DW_EH_PE_textrel, DW_EH_PE_funcrel, DW_EH_PE_aligned:
		c.i = from
		c.refuse("%s: pointer encoding %v is not supported", what, enc)
		return 0
	default:
		c.i = from
		c.fail("%s: unknown pointer encoding %#x", what, uint8(enc))
		return 0
	}
	if addrSize == 4 {
		v &= math.MaxUint32
	}
	return v
}
