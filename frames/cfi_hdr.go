package frames

// Lazy .eh_frame lookups through .eh_frame_hdr, as libgcc's unwinder, libdw
// and eu-stack do: the binary search table of .eh_frame_hdr (LSB Core 5.0
// §10.6.2) maps function start addresses to the FDEs that describe them,
// so the FDE covering a PC is found without reading the rest of .eh_frame,
// and only that FDE and its CIE are read and parsed. A live backtrace
// touches one or two FDEs of libc.so.6; parsing all of its ~3,700 FDEs
// costs milliseconds, and even reading its 94 KB .eh_frame costs more than
// the lookup.
//
// Delve's pkg/dwarf/frame stays the CIE/FDE parser: each FDE is handed to
// dwframe.Parse in a small buffer holding its CIE at offset 0 and the FDE
// right after it, with the FDE's CIE pointer patched to reach offset 0 and
// the buffer's address chosen so that the FDE lies at its real address,
// which keeps pc-relative pointers right. CIEs and FDEs are cached by
// offset, so row tables are built once per FDE as with the eager table.
//
// For a well-formed .eh_frame whose table lists every FDE, the lookups
// give what the eager table (loadCFI) gives: among FDEs with the same
// start the first in the section is used, empty FDEs and FDEs at address
// 0 that overlap real ones are skipped, and a malformed FDE or CIE looked
// up gives the *CFIError the eager parse reports for it (Delve's messages
// quote offsets in the buffer it parsed; they are rewritten as offsets in
// .eh_frame, as the eager parse quotes them). Where the two read different
// records, they differ:
//
//   - a malformed record elsewhere in .eh_frame fails every eager lookup
//     (the section does not parse) but no lazy one that does not reach it;
//   - an FDE missing from the search table is invisible here: ReasonNoFDE
//     where the eager table finds a row (a table entry leading to the
//     wrong FDE is noticed, see below, a missing entry is not);
//   - a CIE pointer or a table entry landing in the middle of a record may
//     be read as a record here, where the eager parse, which walks the
//     records from the start, rejects the section or sees no record there.
//
// A header this reader cannot use, or an .eh_frame that does not lie in
// the file, makes loadCFIIndex decline, and the module parses all of its
// CFI as before. A table that turns out to disagree with .eh_frame (an
// entry whose FDE starts elsewhere), or a lookup that would have to look
// at more than cfiHdrMaxWalk entries, makes the index parse all of
// .eh_frame and answer from that from then on.

import (
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/sirupsen/logrus"
)

// SectionEHFrameHdr is the name of the .eh_frame search table section, as
// it appears in CFIError.
const SectionEHFrameHdr = ".eh_frame_hdr"

// DW_EH_PE pointer encodings (LSB Core 5.0 §10.5.1): the low four bits give
// the format, the high four how the value is applied.
const (
	ehPEAbsptr  = 0x00 // format: a pointer (8 bytes here); application: none
	ehPEUdata2  = 0x02
	ehPEUdata4  = 0x03
	ehPEUdata8  = 0x04
	ehPESdata2  = 0x0a
	ehPESdata4  = 0x0b
	ehPESdata8  = 0x0c
	ehPEPCRel   = 0x10 // relative to the address of the value
	ehPEDataRel = 0x30 // relative to the start of .eh_frame_hdr
	ehPEOmit    = 0xff

	ehPEFormat      = 0x0f
	ehPEApplication = 0x70
)

// ehPESize returns the size in bytes and signedness of a fixed-size
// DW_EH_PE format, or 0 for LEB128 and unknown formats.
func ehPESize(enc byte) (n int, signed bool) {
	switch enc & ehPEFormat {
	case ehPEAbsptr, ehPEUdata8:
		return 8, false
	case ehPEUdata2:
		return 2, false
	case ehPEUdata4:
		return 4, false
	case ehPESdata2:
		return 2, true
	case ehPESdata4:
		return 4, true
	case ehPESdata8:
		return 8, true
	}
	return 0, false
}

