package frames

// DWARF CFI: the reference unwinder that SFrame is checked against.
//
// CIEs and FDEs of .eh_frame and .debug_frame are parsed by Delve's
// pkg/dwarf/frame (dwframe.Parse), DWARF expressions are evaluated by Delve's
// pkg/dwarf/op (op.ExecuteStackProgram). The call frame instructions
// (DWARF 5 §6.4.2) are interpreted here, once per FDE, into the complete
// row table of the FDE: Delve's FrameDescriptionEntry.EstablishFrame
// re-executes the CIE and FDE programs for every PC asked, does not expose
// where a row starts or ends (FrameContext's location is unexported), and
// gets two rules wrong that real code uses: DW_CFA_restore and
// DW_CFA_restore_extended turn the register's rule into "undefined" (the
// CIE's initial rules are never recorded), and DW_CFA_val_offset ignores
// the data alignment factor. glibc's libc.so.6 alone has ~300
// DW_CFA_restore instructions. The row tables are checked against
// EstablishFrame at every row in cfi_test.go wherever the two must agree,
// and against GNU readelf's interpreter (--debug-dump=frames-interp).
//
// Lookups at single PCs (CFIRow, CFIUnwinder) find FDEs through
// .eh_frame_hdr and parse only those (cfi_hdr.go) when the file has a
// usable .eh_frame_hdr and no .debug_frame; otherwise, and for the checks
// over whole modules (CFIRows, CFIFDEs), all of the CFI is parsed once.

import (
	"bytes"
	"cmp"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	dwframe "github.com/go-delve/delve/pkg/dwarf/frame"
	"github.com/go-delve/delve/pkg/dwarf/op"
	"github.com/sirupsen/logrus"

	"github.com/sfdbg/sfdbg/sframe"
)

// CFI section names, as they appear in Row.Source and CFIError.
const (
	SectionEHFrame    = ".eh_frame"
	SectionDebugFrame = ".debug_frame"
)

// CFIError reports malformed DWARF CFI: a record of Section at byte offset
// Off (the offset of the CIE or FDE that holds the fault) or, when Off is
// negative, the section as a whole.
type CFIError struct {
	Section string
	Off     int64
	Msg     string
	// Unsupported is set when the CFI may well be valid but uses a form
	// this reader does not handle (big-endian, 64-bit DWARF); errors.Is(err,
	// ErrUnsupportedCFI) tests it.
	Unsupported bool
}

// ErrUnsupportedCFI matches CFIErrors for CFI in a form sfdbg cannot read.
var ErrUnsupportedCFI = errors.New("unsupported DWARF CFI")

// Is makes errors.Is(err, ErrUnsupportedCFI) true for unsupported forms.
func (e *CFIError) Is(target error) bool { return target == ErrUnsupportedCFI && e.Unsupported }

func (e *CFIError) Error() string {
	if e.Off < 0 {
		return fmt.Sprintf("%s: %s", e.Section, e.Msg)
	}
	return fmt.Sprintf("%s at byte %#x: %s", e.Section, e.Off, e.Msg)
}

// CFIFDE describes one FDE of a module's CFI: the runtime PC range
// [Start, End) it covers, where it is (Source, as in Row.Source) and whether
// its CIE marks a signal frame (augmentation "S").
type CFIFDE struct {
	Start, End uint64
	Source     string
	Signal     bool
}

// cfiCIE is a CIE as the interpreter needs it.
type cfiCIE struct {
	sec       string
	aarch64   bool  // DW_CFA 0x2d is AArch64's negate_ra_state
	off       int64 // byte offset in its section
	signal    bool  // augmentation "S"
	raReg     sframe.Reg
	codeAlign uint64
	dataAlign int64
	initial   []byte // initial instructions

	once    sync.Once
	init    cfiState // the rules after the initial instructions
	initErr error
}

// cfiFDE is one FDE, at link-time addresses.
type cfiFDE struct {
	begin, end uint64
	sec        string
	off        int64
	cie        *cfiCIE
	instr      []byte
	delve      *dwframe.FrameDescriptionEntry // for cross-checks in tests

	once sync.Once
	rows []Row // runtime addresses, sorted, contiguous from begin to end
	err  error
}

// src returns the Source of the FDE's rows (Module is set at lookup).
func (f *cfiFDE) src(bias uint64) Source {
	return Source{Method: MethodCFI, Section: f.sec, FDE: f.off, CIE: f.cie.off, FRE: -1,
		FDEStart: f.begin + bias, FDEEnd: f.end + bias}
}

// source names the FDE as Source.String does.
func (f *cfiFDE) source() string { return f.src(0).String() }

// cfiTable is a module's DWARF CFI: the FDEs of .eh_frame and .debug_frame
// sorted by start address (link-time), each with its row table built on
// first use; or, when hdr is set, the FDEs of .eh_frame found through
// .eh_frame_hdr and parsed one at a time as PCs are looked up.
type cfiTable struct {
	bias uint64
	fdes []*cfiFDE // empty when hdr is set
	// fpReg is the DWARF number of the frame pointer, whose rule goes to
	// Row.FP: RBP on AMD64 (the default), x29 on AArch64.
	fpReg sframe.Reg
	// foreign is set for files of another architecture than AMD64: their
	// rows are available, but CFIUnwinder does not step with them.
	foreign bool
	// hdr finds and parses FDEs on demand (cfi_hdr.go); such a table
	// serves lookups at single PCs (lookup, row), not walks over fdes.
	hdr *cfiHdrIndex
	// spOffset is the caller's SP relative to the CFA for registers
	// without a rule (sframe.ABI.SPValOffset: -160 on s390x, else 0).
	spOffset int64
}

