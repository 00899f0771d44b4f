package compare

import (
	"debug/elf"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/sfdbg/sfdbg/frames"
	"github.com/sfdbg/sfdbg/sframe"
)

// ErrNoSFrame is returned (wrapped) by CheckFile for an ELF file without an
// SFrame section.
var ErrNoSFrame = sframe.ErrNoSection

// CheckOptions tune a static check.
type CheckOptions struct {
	// CFI gives the file's CFI; nil means read it from the file itself.
	CFI CFISource
	// Symbolize names functions; nil means use the file's symbol tables.
	Symbolize Symbolizer
}

// CheckFile validates the SFrame section of the ELF file at path against
// the file's own .eh_frame/.debug_frame, at every instruction boundary of
// every function (AMD64: decoded with x86asm; other ABIs: at FRE and CFI
// row boundaries). The report's Err is set, and a non-nil error returned,
// when the file cannot be checked at all (not ELF, no .sframe, unreadable).
func CheckFile(path string, opts CheckOptions) (rep *FileReport, err error) {
	rep = &FileReport{File: path, Findings: []Finding{}}
	fail := func(err error) (*FileReport, error) {
		rep.Err = err.Error()
		return rep, err
	}
	defer func() {
		// A bug on hostile input must not take down a batch of files.
		if p := recover(); p != nil {
			rep, err = fail(fmt.Errorf("%s: internal error: %v", path, p))
		}
	}()
	// One module serves the ELF file, its CFI and its symbols.
	m := fileModule(path)
	defer m.Close()
	f, err := m.File()
	if err != nil {
		return fail(err)
	}
	sec, err := sframe.FromELF(f)
	if err != nil {
		rep.NoSFrame = errors.Is(err, sframe.ErrNoSection)
		return fail(fmt.Errorf("%s: %w", path, err))
	}
	rep.Version, rep.ABI = int(sec.Version), sec.ABI.String()
	c := &checker{name: filepath.Base(path), f: f, sec: sec, rep: rep, cfi: opts.CFI, sym: opts.Symbolize}
	if c.cfi == nil {
		c.cfi = moduleCFI{m}
	}
	if c.sym == nil {
		c.sym = moduleSymbolizer(m)
	}
	for _, s := range f.Sections {
		if s.Flags&elf.SHF_EXECINSTR != 0 && s.Type == elf.SHT_PROGBITS {
			data, err := s.Data()
			if err != nil {
				return fail(fmt.Errorf("%s: reading %s: %w", path, s.Name, err))
			}
			c.text = append(c.text, textRange{addr: s.Addr, data: data})
		}
	}
	if err := c.run(); err != nil {
		return fail(fmt.Errorf("%s: %w", path, err))
	}
	return rep, nil
}

func (c *checker) run() error {
	for _, p := range c.sec.Validate() {
		if p.Severity != sframe.SeverityError {
			continue
		}
		c.add(Finding{Kind: KindFormat, Function: c.funcName(p.FuncStart), FuncStart: p.FuncStart, PC: p.FuncStart,
			Message: p.String()})
	}
	cfiRanges, err := c.cfi.FDERanges()
	if err != nil && !errors.Is(err, frames.ErrUnsupportedCFI) {
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
		c.add(Finding{Kind: KindNoCFI, Message: fmt.Sprintf("SFrame validated but not compared: CFI unusable: %v", err)})
		return nil
	}
	sort.Slice(cfiRanges, func(i, j int) bool { return cfiRanges[i].Start < cfiRanges[j].Start })
	sum.FunctionsCFI = len(cfiRanges)
	for _, r := range cfiRanges {
		sum.BytesCFI += r.End - r.Start
	}
	var insts []uint64
	for i := range fdes {
		fde := &fdes[i]
		over := overlapping(cfiRanges, fde.Start, fde.End())
		name := c.funcName(fde.Start)
		if len(over) == 0 {
			c.add(Finding{Kind: KindExtraFDE, Function: name, FuncStart: fde.Start, PC: fde.Start, PCEnd: fde.End(),
				Message: fmt.Sprintf("SFrame FDE %d for %s [%#x, %#x) has no CFI counterpart", fde.Index, orAddr(name, fde.Start), fde.Start, fde.End())})
			continue
		}
		// The CFI FDE that mirrors this one: the one containing its start,
		// else the first overlapping. The .plt's single CFI FDE covers what
		// SFrame splits into PLT0 and the PC-mask entries.
		cf := over[0]
		for _, r := range over {
			if fde.Start >= r.Start && fde.Start < r.End {
				cf = r
				break
			}
		}
		if !c.inPLT(fde.Start) && (cf.Start != fde.Start || cf.End != fde.End()) {
			c.add(Finding{Kind: KindBounds, Function: name, FuncStart: fde.Start, PC: fde.Start, PCEnd: fde.End(),
				Message: fmt.Sprintf("SFrame FDE %d for %s covers [%#x, %#x) (size %d), CFI FDE covers [%#x, %#x) (size %d)",
					fde.Index, orAddr(name, fde.Start), fde.Start, fde.End(), fde.Size, cf.Start, cf.End, cf.End-cf.Start)})
		}
		rows, err := c.cfi.Rows(fde.Start, fde.End())
		if err != nil {
			c.add(Finding{Kind: KindFormat, Function: name, FuncStart: fde.Start, PC: fde.Start,
				Message: fmt.Sprintf("CFI for %s unreadable: %v", orAddr(name, fde.Start), err)})
			continue
		}
		sum.FunctionsBoth++
		insts = c.boundaries(fde, rows, insts)
		sum.Instructions += c.checkFunc(fde, rows, insts)
	}
	c.uncovered(cfiRanges)
	return nil
}