// ehPERead reads a value of n bytes at b[off:], sign-extended when signed.
// The caller checks the bounds.
func ehPERead(b []byte, off, n int, signed bool) uint64 {
	switch n {
	case 2:
		v := binary.LittleEndian.Uint16(b[off:])
		if signed {
			return uint64(int64(int16(v)))
		}
		return uint64(v)
	case 4:
		v := binary.LittleEndian.Uint32(b[off:])
		if signed {
			return uint64(int64(int32(v)))
		}
		return uint64(v)
	}
	return binary.LittleEndian.Uint64(b[off:])
}

// ehPEValue decodes the value at byte offset off of an .eh_frame_hdr
// mapped at the link-time address hdrAddr, encoded with enc: fixed-size
// formats only, applied absolutely, pc-relative (pcrel set) or relative to
// the section (DW_EH_PE_datarel). It returns the value and its size, or
// ok false for another encoding or a value past the end of hdr.
func ehPEValue(hdr []byte, off int, enc byte, hdrAddr uint64, pcrel bool) (v uint64, n int, ok bool) {
	n, signed := ehPESize(enc)
	if n == 0 || enc&^(ehPEFormat|ehPEApplication) != 0 || len(hdr)-off < n {
		return 0, 0, false
	}
	v = ehPERead(hdr, off, n, signed)
	switch enc & ehPEApplication {
	case ehPEAbsptr:
	case ehPEPCRel:
		if !pcrel {
			return 0, 0, false
		}
		v += hdrAddr + uint64(off)
	case ehPEDataRel:
		v += hdrAddr
	default:
		return 0, 0, false
	}
	return v, n, true
}

// ehHdrTable is the binary search table of an .eh_frame_hdr: n entries of
// two values each, the link-time start address of a function
// (initial_location) and the address of its FDE, sorted by start address.
type ehHdrTable struct {
	data   []byte // the entries, 2*size bytes each
	n      int
	size   int  // bytes per value: 4 or 8
	signed bool // values are sign-extended
	base   uint64
	ehAddr uint64 // entry's FDE offsets are relative to it
}

// entry returns entry i's start address and its FDE's byte offset in
// .eh_frame.
func (h *ehHdrTable) entry(i int) (loc uint64, fdeOff int64) {
	return h.loc(i), h.fdeOff(i)
}

// loc returns entry i's start address.
func (h *ehHdrTable) loc(i int) uint64 { return h.base + h.value(2*h.size*i) }

// fdeOff returns the byte offset in .eh_frame of entry i's FDE.
func (h *ehHdrTable) fdeOff(i int) int64 {
	return int64(h.base + h.value(2*h.size*i+h.size) - h.ehAddr)
}

// value reads the value at byte offset at of the table (small enough to
// be inlined: the table is checked whole and searched often).
func (h *ehHdrTable) value(at int) uint64 {
	if h.size == 4 {
		v := binary.LittleEndian.Uint32(h.data[at:])
		if h.signed {
			return uint64(int32(v))
		}
		return uint64(v)
	}
	return binary.LittleEndian.Uint64(h.data[at:])
}

