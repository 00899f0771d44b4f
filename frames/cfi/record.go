package cfi

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"

	"github.com/sfdbg/sfdbg/sframe/rule"
)

// Section is one CFI section of an ELF file, as the caller found it.
type Section struct {
	Kind Kind
	// Addr is the link-time address of the section's first byte
	// (sh_addr): DW_EH_PE_pcrel pointers of .eh_frame are relative to it.
	// .debug_frame is not loaded; its Addr is unused.
	Addr uint64
	// Order is the byte order of the ELF file (elf.File.ByteOrder).
	Order binary.ByteOrder
	// PtrSize is the size of an address in bytes, 4 for ELFCLASS32 and 8
	// for ELFCLASS64: the size of DW_EH_PE_absptr values, and of
	// .debug_frame addresses in CIEs of versions 1 and 3.
	PtrSize int
	// Data holds the section's bytes. When it is nil, Size bytes are read
	// from Reader: Parse reads them all, NewIndex only the records it
	// looks up.
	Data   []byte
	Reader io.ReaderAt
	Size   int64
}

// size returns the section's size in bytes.
func (s *Section) size() int64 {
	if s.Data != nil || s.Reader == nil {
		return int64(len(s.Data))
	}
	return s.Size
}

// check validates the caller's description of the section.
func (s *Section) check() error {
	switch {
	case s.Kind != EHFrame && s.Kind != DebugFrame:
		return fmt.Errorf("cfi: unknown section kind %d", s.Kind)
	case s.Order == nil:
		return fmt.Errorf("cfi: %v: no byte order", s.Kind)
	case s.PtrSize != 4 && s.PtrSize != 8:
		return fmt.Errorf("cfi: %v: address size %d, want 4 or 8", s.Kind, s.PtrSize)
	case s.Data == nil && s.Reader != nil && (s.Size < 0 || s.Size > maxSection):
		return fmt.Errorf("cfi: %v: size %#x out of range", s.Kind, s.Size)
	case s.Data == nil && s.Reader == nil && s.Size != 0:
		return fmt.Errorf("cfi: %v: neither Data nor Reader", s.Kind)
	}
	return nil
}

// maxSection bounds the size of a section read through Section.Reader
// (1 TiB): offsets and lengths stay far from overflow.
const maxSection = 1 << 40

// CIE is a Common Information Entry (DWARF 5 §6.4.1; LSB Core 5.0
// §10.6.1.1 for .eh_frame's augmentations).
type CIE struct {
	Kind    Kind
	Off     int64 // byte offset of the record in its section
	Version uint8 // 1, 3 or 4
	// Augmentation is the augmentation string: "", "eh", or "z" followed
	// by the letters L, P, R, S, B, G.
	Augmentation string
	// AddressSize is the size of target addresses in bytes: the CIE's
	// field in version 4, else Section.PtrSize. SegmentSelectorSize is
	// always 0 (other values are refused).
	AddressSize         uint8
	SegmentSelectorSize uint8
	CodeAlign           uint64 // code_alignment_factor
	DataAlign           int64  // data_alignment_factor
	RAReg               rule.Reg
	// FDEEncoding encodes the FDEs' PC begin (augmentation R; absptr
	// without it). LSDAEncoding (L) and PersonalityEncoding (P) are
	// DW_EH_PE_omit when absent.
	FDEEncoding         PtrEnc
	LSDAEncoding        PtrEnc
	PersonalityEncoding PtrEnc
	Signal              bool // S: the FDEs describe signal trampolines
	BKey                bool // B: AArch64 return addresses are signed with the B key
	MTE                 bool // G: AArch64 MTE-tagged stack frames
	// Initial holds the initial instructions; InitialOff is the section
	// offset of Initial[0].
	Initial    []byte
	InitialOff int64

	hasAugData bool             // augmentation "z": FDEs have augmentation data
	addr       uint64           // Section.Addr, for pc-relative DW_CFA_set_loc
	order      binary.ByteOrder // Section.Order

	initOnce sync.Once
	init     initial // the rules after the initial instructions
	initErr  error
}