// newCFITable returns an empty table for a file of the given machine.
func newCFITable(machine elf.Machine, bias uint64) *cfiTable {
	t := &cfiTable{bias: bias, fpReg: RBP}
	switch machine {
	case elf.EM_X86_64:
	case elf.EM_AARCH64:
		t.fpReg, t.foreign = sframe.AArch64RegFP, true
	case elf.EM_S390:
		t.spOffset, t.foreign = sframe.ABIS390XBigEndian.SPValOffset(), true
	default:
		t.foreign = true
	}
	return t
}

// loadCFI reads the DWARF CFI of an ELF file loaded with the given bias
// (runtime address = link-time address + bias): .eh_frame and .debug_frame,
// both when present (.debug_frame wins where both describe a function, as
// in gdb). It returns nil, nil when the file has neither section, and an
// error (a *CFIError for malformed data) when no section could be parsed;
// a section that fails while the other parses is logged and skipped.
func loadCFI(f *elf.File, bias uint64) (*cfiTable, error) {
	var eh, dbg []byte
	var ehAddr uint64
	if s := f.Section(SectionEHFrame); s != nil && s.Type != elf.SHT_NOBITS && s.Size > 0 {
		data, err := s.Data()
		if err != nil {
			return nil, fmt.Errorf("%s: reading %#x bytes at file offset %#x: %w", SectionEHFrame, s.FileSize, s.Offset, err)
		}
		eh, ehAddr = data, s.Addr
	}
	if s := f.Section(SectionDebugFrame); s != nil && s.Type != elf.SHT_NOBITS && s.Size > 0 {
		data, err := s.Data() // decompresses SHF_COMPRESSED sections
		if err != nil {
			return nil, fmt.Errorf("%s: reading %#x bytes at file offset %#x: %w", SectionDebugFrame, s.FileSize, s.Offset, err)
		}
		dbg = data
	}
	if eh == nil && dbg == nil {
		return nil, nil
	}
	if f.ByteOrder != binary.LittleEndian {
		// Delve's parser reads record lengths little-endian.
		return nil, &CFIError{Section: SectionEHFrame, Off: -1, Msg: "big-endian CFI is not supported", Unsupported: true}
	}
	return parseCFI(eh, ehAddr, dbg, f.Machine, bias)
}

// parseCFI builds a table from the bytes of .eh_frame (mapped at link-time
// address ehAddr) and .debug_frame, either of which may be nil, of a
// little-endian file for machine.
func parseCFI(eh []byte, ehAddr uint64, dbg []byte, machine elf.Machine, bias uint64) (*cfiTable, error) {
	t := newCFITable(machine, bias)
	var errs []error
	parsed := 0
	// .debug_frame first: at equal start addresses the stable sort keeps
	// its FDE in front and the duplicate from .eh_frame is dropped.
	for _, s := range []struct {
		name string
		data []byte
		addr uint64
	}{{SectionDebugFrame, dbg, 0}, {SectionEHFrame, eh, ehAddr}} {
		if s.data == nil {
			continue
		}
		fdes, err := parseCFISection(s.name, s.data, s.addr, machine)
		if err != nil {
			logrus.Debugf("frames: CFI: %v", err)
			errs = append(errs, err)
			continue
		}
		parsed++
		t.fdes = append(t.fdes, fdes...)
	}
	if parsed == 0 {
		return nil, errors.Join(errs...)
	}
	t.sortFDEs()
	return t, nil
}

// sortFDEs sorts the FDEs by start address and drops empty FDEs, duplicates
// (same start address: the first kept) and, as gdb does, FDEs at address 0
// that overlap real ones (left over by linkers for discarded functions).
func (t *cfiTable) sortFDEs() {
	slices.SortStableFunc(t.fdes, func(a, b *cfiFDE) int { return cmp.Compare(a.begin, b.begin) })
	var firstNonZero *cfiFDE
	for _, f := range t.fdes {
		if f.begin != 0 && f.end > f.begin {
			firstNonZero = f
			break
		}
	}
	out := t.fdes[:0]
	for _, f := range t.fdes {
		if f.end <= f.begin {
			continue
		}
		if f.begin == 0 && firstNonZero != nil && firstNonZero.begin < f.end {
			continue
		}
		if n := len(out); n > 0 && out[n-1].begin == f.begin {
			continue
		}
		out = append(out, f)
	}
	t.fdes = out
}

// cfiRecord is the position of one CIE or FDE in its section.
type cfiRecord struct {
	off    int64
	cie    bool
	cieOff int64 // FDEs: the offset of their CIE
	end    int64 // offset just past the record
}

// walkCFI lists the records of a CFI section, checking that each lies
// within the section; Delve's parser trusts the lengths.
func walkCFI(sec string, data []byte, eh bool) ([]cfiRecord, error) {
	var recs []cfiRecord
	size := int64(len(data))
	for off := int64(0); off < size; {
		if size-off >= 4 && binary.LittleEndian.Uint32(data[off:]) == 0 {
			off += 4 // terminator or padding
			continue
		}
		r, err := cfiRecordHead(sec, data[off:min(off+8, size)], off, size, eh)
		if err != nil {
			return nil, err
		}
		recs = append(recs, r)
		off = r.end
	}
	return recs, nil
}