// parseEHFrameHdr reads an .eh_frame_hdr mapped at the link-time address
// hdrAddr (LSB Core 5.0 §10.6.2: version 1, the encodings of eh_frame_ptr,
// fde_count and the table, then those fields and the table) and checks it
// against the .eh_frame of ehSize bytes at ehAddr it must describe: the
// table is sorted and every FDE address lies in .eh_frame. Table entries
// must be encoded DW_EH_PE_datarel or absolute with a 4- or 8-byte format
// (gcc and the linkers write datarel|sdata4). Errors are *CFIErrors of
// .eh_frame_hdr at the offset of the field at fault; a section without a
// table (table encoding DW_EH_PE_omit, or no entries) is one.
func parseEHFrameHdr(hdr []byte, hdrAddr, ehAddr uint64, ehSize int64) (*ehHdrTable, error) {
	bad := func(off int, format string, args ...any) error {
		return &CFIError{Section: SectionEHFrameHdr, Off: int64(off), Msg: fmt.Sprintf(format, args...)}
	}
	if len(hdr) < 4 {
		return nil, bad(-1, "truncated header (%d bytes)", len(hdr))
	}
	if hdr[0] != 1 {
		return nil, bad(0, "unsupported version %d", hdr[0])
	}
	ptrEnc, countEnc, tableEnc := hdr[1], hdr[2], hdr[3]
	off := 4
	ehPtr, n, ok := ehPEValue(hdr, off, ptrEnc, hdrAddr, true)
	if !ok {
		return nil, bad(off, "cannot read eh_frame_ptr with encoding %#x", ptrEnc)
	}
	if ehPtr != ehAddr {
		return nil, bad(off, "eh_frame_ptr %#x is not the address of .eh_frame (%#x)", ehPtr, ehAddr)
	}
	off += n
	if countEnc&ehPEApplication != ehPEAbsptr {
		return nil, bad(off, "unsupported fde_count encoding %#x", countEnc)
	}
	count, n, ok := ehPEValue(hdr, off, countEnc, hdrAddr, false)
	if !ok {
		return nil, bad(off, "cannot read fde_count with encoding %#x", countEnc)
	}
	off += n
	if tableEnc == ehPEOmit || count == 0 {
		return nil, bad(off, "no search table")
	}
	h := &ehHdrTable{ehAddr: ehAddr}
	h.size, h.signed = ehPESize(tableEnc)
	switch {
	case h.size != 4 && h.size != 8, tableEnc&^(ehPEFormat|ehPEApplication) != 0:
		return nil, bad(3, "unsupported table encoding %#x", tableEnc)
	case tableEnc&ehPEApplication == ehPEDataRel:
		h.base = hdrAddr
	case tableEnc&ehPEApplication != ehPEAbsptr:
		return nil, bad(3, "unsupported table encoding %#x", tableEnc)
	}
	if count > uint64(len(hdr)-off)/uint64(2*h.size) {
		return nil, bad(off, "fde_count %d does not fit in the section (%#x bytes)", count, len(hdr))
	}
	h.n = int(count)
	h.data = hdr[off : off+2*h.size*h.n]
	if i := h.firstBad(ehSize); i >= 0 {
		if loc := h.loc(i); i > 0 && loc < h.loc(i-1) {
			return nil, bad(off+2*h.size*i, "table entry %d (%#x) is below the one before (%#x)", i, loc, h.loc(i-1))
		}
		return nil, bad(off+2*h.size*i+h.size, "table entry %d: FDE address %#x is not in .eh_frame [%#x, %#x)", i, uint64(h.fdeOff(i))+ehAddr, ehAddr, ehAddr+uint64(ehSize))
	}
	return h, nil
}

// firstBad returns the index of the first entry whose start address is
// below the one before or whose FDE does not lie in an .eh_frame of
// ehSize bytes (0 < ehSize <= 1<<40), or -1. It is one pass over the
// whole table when it is sound, as every table is checked before use:
// the common encoding, datarel|sdata4, gets a loop of its own.
func (h *ehHdrTable) firstBad(ehSize int64) int {
	if ehSize < 8 {
		return 0
	}
	// An FDE has at least its length and CIE pointer: its offset in
	// .eh_frame, as unsigned, is at most lim (negative ones wrap above).
	lim := uint64(ehSize - 8)
	prev := h.loc(0)
	if h.size == 4 && h.signed {
		fdeBase := h.base - h.ehAddr
		i := 0
		for d := h.data; len(d) >= 8; d = d[8:] {
			loc := h.base + uint64(int32(binary.LittleEndian.Uint32(d)))
			fde := fdeBase + uint64(int32(binary.LittleEndian.Uint32(d[4:])))
			if loc < prev || fde > lim {
				return i
			}
			prev = loc
			i++
		}
		return -1
	}
	for i := range h.n {
		loc := h.loc(i)
		if loc < prev || uint64(h.fdeOff(i)) > lim {
			return i
		}
		prev = loc
	}
	return -1
}