// FDE is a Frame Description Entry (DWARF 5 §6.4.1): the link-time PC
// range [Start, End) it describes and its call frame instructions. Its
// rows are built on first use and cached; an FDE is safe for concurrent
// use.
type FDE struct {
	Kind       Kind
	Off        int64 // byte offset of the record in its section
	Start, End uint64
	// LSDA is the address of the language-specific data area
	// (augmentation L), 0 when there is none. With DW_EH_PE_indirect in
	// CIE.LSDAEncoding it is the address of a pointer to it.
	LSDA uint64
	CIE  *CIE
	// Instructions holds the call frame instructions; InstructionsOff is
	// the section offset of Instructions[0]. They are shared with the
	// section's bytes: do not modify them.
	Instructions    []byte
	InstructionsOff int64

	rows atomic.Pointer[rowCache]
}

// recHead is the header of one record: initial length and CIE id or
// pointer (DWARF 5 §7.24; LSB §10.6.1).
type recHead struct {
	off, end int64 // the record is [off, end) in its section
	body     int64 // offset just past the CIE id or pointer
	cie      bool
	cieOff   int64 // FDEs: the offset their CIE pointer leads to
	dwarf64  bool
	zero     bool // a zero length word: terminator (.eh_frame) or padding
}

// maxHead is the most bytes head reads: a 64-bit initial length and a
// 64-bit CIE id.
const maxHead = 20

// head reads the header of the record at byte offset off of a section of
// size bytes; b holds the section's bytes from off on, at least
// min(maxHead, size-off) of them. The record is checked to lie within the
// section.
func (s *Section) head(b []byte, off, size int64) (recHead, *Error) {
	name := s.Kind.String()
	c := cursor{b: b, base: off, order: s.Order, sec: name}
	h := recHead{off: off}
	length := c.fixed(4, "record length")
	if c.err != nil {
		return h, c.err
	}
	if length == 0 {
		h.zero, h.end = true, off+4
		return h, nil
	}
	idSize := 4
	switch {
	case length == 0xffffffff:
		length = c.fixed(8, "64-bit record length")
		if c.err != nil {
			return h, c.err
		}
		h.dwarf64, idSize = true, 8
	case length >= 0xfffffff0:
		return h, malformed(name, off, "reserved initial length %#x", length)
	}
	h.body = off + int64(c.i) + int64(idSize)
	if length < uint64(idSize) || length > uint64(size-off-int64(c.i)) {
		return h, malformed(name, off, "record length %#x runs past the end of the section (%#x bytes)", length, size)
	}
	h.end = off + int64(c.i) + int64(length)
	idPos := c.off()
	id := c.fixed(idSize, "CIE id")
	if c.err != nil {
		return h, c.err
	}
	if s.Kind == EHFrame {
		// LSB §10.6.1.2: the CIE pointer is subtracted from its own
		// offset. gdb and readelf read it as 8 bytes in 64-bit records.
		if id == 0 {
			h.cie = true
		} else if id > uint64(idPos) {
			return h, malformed(name, idPos, "CIE pointer %#x leads before the start of the section", id)
		} else {
			h.cieOff = idPos - int64(id)
		}
		return h, nil
	}
	if id == 0xffffffff && !h.dwarf64 || id == ^uint64(0) {
		h.cie = true
	} else if id >= uint64(size) {
		return h, malformed(name, idPos, "CIE pointer %#x is past the end of the section (%#x bytes)", id, size)
	} else {
		h.cieOff = int64(id)
	}
	return h, nil
}

