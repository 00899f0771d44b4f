package cfi

import (
	"unsafe"

	"github.com/sfdbg/sfdbg/sframe/rule"
)

// DWARF expression opcodes Simplify reads (DWARF 5 §7.7.1).
const (
	opDeref = 0x06
	opBreg0 = 0x70
	opBregx = 0x92
)

// Simplify turns the DWARF expressions a plain rule can say into that rule:
// "DW_OP_bregN off" is the address (for val_expression and
// def_cfa_expression, the value) reg+off, and "DW_OP_bregN off;
// DW_OP_deref" the value at reg+off. Every other rule, and every other
// expression, is returned as it is. Producers write such expressions for
// signal trampolines (glibc's __restore_rt) and for realigned stacks, and
// SFrame rules are compared with CFI rules in this form.
func Simplify(r rule.Rule) rule.Rule {
	if r.Kind != rule.Expression && r.Kind != rule.ValExpression || r.Expr == "" {
		return r
	}
	// The cursor only reads: a view of the string, not a copy (unwinding
	// simplifies the rules of every frame it steps through).
	c := cursor{b: unsafe.Slice(unsafe.StringData(r.Expr), len(r.Expr)), sec: "expression"}
	var reg uint64
	switch o := c.u8("opcode"); {
	case o >= opBreg0 && o < opBreg0+32:
		reg = uint64(o - opBreg0)
	case o == opBregx:
		reg = c.uleb("register")
	default:
		return r
	}
	off := c.sleb("offset")
	deref := false
	if c.err == nil && c.left() > 0 {
		if c.u8("opcode") != opDeref || c.left() != 0 {
			return r
		}
		deref = true
	}
	if c.err != nil || reg >= 1<<15 {
		return r
	}
	val := r.Kind == rule.ValExpression
	switch {
	case val && !deref: // the value reg+off
		return rule.Rule{Kind: rule.ValOffset, Reg: rule.Reg(reg), Offset: off}
	case val && deref, !deref: // the value at reg+off; the address reg+off
		return rule.Rule{Kind: rule.Offset, Reg: rule.Reg(reg), Offset: off}
	}
	return r // the address *(reg+off): a double dereference
}