// cfiRecordHead reads the length and CIE id (or CIE pointer) of the record
// at byte offset off of a CFI section (.eh_frame when eh is set) of size
// bytes, given head, the section's bytes from off on (8 of them, or fewer
// at the end of the section), checking that the record lies within the
// section. Errors are *CFIErrors at off; a zero length (a terminator) is
// an error here.
func cfiRecordHead(sec string, head []byte, off, size int64, eh bool) (cfiRecord, error) {
	if len(head) < 4 {
		return cfiRecord{}, &CFIError{Section: sec, Off: off, Msg: "truncated record length"}
	}
	length := int64(binary.LittleEndian.Uint32(head))
	if length == 0xffffffff {
		return cfiRecord{}, &CFIError{Section: sec, Off: off, Msg: "64-bit DWARF CFI is not supported", Unsupported: true}
	}
	end := off + 4 + length
	if length < 4 || end > size || len(head) < 8 {
		return cfiRecord{}, &CFIError{Section: sec, Off: off, Msg: fmt.Sprintf("record length %#x runs past the end of the section (%#x bytes)", length, size)}
	}
	id := binary.LittleEndian.Uint32(head[4:])
	r := cfiRecord{off: off, end: end}
	switch {
	case eh && id == 0, !eh && id == 0xffffffff:
		r.cie = true
	case eh:
		r.cieOff = off + 4 - int64(id)
	default:
		r.cieOff = int64(id)
	}
	return r, nil
}

// cfiPatchAugmentations returns data with the AArch64 augmentation
// characters 'B' (PAuth B key) and 'G' (MTE), which carry no augmentation
// data but which Delve's parser rejects, replaced by 'S' in a copy, and the
// original augmentation strings of the CIEs it changed, by offset.
func cfiPatchAugmentations(data []byte, recs []cfiRecord) ([]byte, map[int64]string) {
	var augs map[int64]string
	for _, r := range recs {
		if !r.cie || r.end-r.off < 10 {
			continue
		}
		aug := data[r.off+9 : r.end]
		if i := bytes.IndexByte(aug, 0); i >= 0 {
			aug = aug[:i]
		}
		if !bytes.ContainsAny(aug, "BG") {
			continue
		}
		if augs == nil {
			augs = map[int64]string{}
			data = append([]byte(nil), data...)
		}
		augs[r.off] = string(aug)
		for i, ch := range aug {
			if ch == 'B' || ch == 'G' {
				data[r.off+9+int64(i)] = 'S'
			}
		}
	}
	return data, augs
}

// parseCFISection parses one section with Delve's dwframe.Parse, behind
// recover, and pairs each FDE with its offset.
func parseCFISection(sec string, data []byte, addr uint64, machine elf.Machine) (fdes []*cfiFDE, err error) {
	eh := sec == SectionEHFrame
	if eh && addr == 0 {
		// dwframe.Parse tells .eh_frame from .debug_frame by a non-zero address.
		return nil, &CFIError{Section: sec, Off: -1, Msg: "section at address 0 (not a linked file)"}
	}
	recs, err := walkCFI(sec, data, eh)
	if err != nil {
		return nil, err
	}
	data, augs := cfiPatchAugmentations(data, recs)
	entries, err := delveParse(data, addr)
	if err != nil {
		// Find the record at fault: the shortest run of whole records
		// from the start that Delve cannot parse ends with it.
		off := int64(-1)
		if i := sort.Search(len(recs), func(i int) bool {
			_, err := delveParse(data[:recs[i].end], addr)
			return err != nil
		}); i < len(recs) {
			off = recs[i].off
		}
		return nil, &CFIError{Section: sec, Off: off, Msg: err.Error()}
	}
	var fdeRecs []cfiRecord
	for _, r := range recs {
		if !r.cie {
			fdeRecs = append(fdeRecs, r)
		}
	}
	if len(fdeRecs) != len(entries) {
		return nil, &CFIError{Section: sec, Off: -1, Msg: fmt.Sprintf("found %d FDEs, Delve's parser %d", len(fdeRecs), len(entries))}
	}
	cies := map[*dwframe.CommonInformationEntry]*cfiCIE{}
	fdes = make([]*cfiFDE, 0, len(entries))
	store := make([]cfiFDE, len(entries)) // one allocation for all FDEs
	for i, d := range entries {
		r := fdeRecs[i]
		if d.CIE == nil || uint64(d.Length) != uint64(r.end-r.off-8) {
			return nil, &CFIError{Section: sec, Off: r.off, Msg: "FDE does not match Delve's parse"}
		}
		c := cies[d.CIE]
		if c == nil {
			c, err = newCFICIE(sec, data, r.cieOff, d.CIE, augs[r.cieOff], machine)
			if err != nil {
				return nil, err
			}
			cies[d.CIE] = c
		}
		f := &store[i]
		f.begin, f.end, f.sec, f.off, f.cie, f.instr, f.delve = d.Begin(), d.End(), sec, r.off, c, d.Instructions, d
		fdes = append(fdes, f)
	}
	return fdes, nil
}

// delveParse runs Delve's frame.Parse (link-time addresses, 8-byte
// pointers; .eh_frame when addr is not 0) behind recover.
func delveParse(data []byte, addr uint64) (entries dwframe.FrameDescriptionEntries, err error) {
	defer func() {
		if r := recover(); r != nil {
			entries, err = nil, fmt.Errorf("malformed CFI (Delve's parser panicked: %v)", r)
		}
	}()
	return dwframe.Parse(data, binary.LittleEndian, 0, 8, addr)
}

