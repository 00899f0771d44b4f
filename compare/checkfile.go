package compare

import (
	"debug/elf"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/sfdbg/sfdbg/frames"
	"github.com/sfdbg/sfdbg/frames/code"
	"github.com/sfdbg/sfdbg/sframe"
	"github.com/sfdbg/sfdbg/sframe/arch"
	"github.com/sfdbg/sfdbg/sframe/elfobj"
	"github.com/sfdbg/sfdbg/sframe/rule"
)

// ErrNoUnwindTables is returned (wrapped, with ErrNoSFrame) by CheckFile
// for an ELF file with neither SFrame nor CFI to judge against the code.
var ErrNoUnwindTables = errors.New("no usable CFI to judge against the code")

// ErrNoSFrame is returned (wrapped) by CheckFile for an ELF file without an
// SFrame section.
var ErrNoSFrame = sframe.ErrNoSection

// CheckOptions tune a static check.
type CheckOptions struct {
	// CFI gives the file's CFI; nil means read it from the file itself.
	CFI CFISource
	// Symbolize names functions; nil means use the file's symbol tables.
	Symbolize Symbolizer
	// Consumers adds to each report the Linux kernel's and libsframe's
	// verdicts on the section (addConsumerVerdicts), computed on the file
	// already open for the check; KernelProfile (check --profile kernel)
	// also makes each of the kernel's rejections a finding.
	Consumers, KernelProfile bool
	// Code, when set, is the code oracle: check then also judges SFrame
	// and CFI against the machine code at every instruction (CodeOracle,
	// codecheck.go). nil: SFrame against CFI only. A batch (CheckFiles)
	// calls it from several goroutines at once.
	Code CodeOracle
	// AllMembers makes CheckArchive judge the CFI of every ELF member
	// against the code (with Code set), SFrame or not, as CheckFile does
	// for a file (check --recursive --all); without it an archive none of
	// whose members has SFrame gets one report with Err.
	AllMembers bool
}

// CheckFile validates the SFrame section of the ELF file at path against
// the file's own .eh_frame/.debug_frame, at every instruction boundary of
// every function (AMD64: decoded by arch.X86.Len; other ABIs: at FRE and CFI
// row boundaries). A relocatable object (ET_REL) is checked with its
// sections placed as a linker would (elfobj.Link) and the relocations of
// its SFrame and CFI sections applied; its findings name each function's
// section and offset (Finding.Section). The report's Err is set, and a
// non-nil error returned, when the file cannot be checked at all (not
// ELF, no .sframe, unreadable; the message names the file and the byte
// offset). For an ar archive of objects use CheckArchive. A linked 32-bit
// ARM file with an EHABI index (.ARM.exidx) is checked instead by
// comparing its EHABI entries with its CFI at every call site (runEHABI;
// FileReport.Format FormatEHABI).
func CheckFile(path string, opts CheckOptions) (rep *FileReport, err error) {
	f, err := elfobj.Open(path)
	if err != nil {
		err = fmt.Errorf("%s: %w", path, err)
		return &FileReport{File: path, Findings: []Finding{}, Err: err.Error()}, err
	}
	defer f.Close()
	return checkOpened(f, opts)
}

// checkOpened checks the ELF file f (CheckFile), open and classified once.
func checkOpened(f *elfobj.File, opts CheckOptions) (*FileReport, error) {
	m := fileModule(f)
	defer m.Close()
	return checkModule(f.Path, m, opts)
}

