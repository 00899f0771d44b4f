package frames

// The EHABI unwinder: a frame's row from its function's .ARM.exidx entry
// (EHABIRow), evaluated by the one evaluator (stepRow), as libgcc's
// unwinder (unwind-arm-common.inc, get_eit_entry and
// __gnu_unwind_execute) uses the tables.

import (
	"debug/elf"
	"errors"
	"fmt"
	"sort"

	"github.com/sfdbg/sfdbg/frames/ehabi"
	"github.com/sfdbg/sfdbg/sframe/arch"
	"github.com/sfdbg/sfdbg/sframe/rule"
)

// ehabiKey is the Module.Memo key of a module's EHABI index.
type ehabiKey struct{}

// ehabiIndex is a module's EHABI index: the entries of its index
// sections sorted by function address (link-time), each with the table
// it is from, or why there are none.
type ehabiIndex struct {
	entries []ehabiEntry
	arch    *arch.Arch
	err     error
}

type ehabiEntry struct {
	e *ehabi.Entry
	t *ehabi.Table
}

// ehabiIndexOf returns m's EHABI index, read on first use and kept on the
// module.
func (m *Module) ehabiIndexOf() *ehabiIndex {
	return m.Memo(ehabiKey{}, func() any {
		ix := &ehabiIndex{}
		f, err := m.File()
		if err != nil {
			ix.err = err
			return ix
		}
		if f.Machine != elf.EM_ARM || !ehabi.IsEHABIMachine(f) {
			ix.err = fmt.Errorf("%v: %w", f.Machine, ehabi.ErrNoTables)
			return ix
		}
		if ix.arch, ix.err = m.Arch(); ix.err != nil {
			return ix
		}
		ef, err := ehabi.ReadELF(f)
		if ef != nil {
			for _, t := range ef.Tables {
				for i := range t.Entries {
					ix.entries = append(ix.entries, ehabiEntry{&t.Entries[i], t})
				}
			}
		}
		if len(ix.entries) == 0 {
			ix.err = err
			if ix.err == nil {
				ix.err = ehabi.ErrNoTables
			}
		}
		sort.SliceStable(ix.entries, func(i, j int) bool { return ix.entries[i].e.Fn < ix.entries[j].e.Fn })
		return ix
	}).(*ehabiIndex)
}

// ehabiStop builds the *StopError of an EHABI lookup or step.
func ehabiStop(r Reason, pc uint64, m *Module, err error, format string, args ...any) *StopError {
	e := &StopError{Method: MethodEHABI, Reason: r, PC: pc, Msg: fmt.Sprintf(format, args...), Err: err}
	if m != nil {
		e.Module = m.Name
	}
	return e
}

// ehabiRowAt returns the EHABI row of the function holding the runtime
// address pc in m: the row of the last index entry at or below pc
// (EHABI 5: the index is sorted, an entry covers the functions up to the
// next entry), with Start and End the entry's range and Src naming the
// entry. The row describes the function's body, not its prologue or
// epilogue. Errors are *StopError: ReasonNoData (no EHABI tables, or the
// file cannot be read), ReasonNoFDE (pc below the first entry),
// ReasonOutermost (EXIDX_CANTUNWIND, which ends libgcc's unwind),
// ReasonNoRow (an entry that refuses to unwind, or without the
// instructions of a GCC personality routine), ReasonFormat (a malformed
// entry or instructions no row can express).
func (m *Module) ehabiRowAt(pc uint64) (Row, error) {
	ix := m.ehabiIndexOf()
	if ix.err != nil {
		return Row{}, ehabiStop(ReasonNoData, pc, m, ix.err, "no EHABI for %s: %v", m.Name, ix.err)
	}
	lpc := pc - m.Bias
	i := sort.Search(len(ix.entries), func(i int) bool { return ix.entries[i].e.Fn > lpc }) - 1
	if i < 0 {
		return Row{}, ehabiStop(ReasonNoFDE, pc, m, nil, "no EHABI entry for PC %#x in %s", pc, m.Name)
	}
	e, t := ix.entries[i].e, ix.entries[i].t
	start, end := e.Fn+m.Bias, m.End
	if i+1 < len(ix.entries) {
		end = ix.entries[i+1].e.Fn + m.Bias
	}
	where := fmt.Sprintf("%s entry %#x (function %#x)", t.Index.Name, e.Off, start)
	src := Source{Method: MethodEHABI, Module: m, Section: t.Index.Name, FDE: e.Off, CIE: -1, FRE: -1,
		FDEStart: start, FDEEnd: end, Arch: ix.arch}
	switch {
	case e.Kind == ehabi.EntryCantUnwind:
		return Row{Src: src, Start: start, End: end, Row: rule.Row{Outermost: true}},
			ehabiStop(ReasonOutermost, pc, m, nil, "outermost frame: %s is EXIDX_CANTUNWIND at PC %#x in %s", where, pc, m.Name)
	case e.Err != nil:
		return Row{}, ehabiStop(ReasonFormat, pc, m, e.Err, "malformed EHABI %s in %s: %v", where, m.Name, e.Err)
	case e.Unwind == nil || e.Unwind.Generic && !e.Unwind.GCC:
		return Row{}, ehabiStop(ReasonNoRow, pc, m, nil, "EHABI %s in %s has no unwinding instructions sfdbg reads (personality routine %#x)",
			where, m.Name, personality(e.Unwind))
	}
	for _, op := range e.Unwind.Ops {
		if op.Kind == ehabi.OpRefuse {
			return Row{}, ehabiStop(ReasonNoRow, pc, m, nil, "EHABI %s in %s refuses to unwind (0x80 0x00)", where, m.Name)
		}
	}
	row, err := ehabiRow(ix.arch, e.Unwind, true)
	if err != nil {
		return Row{}, ehabiStop(ReasonFormat, pc, m, err, "EHABI %s in %s: %v", where, m.Name, err)
	}
	src.Ops = EHABIOpsText(e.Unwind)
	row.Src, row.Start, row.End = src, start, end
	return row, nil
}

