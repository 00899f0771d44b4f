package frames

import (
	"cmp"
	"slices"
	"strconv"

	"github.com/sfdbg/sfdbg/frames/cfi"

	"github.com/sfdbg/sfdbg/sframe"
	"github.com/sfdbg/sfdbg/sframe/arch"
	"github.com/sfdbg/sfdbg/sframe/rule"
)

// OtherRules is the rules of the registers a DWARF CFI row restores
// besides the RA column and the FP (whose rules are Row.RA and Row.FP).
// The zero OtherRules is empty (an SFrame row). It shares the CFI reader's
// storage (cfi.RegSet: each row stores only the rules that changed since
// the row before), so a row costs the same whatever number of registers
// it restores. OtherRules are comparable with ==, which says whether they
// are the same stored rules.
type OtherRules struct {
	regs   cfi.RegSet
	ra, fp rule.Reg
}

// NewOtherRules returns the rules of other registers for a row that is
// not DWARF CFI's (an EHABI entry's pops), ra and fp being the registers
// whose rules are the row's RA and FP.
func NewOtherRules(rules []cfi.RegRule, ra, fp rule.Reg) OtherRules {
	return OtherRules{regs: cfi.NewRegSet(rules), ra: ra, fp: fp}
}

// each calls fn with every register and its rule, in no particular
// order, with the DWARF expressions a plain rule can say made plain
// (cfi.Simplify). It allocates nothing.
func (o OtherRules) each(fn func(reg rule.Reg, r rule.Rule)) {
	o.regs.Each(func(reg rule.Reg, r rule.Rule) {
		if reg != o.ra && reg != o.fp {
			fn(reg, cfi.Simplify(r))
		}
	})
}

// has reports whether reg has a rule among o.
func (o OtherRules) has(reg rule.Reg) bool {
	found := false
	o.each(func(r rule.Reg, _ rule.Rule) { found = found || r == reg })
	return found
}

// Each calls fn with every register and its rule, sorted by register,
// with the DWARF expressions a plain rule can say made plain
// (cfi.Simplify): for callers outside frames that need a stable order
// (check's reproducer writes one .cfi_offset per register).
func (o OtherRules) Each(fn func(reg rule.Reg, r rule.Rule)) {
	type rr struct {
		reg rule.Reg
		r   rule.Rule
	}
	var all []rr
	o.each(func(reg rule.Reg, r rule.Rule) { all = append(all, rr{reg, r}) })
	slices.SortFunc(all, func(a, b rr) int { return cmp.Compare(a.reg, b.reg) })
	for _, x := range all {
		fn(x.reg, x.r)
	}
}

// Source says where a row came from, as data: a later stage (the
// comparison, the debugger's "info frame") never looks the module, the FDE
// or the FRE up again.
type Source struct {
	// Method is the unwinding method whose data the row is.
	Method Method
	// Module holds the row's unwind data (nil for the frame-pointer chain).
	Module *Module
	// Section is ".sframe", ".eh_frame" or ".debug_frame" ("" for the FP
	// chain).
	Section string
	// FDE is the SFrame FDE index, or the CFI FDE's byte offset in Section;
	// FRE is the SFrame FRE index in its FDE; CIE is the CFI CIE's byte
	// offset. Each is -1 where it does not apply.
	FDE, CIE int64
	FRE      int32
	// PCType is the SFrame FDE's PC type (PCTypeMask for PLT stubs); Flex is
	// set for an SFrame v3 FLEX FDE.
	PCType sframe.FDEPCType
	Flex   bool
	// FDEStart and FDEEnd are the FDE's runtime PC range [FDEStart, FDEEnd).
	FDEStart, FDEEnd uint64
	// Arch is the machine whose DWARF register numbers the row's rules
	// use (nil: AMD64).
	Arch *arch.Arch
	// Ops is, for an EHABI row, the entry's unwinding instructions as
	// readelf -u prints them (EHABIOpsText); FDE is then the index
	// entry's byte offset in Section (.ARM.exidx).
	Ops string
}