// newCFICIE converts a CIE parsed by Delve. Delve does not know the
// address_size and segment_selector_size fields of version 4 CIEs
// (.debug_frame from DWARF 5 producers such as LLVM), so those are decoded
// here from the record at off.
func newCFICIE(sec string, data []byte, off int64, d *dwframe.CommonInformationEntry, aug string, machine elf.Machine) (*cfiCIE, error) {
	if aug == "" {
		aug = d.Augmentation
	}
	c := &cfiCIE{
		sec:       sec,
		off:       off,
		aarch64:   machine == elf.EM_AARCH64,
		signal:    strings.Contains(aug, "S"),
		codeAlign: d.CodeAlignmentFactor,
		dataAlign: d.DataAlignmentFactor,
		initial:   d.InitialInstructions,
	}
	ra := d.ReturnAddressRegister
	if sec == SectionDebugFrame && d.Version == 4 {
		if off < 0 || off+12 > int64(len(data)) {
			return nil, &CFIError{Section: sec, Off: off, Msg: "truncated CIE"}
		}
		end := off + 4 + int64(binary.LittleEndian.Uint32(data[off:]))
		cur := cfiCursor{b: data[off+9 : end]} // after length, id, version
		for cur.u8() != 0 && cur.err == nil {  // augmentation string
		}
		addrSize, segSize := cur.u8(), cur.u8()
		c.codeAlign, c.dataAlign, ra = cur.uleb(), cur.sleb(), cur.uleb()
		if cur.err != nil || addrSize != 8 || segSize != 0 {
			return nil, &CFIError{Section: sec, Off: off, Msg: fmt.Sprintf("unsupported version 4 CIE (address size %d, segment selector size %d)", addrSize, segSize)}
		}
		c.initial = cur.b[cur.i:]
	}
	if ra >= 1<<15 {
		return nil, &CFIError{Section: sec, Off: off, Msg: fmt.Sprintf("return address register %d out of range", ra)}
	}
	c.raReg = sframe.Reg(ra)
	return c, nil
}

// find returns the FDE of fdes covering the link-time address pc, or nil.
func (t *cfiTable) find(pc uint64) *cfiFDE {
	i := sort.Search(len(t.fdes), func(i int) bool { return t.fdes[i].begin > pc })
	if i > 0 && pc < t.fdes[i-1].end {
		return t.fdes[i-1]
	}
	return nil
}

// lookup returns the FDE covering the link-time address pc, or nil: from
// fdes, or through hdr, which parses the FDE on first use and returns an
// error (a *CFIError) when it is malformed.
func (t *cfiTable) lookup(pc uint64) (*cfiFDE, error) {
	if t.hdr != nil {
		return t.hdr.find(pc)
	}
	return t.find(pc), nil
}

// row returns the CFI row at the link-time address pc with runtime
// Start/End. The error is nil, errCFINoFDE, errCFINoRow or a *CFIError.
func (t *cfiTable) row(pc uint64) (Row, error) {
	f, err := t.lookup(pc)
	if err != nil {
		return Row{}, err
	}
	if f == nil {
		return Row{}, errCFINoFDE
	}
	return t.rowIn(f, pc)
}

// rowIn returns the row of f at link-time pc.
func (t *cfiTable) rowIn(f *cfiFDE, pc uint64) (Row, error) {
	rows, err := t.rowsOf(f)
	if err != nil {
		return Row{}, err
	}
	rt := pc + t.bias
	i := sort.Search(len(rows), func(i int) bool { return rows[i].End > rt })
	if i == len(rows) || rows[i].Start > rt {
		return Row{}, errCFINoRow
	}
	return rows[i], nil
}

var (
	errCFINoFDE = errors.New("no FDE covers the PC")
	errCFINoRow = errors.New("the FDE has no row for the PC")
)

// rowsOf returns f's row table, building it on first use.
func (t *cfiTable) rowsOf(f *cfiFDE) ([]Row, error) {
	f.once.Do(func() {
		f.rows, f.err = t.buildRows(f)
		if f.err != nil {
			logrus.Debugf("frames: CFI: %v", f.err)
		}
	})
	return f.rows, f.err
}

// cfiRegRule is the rule of one register in a row being built.
type cfiRegRule struct {
	reg  sframe.Reg
	rule sframe.Rule
}

// cfiState is the row being built by the interpreter: the CFA rule and the
// registers that have a rule (in the order they got one).
type cfiState struct {
	cfa  sframe.Rule
	regs []cfiRegRule
}

func (s *cfiState) clone() cfiState {
	return cfiState{cfa: s.cfa, regs: append([]cfiRegRule(nil), s.regs...)}
}

func (s *cfiState) get(reg sframe.Reg) (sframe.Rule, bool) {
	for _, r := range s.regs {
		if r.reg == reg {
			return r.rule, true
		}
	}
	return sframe.Rule{}, false
}

func (s *cfiState) set(reg sframe.Reg, rule sframe.Rule) {
	for i := range s.regs {
		if s.regs[i].reg == reg {
			s.regs[i].rule = rule
			return
		}
	}
	s.regs = append(s.regs, cfiRegRule{reg, rule})
}

func (s *cfiState) unset(reg sframe.Reg) {
	for i := range s.regs {
		if s.regs[i].reg == reg {
			s.regs = append(s.regs[:i], s.regs[i+1:]...)
			return
		}
	}
}

// cfiCursor reads call frame instructions with a sticky error and never
// reads past its slice.
type cfiCursor struct {
	b   []byte
	i   int
	err error
}

var errCFITruncated = errors.New("truncated instruction")

func (c *cfiCursor) more() bool { return c.err == nil && c.i < len(c.b) }

func (c *cfiCursor) u8() byte {
	if c.err != nil || c.i >= len(c.b) {
		c.err = errCFITruncated
		return 0
	}
	c.i++
	return c.b[c.i-1]
}

func (c *cfiCursor) fixed(n int) uint64 {
	if c.err != nil || len(c.b)-c.i < n {
		c.err = errCFITruncated
		return 0
	}
	var v uint64
	for k := n - 1; k >= 0; k-- {
		v = v<<8 | uint64(c.b[c.i+k])
	}
	c.i += n
	return v
}