func personality(u *ehabi.Unwind) uint64 {
	if u == nil {
		return 0
	}
	return u.Personality
}

// EHABIUnwinder unwinds 32-bit ARM frames with the EHABI compact tables
// (.ARM.exidx, .ARM.extab) as libgcc's unwinder does: the frame's
// function's entry becomes a row (ehabiRowAt) that the one evaluator
// applies (stepRow); registers the entry does not pop keep their value.
// Its rows hold at the function's call sites. A signal restorer's entry
// (glibc's pop the registers the kernel saved, r13 included) makes a row
// whose caller is the interrupted frame, when its code is a trampoline
// (arch.Signal.Tramp). An interrupted frame (frame
// 0, or one a signal interrupted) stopped at its function's first
// instruction has run none of it: its row is the machine's entry row
// (arch.Arch.Entry: CFA = SP, the RA in LR). Stopped anywhere else it gets
// the body's row, which a prologue or an epilogue makes wrong (the
// comparison says so rather than count it a fault).
type EHABIUnwinder struct {
	Space *Space
}

// Method implements Unwinder.
func (u *EHABIUnwinder) Method() Method { return MethodEHABI }

// Step implements Unwinder. Errors are *StopError: ReasonNoModule, those
// of ehabiRowAt, and those of stepRow.
func (u *EHABIUnwinder) Step(f *Frame) (Frame, error) {
	m := f.Module
	if m == nil || !m.Contains(f.LookupPC()) {
		m = u.Space.Modules.Find(f.LookupPC())
	}
	if m == nil {
		return Frame{}, ehabiStop(ReasonNoModule, f.PC, nil, nil, "no module for PC %#x", f.PC)
	}
	row, err := m.ehabiRowAt(f.LookupPC())
	if err != nil {
		var se *StopError
		if errors.As(err, &se) && se.Reason == ReasonOutermost {
			f.Row = row
		}
		return Frame{}, err
	}
	if a := row.Src.Arch; a.Signal.Tramp != nil && u.Space.Mem != nil {
		// A signal restorer (glibc's entries pop the registers the
		// kernel saved): its caller is the interrupted frame.
		if _, ok := sigtramp(u.Space, a, f.PC, MethodEHABI); ok {
			row.Signal = true
		}
	}
	if f.Interrupted && f.PC == row.Start {
		a := row.Src.Arch
		row.Row, row.Other = a.Entry, OtherRules{}
		row.Row.SPOffset = a.SPOffset
		row.Src.Ops = "(the function's first instruction: its entry row)"
	}
	f.Row = row
	var caller Frame
	err = stepRow(f, u.Space, &caller)
	if err == nil && row.Other.has(armSP) {
		// r13 popped: the caller's SP is the one loaded, and the CFA
		// (the caller's SP less SPOffset) follows it, not the vsp.
		f.CFA = uint64(int64(caller.Regs.SP()) - row.SPOffset)
	}
	return caller, err
}