// parseCIE decodes the CIE whose header is h and whose bytes are rec.
func (s *Section) parseCIE(h recHead, rec []byte) (*CIE, *Error) {
	name := s.Kind.String()
	c := cursor{b: rec, i: int(h.body - h.off), base: h.off, addr: s.Addr + uint64(h.off), order: s.Order, sec: name}
	e := &CIE{Kind: s.Kind, Off: h.off, AddressSize: uint8(s.PtrSize),
		LSDAEncoding: DW_EH_PE_omit, PersonalityEncoding: DW_EH_PE_omit, addr: s.Addr, order: s.Order}
	verOff := c.off()
	e.Version = c.u8("CIE version")
	if c.err == nil && e.Version != 1 && e.Version != 3 && e.Version != 4 {
		return nil, unsupported(name, verOff, "CIE version %d (want 1, 3 or 4)", e.Version)
	}
	augOff := c.off()
	e.Augmentation = c.cstring("augmentation string")
	aug := e.Augmentation
	switch {
	case aug == "eh":
		// Pre-3.0 GCC: the address of an exception table follows.
		c.bytes(uint64(s.PtrSize), "eh augmentation pointer")
	case aug == "S":
		// GNU as writes .cfi_signal_frame into .debug_frame so: "S"
		// without "z" and without augmentation data (glibc's armhf
		// sigreturn trampolines; readelf and gdb read it).
		e.Signal = true
	case aug != "" && aug[0] != 'z' && c.err == nil:
		return nil, unsupported(name, augOff, "augmentation %q", aug)
	}
	if e.Version >= 4 {
		at := c.off()
		e.AddressSize, e.SegmentSelectorSize = c.u8("address_size"), c.u8("segment_selector_size")
		if c.err == nil && e.AddressSize != 4 && e.AddressSize != 8 {
			return nil, unsupported(name, at, "address_size %d", e.AddressSize)
		}
		if c.err == nil && e.SegmentSelectorSize != 0 {
			return nil, unsupported(name, at+1, "segment_selector_size %d", e.SegmentSelectorSize)
		}
	}
	e.CodeAlign = c.uleb("code alignment factor")
	e.DataAlign = c.sleb("data alignment factor")
	raOff := c.off()
	var ra uint64
	if e.Version == 1 {
		ra = uint64(c.u8("return address register"))
	} else {
		ra = c.uleb("return address register")
	}
	if c.err == nil && ra > maxReg {
		return nil, unsupported(name, raOff, "return address register %d does not fit rule.Reg", ra)
	}
	e.RAReg = rule.Reg(ra)
	if len(aug) > 0 && aug[0] == 'z' {
		e.hasAugData = true
		n := c.uleb("augmentation data length")
		dataOff := c.off()
		data := c.bytes(n, "augmentation data")
		if c.err != nil {
			return nil, c.err
		}
		d := cursor{b: data, base: dataOff, addr: s.Addr + uint64(dataOff), order: s.Order, sec: name}
		for i := 1; i < len(aug) && d.err == nil; i++ {
			switch aug[i] {
			case 'L':
				e.LSDAEncoding = d.encoding("LSDA encoding", false)
			case 'P':
				e.PersonalityEncoding = d.encoding("personality encoding", false)
				if d.err == nil && e.PersonalityEncoding != DW_EH_PE_omit {
					// Only its size matters: skip it whatever it is
					// relative to.
					d.pointer(e.PersonalityEncoding&peFormat, int(e.AddressSize), 0, false, "personality routine")
				}
			case 'R':
				e.FDEEncoding = d.encoding("FDE pointer encoding", true)
			case 'S':
				e.Signal = true
			case 'B':
				e.BKey = true
			case 'G':
				e.MTE = true
			default:
				return nil, unsupported(name, augOff+int64(i), "augmentation character %q in %q", aug[i], aug)
			}
		}
		if d.err != nil {
			return nil, d.err
		}
	}
	if c.err != nil {
		return nil, c.err
	}
	e.InitialOff = c.off()
	e.Initial = rec[c.i:]
	return e, nil
}

// encoding reads a pointer encoding byte of a CIE's augmentation data and
// checks it: a known format; for the FDE encoding (forPC) not omit, not
// indirect, and applied absolutely or pc-relative (the others need bases
// .eh_frame does not give); for the others any application but aligned
// (the value is skipped or kept as is).
func (c *cursor) encoding(what string, forPC bool) PtrEnc {
	at := c.i
	e := PtrEnc(c.u8(what))
	if c.err != nil || e == DW_EH_PE_omit && !forPC {
		return e
	}
	c.i = at // errors point at the encoding byte; after one, c.i no longer matters
	switch n, _ := e.size(8); {
	case n < 0 || e&peApplication > DW_EH_PE_aligned || e == DW_EH_PE_omit:
		c.fail("%s %#x is not a pointer encoding", what, uint8(e))
	case !forPC && e&peApplication == DW_EH_PE_aligned:
		c.refuse("%s %v is not supported", what, e)
	case forPC && e&DW_EH_PE_indirect != 0:
		c.refuse("%s %v: an indirect PC begin is not supported", what, e)
	case forPC && e&peApplication != 0 && e&peApplication != DW_EH_PE_pcrel:
		c.refuse("%s %v is not supported (absptr or pcrel only)", what, e)
	default:
		c.i++
	}
	return e
}