func (c *cfiCursor) uleb() uint64 {
	var v uint64
	for shift := uint(0); ; shift += 7 {
		b := c.u8()
		if c.err != nil {
			return 0
		}
		if shift < 64 {
			v |= uint64(b&0x7f) << shift
		}
		if b&0x80 == 0 {
			return v
		}
	}
}

func (c *cfiCursor) sleb() int64 {
	var v int64
	var shift uint
	for {
		b := c.u8()
		if c.err != nil {
			return 0
		}
		if shift < 64 {
			v |= int64(b&0x7f) << shift
		}
		shift += 7
		if b&0x80 == 0 {
			if shift < 64 && b&0x40 != 0 {
				v |= -1 << shift
			}
			return v
		}
	}
}

func (c *cfiCursor) block() []byte {
	n := c.uleb()
	if c.err != nil || n > uint64(len(c.b)-c.i) {
		c.err = errCFITruncated
		return nil
	}
	b := c.b[c.i : c.i+int(n)]
	c.i += int(n)
	return b
}

func (c *cfiCursor) reg() sframe.Reg {
	r := c.uleb()
	if c.err == nil && r >= 1<<15 {
		c.err = fmt.Errorf("register %d out of range", r)
	}
	return sframe.Reg(r)
}

// Call frame instructions Delve's frame package does not name.
const (
	cfaGNUWindowSave             = 0x2d
	cfaGNUNegativeOffsetExtended = 0x2f
)

// cfiInterp interprets call frame instructions (DWARF 5 §6.4.2, plus the
// GNU extensions gcc and gas emit).
type cfiInterp struct {
	cie   *cfiCIE
	st    cfiState
	init  *cfiState // the state after the CIE; nil while running the CIE
	stack []cfiState
	loc   uint64
	// advance is called with the new location before an advance takes
	// effect (nil in the CIE, where advances are ignored).
	advance func(to uint64) error
}

// initialState runs the CIE's initial instructions once.
func (c *cfiCIE) initialState() (cfiState, error) {
	c.once.Do(func() {
		in := cfiInterp{cie: c, st: cfiState{}}
		cur := cfiCursor{b: c.initial}
		for cur.more() && c.initErr == nil {
			c.initErr = in.exec(&cur)
		}
		if c.initErr != nil {
			c.initErr = &CFIError{Section: c.sec, Off: c.off, Msg: "CIE initial instructions: " + c.initErr.Error()}
		}
		c.init = in.st
	})
	return c.init, c.initErr
}

// buildRows runs the CIE and FDE programs of f once and records every row
// with the runtime range it covers (DWARF 5 §6.4.3: a row lasts from its
// location to the next advance, the last one to the end of the FDE).
func (t *cfiTable) buildRows(f *cfiFDE) ([]Row, error) {
	init, err := f.cie.initialState()
	if err != nil {
		return nil, err
	}
	in := cfiInterp{cie: f.cie, st: init.clone(), init: &init, loc: f.begin}
	var rows []Row
	start := f.begin
	emit := func(end uint64) {
		end = min(end, f.end)
		if end > start {
			var prev []RegRule
			if n := len(rows); n > 0 {
				prev = rows[n-1].Other
			}
			rows = append(rows, t.toRow(f, &in.st, start, end, prev))
			start = end
		}
	}
	in.advance = func(to uint64) error {
		if to < in.loc {
			return fmt.Errorf("location %#x moves back from %#x", to, in.loc)
		}
		emit(to)
		return nil
	}
	cur := cfiCursor{b: f.instr}
	for cur.more() && in.loc < f.end {
		at := cur.i
		if err := in.exec(&cur); err != nil {
			return nil, &CFIError{Section: f.sec, Off: f.off, Msg: fmt.Sprintf("FDE instruction at +%#x: %v", at, err)}
		}
	}
	emit(f.end)
	return rows, nil
}

// toRow converts the interpreter's state into the common row form. Rows
// mostly save the same other registers as the row before: then the row
// shares prev as its Other slice (Other is read-only for callers).
func (t *cfiTable) toRow(f *cfiFDE, st *cfiState, start, end uint64, prev []RegRule) Row {
	same := sframe.Rule{Kind: sframe.RuleSameValue, Reg: sframe.RegCFA}
	r := Row{Row: sframe.Row{CFA: st.cfa, RA: same, FP: same, Signal: f.cie.signal, SPOffset: t.spOffset},
		Src: f.src(t.bias), Start: start + t.bias, End: end + t.bias}
	var other []RegRule
	for _, rr := range st.regs {
		switch rr.reg {
		case f.cie.raReg:
			r.RA = rr.rule
		case t.fpReg:
			r.FP = rr.rule
		default:
			other = append(other, RegRule{Reg: rr.reg, Rule: rr.rule})
		}
	}
	r.Outermost = r.RA.Kind == sframe.RuleUndefined
	if len(other) == 0 {
		return r
	}
	slices.SortFunc(other, func(a, b RegRule) int { return int(a.Reg) - int(b.Reg) })
	if slices.Equal(other, prev) {
		r.Other = prev
	} else {
		r.Other = other
	}
	return r
}

// restore gives reg its rule from the CIE's initial instructions, or none.
func (in *cfiInterp) restore(reg sframe.Reg) {
	if in.init != nil {
		if r, ok := in.init.get(reg); ok {
			in.st.set(reg, r)
			return
		}
	}
	in.st.unset(reg)
}