// cfiHdrIndex finds the FDEs of an .eh_frame through its .eh_frame_hdr
// table and reads and parses each FDE, and its CIE, on first use. It is
// safe for concurrent use: find holds mu, which the other methods need.
// mu is held across the reads from the file, so concurrent lookups wait
// for each other's I/O: a lookup reads a record or two of a few hundred
// bytes, and finer locking would not pay for itself.
type cfiHdrIndex struct {
	tab     *ehHdrTable
	eh      io.ReaderAt // .eh_frame, ehSize bytes
	ehSize  int64
	ehAddr  uint64
	machine elf.Machine
	bias    uint64

	mu   sync.Mutex
	cies map[int64]*cfiHdrCIE      // by byte offset in .eh_frame
	fdes map[int64]cfiHdrParsedFDE // by byte offset in .eh_frame
	// nonZero caches the lowest start address above 0 of a non-empty FDE
	// (for the FDEs at address 0 that overlap real ones, see sortFDEs).
	nonZero struct {
		done, ok bool
		begin    uint64
	}
	// stale is set once the table is found to disagree with .eh_frame, or
	// a lookup needs more than cfiHdrMaxWalk of its entries; lookups then
	// use all, every FDE of .eh_frame parsed by parseCFI.
	stale  bool
	all    *cfiTable
	allErr error
}

// cfiHdrParsedFDE is the outcome of parsing one FDE.
type cfiHdrParsedFDE struct {
	fde *cfiFDE
	err error
}

// cfiHdrCIE is a CIE read for the FDEs that use it: its bytes, and its
// conversion once Delve's parser has read it.
type cfiHdrCIE struct {
	rec cfiRecord
	raw []byte
	cie *cfiCIE
}

// errCFIHdrStale marks an .eh_frame_hdr table entry that does not lead to
// an FDE starting at the entry's address.
var errCFIHdrStale = errors.New(".eh_frame_hdr does not match .eh_frame")

// errCFIHdrLongWalk marks a lookup that would look at more than
// cfiHdrMaxWalk table entries.
var errCFIHdrLongWalk = errors.New("too many empty or dropped FDEs in .eh_frame_hdr")

// cfiHdrMaxWalk bounds the table entries one lookup looks at: the entries
// with the start address found and, while the eager table would drop all
// of their FDEs (empty ones, or FDEs at address 0 overlapping real ones),
// the groups below; and the entries firstNonZero goes through. Linkers
// leave a few such FDEs; a table with runs longer than this, which would
// make every lookup in them read and parse that many FDEs, is served by
// parsing all of .eh_frame once instead.
const cfiHdrMaxWalk = 256

