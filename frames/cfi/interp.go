package cfi

import (
	"fmt"
	"math/bits"

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
// The rules stored for an FDE's rows need no limit: a row stores only the
// rules that changed since the row before (regs.go), so they are bounded
// by the instructions that changed them.
const (
	// maxRemember bounds the DW_CFA_remember_state stack.
	maxRemember = 128
	// maxRules bounds the registers with a rule in one row.
	maxRules = 256
	// maxInstructions bounds the instructions of one FDE, in bytes (512
	// MiB): RegSet counts the rule changes of an FDE's rows in int32s,
	// and there are at most two per byte (one per instruction, one more
	// when DW_CFA_restore_state undoes it).
	maxInstructions = 1 << 29
)

// Rules without a base register carry Reg RegCFA, as in package sframe.
var (
	ruleUndefined = rule.Rule{Kind: rule.Undefined, Reg: rule.CFA}
	ruleSame      = rule.Rule{Kind: rule.SameValue, Reg: rule.CFA}
)

// interp executes call frame instructions (DWARF 5 §6.4.2). For a CIE's
// initial instructions init is nil and locations are ignored; for an FDE
// init is the CIE's initial rules, loc starts at the FDE's start, and
// every advance ends the current row through rows.
//
// DW_CFA_remember_state costs no copy of the rules: it marks the undo log,
// which holds the rule every later change replaced, and
// DW_CFA_restore_state undoes the changes back to the mark. Each change is
// undone at most once, so both cost time linear in the instructions, not
// in the registers with a rule.
type interp struct {
	cie   *CIE
	init  *initial
	st    state
	undo  []undoEntry // while marks is not empty
	marks []int       // the DW_CFA_remember_state stack: lengths of undo
	loc   uint64
	end   uint64
	rows  rowBuilder
	// args, when not nil, collects each DW_CFA_GNU_args_size with the
	// location it takes effect at (FDE.ArgsSizes).
	args *[]ArgsSize
}

// undoEntry is the rule a change replaced: of register Reg, or of the CFA
// (undoCFA) or the RA signing state (undoRA, in Rule.Offset).
type undoEntry struct {
	Reg  rule.Reg
	Rule rule.Rule
}

// Undo log entries for what is not a register.
const (
	undoCFA rule.Reg = -2
	undoRA  rule.Reg = -3
)

// setCFA gives the CFA the rule r.
func (in *interp) setCFA(r rule.Rule) {
	if len(in.marks) > 0 {
		in.undo = append(room(in.undo, 1), undoEntry{undoCFA, in.st.cfa})
	}
	in.st.cfa = r
}

// negateRA flips the RA signing state.
func (in *interp) negateRA() {
	if len(in.marks) > 0 {
		in.undo = append(room(in.undo, 1), undoEntry{undoRA, rule.Rule{Offset: b2i(in.st.raSigned)}})
	}
	in.st.raSigned = !in.st.raSigned
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// put gives reg the rule r (ruleNone: none); false when more than
// maxRules registers would have one.
func (in *interp) put(reg rule.Reg, r rule.Rule) bool {
	if len(in.marks) > 0 {
		old, ok := in.st.get(reg)
		if !ok {
			old = ruleNone
		}
		if old == r {
			return true
		}
		in.undo = append(room(in.undo, 1), undoEntry{reg, old})
	}
	return in.st.put(reg, r)
}

// restoreState undoes every change since the last DW_CFA_remember_state.
func (in *interp) restoreState() {
	m := in.marks[len(in.marks)-1]
	in.marks = in.marks[:len(in.marks)-1]
	for i := len(in.undo) - 1; i >= m; i-- {
		switch u := in.undo[i]; u.Reg {
		case undoCFA:
			in.st.cfa = u.Rule
		case undoRA:
			in.st.raSigned = u.Rule.Offset != 0
		default:
			// The rules were all held at once before: never over maxRules.
			in.st.put(u.Reg, u.Rule)
		}
	}
	in.undo = in.undo[:m]
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
		if len(in.marks) >= maxRemember {
			return fmt.Sprintf("more than %d nested states", maxRemember), true
		}
		in.marks = append(in.marks, len(in.undo))
	case cfaRestoreState:
		if len(in.marks) == 0 {
			return "no state remembered", false
		}
		// DWARF 5 §6.4.2.4 pops "the set of rules"; as GCC's unwinder,
		// gdb and LLVM do, that includes the CFA rule and the AArch64 RA
		// signing state.
		in.restoreState()
	case cfaDefCFA:
		reg := in.reg(c)
		off := c.uleb("offset")
		if c.err == nil && off > 1<<63-1 {
			return "offset overflows", false
		}
		in.setCFA(rule.Rule{Kind: rule.ValOffset, Reg: reg, Offset: int64(off)})
	case cfaDefCFASF:
		reg := in.reg(c)
		off, ok := in.sfactored(c)
		if c.err == nil && !ok {
			return "factored offset overflows", false
		}
		in.setCFA(rule.Rule{Kind: rule.ValOffset, Reg: reg, Offset: off})
	case cfaDefCFARegister:
		reg := in.reg(c)
		if c.err == nil && st.cfa.Kind != rule.ValOffset {
			return "the CFA rule is not register+offset", false
		}
		r := st.cfa
		r.Reg = reg
		in.setCFA(r)
	case cfaDefCFAOffset:
		off := c.uleb("offset")
		switch {
		case c.err != nil:
		case off > 1<<63-1:
			return "offset overflows", false
		case st.cfa.Kind != rule.ValOffset:
			return "the CFA rule is not register+offset", false
		}
		r := st.cfa
		r.Offset = int64(off)
		in.setCFA(r)
	case cfaDefCFAOffsetSF:
		off, ok := in.sfactored(c)
		switch {
		case c.err != nil:
		case !ok:
			return "factored offset overflows", false
		case st.cfa.Kind != rule.ValOffset:
			return "the CFA rule is not register+offset", false
		}
		r := st.cfa
		r.Offset = off
		in.setCFA(r)
	case cfaDefCFAExpression:
		in.setCFA(rule.Rule{Kind: rule.ValExpression, Reg: rule.CFA,
			Expr: string(c.bytes(c.uleb("expression length"), "expression"))})
	case cfaGNUArgsSize:
		n := c.uleb("argument size") // for the unwinder, at a landing pad only
		if in.args != nil && len(*in.args) < maxInstructions {
			*in.args = append(*in.args, ArgsSize{PC: in.loc, Size: n})
		}
	case cfaAArch64NegateRAState:
		// AArch64: the RA is signed (or no longer signed) from here on.
		// SPARC's DW_CFA_GNU_window_save has the same opcode and no
		// operand; it toggles the same bit, which SPARC callers must
		// read as "register window saved".
		in.negateRA()
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
	if !in.put(reg, rule.Rule{Kind: kind, Reg: rule.CFA, Offset: off}) {
		return fmt.Sprintf("more than %d registers with rules", maxRules), true
	}
	return "", false
}

// set gives reg the rule r unless reading the operands failed.
func (in *interp) set(reg rule.Reg, r rule.Rule, c *cursor) (string, bool) {
	if c.err != nil {
		return "", false
	}
	if !in.put(reg, r) {
		return fmt.Sprintf("more than %d registers with rules", maxRules), true
	}
	return "", false
}

// restore gives reg the rule the CIE's initial instructions gave it, or
// none (DWARF 5 §6.4.2.3). In the initial instructions themselves it
// removes the register's rule.
func (in *interp) restore(reg rule.Reg) (string, bool) {
	r, ok := in.st.init.get(reg) // none in the initial instructions
	if !ok {
		r = ruleNone
	}
	if !in.put(reg, r) {
		return fmt.Sprintf("more than %d registers with rules", maxRules), true
	}
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
	in.rows.emit(in.loc, min(to, in.end), &in.st)
	in.loc = to
	return "", false
}

// rowBound returns at most how many rows the FDE instructions b make: one
// per instruction that moves the location, plus the last. It reads only
// opcodes and operand lengths; past an instruction it cannot measure
// (DW_CFA_set_loc, whose size depends on the CIE, or one the interpreter
// will reject) it counts a row per byte left. It lets the rows be
// allocated once, not grown by append.
func rowBound(b []byte) int {
	n := 1
	skipLEB := func(i int) int {
		for i < len(b) && b[i]&0x80 != 0 {
			i++
		}
		return i + 1
	}
	for i := 0; i < len(b); {
		op := cfaOp(b[i])
		i++
		switch op & 0xc0 {
		case cfaAdvanceLoc:
			n++
			continue
		case cfaOffset:
			i = skipLEB(i)
			continue
		case cfaRestore:
			continue
		}
		switch op {
		case cfaNop, cfaRememberState, cfaRestoreState, cfaAArch64NegateRAState:
		case cfaAdvanceLoc1, cfaAdvanceLoc2, cfaAdvanceLoc4:
			n++
			i += 1 << (op - cfaAdvanceLoc1)
		case cfaRestoreExtended, cfaUndefined, cfaSameValue, cfaDefCFARegister, cfaDefCFAOffset,
			cfaDefCFAOffsetSF, cfaGNUArgsSize:
			i = skipLEB(i)
		case cfaOffsetExtended, cfaRegister, cfaDefCFA, cfaOffsetExtendedSF, cfaDefCFASF,
			cfaValOffset, cfaValOffsetSF, cfaGNUNegativeOffsetExtended:
			i = skipLEB(skipLEB(i))
		case cfaDefCFAExpression, cfaExpression, cfaValExpression:
			if op != cfaDefCFAExpression {
				i = skipLEB(i)
			}
			j := skipLEB(i)
			var size uint64
			for k := min(j, len(b)) - 1; k >= i; k-- {
				size = size<<7 | uint64(b[k]&0x7f)
			}
			if j > len(b) || j-i > 9 || size > uint64(len(b)-j) {
				return n + len(b) - i
			}
			i = j + int(size)
		default:
			return n + len(b) - i
		}
	}
	return n
}