// exec executes one call frame instruction.
func (in *cfiInterp) exec(c *cfiCursor) error {
	st, daf := &in.st, in.cie.dataAlign
	opc := c.u8()
	var delta uint64
	isAdvance := false
	switch opc & 0xc0 {
	case dwframe.DW_CFA_advance_loc:
		delta, isAdvance = uint64(opc&0x3f), true
	case dwframe.DW_CFA_offset:
		st.set(sframe.Reg(opc&0x3f), sframe.Rule{Kind: sframe.RuleOffset, Reg: sframe.RegCFA, Offset: int64(c.uleb()) * daf})
	case dwframe.DW_CFA_restore:
		in.restore(sframe.Reg(opc & 0x3f))
	default:
		switch opc {
		case dwframe.DW_CFA_nop:
		case dwframe.DW_CFA_set_loc:
			if in.cie.sec != SectionDebugFrame {
				// .eh_frame encodes the operand with the CIE's pointer
				// encoding, which Delve keeps to itself. Neither gcc nor
				// gas emits DW_CFA_set_loc.
				return errors.New("DW_CFA_set_loc in .eh_frame is not supported")
			}
			to := c.fixed(8)
			if c.err == nil && in.advance != nil {
				if err := in.advance(to); err != nil {
					return err
				}
				in.loc = to
			}
		case dwframe.DW_CFA_advance_loc1:
			delta, isAdvance = c.fixed(1), true
		case dwframe.DW_CFA_advance_loc2:
			delta, isAdvance = c.fixed(2), true
		case dwframe.DW_CFA_advance_loc4:
			delta, isAdvance = c.fixed(4), true
		case dwframe.DW_CFA_offset_extended:
			reg := c.reg()
			st.set(reg, sframe.Rule{Kind: sframe.RuleOffset, Reg: sframe.RegCFA, Offset: int64(c.uleb()) * daf})
		case dwframe.DW_CFA_offset_extended_sf:
			reg := c.reg()
			st.set(reg, sframe.Rule{Kind: sframe.RuleOffset, Reg: sframe.RegCFA, Offset: c.sleb() * daf})
		case cfaGNUNegativeOffsetExtended:
			reg := c.reg()
			st.set(reg, sframe.Rule{Kind: sframe.RuleOffset, Reg: sframe.RegCFA, Offset: -int64(c.uleb()) * daf})
		case dwframe.DW_CFA_restore_extended:
			in.restore(c.reg())
		case dwframe.DW_CFA_undefined:
			st.set(c.reg(), sframe.Rule{Kind: sframe.RuleUndefined, Reg: sframe.RegCFA})
		case dwframe.DW_CFA_same_value:
			st.set(c.reg(), sframe.Rule{Kind: sframe.RuleSameValue, Reg: sframe.RegCFA})
		case dwframe.DW_CFA_register:
			reg := c.reg()
			st.set(reg, sframe.Rule{Kind: sframe.RuleRegister, Reg: c.reg()})
		case dwframe.DW_CFA_remember_state:
			if len(in.stack) >= 1024 {
				return errors.New("DW_CFA_remember_state nested too deep")
			}
			in.stack = append(in.stack, st.clone())
		case dwframe.DW_CFA_restore_state:
			if len(in.stack) == 0 {
				return errors.New("DW_CFA_restore_state without DW_CFA_remember_state")
			}
			*st = in.stack[len(in.stack)-1]
			in.stack = in.stack[:len(in.stack)-1]
		case dwframe.DW_CFA_def_cfa:
			reg := c.reg()
			st.cfa = sframe.Rule{Kind: sframe.RuleValOffset, Reg: reg, Offset: int64(c.uleb())}
		case dwframe.DW_CFA_def_cfa_sf:
			reg := c.reg()
			st.cfa = sframe.Rule{Kind: sframe.RuleValOffset, Reg: reg, Offset: c.sleb() * daf}
		case dwframe.DW_CFA_def_cfa_register:
			// Defined only on a register+offset CFA; like gdb, make any
			// other rule register+offset, keeping the offset.
			reg := c.reg()
			st.cfa = sframe.Rule{Kind: sframe.RuleValOffset, Reg: reg, Offset: st.cfa.Offset}
		case dwframe.DW_CFA_def_cfa_offset:
			off := int64(c.uleb())
			if st.cfa.Kind != sframe.RuleValOffset {
				return errors.New("DW_CFA_def_cfa_offset without a register-based CFA")
			}
			st.cfa.Offset = off
		case dwframe.DW_CFA_def_cfa_offset_sf:
			off := c.sleb() * daf
			if st.cfa.Kind != sframe.RuleValOffset {
				return errors.New("DW_CFA_def_cfa_offset_sf without a register-based CFA")
			}
			st.cfa.Offset = off
		case dwframe.DW_CFA_def_cfa_expression:
			st.cfa = exprRule(c.block(), true)
		case dwframe.DW_CFA_expression:
			reg := c.reg()
			st.set(reg, exprRule(c.block(), false))
		case dwframe.DW_CFA_val_expression:
			reg := c.reg()
			st.set(reg, exprRule(c.block(), true))
		case dwframe.DW_CFA_val_offset:
			reg := c.reg()
			st.set(reg, sframe.Rule{Kind: sframe.RuleValOffset, Reg: sframe.RegCFA, Offset: int64(c.uleb()) * daf})
		case dwframe.DW_CFA_val_offset_sf:
			reg := c.reg()
			st.set(reg, sframe.Rule{Kind: sframe.RuleValOffset, Reg: sframe.RegCFA, Offset: c.sleb() * daf})
		case dwframe.DW_CFA_GNU_args_size:
			c.uleb()
		case cfaGNUWindowSave:
			// On AArch64, DW_CFA_AARCH64_negate_ra_state: the RA is
			// signed from here on. The common row has no field for it;
			// the rules for CFA, RA and FP do not change.
			if !in.cie.aarch64 {
				return errors.New("DW_CFA_GNU_window_save is not an AMD64 instruction")
			}
		default:
			return fmt.Errorf("unknown call frame instruction %#x", opc)
		}
	}
	if c.err != nil {
		return c.err
	}
	if isAdvance && in.advance != nil {
		ca := in.cie.codeAlign
		if ca != 0 && delta > (^uint64(0)-in.loc)/ca {
			return errors.New("advance past the end of the address space")
		}
		to := in.loc + delta*ca
		if err := in.advance(to); err != nil {
			return err
		}
		in.loc = to
	}
	return nil
}

