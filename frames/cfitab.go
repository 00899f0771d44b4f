package frames

// This file adapts the CFI reader of package frames/cfi to a module: it
// finds a module's .eh_frame, .debug_frame and .eh_frame_hdr, builds the
// lazy index (per-PC lookups) or the full table (walks over the module, and
// files without a usable index), and converts the reader's rows into the
// one row form (Row), once per FDE.

import (
	"cmp"
	"debug/elf"
	"errors"
	"fmt"
	"slices"
	"sort"
	"sync"

	"github.com/sirupsen/logrus"

	"github.com/sfdbg/sfdbg/frames/cfi"
	"github.com/sfdbg/sfdbg/sframe/arch"
	"github.com/sfdbg/sfdbg/sframe/elfobj"
	"github.com/sfdbg/sfdbg/sframe/rule"
)

// cfiTable is a module's DWARF CFI: every FDE of .debug_frame and .eh_frame,
// or an index over .eh_frame_hdr that reads FDEs as they are looked up.
type cfiTable struct {
	bias uint64
	// arch is the file's machine: its frame pointer's rule goes to
	// Row.FP, and its SPOffset is the caller's SP relative to the CFA.
	arch *arch.Arch
	// foreign is set for files of a machine sfdbg does not know (arch.For
	// refuses it; arch is then AMD64, for the register names): their rows
	// are available, but CFIUnwinder does not step with them.
	foreign bool
	// fdes holds, for a full table, the FDEs of both sections sorted by
	// start, .debug_frame's first where both describe a function (as in
	// gdb), without empty FDEs.
	fdes []*cfi.FDE
	// index, when set, finds .eh_frame's FDEs through .eh_frame_hdr.
	index *cfi.Index
	rows  sync.Map // *cfi.FDE -> *cfiTableRows
	// exec holds the link-time ranges of the file's code (elfobj.Layout.
	// ExecRanges), sorted: an FDE's rows stop at the end of the one that
	// holds its start, whatever range it declares. nil: not known (no
	// clipping).
	exec [][2]uint64
}

// rowsEnd returns the address below which fd's rows are built: the end of
// the code that holds its start, so that a declared range of gigabytes
// costs the bytes that exist (issue 18: bounded by bytes that exist), and,
// in a full table, the start of the next FDE, since a lookup there picks
// that one (the greatest start at or below the PC), so that FDEs that
// overlap cost each byte of code one row at most. An FDE whose start is
// in no code gets no rows.
func (t *cfiTable) rowsEnd(fd *cfi.FDE) uint64 {
	end := fd.End
	if len(t.exec) > 0 {
		i := sort.Search(len(t.exec), func(i int) bool { return t.exec[i][0] > fd.Start })
		if i == 0 || fd.Start >= t.exec[i-1][1] {
			return fd.Start
		}
		end = min(end, t.exec[i-1][1])
	}
	if i := sort.Search(len(t.fdes), func(i int) bool { return t.fdes[i].Start > fd.Start }); i < len(t.fdes) {
		end = min(end, t.fdes[i].Start)
	}
	return end
}

// cfiTableRows are the converted rows of one FDE, built once.
type cfiTableRows struct {
	once sync.Once
	rows []Row
	err  error
}

// newCFITable returns an empty table for a file of machine a (nil: one
// sfdbg does not know).
func newCFITable(a *arch.Arch, bias uint64) *cfiTable {
	if a == nil {
		return &cfiTable{bias: bias, arch: arch.AMD64Arch, foreign: true}
	}
	return &cfiTable{bias: bias, arch: a}
}

// fileArch is the machine of f, nil for one sfdbg does not know.
func fileArch(f *elf.File) *arch.Arch {
	a, _ := arch.For(f.Machine, f.ByteOrder)
	return a
}