// checkModule checks the ELF file of m (CheckFile), reporting it as name;
// m is read at its file's link-time addresses and left open: it is the
// caller's (a live module keeps its check, staticReport).
func checkModule(name string, m *frames.Module, opts CheckOptions) (rep *FileReport, err error) {
	rep = &FileReport{File: name, Findings: []Finding{}}
	if checkedModule != nil {
		checkedModule(m)
	}
	fail := func(err error) (*FileReport, error) {
		rep.Err = err.Error()
		return rep, err
	}
	defer func() {
		// A bug on hostile input must not take down a batch of files.
		if p := recover(); p != nil {
			rep, err = fail(fmt.Errorf("%s: internal error: %v", name, p))
		}
	}()
	// One module serves the ELF file, its CFI and its symbols.
	layout, err := m.Layout()
	if err != nil {
		if inner := errors.Unwrap(err); inner != nil {
			err = inner // "module NAME: ...": the file's path names it better
		}
		return fail(fmt.Errorf("%s: %w", name, err))
	}
	f := layout.File()
	a, err := m.Arch()
	if err != nil {
		if inner := errors.Unwrap(err); inner != nil {
			err = inner // "module NAME: ...": the file's path names it better
		}
		var um *arch.UnknownMachineError
		rep.OtherMachine = errors.As(err, &um)
		return fail(fmt.Errorf("%s: %w", name, err))
	}
	if hasEHABI(f) {
		// 32-bit ARM: no SFrame ABI; its compact tables are EHABI's.
		return checkEHABIModule(name, m, layout, a, rep, opts)
	}
	sec, err := m.SFrame()
	if err != nil {
		rep.NoSFrame = errors.Is(err, sframe.ErrNoSection)
		if !rep.NoSFrame || opts.Code == nil {
			return fail(fmt.Errorf("%s: %w", name, err))
		}
	}
	c := &checker{name: m.Name, f: f, layout: layout, arch: a, sec: sec, rep: rep, cfi: opts.CFI, sym: opts.Symbolize}
	if c.cfi == nil {
		c.cfi = &moduleCFI{m: m}
	}
	if c.sym == nil {
		c.sym = moduleSymbolizer(m)
	}
	c.startOracle(m, opts.Code)
	for i, s := range f.Sections {
		// Code is read a function at a time, through the file; a compressed
		// section (not valid for code) is compared at row boundaries.
		if s.Flags&elf.SHF_EXECINSTR != 0 && s.Type == elf.SHT_PROGBITS && s.Flags&elf.SHF_COMPRESSED == 0 {
			c.text = append(c.text, textRange{addr: layout.Addr(i), size: s.Size, r: s})
		}
	}
	if sec == nil {
		// No SFrame: CFI alone is judged against the code; without CFI
		// either, there is nothing to check.
		if err := c.runCFIOnly(); err != nil {
			rep.NoUnwindTables = errors.Is(err, ErrNoUnwindTables)
			return fail(fmt.Errorf("%s: %w", name, err))
		}
		// The compilers .comment names (no SFrame: no assembler or
		// linker of it to infer), for suppressions and the report's
		// "seen in".
		rep.Producers = parseProducers(c.comment(), 0, layout.Synthetic()).Comment
		return rep, nil
	}
	rep.Version, rep.ABI = int(sec.Version), sec.ABI.String()
	if err := c.run(); err != nil {
		return fail(fmt.Errorf("%s: %w", name, err))
	}
	if opts.Consumers {
		rep.addConsumerVerdicts(layout, opts.KernelProfile)
	}
	prod := parseProducers(c.comment(), int(sec.Version), layout.Synthetic())
	rep.Producers = prod.names()
	markKnown(rep, prod, c.arch)
	return rep, nil
}

