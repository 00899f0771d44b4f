package cfi

import (
	"slices"

	"github.com/sfdbg/sfdbg/sframe/rule"
)

// RegRule is the rule of one register in a row.
type RegRule struct {
	Reg  rule.Reg
	Rule rule.Rule
}

// Row is one row of an FDE's table (DWARF 5 §6.4.1): for the link-time PCs
// [Start, End), how to recover the caller's CFA and registers.
//
// Rules use package sframe's form:
//   - CFA is RuleValOffset{Reg: r, Offset: off} (DW_CFA_def_cfa and
//     friends), RuleValExpression{Expr} (DW_CFA_def_cfa_expression: the
//     CFA is the expression's value), or RuleUndefined before any
//     DW_CFA_def_cfa.
//   - A register saved at CFA+N is RuleOffset{Reg: RegCFA, Offset: N}
//     (DW_CFA_offset*), one whose value is CFA+N is RuleValOffset{Reg:
//     RegCFA, Offset: N} (DW_CFA_val_offset*), one held in another
//     register is RuleRegister{Reg: other}, DW_CFA_expression and
//     DW_CFA_val_expression give RuleExpression and RuleValExpression with
//     the expression's bytes in Expr; DW_CFA_undefined and
//     DW_CFA_same_value give RuleUndefined and RuleSameValue. Rules
//     without a base register (undefined, same value, expressions) have
//     Reg RegCFA and Offset 0. Offsets are in bytes, already multiplied by
//     the data alignment factor. Expressions are not evaluated or
//     simplified here.
//   - A register without a rule ("unspecified") is absent from Regs, and
//     Rule reports it so: the caller applies its ABI's default (on AMD64,
//     callee-saved registers keep their value). That is not the same as
//     RuleSameValue, which the CFI states explicitly.
//
// Rows of an FDE cover its range without gaps, in address order; rows that
// the CFI program separates by an advance stay separate even when their
// rules are equal. Rows are comparable with Equal and SameRules.
type Row struct {
	Start, End uint64
	CFA        rule.Rule
	// Regs holds the registers that have a rule (shared with the FDE's
	// other rows, see RegSet).
	Regs RegSet
	// RAReg is the return address column of the CIE.
	RAReg rule.Reg
	// RASigned is the AArch64 RA signing state: set after an odd number
	// of DW_CFA_AARCH64_negate_ra_state (on SPARC, DW_CFA_GNU_window_save,
	// the same opcode).
	RASigned bool
	// BKey (augmentation B): the RA is signed with the B key, not the A
	// key.
	BKey bool
	// Signal (augmentation S): the FDE describes a signal trampoline.
	Signal bool
	// Section, FDEOff and CIEOff say where the row comes from: the byte
	// offsets of its FDE and CIE in that section.
	Section        Kind
	FDEOff, CIEOff int64
}

// Rule returns the rule of register reg, and false when the register has
// none (unspecified: the ABI's default applies).
func (r *Row) Rule(reg rule.Reg) (rule.Rule, bool) {
	return r.Regs.Rule(reg)
}

// SameRules reports whether r and o recover the caller the same way: the
// same CFA rule, register rules, RA column, RA signing state, key and
// signal-frame flag, wherever they come from.
func (r *Row) SameRules(o *Row) bool {
	return r.CFA == o.CFA && r.RAReg == o.RAReg && r.RASigned == o.RASigned &&
		r.BKey == o.BKey && r.Signal == o.Signal && r.Regs.Equal(o.Regs)
}

// Equal reports whether r and o are the same row: SameRules, the same
// range and the same provenance.
func (r *Row) Equal(o *Row) bool {
	return r.Start == o.Start && r.End == o.End && r.Section == o.Section &&
		r.FDEOff == o.FDEOff && r.CIEOff == o.CIEOff && r.SameRules(o)
}

// rowCache is an FDE's rows, or the error building them.
type rowCache struct {
	rows []Row
	err  error
}

// Rows returns every row of the FDE, in address order, covering [Start,
// End). They are built on the first call and cached: the slice is shared
// and must not be modified. An FDE whose range is empty has no rows.
// Errors are *Errors (ErrMalformed or ErrUnsupported) at the instruction
// at fault, in the FDE or in its CIE's initial instructions.
func (f *FDE) Rows() ([]Row, error) {
	if rc := f.rows.Load(); rc != nil {
		return rc.rows, rc.err
	}
	rows, err := f.AppendRows(nil)
	rc := &rowCache{rows: rows, err: err}
	if err != nil {
		rc.rows = nil
	}
	if !f.rows.CompareAndSwap(nil, rc) {
		rc = f.rows.Load()
	}
	return rc.rows, rc.err
}