// loadCFIIndex returns a table of f's .eh_frame (f loaded with the given
// bias) that finds FDEs through .eh_frame_hdr and parses them on first
// use, for lookups at single PCs. When the file has no such index it can
// use it returns nil and an error saying why: no .eh_frame or
// .eh_frame_hdr, a .debug_frame (whose FDEs win over .eh_frame's, which
// only the eager table sorts out), a big-endian file, an .eh_frame that
// runs past the end of the file, an unsupported or malformed header. That
// error is not fatal: loadCFI's table serves the lookups then, and reports
// whatever is wrong with the CFI itself.
func loadCFIIndex(f *elf.File, bias uint64) (*cfiTable, error) {
	if f.ByteOrder != binary.LittleEndian {
		return nil, errors.New("big-endian file")
	}
	if s := f.Section(SectionDebugFrame); s != nil && s.Type != elf.SHT_NOBITS && s.Size > 0 {
		return nil, fmt.Errorf("the file has %s", SectionDebugFrame)
	}
	section := func(name string) (*elf.Section, error) {
		s := f.Section(name)
		if s == nil || s.Type == elf.SHT_NOBITS || s.Size == 0 {
			return nil, fmt.Errorf("no %s", name)
		}
		if s.Flags&elf.SHF_COMPRESSED != 0 || s.Size > 1<<40 {
			return nil, fmt.Errorf("%s is compressed or too large (%#x bytes)", name, s.Size)
		}
		return s, nil
	}
	eh, err := section(SectionEHFrame)
	if err != nil {
		return nil, err
	}
	// debug/elf does not check that a section lies in the file: a size
	// beyond its end would have the lookups read (and allocate) for bytes
	// that are not there. The last byte must be readable.
	var last [1]byte
	if n, err := eh.ReadAt(last[:], int64(eh.Size-1)); n != 1 {
		return nil, fmt.Errorf("%s (%#x bytes at file offset %#x) runs past the end of the file: %v", SectionEHFrame, eh.Size, eh.Offset, err)
	}
	hs, err := section(SectionEHFrameHdr)
	if err != nil {
		return nil, err
	}
	// The table is read whole, to be checked; .eh_frame a record at a time.
	hdr, err := hs.Data()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", SectionEHFrameHdr, err)
	}
	return newCFIHdrIndex(hdr, hs.Addr, eh, int64(eh.Size), eh.Addr, f.Machine, bias)
}

// newCFIHdrIndex returns a lazy table over the .eh_frame of ehSize bytes
// read from eh and mapped at the link-time address ehAddr, indexed by the
// .eh_frame_hdr bytes hdr at hdrAddr, of a little-endian file for machine
// loaded with bias. Errors are *CFIErrors (parseEHFrameHdr).
func newCFIHdrIndex(hdr []byte, hdrAddr uint64, eh io.ReaderAt, ehSize int64, ehAddr uint64, machine elf.Machine, bias uint64) (*cfiTable, error) {
	if ehAddr == 0 || ehSize < 0 || ehSize > 1<<40 || ehAddr+uint64(ehSize) < ehAddr {
		return nil, &CFIError{Section: SectionEHFrame, Off: -1, Msg: fmt.Sprintf("section of %#x bytes at address %#x", ehSize, ehAddr)}
	}
	h, err := parseEHFrameHdr(hdr, hdrAddr, ehAddr, ehSize)
	if err != nil {
		return nil, err
	}
	t := newCFITable(machine, bias)
	t.hdr = &cfiHdrIndex{
		tab: h, eh: eh, ehSize: ehSize, ehAddr: ehAddr, machine: machine, bias: bias,
		cies: map[int64]*cfiHdrCIE{},
		fdes: map[int64]cfiHdrParsedFDE{},
	}
	return t, nil
}

// find returns the FDE covering the link-time address pc, or nil, as the
// eager table's find would. The error is a *CFIError for a malformed record
// on the way (or, once the table has been found stale, anywhere in
// .eh_frame, as loadCFI reports it), or an error reading the file (not a
// *CFIError).
func (x *cfiHdrIndex) find(pc uint64) (*cfiFDE, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if !x.stale {
		f, err := x.search(pc)
		if !errors.Is(err, errCFIHdrStale) && !errors.Is(err, errCFIHdrLongWalk) {
			return f, err
		}
		logrus.Debugf("frames: CFI: %v; parsing all of %s", err, SectionEHFrame)
		x.stale = true
		if eh, err := readEHFrame(x.eh, 0, x.ehSize); err != nil {
			x.allErr = err
		} else {
			x.all, x.allErr = parseCFI(eh, x.ehAddr, nil, x.machine, x.bias)
		}
	}
	if x.allErr != nil {
		return nil, x.allErr
	}
	return x.all.find(pc), nil
}

