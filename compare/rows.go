package compare

import (
	"encoding/binary"

	"github.com/go-delve/delve/pkg/dwarf/op"
	"github.com/sfdbg/sfdbg/frames"
	"github.com/sfdbg/sfdbg/sframe"
)

// RowDiff lists which parts of two rows disagree.
type RowDiff struct {
	CFA, RA, FP bool
	// Outermost is set when exactly one row says the frame is outermost
	// (RA undefined).
	Outermost bool
}

// Any reports whether anything differs.
func (d RowDiff) Any() bool { return d.CFA || d.RA || d.FP || d.Outermost }

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
	return out
}

// DiffRows compares an SFrame row with a CFI row (both in the common form)
// at pc. Rules are compared by meaning, not spelling: a CFI CFA
// expression (as in AMD64 PLT CFI) is evaluated at pc with symbolic SP and FP and
// compared with the SFrame base register + offset; an FP that CFI leaves
// undefined matches any SFrame FP rule; an FP with no CFI rule equals an
// untracked SFrame FP.
func DiffRows(sf, cfi frames.Row, pc uint64) RowDiff {
	var d RowDiff
	sfOuter := sf.RA.Kind == frames.RuleUndefined
	cfiOuter := cfi.RA.Kind == frames.RuleUndefined
	if sfOuter || cfiOuter {
		d.Outermost = sfOuter != cfiOuter
		return d
	}
	d.CFA = !cfaEquivalent(sf.CFA, cfi.CFA, pc)
	d.RA = !valueRuleEqual(sf.RA, cfi.RA)
	if cfi.FP.Kind != frames.RuleUndefined {
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
func cfaEquivalent(sf, cfi frames.Rule, pc uint64) bool {
	switch cfi.Kind {
	case frames.RuleValOffset:
		return sf.Kind == frames.RuleValOffset && sf.Reg == cfi.Reg && sf.Offset == cfi.Offset
	case frames.RuleOffset:
		return sf.Kind == frames.RuleOffset && sf.Reg == cfi.Reg && sf.Offset == cfi.Offset
	case frames.RuleValExpression:
		if sf.Kind != frames.RuleValOffset {
			return false
		}
		v, ok := evalCFAExpr(cfi.Expr, pc)
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

// evalCFAExpr evaluates a DWARF CFA expression with RSP = symSP, RBP = symFP
// and RIP = pc, reading no memory. ok is false if the expression needs
// anything else.
func evalCFAExpr(expr []byte, pc uint64) (v uint64, ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	regs := op.NewDwarfRegisters(0, nil, binary.LittleEndian, uint64(frames.RIP), uint64(frames.RSP), uint64(frames.RBP), 0)
	regs.AddReg(uint64(frames.RSP), op.DwarfRegisterFromUint64(symSP))
	regs.AddReg(uint64(frames.RBP), op.DwarfRegisterFromUint64(symFP))
	regs.AddReg(uint64(frames.RIP), op.DwarfRegisterFromUint64(pc))
	res, pieces, err := op.ExecuteStackProgram(*regs, expr, 8, func([]byte, uint64) (int, error) {
		return 0, errNoMemory
	})
	if err != nil || len(pieces) != 0 {
		return 0, false
	}
	return uint64(res), true
}

type noMemory struct{}

func (noMemory) Error() string { return "no memory in a static evaluation" }

var errNoMemory error = noMemory{}

// valueRuleEqual compares RA or FP rules. SameValue matches SameValue only;
// "in register r" (DWARF DW_CFA_register) and "r + 0" (an SFrame v3 FLEX
// rule with reg_p set and deref_p clear) are the same rule.
func valueRuleEqual(a, b frames.Rule) bool {
	a, b = canonical(a), canonical(b)
	if a.Kind != b.Kind {
		return false
	}
	switch a.Kind {
	case frames.RuleSameValue, frames.RuleUndefined:
		return true
	case frames.RuleOffset, frames.RuleValOffset:
		return a.Reg == b.Reg && a.Offset == b.Offset
	case frames.RuleRegister:
		return a.Reg == b.Reg
	}
	return false
}

// canonical rewrites a register-based val-offset of 0 as a register rule.
func canonical(r frames.Rule) frames.Rule {
	if r.Kind == frames.RuleValOffset && r.Reg != sframe.RegCFA && r.Offset == 0 {
		return frames.Rule{Kind: frames.RuleRegister, Reg: r.Reg}
	}
	return r
}