// exprRule converts a DWARF expression of a CFI rule into a rule, turning
// the forms the common row can say without an expression into plain rules:
// "DW_OP_bregN off" is the address reg+off, "DW_OP_bregN off; DW_OP_deref"
// the value at reg+off. val: the expression's value is the register's value
// (DW_CFA_val_expression, and DW_CFA_def_cfa_expression for the CFA) rather
// than its address (DW_CFA_expression).
func exprRule(expr []byte, val bool) sframe.Rule {
	generic := sframe.Rule{Kind: sframe.RuleExpression, Reg: sframe.RegCFA, Expr: string(expr)}
	if val {
		generic.Kind = sframe.RuleValExpression
	}
	c := cfiCursor{b: expr}
	var reg sframe.Reg
	switch o := op.Opcode(c.u8()); {
	case o >= op.DW_OP_breg0 && o <= op.DW_OP_breg31:
		reg = sframe.Reg(o - op.DW_OP_breg0)
	case o == op.DW_OP_bregx:
		reg = c.reg()
	default:
		return generic
	}
	off := c.sleb()
	deref := false
	if c.more() {
		deref = op.Opcode(c.u8()) == op.DW_OP_deref
		if !deref || c.more() {
			return generic
		}
	}
	if c.err != nil {
		return generic
	}
	// The address or value the expression computes is reg+off, or the
	// word at reg+off with deref.
	switch {
	case val && !deref: // value reg+off
		return sframe.Rule{Kind: sframe.RuleValOffset, Reg: reg, Offset: off}
	case val && deref: // value *(reg+off)
		return sframe.Rule{Kind: sframe.RuleOffset, Reg: reg, Offset: off}
	case !deref: // address reg+off
		return sframe.Rule{Kind: sframe.RuleOffset, Reg: reg, Offset: off}
	}
	return generic // address *(reg+off): a double dereference
}

// cfiStop builds the *StopError of a CFI lookup or step.
func cfiStop(r Reason, pc uint64, m *Module, err error, format string, args ...any) *StopError {
	e := &StopError{Method: MethodCFI, Reason: r, PC: pc, Msg: fmt.Sprintf(format, args...), Err: err}
	if m != nil {
		e.Module = m.Name
	}
	return e
}

// cfiTableOf returns m's CFI table (for lookups at single PCs with perPC
// set, see Module.cfiData) or a *StopError: ReasonNoData when the module has
// no CFI or its file cannot be read, ReasonFormat when the CFI cannot be
// parsed.
func (m *Module) cfiTableOf(pc uint64, perPC bool) (*cfiTable, error) {
	t, err := m.cfiData(perPC)
	if err != nil {
		var ce *CFIError
		if errors.As(err, &ce) {
			return nil, cfiStop(ReasonFormat, pc, m, err, "malformed CFI in %s: %v", m.Name, err)
		}
		return nil, cfiStop(ReasonNoData, pc, m, err, "no CFI for %s: %v", m.Name, err)
	}
	if t == nil {
		return nil, cfiStop(ReasonNoData, pc, m, nil, "no CFI (.eh_frame or .debug_frame) in %s", m.Name)
	}
	return t, nil
}

// cfiLookupErr turns an error of cfiTable.row, lookup or rowsOf into a
// *StopError: ReasonNoFDE and ReasonNoRow for errCFINoFDE and errCFINoRow,
// ReasonFormat for a *CFIError, ReasonNoData for anything else (the file
// could not be read, as in cfiTableOf).
func (m *Module) cfiLookupErr(pc uint64, err error) error {
	var ce *CFIError
	switch {
	case errors.Is(err, errCFINoFDE):
		return cfiStop(ReasonNoFDE, pc, m, err, "no CFI for PC %#x in %s", pc, m.Name)
	case errors.Is(err, errCFINoRow):
		return cfiStop(ReasonNoRow, pc, m, err, "no CFI row for PC %#x in %s", pc, m.Name)
	case errors.As(err, &ce):
		return cfiStop(ReasonFormat, pc, m, err, "malformed CFI for PC %#x in %s: %v", pc, m.Name, err)
	}
	return cfiStop(ReasonNoData, pc, m, err, "no CFI for PC %#x in %s: %v", pc, m.Name, err)
}

// CFIRow returns the DWARF CFI row in effect at the runtime address pc (the
// exact PC: callers wanting the row of a return address pass PC-1, see
// Frame.LookupPC). Start and End of the row are runtime addresses; Other
// must not be modified. Errors are *StopError: ReasonNoData (no CFI in the
// module, or its file cannot be read), ReasonNoFDE (no FDE covers pc),
// ReasonNoRow (the FDE has no row for pc), ReasonFormat (malformed CFI,
// wrapping a *CFIError).
//
// Only the FDE covering pc and its CIE are parsed when the module's
// .eh_frame has a usable .eh_frame_hdr search table and there is no
// .debug_frame (cfi_hdr.go): a malformed record elsewhere in the section
// does not make the lookup fail, and an FDE the table does not list is
// not found.
func (m *Module) CFIRow(pc uint64) (Row, error) {
	t, err := m.cfiTableOf(pc, true)
	if err != nil {
		return Row{}, err
	}
	row, err := t.row(pc - m.Bias)
	if err != nil {
		return Row{}, m.cfiLookupErr(pc, err)
	}
	row.Src.Module = m
	return row, nil
}