// search looks pc up in the table: the entries with the greatest start
// address at or below pc, or, when the eager table would drop all of their
// FDEs, those before; errCFIHdrLongWalk past cfiHdrMaxWalk entries.
func (x *cfiHdrIndex) search(pc uint64) (*cfiFDE, error) {
	h := x.tab
	next := sort.Search(h.n, func(i int) bool { return h.loc(i) > pc })
	for hi := next; hi > 0; {
		start := h.loc(hi - 1)
		lo := hi - 1
		for ; lo > 0 && next-lo <= cfiHdrMaxWalk; lo-- {
			if h.loc(lo-1) != start {
				break
			}
		}
		if next-lo > cfiHdrMaxWalk {
			return nil, fmt.Errorf("%w: more than %d entries below %#x", errCFIHdrLongWalk, cfiHdrMaxWalk, pc)
		}
		f, err := x.kept(start, lo, hi)
		if err != nil {
			return nil, err
		}
		if f != nil && pc < f.end {
			return f, nil
		}
		if f != nil {
			break
		}
		hi = lo
	}
	return nil, x.checkGap(next)
}

// checkGap checks, for a PC that no FDE covers, that the FDE of entry i,
// the first above the PC, does start at the entry's address: a table entry
// above its FDE's real start would otherwise hide the FDE from the PCs in
// between. It returns errCFIHdrStale or nil; a malformed FDE there is
// left for lookups in it to report.
func (x *cfiHdrIndex) checkGap(i int) error {
	if i >= x.tab.n {
		return nil
	}
	loc, off := x.tab.entry(i)
	if f, err := x.fdeAt(off); err == nil && f.begin != loc {
		return staleEntry(i, loc, f)
	}
	return nil
}

// staleEntry reports table entry i, for the address loc, leading to the
// FDE f that starts elsewhere.
func staleEntry(i int, loc uint64, f *cfiFDE) error {
	return fmt.Errorf("%w: table entry %d for %#x leads to the FDE at %#x, which starts at %#x", errCFIHdrStale, i, loc, f.off, f.begin)
}

// kept returns the FDE the eager table keeps among those of entries
// [lo, hi), which all start at start: the first in the section that is
// neither empty nor at address 0 overlapping a real FDE; nil if none.
func (x *cfiHdrIndex) kept(start uint64, lo, hi int) (*cfiFDE, error) {
	var best *cfiFDE
	for i := lo; i < hi; i++ {
		off := x.tab.fdeOff(i)
		if best != nil && off > best.off {
			continue
		}
		f, err := x.fdeAt(off)
		if err != nil {
			return nil, err
		}
		if f.begin != start {
			return nil, staleEntry(i, start, f)
		}
		if f.end <= f.begin {
			continue
		}
		if f.begin == 0 {
			nz, ok, err := x.firstNonZero()
			if err != nil {
				return nil, err
			}
			if ok && nz < f.end {
				continue
			}
		}
		best = f
	}
	return best, nil
}

// firstNonZero returns the lowest start address above 0 of a non-empty FDE,
// or ok false when there is none; errCFIHdrLongWalk past cfiHdrMaxWalk
// entries.
func (x *cfiHdrIndex) firstNonZero() (begin uint64, ok bool, err error) {
	if x.nonZero.done {
		return x.nonZero.begin, x.nonZero.ok, nil
	}
	h := x.tab
	first := sort.Search(h.n, func(i int) bool { return h.loc(i) > 0 })
	for i := first; i < h.n; i++ {
		if i-first >= cfiHdrMaxWalk {
			return 0, false, fmt.Errorf("%w: more than %d empty FDEs above address 0", errCFIHdrLongWalk, cfiHdrMaxWalk)
		}
		loc, off := h.entry(i)
		f, err := x.fdeAt(off)
		if err != nil {
			return 0, false, err
		}
		if f.begin != loc {
			return 0, false, staleEntry(i, loc, f)
		}
		if f.end > f.begin {
			x.nonZero.begin, x.nonZero.ok = f.begin, true
			break
		}
	}
	x.nonZero.done = true
	return x.nonZero.begin, x.nonZero.ok, nil
}