// cfiSection returns the CFI section name of l's file as a cfi.Section at
// its address in the layout l, or ok false when the file has no such
// section with contents. The bytes are read only when data is set or the
// file is a relocatable object, whose relocations are applied first
// (elfobj.Layout.Data); otherwise the section is read through its
// reader, a record at a time.
func cfiSection(l *elfobj.Layout, name string, data bool) (cfi.Section, bool, error) {
	f := l.File()
	s := f.Section(name)
	if s == nil || s.Type == elf.SHT_NOBITS || s.Size == 0 {
		return cfi.Section{}, false, nil
	}
	kind := cfi.EHFrame
	if name == SectionDebugFrame {
		kind = cfi.DebugFrame
	}
	ptr := 8
	if f.Class == elf.ELFCLASS32 {
		ptr = 4
	}
	addr, _ := l.SectionAddr(s)
	sec := cfi.Section{Kind: kind, Addr: addr, Order: f.ByteOrder, PtrSize: ptr}
	if f.Type == elf.ET_REL {
		b, err := l.Data(s)
		if err != nil {
			return sec, false, &cfi.Error{Section: name, Off: -1, Err: cfi.ErrMalformed, Msg: err.Error()}
		}
		sec.Data = b
		return sec, true, nil
	}
	if data || s.Flags&elf.SHF_COMPRESSED != 0 {
		b, err := s.Data() // decompresses SHF_COMPRESSED sections
		if err != nil {
			return sec, false, &cfi.Error{Section: name, Off: -1, Err: cfi.ErrMalformed,
				Msg: fmt.Sprintf("reading %#x bytes at file offset %#x: %v", s.FileSize, s.Offset, err)}
		}
		sec.Data = b
		return sec, true, nil
	}
	// debug/elf does not check that a section lies in the file: its last
	// byte must be readable before anything is sized from it.
	var last [1]byte
	if n, err := s.ReadAt(last[:], int64(s.Size-1)); n != 1 {
		return sec, false, &cfi.Error{Section: name, Off: -1, Err: cfi.ErrMalformed,
			Msg: fmt.Sprintf("%#x bytes at file offset %#x run past the end of the file: %v", s.Size, s.Offset, err)}
	}
	sec.Reader, sec.Size = newWindowReader(s, int64(s.Size), cfiReadWindow), int64(s.Size)
	return sec, true, nil
}

// cfiReadWindow is how many bytes of a CFI section read through its
// reader are kept at once (windowReader).
const cfiReadWindow = 64 << 10

// loadCFIIndex builds the lazy table of a file loaded with the given bias
// (runtime address = link-time address + bias): its .eh_frame indexed by
// .eh_frame_hdr, which reads an FDE only when a PC in it is looked up. When
// the file has no index it can use (no .eh_frame or .eh_frame_hdr, a
// .debug_frame, whose FDEs win over .eh_frame's, or a header cfi.NewIndex
// refuses) it returns nil and an error saying why; that is not fatal:
// loadCFI's table serves the lookups then.
func loadCFIIndex(l *elfobj.Layout, bias uint64) (*cfiTable, error) {
	f := l.File()
	if s := f.Section(SectionDebugFrame); s != nil && s.Type != elf.SHT_NOBITS && s.Size > 0 {
		return nil, fmt.Errorf("the file has %s", SectionDebugFrame)
	}
	eh, ok, err := cfiSection(l, SectionEHFrame, false)
	if err != nil || !ok {
		return nil, fmt.Errorf("no usable %s: %v", SectionEHFrame, err)
	}
	if eh.Addr == 0 {
		return nil, fmt.Errorf("%s at address 0", SectionEHFrame)
	}
	hs := f.Section(cfi.SectionEHFrameHdr)
	if hs == nil || hs.Type == elf.SHT_NOBITS || hs.Size == 0 || hs.Size >= 1<<32 {
		return nil, fmt.Errorf("no usable %s", cfi.SectionEHFrameHdr)
	}
	hdr, err := hs.Data()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", cfi.SectionEHFrameHdr, err)
	}
	idx, err := cfi.NewIndex(hdr, hs.Addr, eh)
	if err != nil {
		return nil, err
	}
	t := newCFITable(fileArch(f), bias)
	t.index = idx
	t.exec = l.ExecRanges()
	return t, nil
}