// CFIRows returns every DWARF CFI row of the FDEs that overlap the runtime
// range [start, end), in address order, each with the range between its CFI
// row boundaries (not clipped to [start, end)). Gaps between FDEs have no
// rows. The rows of an FDE are computed once, in one pass over its
// instructions, and cached; Other maps are shared and must not be modified.
// Errors are as for CFIRow; an FDE whose instructions are malformed makes
// the whole call fail with ReasonFormat. Unlike CFIRow, it parses all of
// the module's CFI on first use.
func (m *Module) CFIRows(start, end uint64) ([]Row, error) {
	t, err := m.cfiTableOf(start, false)
	if err != nil {
		return nil, err
	}
	if end <= start {
		return nil, nil
	}
	lo, hi := start-m.Bias, end-m.Bias
	i := sort.Search(len(t.fdes), func(i int) bool { return t.fdes[i].end > lo })
	var out []Row
	for ; i < len(t.fdes) && t.fdes[i].begin < hi; i++ {
		rows, err := t.rowsOf(t.fdes[i])
		if err != nil {
			return nil, m.cfiLookupErr(t.fdes[i].begin+m.Bias, err)
		}
		n := len(out)
		out = append(out, rows...)
		for k := n; k < len(out); k++ {
			out[k].Src.Module = m
		}
	}
	return out, nil
}

// CFIFDEs lists the FDEs of the module's DWARF CFI in address order
// (runtime addresses), after dropping duplicates and empty FDEs. Errors are
// as for CFIRow. It parses all of the module's CFI on first use.
func (m *Module) CFIFDEs() ([]CFIFDE, error) {
	t, err := m.cfiTableOf(m.Start, false)
	if err != nil {
		return nil, err
	}
	out := make([]CFIFDE, len(t.fdes))
	for i, f := range t.fdes {
		out[i] = CFIFDE{Start: f.begin + m.Bias, End: f.end + m.Bias, Source: f.source(), Signal: f.cie.signal}
	}
	return out, nil
}

// cfiFrameRow finds the row to unwind f with, as gdb does: at PC-1 for a
// frame whose PC is a return address, at PC for an interrupted frame and
// for a frame whose FDE's CIE has the "S" augmentation (a signal
// trampoline: the "return address" the kernel pushed is its first
// instruction, and glibc starts the FDE one byte early for lookups at PC-1).
// Like CFIRow, it parses only the FDEs it looks at when it can.
func (m *Module) cfiFrameRow(f *Frame) (Row, error) {
	t, err := m.cfiTableOf(f.PC, true)
	if err != nil {
		return Row{}, err
	}
	if t.foreign {
		return Row{}, cfiStop(ReasonUnsupported, f.PC, m, nil, "CFI unwinding supports AMD64 only (%s)", m.Name)
	}
	lpc := f.LookupPC() - m.Bias
	exact := f.PC - m.Bias
	fde, err := t.lookup(lpc)
	if err != nil {
		return Row{}, m.cfiLookupErr(lpc+m.Bias, err)
	}
	if lpc != exact {
		if fde != nil && fde.cie.signal && exact < fde.end {
			lpc = exact
		} else if fde == nil || !fde.cie.signal {
			// A signal trampoline whose FDE does not start one byte
			// early: the kernel's "return address" is its first
			// instruction, not the end of a call, so the FDE at the
			// exact PC is the one to use when it is a signal frame's.
			// This lookup only probes for one: an error (through
			// .eh_frame_hdr, a malformed FDE next to the frame's own)
			// means there is none to use.
			e, err := t.lookup(exact)
			if err == nil && e != nil && e.cie.signal && e != fde {
				fde, lpc = e, exact
			}
		}
	}
	if fde == nil {
		return Row{}, m.cfiLookupErr(lpc+m.Bias, errCFINoFDE)
	}
	row, err := t.rowIn(fde, lpc)
	if err != nil {
		return Row{}, m.cfiLookupErr(lpc+m.Bias, err)
	}
	row.Src.Module = m
	return row, nil
}

// CFIUnwinder unwinds with DWARF CFI (.eh_frame and .debug_frame), the way
// gdb does on AMD64 (stepRow): the caller's registers are the callee's with
// every rule of the row applied; registers without a rule keep their value
// if callee-saved (RBX, RBP, R12-R15), the caller's SP is the CFA unless a
// rule says otherwise, its PC is the return address column; other registers
// without a rule are unknown (gdb assumes they keep their value too, with a
// complaint about incomplete CFI). A frame whose CIE has the "S"
// augmentation is a signal trampoline: its caller is marked Interrupted.
type CFIUnwinder struct {
	Space *Space
}

// Method implements Unwinder.
func (u *CFIUnwinder) Method() Method { return MethodCFI }

// Step implements Unwinder. It returns f's caller with PC, SP and every
// register the row restores, and fills f.CFA and f.Row. Errors are
// *StopError: ReasonNoModule, ReasonNoData, ReasonNoFDE, ReasonFormat
// (malformed CFI), and those of stepRow. A return address of 0 is returned
// as a caller with PC 0, which Stack takes as the end of the trace.
func (u *CFIUnwinder) Step(f *Frame) (Frame, error) {
	m := f.Module
	if m == nil || !m.Contains(f.PC) {
		m = u.Space.Modules.Find(f.PC)
	}
	if m == nil {
		return Frame{}, cfiStop(ReasonNoModule, f.PC, nil, nil, "no module for PC %#x", f.PC)
	}
	row, err := m.cfiFrameRow(f)
	if err != nil {
		return Frame{}, err
	}
	return stepRow(f, &row, u.Space)
}