// fdeAt returns the FDE at byte offset off of .eh_frame, parsing it on
// first use. x.mu must be held.
func (x *cfiHdrIndex) fdeAt(off int64) (*cfiFDE, error) {
	if p, ok := x.fdes[off]; ok {
		return p.fde, p.err
	}
	f, err := x.parseFDE(off)
	if err != nil && !errors.Is(err, errCFIHdrStale) {
		logrus.Debugf("frames: CFI: %v", err)
	}
	x.fdes[off] = cfiHdrParsedFDE{f, err}
	return f, err
}

// cfiHdrReadAhead is how many bytes of .eh_frame are read for a record
// whose length is not known yet: most CIEs and FDEs fit.
const cfiHdrReadAhead = 128

// cfiHdrChunk is the most bytes of .eh_frame read at once: a section size
// or record length that runs past the end of the file (debug/elf does not
// check section sizes, and a record's length is whatever its first word
// says) then fails once the reads come short, having allocated about what
// the file holds, not what the length claims.
const cfiHdrChunk = 1 << 20

// readEHFrame reads n bytes at byte offset off of the .eh_frame r, in
// chunks of at most cfiHdrChunk bytes. A read that fills its buffer
// counts whatever error comes with it (an io.ReaderAt may return io.EOF
// with a full read at the end of its input). Errors, not *CFIErrors, name
// the section and the offset of the read that failed.
func readEHFrame(r io.ReaderAt, off, n int64) ([]byte, error) {
	b := make([]byte, 0, min(n, cfiHdrChunk))
	for at := int64(0); at < n; {
		k := min(n-at, cfiHdrChunk)
		b = slices.Grow(b, int(k))[:at+k]
		if got, err := r.ReadAt(b[at:], off+at); int64(got) < k {
			if err == nil {
				err = io.ErrUnexpectedEOF
			}
			return nil, fmt.Errorf("%s: reading %#x bytes at byte %#x: %w", SectionEHFrame, k, off+at, err)
		}
		at += k
	}
	return b, nil
}

// recordAt reads the record at byte offset off of .eh_frame: its header,
// checked as walkCFI does (a *CFIError at off), and its bytes. A zero
// length word (a terminator, or padding) gives a record ending at off.
// Errors reading the file are not *CFIErrors.
func (x *cfiHdrIndex) recordAt(off int64) (cfiRecord, []byte, error) {
	if off < 0 || off >= x.ehSize {
		return cfiRecord{}, nil, &CFIError{Section: SectionEHFrame, Off: off, Msg: "truncated record length"}
	}
	b, err := readEHFrame(x.eh, off, min(cfiHdrReadAhead, x.ehSize-off))
	if err != nil {
		return cfiRecord{}, nil, err
	}
	if len(b) >= 4 && binary.LittleEndian.Uint32(b) == 0 {
		return cfiRecord{off: off, end: off}, nil, nil
	}
	r, err := cfiRecordHead(SectionEHFrame, b[:min(8, len(b))], off, x.ehSize, true)
	if err != nil {
		return cfiRecord{}, nil, err
	}
	if n := r.end - off; n <= int64(len(b)) {
		return r, b[:n:n], nil
	}
	if b, err = readEHFrame(x.eh, off, r.end-off); err != nil {
		return cfiRecord{}, nil, err
	}
	return r, b, nil
}

// cieAt returns the CIE at byte offset off of .eh_frame, for the FDE at
// fdeOff, reading it on first use; nil, nil when there is no CIE there
// that Delve's parser would have seen before the FDE.
func (x *cfiHdrIndex) cieAt(off, fdeOff int64) (*cfiHdrCIE, error) {
	if c := x.cies[off]; c != nil {
		return c, nil
	}
	if off < 0 || off >= fdeOff {
		return nil, nil
	}
	r, raw, err := x.recordAt(off)
	if err != nil {
		return nil, err
	}
	if r.end == off || !r.cie || r.end > fdeOff {
		return nil, nil
	}
	c := &cfiHdrCIE{rec: r, raw: raw}
	x.cies[off] = c
	return c, nil
}