// runCFIOnly judges the CFI of a file without SFrame against the code
// (CheckOptions.Code), every CFI FDE but the PLT's (judgeCFIOnly); the
// report has NoSFrame set and no Err. Without CFI it fails (wrapping
// sframe.ErrNoSection): nothing to check.
func (c *checker) runCFIOnly() error {
	cfiRanges, err := c.cfi.FDERanges()
	if err != nil && !errors.Is(err, frames.ErrUnsupportedCFI) && !errors.Is(err, frames.ErrNoCFI) {
		return fmt.Errorf("reading CFI: %w", err)
	}
	if err != nil || len(cfiRanges) == 0 {
		return fmt.Errorf("%w, and %w", sframe.ErrNoSection, ErrNoUnwindTables)
	}
	sort.Slice(cfiRanges, func(i, j int) bool { return cfiRanges[i].Start < cfiRanges[j].Start })
	sum := &c.rep.Summary
	sum.FunctionsCFI = len(cfiRanges)
	// An FDE that no call enters (a cold part, a trampoline) is judged
	// last: the code oracle walks it from the jumps into it that the
	// walks of the others found (frames.CodeAnalyzer).
	var last []Range
	for _, r := range cfiRanges {
		sum.BytesCFI += r.End - r.Start
		if r.End <= r.Start || c.inPLT(r.Start) {
			continue
		}
		if !c.judgeCFIOnlyRange(r, c.oracle != nil) {
			last = append(last, r)
		}
	}
	for _, r := range last {
		c.judgeCFIOnlyRange(r, false)
	}
	c.codeSummary()
	return nil
}

// judgeCFIOnlyRange judges the CFI FDE r alone against the code
// (judgeCFIOnly), or says that its CFI cannot be read. With later set,
// an FDE whose first row says no call enters it (frames.NotCallEntry) is
// not judged yet, and it returns false.
func (c *checker) judgeCFIOnlyRange(r Range, later bool) bool {
	name := c.funcName(r.Start)
	rows, err := c.cfi.Rows(r.Start, r.End)
	if err != nil {
		c.add(Finding{Kind: KindFormat, Function: name, FuncStart: r.Start, PC: r.Start,
			Message: fmt.Sprintf("CFI for %s unreadable: %v", c.orLoc(name, r.Start), err)})
		return true
	}
	if later && len(rows) > 0 && rows[0].Start <= r.Start && frames.NotCallEntry(c.arch, &rows[0].Row) {
		return false
	}
	c.judgeCFIOnly(fnRef{name: name, start: r.Start}, r, rows)
	return true
}

