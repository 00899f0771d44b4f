package cfi

import (
	"fmt"
	"math/bits"
	"slices"

	"github.com/sfdbg/sfdbg/sframe/rule"
)

// cfaOp is a call frame instruction opcode (DWARF 5 §6.4.2, Table 7.29;
// the GNU extensions of binutils' include/dwarf2.def).
type cfaOp uint8

// Call frame instructions. The first three keep their operand in the low
// six bits of the opcode.
const (
	cfaAdvanceLoc cfaOp = 0x40 // DW_CFA_advance_loc
	cfaOffset     cfaOp = 0x80 // DW_CFA_offset
	cfaRestore    cfaOp = 0xc0 // DW_CFA_restore

	cfaNop                        cfaOp = 0x00 // DW_CFA_nop
	cfaSetLoc                     cfaOp = 0x01 // DW_CFA_set_loc
	cfaAdvanceLoc1                cfaOp = 0x02 // DW_CFA_advance_loc1
	cfaAdvanceLoc2                cfaOp = 0x03 // DW_CFA_advance_loc2
	cfaAdvanceLoc4                cfaOp = 0x04 // DW_CFA_advance_loc4
	cfaOffsetExtended             cfaOp = 0x05 // DW_CFA_offset_extended
	cfaRestoreExtended            cfaOp = 0x06 // DW_CFA_restore_extended
	cfaUndefined                  cfaOp = 0x07 // DW_CFA_undefined
	cfaSameValue                  cfaOp = 0x08 // DW_CFA_same_value
	cfaRegister                   cfaOp = 0x09 // DW_CFA_register
	cfaRememberState              cfaOp = 0x0a // DW_CFA_remember_state
	cfaRestoreState               cfaOp = 0x0b // DW_CFA_restore_state
	cfaDefCFA                     cfaOp = 0x0c // DW_CFA_def_cfa
	cfaDefCFARegister             cfaOp = 0x0d // DW_CFA_def_cfa_register
	cfaDefCFAOffset               cfaOp = 0x0e // DW_CFA_def_cfa_offset
	cfaDefCFAExpression           cfaOp = 0x0f // DW_CFA_def_cfa_expression
	cfaExpression                 cfaOp = 0x10 // DW_CFA_expression
	cfaOffsetExtendedSF           cfaOp = 0x11 // DW_CFA_offset_extended_sf
	cfaDefCFASF                   cfaOp = 0x12 // DW_CFA_def_cfa_sf
	cfaDefCFAOffsetSF             cfaOp = 0x13 // DW_CFA_def_cfa_offset_sf
	cfaValOffset                  cfaOp = 0x14 // DW_CFA_val_offset
	cfaValOffsetSF                cfaOp = 0x15 // DW_CFA_val_offset_sf
	cfaValExpression              cfaOp = 0x16 // DW_CFA_val_expression
	cfaLoUser                     cfaOp = 0x1c // DW_CFA_lo_user
	cfaAArch64NegateRAStateWithPC cfaOp = 0x2c // DW_CFA_AARCH64_negate_ra_state_with_pc: refused
	cfaAArch64NegateRAState       cfaOp = 0x2d // DW_CFA_AARCH64_negate_ra_state = DW_CFA_GNU_window_save (SPARC)
	cfaGNUArgsSize                cfaOp = 0x2e // DW_CFA_GNU_args_size
	cfaGNUNegativeOffsetExtended  cfaOp = 0x2f // DW_CFA_GNU_negative_offset_extended
	cfaHiUser                     cfaOp = 0x3f // DW_CFA_hi_user
)