// RowAt returns the row for the link-time address pc, from the cached rows
// (Rows). The error is ErrNoRow when pc is outside [Start, End), or Rows'
// error.
func (f *FDE) RowAt(pc uint64) (Row, error) {
	rows, err := f.Rows()
	if err != nil {
		return Row{}, err
	}
	lo, hi := 0, len(rows)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if rows[m].End <= pc {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo == len(rows) || rows[lo].Start > pc {
		return Row{}, ErrNoRow
	}
	return rows[lo], nil
}

// AppendRows interprets the FDE's instructions afresh and appends its rows
// to dst, without caching them: for callers that walk many FDEs once. On
// error it returns dst as it was and the error Rows would give. The rows
// and their rules cost memory linear in the FDE's instructions (RegSet).
func (f *FDE) AppendRows(dst []Row) ([]Row, error) { return f.AppendRowsBefore(dst, f.End) }

// ArgsSize is a DW_CFA_GNU_args_size: from PC on (link-time), Size bytes
// of outgoing arguments are on the stack; an unwinder that enters a
// landing pad from a call there pops them (libgcc's uw_install_context:
// SP + args_size).
type ArgsSize struct {
	PC, Size uint64
}

// ArgsSizes returns the DW_CFA_GNU_args_size of f's instructions, in
// order, each with where it takes effect (LLVM emits one before each call
// with pushed arguments in a function with landing pads). Errors as
// AppendRowsBefore's.
func (f *FDE) ArgsSizes() ([]ArgsSize, error) {
	var out []ArgsSize
	_, err := f.appendRows(nil, f.End, &out)
	return out, err
}

// AppendRowsBefore is AppendRows for the part of the FDE below address
// end: the rows end there, and no more rows are built than the range
// [Start, min(End, end)) has bytes. A caller passes the end of the code
// that holds the FDE's start (the executable section), so that an FDE
// declaring gigabytes of range, or instructions that advance by one byte
// millions of times, costs the code that exists, not what it declares.
func (f *FDE) AppendRowsBefore(dst []Row, end uint64) ([]Row, error) {
	return f.appendRows(dst, end, nil)
}

func (f *FDE) appendRows(dst []Row, end uint64, args *[]ArgsSize) ([]Row, error) {
	end = min(end, f.End)
	if end <= f.Start {
		return dst, nil
	}
	init, err := f.CIE.initialState()
	if err != nil {
		return dst, err
	}
	if len(f.Instructions) > maxInstructions {
		// RegSet indexes the rules its rows store with int32s.
		return dst, unsupported(f.Kind.String(), f.Off, "FDE: %d bytes of instructions, more than %d", len(f.Instructions), maxInstructions)
	}
	n := len(dst)
	// A row covers at least one byte of [Start, end).
	dst = slices.Grow(dst, int(min(uint64(rowBound(f.Instructions)), end-f.Start)))
	in := interp{cie: f.CIE, init: init, loc: f.Start, end: end, args: args}
	in.rows = rowBuilder{rows: dst, tmpl: Row{RAReg: f.CIE.RAReg, BKey: f.CIE.BKey, Signal: f.CIE.Signal,
		Section: f.Kind, FDEOff: f.Off, CIEOff: f.CIE.Off}}
	in.rows.start(init)
	in.st.reset(init)
	c := cursor{b: f.Instructions, base: f.InstructionsOff, addr: f.CIE.addr + uint64(f.InstructionsOff),
		order: f.CIE.order, sec: f.Kind.String()}
	if err := in.run(&c); err != nil {
		err.Msg = "FDE at " + hex(f.Off) + ": " + err.Msg
		return dst[:n], err
	}
	if in.loc < end {
		in.rows.emit(in.loc, end, &in.st)
	}
	return in.rows.rows, nil
}

// initialState runs the CIE's initial instructions once and returns the
// rules they leave (DWARF 5 §6.4.1: the rules every FDE of the CIE starts
// from). They must not be modified.
func (e *CIE) initialState() (*initial, error) {
	e.initOnce.Do(func() {
		in := interp{cie: e}
		in.st.reset(&initial{cfa: ruleUndefined})
		c := cursor{b: e.Initial, base: e.InitialOff, addr: e.addr + uint64(e.InitialOff),
			order: e.order, sec: e.Kind.String()}
		if err := in.run(&c); err != nil {
			err.Msg = "CIE at " + hex(e.Off) + " initial instructions: " + err.Msg
			e.initErr = err
		}
		e.init = initial{cfa: in.st.cfa, raSigned: in.st.raSigned, regs: in.st.appendRules(nil)}
	})
	return &e.init, e.initErr
}
