package frames

// DWARF CFI: the reference unwinder that SFrame is checked against.
//
// CIEs and FDEs of .eh_frame and .debug_frame, in either byte order and in
// 32- and 64-bit DWARF, are read and their call frame instructions
// interpreted by package frames/cfi, which cfitab.go adapts to a module;
// DWARF expressions are evaluated by the one evaluator (eval.go, with
// Delve's pkg/dwarf/op). Lookups at single PCs (CFIRow, CFIUnwinder) find
// FDEs through .eh_frame_hdr and read only those when the file has a
// usable .eh_frame_hdr and no .debug_frame; otherwise, and for the checks
// over whole modules (CFIRows, CFIFDEs), all of the CFI is parsed once.

import (
	"errors"
	"fmt"
	"sort"

	"github.com/sfdbg/sfdbg/frames/cfi"
)

// CFI section names, as they appear in Source.Section and in errors.
const (
	SectionEHFrame    = cfi.SectionEHFrame
	SectionDebugFrame = cfi.SectionDebugFrame
)

// ErrUnsupportedCFI matches errors about CFI in a form sfdbg does not
// read (an encoding or a CIE version it refuses); errors.Is tells them
// from malformed CFI (cfi.ErrMalformed).
var ErrUnsupportedCFI = cfi.ErrUnsupported

// ErrNoCFI is wrapped by the *StopError of a module that has neither
// .eh_frame nor .debug_frame (an object assembled with ".cfi_sections
// .sframe", a link with --no-ld-generated-unwind-info and no CFI input).
var ErrNoCFI = errors.New("no CFI (.eh_frame or .debug_frame)")

// CFIFDE describes one FDE of a module's CFI: the runtime PC range
// [Start, End) it covers, where it is (Source, as Source.String names it)
// and whether its CIE marks a signal frame (augmentation "S").
type CFIFDE struct {
	Start, End uint64
	Source     string
	Signal     bool
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
		var ce *cfi.Error
		if errors.As(err, &ce) {
			return nil, cfiStop(ReasonFormat, pc, m, err, "malformed CFI in %s: %v", m.Name, err)
		}
		return nil, cfiStop(ReasonNoData, pc, m, err, "no CFI for %s: %v", m.Name, err)
	}
	if t == nil {
		return nil, cfiStop(ReasonNoData, pc, m, ErrNoCFI, "no CFI (.eh_frame or .debug_frame) in %s", m.Name)
	}
	return t, nil
}