// parseFDE decodes the FDE whose header is h and bytes rec, of CIE cie,
// into f.
func (s *Section) parseFDE(h recHead, rec []byte, cie *CIE, f *FDE) *Error {
	name := s.Kind.String()
	c := cursor{b: rec, i: int(h.body - h.off), base: h.off, addr: s.Addr + uint64(h.off), order: s.Order, sec: name}
	*f = FDE{Kind: s.Kind, Off: h.off, CIE: cie}
	addrSize := int(cie.AddressSize)
	f.Start = c.pointer(cie.FDEEncoding&^DW_EH_PE_indirect, addrSize, 0, false, "PC begin")
	rangeOff := c.off()
	// The range is a length: only the format of the encoding applies.
	n := c.pointer(cie.FDEEncoding&peFormat, addrSize, 0, false, "PC range")
	if c.err != nil {
		return c.err
	}
	f.End = f.Start + n
	if f.End < f.Start || addrSize == 4 && f.End > 1<<32 {
		return malformed(name, rangeOff, "PC range [%#x, +%#x) wraps around the address space", f.Start, n)
	}
	if cie.hasAugData {
		n := c.uleb("augmentation data length")
		dataOff := c.off()
		data := c.bytes(n, "augmentation data")
		if c.err != nil {
			return c.err
		}
		if cie.LSDAEncoding != DW_EH_PE_omit {
			d := cursor{b: data, base: dataOff, addr: s.Addr + uint64(dataOff), order: s.Order, sec: name}
			f.LSDA = d.pointer(cie.LSDAEncoding&^DW_EH_PE_indirect, addrSize, 0, false, "LSDA pointer")
			if d.err != nil {
				return d.err
			}
		}
	}
	f.InstructionsOff = c.off()
	f.Instructions = rec[c.i:]
	return nil
}

// cieCheck checks that the record h the CIE pointer of the FDE at fdeOff
// leads to is a CIE that does not contain the FDE.
func (s *Section) cieCheck(h recHead, fdeOff int64) *Error {
	name := s.Kind.String()
	switch {
	case h.off == fdeOff:
		return malformed(name, fdeOff, "CIE pointer of the FDE leads to the FDE itself")
	case h.zero:
		return malformed(name, fdeOff, "CIE pointer leads to a terminator at %#x", h.off)
	case !h.cie:
		return malformed(name, fdeOff, "CIE pointer leads to the FDE at %#x, not a CIE", h.off)
	case h.off < fdeOff && h.end > fdeOff:
		return malformed(name, fdeOff, "CIE pointer leads to a record at %#x that contains the FDE", h.off)
	}
	return nil
}

// maxReg is the largest register number rule.Reg holds.
const maxReg = 1<<15 - 1

// readAt reads n bytes at byte offset off of the section through Reader,
// in chunks of at most readChunk bytes, so that a length that runs past
// the end of the file fails after allocating about what the file holds.
// Errors are not *Errors: they name the section and the read that failed.
func (s *Section) readAt(off, n int64) ([]byte, error) {
	b := make([]byte, 0, min(n, readChunk))
	for at := int64(0); at < n; {
		k := min(n-at, readChunk)
		if int64(cap(b)) < at+k {
			b = append(b[:cap(b)], make([]byte, at+k-int64(cap(b)))...)
		}
		b = b[:at+k]
		got, err := s.Reader.ReadAt(b[at:], off+at)
		if int64(got) < k {
			if err == nil || errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return nil, fmt.Errorf("%v: reading %#x bytes at byte %#x: %w", s.Kind, k, off+at, err)
		}
		at += k
	}
	return b, nil
}

// readChunk is the most bytes readAt asks for at once.
const readChunk = 1 << 20

// readAhead is how many bytes record reads for a record whose length it
// does not know yet: most CIEs and FDEs fit.
const readAhead = 128

// record returns the header and bytes of the record at byte offset off, of
// a section of size bytes: from Data, or read through Reader.
func (s *Section) record(off, size int64) (recHead, []byte, error) {
	if off < 0 || off >= size {
		return recHead{}, nil, malformed(s.Kind.String(), off, "record offset is outside the section (%#x bytes)", size)
	}
	if s.Data != nil || s.Reader == nil {
		h, err := s.head(s.Data[off:], off, size)
		if err != nil {
			return h, nil, err
		}
		return h, s.Data[off:h.end:h.end], nil
	}
	b, err := s.readAt(off, min(readAhead, size-off))
	if err != nil {
		return recHead{}, nil, err
	}
	h, herr := s.head(b, off, size)
	if herr != nil {
		return h, nil, herr
	}
	if n := h.end - off; n <= int64(len(b)) {
		return h, b[:n:n], nil
	}
	b, err = s.readAt(off, h.end-off)
	return h, b, err
}

// hex formats an offset as 0x...
func hex(off int64) string { return fmt.Sprintf("%#x", off) }
