// Package rule is sfdbg's one vocabulary for "how to recover the caller's
// values at this PC": a DWARF register number (Reg), a register rule (Rule,
// with its Kind) and a row of rules for the CFA, RA and FP with the flags
// unwinders need (Row). Every reader produces it: SFrame FREs (package
// sframe), DWARF CFI rows (frames/cfi, converted in frames), the frame-pointer
// chain and the code oracle's stack state. The names follow DWARF CFI's
// register rules (DWARF 5 §6.4.1).
//
// The package imports only the standard library, and nothing of sfdbg.
// Register names belong to the machine (sframe/arch); Format takes them as
// a function, so there is one printer.
package rule

import (
	"fmt"
	"strconv"
)

// Reg is a DWARF register number of a machine's psABI. CFA stands for the
// CFA itself where a rule's base is the CFA rather than a register.
type Reg int16

// CFA marks a rule whose base is the CFA.
const CFA Reg = -1

// Kind says how a tracked value (CFA, RA, FP or, for DWARF CFI, any
// register) of the caller is recovered.
type Kind uint8

// Rule kinds.
const (
	// Undefined: the value cannot be recovered. For RA it marks the
	// outermost frame (an SFrame FRE with no data words, spec v2 errata 2,
	// v3 §2.4.1; DW_CFA_undefined on the RA column).
	Undefined Kind = iota
	// SameValue: the value was not saved; the caller's value is the
	// callee's (FP not tracked; on AArch64 and s390x, RA still in its
	// register).
	SameValue
	// Offset: the value is in memory at Reg + Offset.
	Offset
	// ValOffset: the value is Reg + Offset itself.
	ValOffset
	// Register: the value is in register Reg (s390x SFrame v2 register
	// encoding, DW_CFA_register).
	Register
	// Expression: the value is in memory at the address a DWARF
	// expression (Rule.Expr) computes. Only DWARF CFI produces it
	// (DW_CFA_expression); SFrame cannot express it.
	Expression
	// ValExpression: the value is what a DWARF expression computes
	// (DW_CFA_val_expression, DW_CFA_def_cfa_expression). DWARF CFI only.
	ValExpression
)

func (k Kind) String() string {
	switch k {
	case Undefined:
		return "undefined"
	case SameValue:
		return "same-value"
	case Offset:
		return "offset"
	case ValOffset:
		return "val-offset"
	case Register:
		return "register"
	case Expression:
		return "expression"
	case ValExpression:
		return "val-expression"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Rule is how one value of the caller is recovered: for Offset the value
// is *(Reg + Offset), for ValOffset it is Reg + Offset, where Reg is a DWARF
// register number or CFA; for Register it is the value of Reg; for the
// expression kinds Expr holds the DWARF expression's bytes (a string, so
// that rules stay comparable with ==).
type Rule struct {
	Kind   Kind
	Reg    Reg
	Offset int64  // bytes
	Expr   string // DWARF expression for Expression, ValExpression
}

// String formats the rule with DWARF register numbers ("r7+16"); see Format.
func (r Rule) String() string { return r.Format(nil) }

// Format formats the rule the way objdump's SFrame dump does where it can,
// with the register names name gives (DWARF numbers, "r7", when name is
// nil): "rsp+16" (a register plus an offset), "c-8" (saved at CFA-8),
// "(rbp-8)" (saved at rbp-8), "v+16" (readelf's form for CFA+16 itself),
// "rbx" (in a register), "u" (same value), "undefined", "*expr[N]" and
// "expr[N]" (DWARF expressions of N bytes).
func (r Rule) Format(name func(Reg) string) string {
	base := "c"
	if r.Reg != CFA {
		if name != nil {
			base = name(r.Reg)
		} else {
			base = "r" + strconv.Itoa(int(r.Reg))
		}
	}
	switch r.Kind {
	case Undefined:
		return "undefined"
	case SameValue:
		return "u"
	case Register:
		return base
	case Offset:
		if r.Reg == CFA {
			return fmt.Sprintf("c%+d", r.Offset)
		}
		return fmt.Sprintf("(%s%+d)", base, r.Offset)
	case ValOffset:
		if r.Reg == CFA {
			return fmt.Sprintf("v%+d", r.Offset)
		}
		return fmt.Sprintf("%s%+d", base, r.Offset)
	case Expression:
		return fmt.Sprintf("*expr[%d]", len(r.Expr))
	case ValExpression:
		return fmt.Sprintf("expr[%d]", len(r.Expr))
	}
	return r.Kind.String()
}

// PAuthKey is the AArch64 pointer-authentication key that signs return
// addresses (SFrame's pauth_key FDE bit; DWARF's augmentation "B").
type PAuthKey uint8

// AArch64 PAuth keys.
const (
	PAuthKeyA PAuthKey = 0
	PAuthKeyB PAuthKey = 1
)

func (k PAuthKey) String() string {
	if k == PAuthKeyB {
		return "B"
	}
	return "A"
}

// Row says, for the PCs it covers, how to recover the caller's CFA, RA and
// FP, with the flags an unwinder needs. SFrame FREs (spec v3 §3 and
// Appendix A), DWARF CFI rows and the code oracle's states all convert to
// it, so methods are compared between equal types.
type Row struct {
	// CFA is ValOffset (base register + offset) in the common case; Offset
	// for SFrame v3 FLEX FDEs with deref_p; an expression kind for DWARF
	// CFI's DW_CFA_def_cfa_expression; Undefined when RA is undefined.
	CFA Rule
	// RA is Offset from the CFA in the common case.
	RA Rule
	// FP is Offset from the CFA when saved, SameValue when not.
	FP Rule
	// Outermost is set when RA is undefined (an SFrame FRE with no data
	// words): the stack trace is complete.
	Outermost bool
	// Signal is set for a signal frame (SFrame v3 FDE bit, CFI augmentation
	// "S").
	Signal bool
	// MangledRA is set when the RA is signed (AArch64 PAuth); PAuthKey says
	// which key signed it.
	MangledRA bool
	PAuthKey  PAuthKey
	// TopmostOnly is set when a rule reads a register other than SP and FP,
	// whose value is only known in the topmost frame (spec v3 Appendix A).
	TopmostOnly bool
	// SPOffset is the caller's SP relative to the CFA, in bytes (-160 on
	// s390x, 0 elsewhere).
	SPOffset int64
}