// parseFDE reads and parses the FDE at byte offset off of .eh_frame, and
// its CIE, with Delve's dwframe.Parse. Errors are errCFIHdrStale when
// there is no FDE at off, else the *CFIError the eager parse
// (parseCFISection) reports for the FDE or its CIE, or an error reading
// the file.
func (x *cfiHdrIndex) parseFDE(off int64) (*cfiFDE, error) {
	r, fdeRaw, err := x.recordAt(off)
	if err != nil {
		return nil, err
	}
	if r.end == off || r.cie {
		return nil, fmt.Errorf("%w: a table entry leads to the CIE or terminator at %#x", errCFIHdrStale, off)
	}
	c, err := x.cieAt(r.cieOff, off)
	if err != nil {
		return nil, err
	}
	if c == nil || c.rec.end > off {
		// Delve's message: it knows only the CIEs before the FDE.
		return nil, &CFIError{Section: SectionEHFrame, Off: off, Msg: fmt.Sprintf("unknown CIE_id %#x at %#x", uint32(r.cieOff), off)}
	}

	// The CIE at offset 0 of buf, the FDE after it, pointing back to it.
	fo := int64(len(c.raw))
	buf := make([]byte, 0, len(c.raw)+len(fdeRaw))
	buf = append(append(buf, c.raw...), fdeRaw...)
	binary.LittleEndian.PutUint32(buf[fo+4:], uint32(fo+4))
	buf, augs := cfiPatchAugmentations(buf, []cfiRecord{{off: 0, cie: true, end: fo}, {off: fo, end: int64(len(buf))}})
	// The FDE at fo in buf is at ehAddr+off: pc-relative pointers come out
	// the same as in the whole section. Not 0 (which would make Delve read
	// .debug_frame): fo <= off, and newCFIHdrIndex checked for overflow.
	addr := x.ehAddr + uint64(off-fo)
	entries, err := delveParse(buf, addr)
	if err != nil {
		// As parseCFISection finds the record at fault.
		at := off
		if _, cerr := delveParse(buf[:fo], addr); cerr != nil {
			at = c.rec.off
		}
		// Delve quotes the end of a CIE it rejects (fo here), and the
		// start of an FDE whose CIE it does not know, which cannot
		// happen here (the FDE points to the CIE at 0).
		inSection := func(p int64) int64 {
			if p <= fo {
				return c.rec.off + p
			}
			return off + p - fo
		}
		return nil, &CFIError{Section: SectionEHFrame, Off: at, Msg: cfiHdrDelveMsg(err.Error(), inSection)}
	}
	if len(entries) != 1 || entries[0].CIE == nil || uint64(entries[0].Length) != uint64(r.end-r.off-8) {
		return nil, &CFIError{Section: SectionEHFrame, Off: off, Msg: "FDE does not match Delve's parse"}
	}
	d := entries[0]
	if c.cie == nil {
		// newCFICIE reads data only for .debug_frame.
		if c.cie, err = newCFICIE(SectionEHFrame, nil, c.rec.off, d.CIE, augs[0], x.machine); err != nil {
			return nil, err
		}
	}
	return &cfiFDE{begin: d.Begin(), end: d.End(), sec: SectionEHFrame, off: off, cie: c.cie, instr: d.Instructions, delve: d}, nil
}

// cfiHdrDelveMsg returns Delve's error message msg with the offset it
// quotes (" at 0x…", a byte offset in the buffer Delve parsed) replaced by
// inSection's offset in .eh_frame for it.
func cfiHdrDelveMsg(msg string, inSection func(int64) int64) string {
	const mark = " at 0x"
	i := strings.LastIndex(msg, mark)
	if i < 0 {
		return msg
	}
	j := i + len(mark)
	k := j
	for k < len(msg) && strings.IndexByte("0123456789abcdef", msg[k]) >= 0 {
		k++
	}
	p, err := strconv.ParseInt(msg[j:k], 16, 64)
	if err != nil {
		return msg
	}
	return fmt.Sprintf("%s at %#x%s", msg[:i], inSection(p), msg[k:])
}