var cfaNames = [...]string{
	cfaNop: "DW_CFA_nop", cfaSetLoc: "DW_CFA_set_loc", cfaAdvanceLoc1: "DW_CFA_advance_loc1",
	cfaAdvanceLoc2: "DW_CFA_advance_loc2", cfaAdvanceLoc4: "DW_CFA_advance_loc4",
	cfaOffsetExtended: "DW_CFA_offset_extended", cfaRestoreExtended: "DW_CFA_restore_extended",
	cfaUndefined: "DW_CFA_undefined", cfaSameValue: "DW_CFA_same_value", cfaRegister: "DW_CFA_register",
	cfaRememberState: "DW_CFA_remember_state", cfaRestoreState: "DW_CFA_restore_state",
	cfaDefCFA: "DW_CFA_def_cfa", cfaDefCFARegister: "DW_CFA_def_cfa_register",
	cfaDefCFAOffset: "DW_CFA_def_cfa_offset", cfaDefCFAExpression: "DW_CFA_def_cfa_expression",
	cfaExpression: "DW_CFA_expression", cfaOffsetExtendedSF: "DW_CFA_offset_extended_sf",
	cfaDefCFASF: "DW_CFA_def_cfa_sf", cfaDefCFAOffsetSF: "DW_CFA_def_cfa_offset_sf",
	cfaValOffset: "DW_CFA_val_offset", cfaValOffsetSF: "DW_CFA_val_offset_sf",
	cfaValExpression:              "DW_CFA_val_expression",
	cfaAArch64NegateRAStateWithPC: "DW_CFA_AARCH64_negate_ra_state_with_pc",
	cfaAArch64NegateRAState:       "DW_CFA_AARCH64_negate_ra_state",
	cfaGNUArgsSize:                "DW_CFA_GNU_args_size",
	cfaGNUNegativeOffsetExtended:  "DW_CFA_GNU_negative_offset_extended",
}

func (o cfaOp) String() string {
	switch o & 0xc0 {
	case cfaAdvanceLoc:
		return "DW_CFA_advance_loc"
	case cfaOffset:
		return "DW_CFA_offset"
	case cfaRestore:
		return "DW_CFA_restore"
	}
	if int(o) < len(cfaNames) && cfaNames[o] != "" {
		return cfaNames[o]
	}
	return fmt.Sprintf("DW_CFA_%#x", uint8(o))
}

// Limits that keep a hostile FDE from costing more than a few megabytes.
const (
	// maxRemember bounds the DW_CFA_remember_state stack.
	maxRemember = 128
	// maxRules bounds the registers with a rule in one row.
	maxRules = 256
	// maxRuleEntries bounds the register rules stored for all the rows of
	// one FDE (rows that keep the rules of the row before share them).
	maxRuleEntries = 1 << 18
	// ruleEntriesPerByte bounds, with the CIE's initial rules, the
	// register rules stored for the rows of one FDE per byte of its
	// instructions, so that the rows cost memory linear in the bytes that
	// exist: without it, one two-byte instruction pair (an advance and a
	// DW_CFA_offset) after initial instructions that give 256 registers
	// a rule copies 256 rules (10 KiB), and a 67 KB .eh_frame allocated
	// 228 MB. The FDEs of GNU and LLVM output store at most 2 rules per
	// byte beyond their CIE's (libffi, libc, every testdata binary and
	// the shared libraries of a Debian system), so 16 leaves room.
	ruleEntriesPerByte = 16
)

// Rules without a base register carry Reg RegCFA, as in package sframe.
var (
	ruleUndefined = rule.Rule{Kind: rule.Undefined, Reg: rule.CFA}
	ruleSame      = rule.Rule{Kind: rule.SameValue, Reg: rule.CFA}
)

// state is the row the interpreter is building: the CFA rule, the
// registers that have a rule, sorted by register, and the AArch64 RA
// signing state.
type state struct {
	cfa      rule.Rule
	regs     []RegRule
	raSigned bool
}

// copyFrom makes s a copy of o, reusing s's storage.
func (s *state) copyFrom(o *state) {
	s.cfa, s.raSigned = o.cfa, o.raSigned
	s.regs = append(s.regs[:0], o.regs...)
}

// find returns the index of reg in s.regs, or where it would go.
func (s *state) find(reg rule.Reg) (int, bool) { return findReg(s.regs, reg) }