func (c *checker) run() error {
	for _, p := range c.sec.Validate() {
		if p.Severity != sframe.SeverityError {
			continue
		}
		f := Finding{Kind: KindFormat, Message: p.String()}
		if p.FDE < 0 {
			c.addFileWide(f)
			continue
		}
		f.Function, f.FuncStart, f.PC = c.funcName(p.FuncStart), p.FuncStart, p.FuncStart
		c.add(f)
	}
	cfiRanges, err := c.cfi.FDERanges()
	if err != nil && !errors.Is(err, frames.ErrUnsupportedCFI) && !errors.Is(err, frames.ErrNoCFI) {
		return fmt.Errorf("reading CFI: %w", err) // malformed CFI: unreadable input
	}
	if err == nil && len(cfiRanges) == 0 {
		err = errors.New("the file has no .eh_frame or .debug_frame")
	}
	sum := &c.rep.Summary
	fdes := c.sec.FDEs()
	sum.FunctionsSFrame = len(fdes)
	for i := range fdes {
		sum.BytesSFrame += uint64(fdes[i].Size)
	}
	if err != nil {
		// Nothing to compare with: the validator's findings stand alone.
		msg := fmt.Sprintf("SFrame validated but not compared: CFI unusable: %v", err)
		if errors.Is(err, frames.ErrNoCFI) {
			msg = "SFrame validated but not compared: the file has no CFI (.eh_frame or .debug_frame)"
		}
		c.addFileWide(Finding{Kind: KindNoCFI, Message: msg})
		return nil
	}
	sort.Slice(cfiRanges, func(i, j int) bool { return cfiRanges[i].Start < cfiRanges[j].Start })
	sum.FunctionsCFI = len(cfiRanges)
	for _, r := range cfiRanges {
		sum.BytesCFI += r.End - r.Start
	}
	cfiIdx := newRangeIndex(cfiRanges)
	c.clipFDEs()
	c.freLeft = newFREBudget(c.sec)
	owned := c.owned()
	var insts []uint64
	for i := range fdes {
		fde := &fdes[i]
		name := c.funcName(fde.Start)
		// The CFI FDE that mirrors this one: the one containing its start,
		// else the first overlapping. The .plt's single CFI FDE covers what
		// SFrame splits into PLT0 and the PC-mask entries.
		cf, ok := cfiIdx.mirror(fde.Start, fdeEnd(fde))
		if fde.Size == 0 && ok {
			c.add(Finding{Kind: KindBounds, Function: name, FuncStart: fde.Start, PC: fde.Start,
				Message: fmt.Sprintf("SFrame FDE %d for %s has size 0, so it covers no instruction; CFI FDE covers %s (size %d)",
					fde.Index, c.orLoc(name, fde.Start), c.span(cf.Start, cf.End), cf.End-cf.Start)})
			continue
		}
		if !c.clipFindings(fde, name) {
			continue
		}
		if !ok {
			c.add(Finding{Kind: KindExtraFDE, Function: name, FuncStart: fde.Start, PC: fde.Start, PCEnd: fde.End(),
				Message: fmt.Sprintf("SFrame FDE %d for %s %s has no CFI counterpart", fde.Index, c.orLoc(name, fde.Start), c.span(fde.Start, fde.End()))})
			continue
		}
		if !c.inPLT(fde.Start) && (cf.Start != fde.Start || cf.End != fde.End()) {
			c.add(Finding{Kind: KindBounds, Function: name, FuncStart: fde.Start, PC: fde.Start, PCEnd: fde.End(),
				Message: fmt.Sprintf("SFrame FDE %d for %s covers %s (size %d), CFI FDE covers %s (size %d)",
					fde.Index, c.orLoc(name, fde.Start), c.span(fde.Start, fde.End()), fde.Size, c.span(cf.Start, cf.End), cf.End-cf.Start)})
		}
		if fde.Signal && fde.NumFREs == 0 {
			c.add(Finding{Kind: KindSignalUndescribed, Function: name, FuncStart: fde.Start, PC: fde.Start, PCEnd: fde.End(),
				Message: fmt.Sprintf("SFrame FDE %d marks %s as a signal frame and has no FREs: SFrame does not describe it (GNU as does so on purpose when the CFI is beyond SFrame)",
					fde.Index, c.orLoc(name, fde.Start))})
			continue
		}
		// Each PC is compared against the one FDE a stack tracer picks
		// there (sframe.Section.FindFDE); an FDE that overlapping FDEs
		// hide everywhere (the validator reports the overlap) is not
		// compared at all.
		own := owned[i]
		if len(own) == 0 {
			continue
		}
		// Rows, then boundaries, read the FREs once each; a PC-mask
		// FDE's lookups scan them once per FRE range of the block.
		cost := c.freCost(fde)
		need := 2 * cost
		if fde.PCType == sframe.PCTypeMask {
			need += cost * min(int64(fde.RepSize), cost+1)
		}
		if !c.spendFREs(fde, name, need) {
			continue
		}
		end := own[len(own)-1].End
		rows, err := c.cfi.Rows(fde.Start, end)
		if err != nil {
			c.add(Finding{Kind: KindFormat, Function: name, FuncStart: fde.Start, PC: fde.Start,
				Message: fmt.Sprintf("CFI for %s unreadable: %v", c.orLoc(name, fde.Start), err)})
			continue
		}
		sum.FunctionsBoth++
		// The oracle's walk first: its instructions are the boundaries
		// where it went.
		code := c.fdeCode(fde, own)
		insts = c.boundaries(fde, own, rows, insts, code)
		sum.Instructions += c.checkFDE(fde, own, rows, insts, code)
	}
	c.uncovered(cfiRanges)
	return nil
}

// fdeEnd is fde.End(), or the top of the address space for an FDE whose
// end wraps around it.
func fdeEnd(fde *sframe.FDE) uint64 {
	if e := fde.End(); e >= fde.Start {
		return e
	}
	return math.MaxUint64
}

