package compare

import (
	"errors"

	"github.com/sfdbg/sfdbg/frames"
	"github.com/sfdbg/sfdbg/sframe/arch"
	"github.com/sfdbg/sfdbg/sframe/rule"
)

// RowDiff lists which parts of two rows disagree.
type RowDiff struct {
	CFA, RA, FP bool
	// Regs is set when the rows restore other registers differently
	// (DiffRegs; compared only for subjects that say where they are:
	// EHABI).
	Regs bool
	// Outermost is set when exactly one row says the frame is outermost
	// (RA undefined).
	Outermost bool
}

// Any reports whether anything differs.
func (d RowDiff) Any() bool { return d.CFA || d.RA || d.FP || d.Regs || d.Outermost }

// Kinds returns the finding kinds of the difference.
func (d RowDiff) Kinds() []Kind {
	var out []Kind
	if d.Outermost {
		return append(out, KindOutermost)
	}
	if d.CFA {
		out = append(out, KindCFA)
	}
	if d.RA {
		out = append(out, KindRA)
	}
	if d.FP {
		out = append(out, KindFP)
	}
	if d.Regs {
		out = append(out, KindRegs)
	}
	return out
}

// DiffRegs reports whether two rows restore the registers other than the
// CFA, RA and FP differently (Row.Other): a register one row saves and
// the other does not, or saves elsewhere.
func DiffRegs(a, b frames.Row) bool {
	type rr struct {
		reg rule.Reg
		r   rule.Rule
	}
	var x, y []rr
	a.Other.Each(func(reg rule.Reg, r rule.Rule) { x = append(x, rr{reg, r}) })
	b.Other.Each(func(reg rule.Reg, r rule.Rule) { y = append(y, rr{reg, r}) })
	if len(x) != len(y) {
		return true
	}
	for i := range x { // both sorted by register
		if x[i].reg != y[i].reg || !valueRuleEqual(x[i].r, y[i].r) {
			return true
		}
	}
	return false
}

// DiffRows compares an SFrame row with a CFI row (both in the common form)
// at pc. Rules are compared by meaning, not spelling: a CFI CFA
// expression (as in AMD64 PLT CFI) is evaluated at pc with symbolic SP and FP and
// compared with the SFrame base register + offset; an FP that CFI leaves
// undefined matches any SFrame FP rule; an FP with no CFI rule equals an
// untracked SFrame FP.
func DiffRows(sf, cfi frames.Row, pc uint64) RowDiff {
	var d RowDiff
	sfOuter := sf.RA.Kind == rule.Undefined
	cfiOuter := cfi.RA.Kind == rule.Undefined
	if sfOuter || cfiOuter {
		d.Outermost = sfOuter != cfiOuter
		return d
	}
	d.CFA = !cfaEquivalent(sf.CFA, cfi.CFA, pc)
	d.RA = !valueRuleEqual(sf.RA, cfi.RA)
	if cfi.FP.Kind != rule.Undefined {
		d.FP = !valueRuleEqual(sf.FP, cfi.FP)
	}
	return d
}

// Symbolic register values for evaluating CFA expressions: far apart, so an
// expression's result identifies the base register and offset.
const (
	symSP uint64 = 0x7ff0_0000_0000
	symFP uint64 = 0x5ff0_0000_0000
)

// cfaEquivalent compares CFA rules.
func cfaEquivalent(sf, cfi rule.Rule, pc uint64) bool {
	if sf == cfi {
		return true // the same rule, DWARF expressions included
	}
	switch cfi.Kind {
	case rule.ValOffset:
		return sf.Kind == rule.ValOffset && sf.Reg == cfi.Reg && sf.Offset == cfi.Offset
	case rule.Offset:
		return sf.Kind == rule.Offset && sf.Reg == cfi.Reg && sf.Offset == cfi.Offset
	case rule.ValExpression:
		if sf.Kind != rule.ValOffset {
			return false
		}
		v, ok := evalCFAExpr(cfi, pc)
		if !ok {
			return false
		}
		var base uint64
		switch sf.Reg {
		case frames.RSP:
			base = symSP
		case frames.RBP:
			base = symFP
		default:
			return false
		}
		return v == base+uint64(sf.Offset)
	}
	return false
}

// evalCFAExpr evaluates a DWARF CFA expression rule with RSP = symSP, RBP =
// symFP and RIP = pc, reading no memory, with frames' one evaluator. ok is
// false if the expression needs anything else.
func evalCFAExpr(r rule.Rule, pc uint64) (v uint64, ok bool) {
	f := frames.Frame{PC: pc, Regs: frames.NewRegs(arch.AMD64Arch), Interrupted: true}
	f.Regs.Set(frames.RSP, symSP)
	f.Regs.Set(frames.RBP, symFP)
	v, err := frames.EvalRule(r, &f, noMemory{})
	return v, err == nil
}

// noMemory is the memory of a static evaluation: every read fails.
type noMemory struct{}

func (noMemory) ReadAt([]byte, uint64) (int, error) {
	return 0, errors.New("no memory in a static evaluation")
}

// valueRuleEqual compares RA or FP rules. SameValue matches SameValue only;
// "in register r" (DWARF DW_CFA_register) and "r + 0" (an SFrame v3 FLEX
// rule with reg_p set and deref_p clear) are the same rule.
func valueRuleEqual(a, b rule.Rule) bool {
	a, b = canonical(a), canonical(b)
	if a == b {
		return true // the same rule, DWARF expressions included
	}
	if a.Kind != b.Kind {
		return false
	}
	switch a.Kind {
	case rule.SameValue, rule.Undefined:
		return true
	case rule.Offset, rule.ValOffset:
		return a.Reg == b.Reg && a.Offset == b.Offset
	case rule.Register:
		return a.Reg == b.Reg
	}
	return false
}

// canonical rewrites a register-based val-offset of 0 as a register rule.
func canonical(r rule.Rule) rule.Rule {
	if r.Kind == rule.ValOffset && r.Reg != rule.CFA && r.Offset == 0 {
		return rule.Rule{Kind: rule.Register, Reg: r.Reg}
	}
	return r
}