// findReg returns the index of reg in regs, sorted by register, or where
// it would go.
func findReg(regs []RegRule, reg rule.Reg) (int, bool) {
	lo, hi := 0, len(regs)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if regs[m].Reg < reg {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, lo < len(regs) && regs[lo].Reg == reg
}

func (s *state) get(reg rule.Reg) (rule.Rule, bool) {
	if i, ok := s.find(reg); ok {
		return s.regs[i].Rule, true
	}
	return rule.Rule{}, false
}

// set gives reg a rule; false when that would make more than maxRules.
func (s *state) set(reg rule.Reg, r rule.Rule) bool {
	i, ok := s.find(reg)
	if ok {
		s.regs[i].Rule = r
		return true
	}
	if len(s.regs) >= maxRules {
		return false
	}
	s.regs = slices.Insert(s.regs, i, RegRule{Reg: reg, Rule: r})
	return true
}

func (s *state) unset(reg rule.Reg) {
	if i, ok := s.find(reg); ok {
		s.regs = slices.Delete(s.regs, i, i+1)
	}
}

// interp executes call frame instructions (DWARF 5 §6.4.2). For a CIE's
// initial instructions init is nil and locations are ignored; for an FDE
// init is the CIE's state, loc starts at the FDE's start, and every
// advance ends the current row through rows.
type interp struct {
	cie   *CIE
	init  *state
	st    state
	stack []state
	depth int // used entries of stack (their storage is reused)
	loc   uint64
	end   uint64
	rows  rowBuilder
}

// run executes the instructions in c until they end or, for an FDE, the
// location reaches the end of the FDE. Errors are *Errors at the
// instruction at fault.
func (in *interp) run(c *cursor) *Error {
	for c.i < len(c.b) {
		if in.init != nil && in.loc >= in.end { // an FDE's
			return nil // the rest describes no address of the FDE
		}
		at := c.i
		op := cfaOp(c.b[c.i])
		c.i++
		msg, unsup := in.exec(c, op)
		switch {
		case c.err != nil:
			// An operand is truncated or out of range.
			c.err.Msg = op.String() + ": " + c.err.Msg
			return c.err
		case msg == "":
			continue
		}
		c.i = at
		if unsup {
			c.refuse("%v: %s", op, msg)
		} else {
			c.fail("%v: %s", op, msg)
		}
		return c.err
	}
	return nil
}

// exec executes the instruction op, whose operands c reads. It returns a
// message for an instruction that cannot be executed, and whether that is
// because this package refuses it (ErrUnsupported) rather than because it
// is malformed; operand errors are left in c.err.
func (in *interp) exec(c *cursor, op cfaOp) (msg string, unsup bool) {
	st := &in.st
	switch op & 0xc0 {
	case cfaAdvanceLoc:
		return in.advance(uint64(op & 0x3f))
	case cfaOffset:
		off, ok := in.ufactored(c)
		return in.setFactored(c, rule.Offset, rule.Reg(op&0x3f), off, ok)
	case cfaRestore:
		return in.restore(rule.Reg(op & 0x3f))
	}
	switch op {
	case cfaNop:
	case cfaSetLoc:
		var to uint64
		addrSize := int(in.cie.AddressSize)
		if in.cie.Kind == EHFrame {
			to = c.pointer(in.cie.FDEEncoding&^DW_EH_PE_indirect, addrSize, 0, false, "address")
		} else {
			to = c.fixed(addrSize, "address")
		}
		if c.err == nil {
			return in.moveTo(to)
		}
	case cfaAdvanceLoc1:
		return in.advance(c.fixed(1, "delta"))
	case cfaAdvanceLoc2:
		return in.advance(c.fixed(2, "delta"))
	case cfaAdvanceLoc4:
		return in.advance(c.fixed(4, "delta"))
	case cfaOffsetExtended:
		reg := in.reg(c)
		off, ok := in.ufactored(c)
		return in.setFactored(c, rule.Offset, reg, off, ok)
	case cfaOffsetExtendedSF:
		reg := in.reg(c)
		off, ok := in.sfactored(c)
		return in.setFactored(c, rule.Offset, reg, off, ok)
	case cfaGNUNegativeOffsetExtended:
		reg := in.reg(c)
		off, ok := in.ufactored(c)
		return in.setFactored(c, rule.Offset, reg, -off, ok)
	case cfaValOffset:
		reg := in.reg(c)
		off, ok := in.ufactored(c)
		return in.setFactored(c, rule.ValOffset, reg, off, ok)
	case cfaValOffsetSF:
		reg := in.reg(c)
		off, ok := in.sfactored(c)
		return in.setFactored(c, rule.ValOffset, reg, off, ok)
	case cfaRestoreExtended:
		reg := in.reg(c)
		if c.err == nil {
			return in.restore(reg)
		}
	case cfaUndefined:
		return in.set(in.reg(c), ruleUndefined, c)
	case cfaSameValue:
		return in.set(in.reg(c), ruleSame, c)
	case cfaRegister:
		reg := in.reg(c)
		other := in.reg(c)
		return in.set(reg, rule.Rule{Kind: rule.Register, Reg: other}, c)
	case cfaExpression, cfaValExpression:
		reg := in.reg(c)
		r := rule.Rule{Kind: rule.Expression, Reg: rule.CFA}
		if op == cfaValExpression {
			r.Kind = rule.ValExpression
		}
		r.Expr = string(c.bytes(c.uleb("expression length"), "expression"))
		return in.set(reg, r, c)
	case cfaRememberState:
		if in.depth >= maxRemember {
			return fmt.Sprintf("more than %d nested states", maxRemember), true
		}
		if in.depth == len(in.stack) {
			in.stack = append(in.stack, state{})
		}
		in.stack[in.depth].copyFrom(st)
		in.depth++
	case cfaRestoreState:
		if in.depth == 0 {
			return "no state remembered", false
		}
		in.depth--
		// DWARF 5 §6.4.2.4 pops "the set of rules"; as GCC's unwinder,
		// gdb and LLVM do, that includes the CFA rule and the AArch64 RA
		// signing state.
		st.copyFrom(&in.stack[in.depth])
	case cfaDefCFA:
		reg := in.reg(c)
		off := c.uleb("offset")
		if c.err == nil && off > 1<<63-1 {
			return "offset overflows", false
		}
		st.cfa = rule.Rule{Kind: rule.ValOffset, Reg: reg, Offset: int64(off)}
	case cfaDefCFASF:
		reg := in.reg(c)
		off, ok := in.sfactored(c)
		if c.err == nil && !ok {
			return "factored offset overflows", false
		}
		st.cfa = rule.Rule{Kind: rule.ValOffset, Reg: reg, Offset: off}
	case cfaDefCFARegister:
		reg := in.reg(c)
		if c.err == nil && st.cfa.Kind != rule.ValOffset {
			return "the CFA rule is not register+offset", false
		}
		st.cfa.Reg = reg
	case cfaDefCFAOffset:
		off := c.uleb("offset")
		switch {
		case c.err != nil:
		case off > 1<<63-1:
			return "offset overflows", false
		case st.cfa.Kind != rule.ValOffset:
			return "the CFA rule is not register+offset", false
		}
		st.cfa.Offset = int64(off)
	case cfaDefCFAOffsetSF:
		off, ok := in.sfactored(c)
		switch {
		case c.err != nil:
		case !ok:
			return "factored offset overflows", false
		case st.cfa.Kind != rule.ValOffset:
			return "the CFA rule is not register+offset", false
		}
		st.cfa.Offset = off
	case cfaDefCFAExpression:
		st.cfa = rule.Rule{Kind: rule.ValExpression, Reg: rule.CFA,
			Expr: string(c.bytes(c.uleb("expression length"), "expression"))}
	case cfaGNUArgsSize:
		c.uleb("argument size") // for the personality routine only
	case cfaAArch64NegateRAState:
		// AArch64: the RA is signed (or no longer signed) from here on.
		// SPARC's DW_CFA_GNU_window_save has the same opcode and no
		// operand; it toggles the same bit, which SPARC callers must
		// read as "register window saved".
		st.raSigned = !st.raSigned
	default:
		if op >= cfaLoUser && op <= cfaHiUser {
			return "vendor extension not supported", true
		}
		return "unknown instruction", false
	}
	return "", false
}

// reg reads a ULEB128 register number; one that does not fit rule.Reg
// leaves an ErrUnsupported error in c.
func (in *interp) reg(c *cursor) rule.Reg {
	at := c.i
	r := c.uleb("register")
	if c.err == nil && r > maxReg {
		c.i = at
		c.refuse("register %d does not fit rule.Reg", r)
	}
	return rule.Reg(r)
}

// ufactored reads a ULEB128 offset and multiplies it by the data alignment
// factor; ok is false on overflow.
func (in *interp) ufactored(c *cursor) (off int64, ok bool) {
	u := c.uleb("offset")
	if u > 1<<63-1 {
		return 0, false
	}
	return mul(int64(u), in.cie.DataAlign)
}

// sfactored reads an SLEB128 offset and multiplies it by the data
// alignment factor; ok is false on overflow.
func (in *interp) sfactored(c *cursor) (off int64, ok bool) {
	return mul(c.sleb("offset"), in.cie.DataAlign)
}

// mul returns a*b, and false when that overflows.
func mul(a, b int64) (int64, bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	r := a * b
	if r/b != a || a == -1 && b == -1<<63 || b == -1 && a == -1<<63 {
		return 0, false
	}
	return r, true
}

// setFactored gives reg the rule kind at CFA+off.
func (in *interp) setFactored(c *cursor, kind rule.Kind, reg rule.Reg, off int64, ok bool) (string, bool) {
	if c.err != nil {
		return "", false
	}
	if !ok {
		return "factored offset overflows", false
	}
	if !in.st.set(reg, rule.Rule{Kind: kind, Reg: rule.CFA, Offset: off}) {
		return fmt.Sprintf("more than %d registers with rules", maxRules), true
	}
	return "", false
}

// set gives reg the rule r unless reading the operands failed.
func (in *interp) set(reg rule.Reg, r rule.Rule, c *cursor) (string, bool) {
	if c.err != nil {
		return "", false
	}
	if !in.st.set(reg, r) {
		return fmt.Sprintf("more than %d registers with rules", maxRules), true
	}
	return "", false
}

// restore gives reg the rule the CIE's initial instructions gave it, or
// none (DWARF 5 §6.4.2.3). In the initial instructions themselves it
// removes the register's rule.
func (in *interp) restore(reg rule.Reg) (string, bool) {
	if in.init != nil {
		if r, ok := in.init.get(reg); ok {
			if !in.st.set(reg, r) {
				return fmt.Sprintf("more than %d registers with rules", maxRules), true
			}
			return "", false
		}
	}
	in.st.unset(reg)
	return "", false
}

// advance moves the location by delta code alignment units.
func (in *interp) advance(delta uint64) (string, bool) {
	if in.init == nil {
		return "", false // the CIE: locations mean nothing yet
	}
	hi, d := bits.Mul64(delta, in.cie.CodeAlign)
	if hi != 0 || in.loc+d < in.loc {
		return "advance past the end of the address space", false
	}
	return in.moveTo(in.loc + d)
}

// moveTo ends the current row at the new location to (DWARF 5 §6.4.3).
func (in *interp) moveTo(to uint64) (string, bool) {
	if in.init == nil { // a CIE's initial instructions
		return "", false
	}
	if to < in.loc {
		return fmt.Sprintf("location %#x is below the current one (%#x)", to, in.loc), false
	}
	if !in.rows.emit(in.loc, min(to, in.end), &in.st) {
		return fmt.Sprintf("more than %d register rules in the FDE's rows", in.rows.maxRules), true
	}
	in.loc = to
	return "", false
}