// owned returns, for each FDE in section order, the address ranges in
// which a lookup (sframe.Section.FindFDE) picks that FDE, in address
// order, within the FDE's range clipped to its executable section
// (c.clips): all of that unless FDEs overlap. The lookup is constant
// between consecutive FDE starts and ends, so it is made once per such
// interval: O(n log n) for n FDEs however they overlap. The ranges of all
// FDEs are disjoint and lie in executable sections.
func (c *checker) owned() [][]Range {
	if c.clips == nil {
		c.clipFDEs()
	}
	fdes := c.sec.FDEs()
	pts := make([]uint64, 0, 4*len(fdes))
	for i := range fdes {
		if fdes[i].Size > 0 {
			pts = append(pts, fdes[i].Start, fdeEnd(&fdes[i]))
			if cl := c.clips[i]; cl.End > cl.Start && cl.End < fdeEnd(&fdes[i]) {
				pts = append(pts, cl.End)
			}
		}
	}
	slices.Sort(pts)
	pts = slices.Compact(pts)
	own := make([][]Range, len(fdes))
	for k := 0; k+1 < len(pts); k++ {
		f, err := c.sec.FindFDE(pts[k])
		if err != nil || pts[k+1] > c.clips[f.Index].End {
			continue
		}
		o := own[f.Index]
		if n := len(o); n > 0 && o[n-1].End == pts[k] {
			o[n-1].End = pts[k+1]
		} else {
			o = append(o, Range{pts[k], pts[k+1]})
		}
		own[f.Index] = o
	}
	return own
}

// lengther is a machine's decoder that delimits instructions as objdump
// -d does (arch.X86.Len).
type lengther interface {
	Len(code []byte) (n int, ok bool)
}

// boundaries returns the PCs to compare in the ranges own of an FDE:
// every instruction boundary where the machine's decoder delimits
// instructions as objdump does (AMD64) and the code from the FDE's start
// decodes, else the union of SFrame FRE and CFI row starts and of the
// ranges' starts. code is the oracle's walk of the function from the
// FDE's start, or nil: the instructions it decoded are not decoded again
// (instBoundaries).
func (c *checker) boundaries(fde *sframe.FDE, own []Range, rows []frames.Row, buf []uint64, code CodeRows) []uint64 {
	end := own[len(own)-1].End
	if b, ok := c.instBoundaries(fde.Start, end, buf, code); ok {
		return keepOwned(b, own)
	}
	b := buf[:0]
	for _, r := range own {
		b = append(b, r.Start)
	}
	// A PC-mask FDE's FREs start at offsets into each repetition: each
	// distinct offset inside the block once per repetition (a lookup
	// never reaches an FRE starting past the block), so at most one PC
	// per byte of the FDE's clipped range.
	it := c.sec.FREs(fde)
	if fde.PCType == sframe.PCTypeMask {
		var at [256]bool
		for it.Next() {
			if off := it.FRE().StartOff; off < uint32(fde.RepSize) {
				at[off] = true
			}
		}
		for rep := fde.Start; fde.RepSize > 0 && rep < end; rep += uint64(fde.RepSize) {
			for off := range uint64(fde.RepSize) {
				if at[off] && rep+off < end {
					b = append(b, rep+off)
				}
			}
			if rep+uint64(fde.RepSize) < rep {
				break
			}
		}
	} else {
		for it.Next() {
			b = append(b, fde.Start+uint64(it.FRE().StartOff))
		}
	}
	for _, r := range rows {
		if r.Start >= fde.Start && r.Start < end {
			b = append(b, r.Start)
		}
	}
	slices.Sort(b)
	return keepOwned(slices.Compact(b), own)
}

// archDecoder returns the decoder of the checked file's machine, nil
// when it has none or the machine is not known.
func (c *checker) archDecoder() arch.Decoder {
	a := c.arch
	if a == nil && c.sec != nil { // a checker built on a section alone (tests)
		a = frames.SFrameArch(c.sec.ABI)
	}
	if a == nil {
		return nil
	}
	return a.Decoder
}