// cfiLookupErr turns an error of cfiTable.row, lookup or rowsOf into a
// *StopError: ReasonNoFDE and ReasonNoRow for cfi.ErrNoFDE and
// cfi.ErrNoRow, ReasonFormat for a *cfi.Error, ReasonNoData for anything
// else (the file could not be read, as in cfiTableOf).
func (m *Module) cfiLookupErr(pc uint64, err error) error {
	var ce *cfi.Error
	switch {
	case errors.Is(err, cfi.ErrNoFDE):
		return cfiStop(ReasonNoFDE, pc, m, err, "no CFI for PC %#x in %s", pc, m.Name)
	case errors.Is(err, cfi.ErrNoRow):
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
// wrapping a *cfi.Error).
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

// cfiFDEStart returns the link-time start of the DWARF CFI FDE that
// covers the link-time address lpc, without building its rows; ok is
// false where none does or the module's CFI cannot be read.
func (m *Module) cfiFDEStart(lpc uint64) (start uint64, ok bool) {
	start, _, ok = m.cfiFDERange(lpc)
	return start, ok
}

// cfiFDERange is cfiFDEStart with the FDE's end: [start, end), link-time.
func (m *Module) cfiFDERange(lpc uint64) (start, end uint64, ok bool) {
	t, err := m.cfiTableOf(lpc+m.Bias, true)
	if err != nil {
		return 0, 0, false
	}
	fd, err := t.lookup(lpc)
	if err != nil {
		return 0, 0, false
	}
	return fd.Start, fd.End, true
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
	first := sort.Search(len(t.fdes), func(i int) bool { return t.fdes[i].End > lo })
	// Two passes: the rows are large, and growing the result by append
	// cost as much as building them (BenchmarkCheckFile).
	n := 0
	for i := first; i < len(t.fdes) && t.fdes[i].Start < hi; i++ {
		rows, err := t.rowsOf(t.fdes[i])
		if err != nil {
			return nil, m.cfiLookupErr(t.fdes[i].Start+m.Bias, err)
		}
		n += len(rows)
	}
	out := make([]Row, 0, n)
	for i := first; i < len(t.fdes) && t.fdes[i].Start < hi; i++ {
		rows, _ := t.rowsOf(t.fdes[i]) // built above
		k := len(out)
		out = append(out, rows...)
		for ; k < len(out); k++ {
			out[k].Src.Module = m
		}
	}
	return out, nil
}

// CFIRowsOfFDE returns the rows of the i-th FDE of CFIFDEs's list, in
// address order (runtime addresses), built for this call and not kept on
// the module: a check reads each FDE's rows once, and keeping them all
// held a whole module's rows (190 MB for Debian's 47 MB libnode). Errors
// are as for CFIRows; an index outside the list is ReasonNoFDE.
func (m *Module) CFIRowsOfFDE(i int) ([]Row, error) {
	t, err := m.cfiTableOf(m.Start, false)
	if err != nil {
		return nil, err
	}
	if i < 0 || i >= len(t.fdes) {
		return nil, cfiStop(ReasonNoFDE, 0, m, cfi.ErrNoFDE, "no FDE %d in %s (%d FDEs)", i, m.Name, len(t.fdes))
	}
	rows, err := t.rowsOnce(t.fdes[i])
	if err != nil {
		return nil, m.cfiLookupErr(t.fdes[i].Start+m.Bias, err)
	}
	for k := range rows {
		rows[k].Src.Module = m
	}
	return rows, nil
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
		src := Source{Method: MethodCFI, Section: f.Kind.String(), FDE: f.Off, CIE: f.CIE.Off, FRE: -1}
		out[i] = CFIFDE{Start: f.Start + m.Bias, End: f.End + m.Bias, Source: src.String(), Signal: f.CIE.Signal}
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
		_, err := m.Arch()
		return Row{}, cfiStop(ReasonUnsupported, f.PC, m, err, "cannot unwind PC %#x with CFI: %v", f.PC, err)
	}
	lpc := f.LookupPC() - m.Bias
	exact := f.PC - m.Bias
	fde, err := t.lookup(lpc)
	if errors.Is(err, cfi.ErrNoFDE) {
		fde, err = nil, nil
	}
	if err != nil {
		return Row{}, m.cfiLookupErr(lpc+m.Bias, err)
	}
	if lpc != exact {
		if fde != nil && fde.CIE.Signal && exact < fde.End {
			lpc = exact
		} else if fde == nil || !fde.CIE.Signal {
			// A signal trampoline whose FDE does not start one byte
			// early: the kernel's "return address" is its first
			// instruction, not the end of a call, so the FDE at the
			// exact PC is the one to use when it is a signal frame's.
			// This lookup only probes for one: an error (through
			// .eh_frame_hdr, a malformed FDE next to the frame's own)
			// means there is none to use.
			e, err := t.lookup(exact)
			if err == nil && e.CIE.Signal && e != fde {
				fde, lpc = e, exact
			}
		}
	}
	if fde == nil {
		return Row{}, m.cfiLookupErr(lpc+m.Bias, cfi.ErrNoFDE)
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
	if m == nil || !m.Contains(f.LookupPC()) {
		m = u.Space.Modules.Find(f.LookupPC())
	}
	if m == nil {
		if caller, ok, err := u.sigtramp(f); ok {
			return caller, err
		}
		return Frame{}, cfiStop(ReasonNoModule, f.PC, nil, nil, "no module for PC %#x", f.PC)
	}
	row, err := m.cfiFrameRow(f)
	if err != nil {
		var se *StopError
		// No FDE, or a module with no CFI at all: the trampoline by its
		// code. The arm64 vDSO of Debian 12's kernel (6.1) has no
		// .eh_frame; without this, its __kernel_rt_sigreturn stopped the
		// CFI trace (testdata/cores/crash-aarch64-vm.core).
		if errors.As(err, &se) && (se.Reason == ReasonNoFDE || errors.Is(err, ErrNoCFI)) {
			if caller, ok, serr := u.sigtramp(f); ok {
				return caller, serr
			}
		}
		return Frame{}, err
	}
	f.Row = row
	var caller Frame
	err = stepRow(f, u.Space, &caller)
	return caller, err
}

// sigtramp unwinds f through a signal trampoline recognised by its code
// where no CFI covers it (stepSigtramp), on AArch64 and s390x, as gdb's
// trampoline unwinders do. ok is false when f is no such trampoline.
func (u *CFIUnwinder) sigtramp(f *Frame) (caller Frame, ok bool, err error) {
	if f.Regs.arch().Signal.Tramp == nil || u.Space.Mem == nil {
		return Frame{}, false, nil
	}
	return stepSigtramp(u.Space, f, MethodCFI)
}