// boundaries returns the PCs to compare in an FDE: every instruction
// boundary on AMD64 when the code decodes, else the union of SFrame FRE and
// CFI row starts.
func (c *checker) boundaries(fde *sframe.FDE, rows []frames.Row, buf []uint64) []uint64 {
	if c.sec.ABI == sframe.ABIAMD64LittleEndian {
		if b, ok := c.instructions(fde.Start, fde.End(), buf); ok {
			return b
		}
	}
	b := buf[:0]
	b = append(b, fde.Start)
	it := c.sec.FREs(fde)
	for it.Next() {
		if fde.PCType == sframe.PCTypeInc {
			b = append(b, fde.Start+uint64(it.FRE().StartOff))
		}
	}
	for _, r := range rows {
		if r.Start >= fde.Start && r.Start < fde.End() {
			b = append(b, r.Start)
		}
	}
	slices.Sort(b)
	return slices.Compact(b)
}

// uncovered reports CFI FDEs that no SFrame FDE overlaps, with the reason
// SFrame cannot express them when the CFI shows one.
func (c *checker) uncovered(cfiRanges []Range) {
	fdes := c.sec.FDEs()
	starts := make([]Range, len(fdes))
	for i := range fdes {
		starts[i] = Range{fdes[i].Start, fdes[i].End()}
	}
	sort.Slice(starts, func(i, j int) bool { return starts[i].Start < starts[j].Start })
	for _, r := range cfiRanges {
		if len(overlapping(starts, r.Start, r.End)) > 0 || r.End == r.Start {
			continue
		}
		name := c.funcName(r.Start)
		kind, why := KindNoFDE, "no SFrame FDE was emitted for it (its object was assembled without --gsframe, or the assembler skipped it)"
		if rows, err := c.cfi.Rows(r.Start, r.End); err == nil {
			if reason, expressible := inexpressible(rows, c.sec.Version); reason != "" {
				why = reason
				if !expressible {
					kind = KindSkipped
				}
			}
		}
		c.add(Finding{Kind: kind, Function: name, FuncStart: r.Start, PC: r.Start, PCEnd: r.End,
			Message: fmt.Sprintf("CFI covers %s [%#x, %#x) but SFrame does not: %s", orAddr(name, r.Start), r.Start, r.End, why)})
	}
}

// inexpressible looks for CFI rules SFrame cannot express: a CFA based on a
// register other than SP/FP, a CFA expression, or RA/FP in a register or
// given by an expression. expressible says whether SFrame v3 FLEX FDEs
// could express it (and the section is v3).
func inexpressible(rows []frames.Row, v sframe.Version) (reason string, expressible bool) {
	for _, r := range rows {
		switch {
		case r.CFA.Kind == sframe.RuleValExpression || r.CFA.Kind == sframe.RuleExpression:
			return "its CFA is a DWARF expression", false
		case (r.CFA.Kind == sframe.RuleValOffset || r.CFA.Kind == sframe.RuleOffset) && r.CFA.Reg != frames.RSP && r.CFA.Reg != frames.RBP:
			return fmt.Sprintf("its CFA is based on %s, not SP or FP (DRAP or stack realignment)", frames.RegName(r.CFA.Reg)), v >= sframe.Version3
		case r.RA.Kind == sframe.RuleRegister || r.FP.Kind == sframe.RuleRegister:
			return "it keeps RA or FP in a register", v >= sframe.Version3
		case r.RA.Kind == sframe.RuleExpression || r.FP.Kind == sframe.RuleExpression:
			return "RA or FP is located by a DWARF expression", false
		}
	}
	return "", false
}

// overlapping returns the ranges of sorted that overlap [start, end).
func overlapping(sorted []Range, start, end uint64) []Range {
	if end == start {
		return nil
	}
	i := sort.Search(len(sorted), func(i int) bool { return sorted[i].End > start })
	var out []Range
	for ; i < len(sorted) && sorted[i].Start < end; i++ {
		if sorted[i].End > start {
			out = append(out, sorted[i])
		}
	}
	return out
}

// inPLT reports whether addr lies in a .plt* section, whose CFI FDE covers
// the whole section while SFrame has one FDE for PLT0 and one for the entries.
func (c *checker) inPLT(addr uint64) bool {
	for _, s := range c.f.Sections {
		if strings.HasPrefix(s.Name, ".plt") && addr >= s.Addr && addr < s.Addr+s.Size {
			return true
		}
	}
	return false
}