// loadCFI reads all the DWARF CFI of a file laid out by l and loaded with
// the given bias: .eh_frame and .debug_frame, both when present
// (.debug_frame wins where both describe a function, as in gdb), with a
// relocatable object's relocations applied against l's section addresses.
// It returns nil, nil when the file has neither section, and an error (a
// *cfi.Error for malformed or unsupported data) when no section could be
// read; a section that fails while the other parses is logged and skipped.
func loadCFI(l *elfobj.Layout, bias uint64) (*cfiTable, error) {
	f := l.File()
	dbg, hasDbg, dbgErr := cfiSection(l, SectionDebugFrame, true)
	eh, hasEH, ehErr := cfiSection(l, SectionEHFrame, true)
	if hasEH && eh.Addr == 0 && !l.Synthetic() {
		hasEH, ehErr = false, &cfi.Error{Section: SectionEHFrame, Off: -1, Err: cfi.ErrUnsupported,
			Msg: "section at address 0 (not a linked file)"}
	}
	t, err := parseCFI(fileArch(f), bias, cfiInput{dbg, hasDbg, dbgErr}, cfiInput{eh, hasEH, ehErr})
	if t != nil {
		t.exec = l.ExecRanges()
	}
	return t, err
}

// cfiInput is one CFI section for parseCFI: ok when there is one, err when
// it could not be read.
type cfiInput struct {
	sec cfi.Section
	ok  bool
	err error
}

// parseCFI builds the full table of a file of machine a (nil: unknown)
// loaded with bias from its CFI sections, .debug_frame first (loadCFI).
func parseCFI(a *arch.Arch, bias uint64, in ...cfiInput) (*cfiTable, error) {
	t := newCFITable(a, bias)
	var errs []error
	parsed := 0
	for _, s := range in {
		if s.err != nil {
			errs = append(errs, s.err)
		}
		if !s.ok {
			continue
		}
		tab, err := cfi.Parse(s.sec)
		if err != nil {
			logrus.Debugf("frames: CFI: %v", err)
			errs = append(errs, err)
			continue
		}
		parsed++
		t.fdes = append(t.fdes, tab.FDEs()...)
	}
	if parsed == 0 {
		if len(errs) == 0 {
			return nil, nil
		}
		return nil, errors.Join(errs...)
	}
	// Stable: at equal starts .debug_frame's FDE stays in front and the
	// one of .eh_frame is dropped.
	slices.SortStableFunc(t.fdes, func(a, b *cfi.FDE) int { return cmp.Compare(a.Start, b.Start) })
	out := t.fdes[:0]
	for _, fd := range t.fdes {
		if n := len(out); n > 0 && out[n-1].Start == fd.Start {
			continue
		}
		out = append(out, fd)
	}
	t.fdes = out
	// As gdb does, FDEs at address 0 that overlap real ones are dropped:
	// linkers leave them for discarded functions.
	if i := slices.IndexFunc(t.fdes, func(fd *cfi.FDE) bool { return fd.Start != 0 }); i > 0 {
		first := t.fdes[i].Start
		t.fdes = slices.DeleteFunc(t.fdes, func(fd *cfi.FDE) bool { return fd.Start == 0 && fd.End > first })
	}
	return t, nil
}

// lookup returns the FDE covering the link-time address pc: through the
// index, or in fdes (the FDE with the greatest start at or below pc, if it
// covers pc). The error is cfi.ErrNoFDE or a *cfi.Error.
func (t *cfiTable) lookup(pc uint64) (*cfi.FDE, error) {
	if t.index != nil {
		return t.index.FDEForPC(pc)
	}
	i := sort.Search(len(t.fdes), func(i int) bool { return t.fdes[i].Start > pc })
	if i > 0 && pc < t.fdes[i-1].End {
		return t.fdes[i-1], nil
	}
	return nil, cfi.ErrNoFDE
}