// insnBoundaries returns the instruction boundaries in [start, end), as
// objdump -d delimits them, where the machine's decoder does so (lengther:
// arch.X86.Len on AMD64). ok is false on other machines, when the bytes
// are not in an executable section or when an instruction does not
// decode; then b holds what was decoded. An instruction the code oracle's
// walk w decoded (nil: none) takes its length from the walk (the same
// decoder's) instead of being decoded again.
func (c *checker) insnBoundaries(start, end uint64, buf []uint64, w CodeRows) (b []uint64, ok bool) {
	b = buf[:0]
	l, ok := c.archDecoder().(lengther)
	if !ok {
		return b, false
	}
	data, ok := c.funcCode(start, end)
	if !ok {
		return b, false
	}
	wc := newWalkCursor(w, start)
	for off := 0; off < len(data); {
		b = append(b, start+uint64(off))
		if n := wc.lenAt(off); n > 0 {
			off += n
			continue
		}
		n, ok := l.Len(data[off:])
		if !ok {
			return b, false
		}
		off += n
	}
	return b, true
}

// walkedInsts is the CodeRows of a walk that decoded the function's
// instructions (funcRows): the walk's start address and the instructions
// it reached, by address.
type walkedInsts interface {
	walked() (start uint64, insts []code.Inst)
}

// walkCursor gives, in increasing order of offsets, the length of the
// instruction the oracle's walk decoded at an offset from start.
type walkCursor struct {
	insts []code.Inst
	k     int
}

// newWalkCursor returns the cursor over the walk w (CodeRows, nil: none)
// for instructions counted from start: empty unless w decoded them from
// start (walkedInsts).
func newWalkCursor(w CodeRows, start uint64) walkCursor {
	if wi, ok := w.(walkedInsts); ok {
		if s, insts := wi.walked(); s == start {
			return walkCursor{insts: insts}
		}
	}
	return walkCursor{}
}

// lenAt returns the length of the instruction the walk decoded at off,
// or 0 when it decoded none there. off must not decrease between calls.
func (wc *walkCursor) lenAt(off int) int {
	for wc.k < len(wc.insts) && int(wc.insts[wc.k].Off) < off {
		wc.k++
	}
	if wc.k < len(wc.insts) && int(wc.insts[wc.k].Off) == off {
		return int(wc.insts[wc.k].Len)
	}
	return 0
}

// instBoundaries returns the instruction boundaries in [start, end): on
// AMD64 as insnBoundaries; on another machine with a decoder
// (arch.Arch.Decoder: AArch64, s390x) by its lengths; ok is false where
// the bytes are not in an executable section, an instruction does not
// decode, or the machine has no decoder. The instructions the code
// oracle's walk w (nil: none) decoded from start are not decoded again.
func (c *checker) instBoundaries(start, end uint64, buf []uint64, w CodeRows) (b []uint64, ok bool) {
	a := c.arch
	if a == nil && c.sec != nil {
		a = frames.SFrameArch(c.sec.ABI)
	}
	if a == arch.AMD64Arch {
		return c.insnBoundaries(start, end, buf, w)
	}
	b = buf[:0]
	if a == nil || a.Decoder == nil {
		return b, false
	}
	data, ok := c.funcCode(start, end)
	if !ok {
		return b, false
	}
	var in arch.Inst
	wc := newWalkCursor(w, start)
	for off := 0; off < len(data); {
		b = append(b, start+uint64(off))
		if n := wc.lenAt(off); n > 0 {
			off += n
			continue
		}
		if err := a.Decoder.Decode(data[off:], start+uint64(off), &in); err != nil || in.Len <= 0 {
			return b, false
		}
		off += int(in.Len)
	}
	return b, true
}

// keepOwned keeps the PCs of the sorted b that lie in the sorted ranges own.
func keepOwned(b []uint64, own []Range) []uint64 {
	out := b[:0]
	j := 0
	for _, pc := range b {
		for j < len(own) && own[j].End <= pc {
			j++
		}
		if j < len(own) && pc >= own[j].Start {
			out = append(out, pc)
		}
	}
	return out
}