// String names the source the way sfdbg prints it: "sframe FDE 12 FRE 3",
// ".eh_frame FDE 0x1e8 (CIE 0x0)", "fp chain".
func (s Source) String() string {
	if s.Section == SectionSigtramp {
		return "signal trampoline (kernel frame layout)"
	}
	var b []byte
	switch s.Method {
	case MethodSFrame:
		b = append(b, "sframe FDE "...)
		b = strconv.AppendInt(b, s.FDE, 10)
		b = append(b, " FRE "...)
		b = strconv.AppendInt(b, int64(s.FRE), 10)
		if s.Flex {
			b = append(b, " (flex)"...)
		}
	case MethodCFI:
		b = append(b, s.Section...)
		b = append(b, " FDE 0x"...)
		b = strconv.AppendUint(b, uint64(s.FDE), 16)
		b = append(b, " (CIE 0x"...)
		b = strconv.AppendUint(b, uint64(s.CIE), 16)
		b = append(b, ')')
	case MethodFP:
		return "fp chain"
	case MethodCode:
		return "code 0x" + strconv.FormatUint(s.FDEStart, 16) + "-0x" + strconv.FormatUint(s.FDEEnd, 16)
	case MethodEHABI:
		b = append(b, s.Section...)
		b = append(b, " entry 0x"...)
		b = strconv.AppendUint(b, uint64(s.FDE), 16)
	default:
		return ""
	}
	return string(b)
}

// Row is the one form of "how to get the caller's CFA, RA and FP (and, for
// DWARF CFI, other registers) at this PC" that SFrame FREs and DWARF CFI
// rows convert into, so that methods are compared between equal types and
// evaluated by one evaluator (eval.go). The embedded rule.Row holds the
// CFA, RA and FP rules and the flags (outermost, signal frame, mangled RA,
// topmost-only, the caller's SP relative to the CFA), in sframe's one rule
// type.
type Row struct {
	rule.Row
	// Other holds the rules of the other registers DWARF CFI restores
	// (empty for SFrame).
	Other OtherRules
	// Src says where the row came from.
	Src Source
	// Start and End are the PC range (runtime addresses) the row covers,
	// [Start, End); 0, 0 if unknown.
	Start, End uint64
}

// Found reports whether the row was found (an unwinder that fails before
// finding a row leaves the zero Row: every found row's Source says which
// of FDE, CIE and FRE do not apply).
func (r *Row) Found() bool { return r.Src != Source{} }

// sframeRuleKinds are the rule kinds an SFrame FRE can give.
const sframeRuleKinds = 1<<rule.Undefined | 1<<rule.SameValue | 1<<rule.Offset |
	1<<rule.ValOffset | 1<<rule.Register

// RuleString formats a rule the way objdump's SFrame dump does where it
// can: "rsp+16", "c-8", "(rbp-8)", "u", "undefined", plus "expr" forms for
// DWARF expressions. Register names are AMD64's; RuleStringFor names
// another machine's.
func RuleString(r rule.Rule) string { return arch.AMD64Arch.Format(r) }

// RuleStringFor is RuleString with the register names of machine a
// (arch.Arch.RegName; nil: AMD64): "sp+16", "(x29-8)" on AArch64.
func RuleStringFor(a *arch.Arch, r rule.Rule) string { return archOr(a).Format(r) }

// String formats the row as "CFA rsp+8 RA c-8 FP u [source]".
func (r Row) String() string {
	a := r.Src.Arch
	s := "CFA " + RuleStringFor(a, r.CFA) + " RA " + RuleStringFor(a, r.RA) + " FP " + RuleStringFor(a, r.FP)
	if src := r.Src.String(); src != "" {
		s += " [" + src + "]"
	}
	return s
}