// row returns the row at the link-time address pc, with runtime Start and
// End. The error is cfi.ErrNoFDE, cfi.ErrNoRow or a *cfi.Error.
func (t *cfiTable) row(pc uint64) (Row, error) {
	fd, err := t.lookup(pc)
	if err != nil {
		return Row{}, err
	}
	return t.rowIn(fd, pc)
}

// rowIn returns the row of fd at the link-time address pc.
func (t *cfiTable) rowIn(fd *cfi.FDE, pc uint64) (Row, error) {
	rows, err := t.rowsOf(fd)
	if err != nil {
		return Row{}, err
	}
	rt := pc + t.bias
	i := sort.Search(len(rows), func(i int) bool { return rows[i].End > rt })
	if i == len(rows) || rows[i].Start > rt {
		return Row{}, cfi.ErrNoRow
	}
	return rows[i], nil
}

// rowsOnce returns fd's rows in the one row form: the cached ones when
// rowsOf made them, else built for this call and not kept.
func (t *cfiTable) rowsOnce(fd *cfi.FDE) ([]Row, error) {
	if _, ok := t.rows.Load(fd); ok {
		return t.rowsOf(fd) // made, or being made, by rowsOf
	}
	raw, err := fd.AppendRowsBefore(nil, t.rowsEnd(fd))
	if err != nil {
		return nil, err
	}
	rows := make([]Row, len(raw))
	for i := range raw {
		rows[i] = t.convert(fd, &raw[i])
	}
	return rows, nil
}

// rowsOf returns fd's rows in the one row form, converted once.
func (t *cfiTable) rowsOf(fd *cfi.FDE) ([]Row, error) {
	v, ok := t.rows.Load(fd)
	if !ok {
		v, _ = t.rows.LoadOrStore(fd, &cfiTableRows{})
	}
	r := v.(*cfiTableRows)
	r.once.Do(func() {
		// Uncached: the converted rows are the ones kept.
		var raw []cfi.Row
		if raw, r.err = fd.AppendRowsBefore(nil, t.rowsEnd(fd)); r.err != nil {
			logrus.Debugf("frames: CFI: %v", r.err)
			return
		}
		r.rows = make([]Row, len(raw))
		for i := range raw {
			r.rows[i] = t.convert(fd, &raw[i])
		}
	})
	return r.rows, r.err
}

// convert turns a reader's row into the one row form: the RA column's rule
// goes to RA, the frame pointer's to FP (same-value when the CFI gives
// none: the ABI keeps it across calls), the others stay in the reader's
// storage, shared between rows, as Other. An undefined RA marks the
// outermost frame. Simple DWARF expressions become plain rules
// (cfi.Simplify).
func (t *cfiTable) convert(fd *cfi.FDE, r *cfi.Row) Row {
	same := rule.Rule{Kind: rule.SameValue, Reg: rule.CFA}
	fpReg := t.arch.FP
	row := Row{
		Row: rule.Row{CFA: cfi.Simplify(r.CFA), RA: same, FP: same, Signal: r.Signal,
			MangledRA: r.RASigned, SPOffset: t.arch.SPOffset},
		Other: OtherRules{regs: r.Regs, ra: r.RAReg, fp: fpReg},
		Src: Source{Method: MethodCFI, Section: r.Section.String(), FDE: r.FDEOff, CIE: r.CIEOff, FRE: -1,
			FDEStart: fd.Start + t.bias, FDEEnd: fd.End + t.bias, Arch: t.arch},
		Start: r.Start + t.bias, End: r.End + t.bias,
	}
	if r.BKey {
		row.PAuthKey = rule.PAuthKeyB
	}
	if ru, ok := r.Regs.Rule(r.RAReg); ok {
		row.RA = cfi.Simplify(ru)
	}
	if ru, ok := r.Regs.Rule(fpReg); ok && fpReg != r.RAReg {
		row.FP = cfi.Simplify(ru)
	}
	row.Outermost = row.RA.Kind == rule.Undefined
	return row
}