// uncovered reports CFI FDEs that no SFrame FDE overlaps, with the reason
// SFrame cannot express them when the CFI shows one.
func (c *checker) uncovered(cfiRanges []Range) {
	fdes := c.sec.FDEs()
	sf := make([]Range, 0, len(fdes))
	for i := range fdes {
		if fdes[i].Size > 0 {
			sf = append(sf, Range{fdes[i].Start, fdeEnd(&fdes[i])})
		}
	}
	sfIdx := newRangeIndex(sf)
	for _, r := range cfiRanges {
		if _, ok := sfIdx.mirror(r.Start, r.End); ok || r.End == r.Start {
			continue
		}
		name := c.funcName(r.Start)
		kind, why := KindNoFDE, c.noFDEReason()
		rows, err := c.cfi.Rows(r.Start, r.End)
		if err == nil {
			if reason, expressible := inexpressible(c.arch, rows, c.sec.Version); reason != "" {
				why = reason
				if !expressible {
					kind = KindSkipped
				}
			}
		}
		c.add(Finding{Kind: kind, Function: name, FuncStart: r.Start, PC: r.Start, PCEnd: r.End,
			Message: fmt.Sprintf("CFI covers %s %s but SFrame does not: %s", c.orLoc(name, r.Start), c.span(r.Start, r.End), why)})
		if err == nil {
			c.judgeCFIOnly(fnRef{name: name, start: r.Start}, r, rows)
		}
	}
}

// inexpressible looks for CFI rules SFrame cannot express: a CFA based on a
// register other than SP/FP, a CFA expression, or RA/FP in a register or
// given by an expression. expressible says whether SFrame v3 FLEX FDEs
// could express it (and the section is v3).
func inexpressible(a *arch.Arch, rows []frames.Row, v sframe.Version) (reason string, expressible bool) {
	for _, r := range rows {
		switch {
		case r.CFA.Kind == rule.ValExpression || r.CFA.Kind == rule.Expression:
			return "its CFA is a DWARF expression", false
		case (r.CFA.Kind == rule.ValOffset || r.CFA.Kind == rule.Offset) && r.CFA.Reg != a.SP && r.CFA.Reg != a.FP:
			return fmt.Sprintf("its CFA is based on %s, not SP or FP (DRAP or stack realignment)", a.RegName(r.CFA.Reg)), v >= sframe.Version3
		case r.RA.Kind == rule.Register || r.FP.Kind == rule.Register:
			return "it keeps RA or FP in a register", v >= sframe.Version3
		case r.RA.Kind == rule.Expression || r.FP.Kind == rule.Expression:
			return "RA or FP is located by a DWARF expression", false
		}
	}
	return "", false
}

// rangeIndex answers overlap queries on ranges sorted by start in
// O(log n), however the ranges overlap each other.
type rangeIndex struct {
	r     []Range
	reach []int // reach[i]: index of the range ending highest among r[:i+1]
}

// newRangeIndex indexes r; it sorts r by start.
func newRangeIndex(r []Range) rangeIndex {
	sort.SliceStable(r, func(i, j int) bool { return r[i].Start < r[j].Start })
	x := rangeIndex{r: r, reach: make([]int, len(r))}
	for i := range r {
		x.reach[i] = i
		if i > 0 && r[x.reach[i-1]].End >= r[i].End {
			x.reach[i] = x.reach[i-1]
		}
	}
	return x
}

