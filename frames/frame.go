package frames

import (
	"fmt"

	"github.com/sfdbg/sfdbg/sframe"
)

// Method is a way of unwinding.
type Method uint8

// Unwinding methods.
const (
	MethodSFrame Method = iota // the .sframe section (spec v3 Appendix A)
	MethodCFI                  // DWARF CFI: .eh_frame / .debug_frame
	MethodFP                   // the frame-pointer (RBP) chain
	MethodRegs                 // frame 0: from the thread's registers
)

func (m Method) String() string {
	switch m {
	case MethodSFrame:
		return "sframe"
	case MethodCFI:
		return "cfi"
	case MethodFP:
		return "fp"
	case MethodRegs:
		return "regs"
	}
	return fmt.Sprintf("Method(%d)", uint8(m))
}

// RuleKind says how a value of the caller is recovered; the names follow
// DWARF CFI register rules. It extends sframe.RuleKind with the rules only
// DWARF CFI can express.
type RuleKind uint8

// Rule kinds.
const (
	RuleUndefined     RuleKind = iota // not recoverable (RA: outermost frame)
	RuleSameValue                     // unchanged from the callee
	RuleOffset                        // *(Reg + Offset)
	RuleValOffset                     // Reg + Offset
	RuleRegister                      // value of register Reg
	RuleExpression                    // *(value of DWARF expression Expr)
	RuleValExpression                 // value of DWARF expression Expr
	RuleUnsupported                   // a rule the method cannot evaluate
)

var ruleKindNames = [...]string{"undefined", "same-value", "offset", "val-offset", "register", "expression", "val-expression", "unsupported"}

func (k RuleKind) String() string {
	if int(k) < len(ruleKindNames) {
		return ruleKindNames[k]
	}
	return fmt.Sprintf("RuleKind(%d)", uint8(k))
}

// Rule is how one value of the caller is recovered. Reg is a DWARF register
// number or sframe.RegCFA when the base is the CFA.
type Rule struct {
	Kind   RuleKind
	Reg    sframe.Reg
	Offset int64
	Expr   []byte // DWARF expression for RuleExpression, RuleValExpression
}

// The rules without a base register: same-value, undefined.
var (
	ruleSame      = Rule{Kind: RuleSameValue, Reg: sframe.RegCFA}
	ruleUndefined = Rule{Kind: RuleUndefined, Reg: sframe.RegCFA}
)

// RuleFromSFrame converts an SFrame rule into the common form.
func RuleFromSFrame(r sframe.Rule) Rule {
	return Rule{Kind: RuleKind(r.Kind), Reg: r.Reg, Offset: r.Offset}
}

// RowFromSFrame converts an interpreted SFrame row into the common form;
// an outermost row (RA undefined) has all three rules undefined.
func RowFromSFrame(r sframe.Row) Row {
	row := Row{
		CFA:    RuleFromSFrame(r.CFA),
		RA:     RuleFromSFrame(r.RA),
		FP:     RuleFromSFrame(r.FP),
		Signal: r.Signal,
	}
	if r.Outermost {
		row.CFA, row.RA, row.FP = ruleUndefined, ruleUndefined, ruleUndefined
	}
	return row
}

// String formats a rule the way objdump's SFrame dump does where it can:
// "rsp+16", "c-8", "(rbp-8)", "u", plus "expr" forms for DWARF.
func (r Rule) String() string {
	base := "c"
	if r.Reg != sframe.RegCFA {
		base = RegName(r.Reg)
	}
	switch r.Kind {
	case RuleUndefined:
		return "undefined"
	case RuleSameValue:
		return "u"
	case RuleRegister:
		return base
	case RuleOffset:
		if r.Reg == sframe.RegCFA {
			return fmt.Sprintf("c%+d", r.Offset)
		}
		return fmt.Sprintf("(%s%+d)", base, r.Offset)
	case RuleValOffset:
		if r.Reg == sframe.RegCFA {
			return fmt.Sprintf("v%+d", r.Offset) // readelf's form for CFA+N itself
		}
		return fmt.Sprintf("%s%+d", base, r.Offset)
	case RuleExpression:
		return fmt.Sprintf("*expr[%d]", len(r.Expr))
	case RuleValExpression:
		return fmt.Sprintf("expr[%d]", len(r.Expr))
	}
	return "unsupported"
}

// Row is the common form of "how to get the caller's CFA, RA and FP at this
// PC" that both SFrame FREs and DWARF CFI rows convert into, so that methods
// can be compared between equal types. Other holds the rules for the other
// registers DWARF CFI restores (nil for SFrame).
type Row struct {
	CFA, RA, FP Rule
	Other       map[sframe.Reg]Rule
	// Source names the raw rule the row came from, for humans:
	// "sframe FDE 12 FRE 3 (fre off 0x1a4)", "eh_frame FDE 0x3c0", "fp chain".
	Source string
	// Start and End are the PC range (runtime addresses) the row covers,
	// [Start, End); 0, 0 if unknown.
	Start, End uint64
	// Signal is set when the frame is a signal trampoline (v3 signal bit, CIE
	// augmentation "S"): the caller's registers come from a signal frame.
	Signal bool
}

// Frame is one frame of a backtrace.
type Frame struct {
	// Level is the frame's position: 0 for the innermost.
	Level int
	// PC is the frame's program counter. For frames above 0 it is the
	// return address, unless the frame below was a signal frame.
	PC uint64
	// CFA is the frame's canonical frame address (0 until computed: it is
	// known once the frame has been unwound from).
	CFA uint64
	// Regs are the registers known in this frame.
	Regs Regs
	// Method is how this frame was found (MethodRegs for frame 0).
	Method Method
	// Row is the rule used to step from this frame to its caller (set by
	// Step on the frame it unwinds from).
	Row Row
	// Interrupted is set when the frame was interrupted asynchronously (frame
	// 0, or the frame a signal interrupted), so that its PC is exact rather
	// than a return address; lookups then use PC rather than PC-1.
	Interrupted bool
	// Module is the module containing PC, or nil.
	Module *Module
}

// LookupPC returns the PC to use for finding this frame's unwind row: PC for
// interrupted frames, PC-1 for frames whose PC is a return address (the call
// may be the last instruction of the function).
func (f *Frame) LookupPC() uint64 {
	if f.Interrupted || f.PC == 0 {
		return f.PC
	}
	return f.PC - 1
}

// String formats the row as "CFA rsp+8 RA c-8 FP u [source]".
func (r Row) String() string {
	s := "CFA " + r.CFA.String() + " RA " + r.RA.String() + " FP " + r.FP.String()
	if r.Source != "" {
		s += " [" + r.Source + "]"
	}
	return s
}