// mirror returns the range that mirrors [start, end): among those
// containing start, the one starting last (looking back a few ranges,
// then the one reaching highest); else the first starting inside
// [start, end). An empty [start, end) is mirrored only by a range
// containing start.
func (x rangeIndex) mirror(start, end uint64) (Range, bool) {
	i := sort.Search(len(x.r), func(i int) bool { return x.r[i].Start > start }) // ranges [0, i) start at or below start
	for k := i - 1; k >= 0 && k >= i-8; k-- {
		if x.r[k].End > start {
			return x.r[k], true
		}
	}
	if i > 0 {
		if r := x.r[x.reach[i-1]]; r.End > start {
			return r, true
		}
	}
	if i < len(x.r) && x.r[i].Start < end {
		return x.r[i], true
	}
	return Range{}, false
}

// inPLT reports whether addr lies in a .plt* section, whose CFI FDE covers
// the whole section while SFrame has one FDE for PLT0 and one for the entries.
func (c *checker) inPLT(addr uint64) bool {
	s, _, ok := c.layout.Locate(addr)
	return ok && strings.HasPrefix(s.Name, ".plt")
}

// noFDEReason says why a function with CFI has no SFrame FDE, as far as
// the file shows it. In an object that has SFrame, the assembler skipped
// the function. lld (a sequence of sections, or "Linker: LLD" in
// .comment) copies every input's .sframe, so the function's object had
// none: it was assembled without --gsframe. GNU ld merges the inputs and
// drops an input's SFrame it cannot read (2.44: "error in x.o(.sframe)",
// 2.47: "unexpected SFrame format version 2"), which is what happens to
// every object clang 22/23 assembles; when .comment names clang, that is
// said as the likely cause.
func (c *checker) noFDEReason() string {
	if c.noFDEWhy == "" {
		c.noFDEWhy = c.findNoFDEReason()
	}
	return c.noFDEWhy
}

// findNoFDEReason computes noFDEReason's answer, once per file.
func (c *checker) findNoFDEReason() string {
	comment := c.comment()
	if c.layout != nil && c.layout.Synthetic() {
		const why = "the assembler emitted no SFrame FDE for it although the object has SFrame"
		switch p := producer(comment); p {
		case "":
			return why + " (an assembler skips a function whose CFI SFrame cannot express)"
		case "GCC":
			return why + " (GNU as skips, with a warning, a function whose CFI SFrame cannot express)"
		default:
			return fmt.Sprintf("%s (its .comment names %q; LLVM's assembler skips a function whose CFI SFrame cannot express)", why, p)
		}
	}
	if c.sec.Parts() > 1 || strings.Contains(comment, "Linker: LLD") {
		return "its object has no .sframe: it was assembled without --gsframe (a linker that concatenates .sframe, as lld, gold and mold do, copies every input's, so it dropped none)"
	}
	if v := producer(comment); v != "" && v != "GCC" {
		return fmt.Sprintf("its object was assembled without --gsframe, or GNU ld dropped its SFrame: part of this file was built by %q, and GNU ld 2.44 and 2.47 drop LLVM's SFrame v2 input (\"error in x.o(.sframe)\")", v)
	}
	return "no SFrame FDE was emitted for it (its object was assembled without --gsframe, or the assembler skipped it, or the linker dropped its SFrame)"
}

// producer names the compiler an object's .comment names: "GCC" for
// "GCC: (...) 12.2.0" (whose objects GNU as assembles), the "clang
// version ..." string for clang's, "" when .comment names neither (a .s
// file assembled directly: as and llvm-mc write no .comment).
func producer(comment string) string {
	if i := strings.Index(comment, "clang version "); i >= 0 {
		v := comment[i:]
		if j := strings.IndexByte(v, 0); j >= 0 {
			v = v[:j]
		}
		return v
	}
	if strings.Contains(comment, "GCC: ") {
		return "GCC"
	}
	return ""
}

// comment returns the file's .comment section (the producers' and
// linker's identification strings, NUL-separated), at most 64 KiB of it.
func (c *checker) comment() string {
	s := c.f.Section(".comment")
	if s == nil || s.Type == elf.SHT_NOBITS {
		return ""
	}
	b := make([]byte, min(s.Size, 64<<10))
	n, _ := s.ReadAt(b, 0)
	return string(b[:n])
}
