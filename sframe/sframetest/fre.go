package sframetest

import (
	"fmt"

	"github.com/sfdbg/sfdbg/sframe"
	"github.com/sfdbg/sfdbg/sframe/rule"
)

// DefaultFRE builds the FRE of a DEFAULT FDE of ABI a that starts at start
// (bytes from the function start) and gives CFA = base + cfaOffset, with
// RA and FP recovered by the rules ra and fp (spec v3 §3.1):
//
//   - AMD64: ra must be the zero Rule or c-8 (the header's fixed RA offset
//     applies); fp is RuleOffset from the CFA or not saved (zero Rule or
//     RuleSameValue).
//   - AArch64: ra and fp are RuleOffset from the CFA or not saved; FP cannot
//     be saved without RA.
//   - s390x: cfaOffset is scaled and adjusted ([sframe.S390XEncodeCFAOffset]); ra and
//     fp are RuleOffset from the CFA, not saved, or RuleRegister, which
//     uses the version 2 register encoding ((reg << 1) | 1) and so belongs in
//     version 2 sections only.
//
// For an FRE that marks the outermost frame use OutermostFRE.
func DefaultFRE(a sframe.ABI, start uint32, base sframe.BaseReg, cfaOffset int64, ra, fp rule.Rule) (FRESpec, error) {
	r := FRESpec{StartOff: start, BaseReg: base}
	cfa := cfaOffset
	if a == sframe.ABIS390XBigEndian {
		var ok bool
		if cfa, ok = sframe.S390XEncodeCFAOffset(cfaOffset); !ok {
			return r, fmt.Errorf("sframetest: s390x CFA offset %d is not %d plus a multiple of %d", cfaOffset, -sframe.S390XCFAOffsetAdjustment, sframe.S390XCFAOffsetAlignFactor)
		}
	}
	if cfa != int64(int32(cfa)) {
		return r, fmt.Errorf("sframetest: CFA offset %d does not fit a data word", cfaOffset)
	}
	r.Words = append(r.Words, int32(cfa))
	word := func(x rule.Rule, what string) (w int32, saved bool, err error) {
		switch {
		case x.Kind == rule.Undefined && x == rule.Rule{}, x.Kind == rule.SameValue:
			return 0, false, nil
		case x.Kind == rule.Offset && x.Reg == rule.CFA && x.Offset == int64(int32(x.Offset)):
			return int32(x.Offset), true, nil
		case x.Kind == rule.Register && a == sframe.ABIS390XBigEndian && x.Reg >= 0:
			return int32(x.Reg)<<1 | 1, true, nil
		}
		return 0, false, fmt.Errorf("sframetest: %v cannot encode %s rule %v in a DEFAULT FDE", a, what, x)
	}
	fw, fpSaved, err := word(fp, "FP")
	if err != nil {
		return r, err
	}
	if a == sframe.ABIAMD64LittleEndian {
		if ra != (rule.Rule{}) && ra != (rule.Rule{Kind: rule.Offset, Reg: rule.CFA, Offset: -8}) {
			return r, fmt.Errorf("sframetest: %v cannot encode RA rule %v: RA is at the header's fixed offset", a, ra)
		}
		if fpSaved {
			r.Words = append(r.Words, fw)
		}
		return r, nil
	}
	rw, raSaved, err := word(ra, "RA")
	if err != nil {
		return r, err
	}
	switch {
	case raSaved:
		r.Words = append(r.Words, rw)
	case fpSaved && a == sframe.ABIS390XBigEndian:
		r.Words = append(r.Words, sframe.RAOffsetInvalid) // padding: FP without RA
	case fpSaved:
		return r, fmt.Errorf("sframetest: %v cannot encode FP saved without RA", a)
	}
	if fpSaved {
		r.Words = append(r.Words, fw)
	}
	return r, nil
}

// FlexFRE builds the FRE of a FLEX FDE (spec v3 §3.2) that starts at start
// and recovers CFA, RA and FP by the given rules: RuleValOffset (Reg +
// Offset) or RuleOffset (*(Reg + Offset)), where Reg is a DWARF register or,
// for RA and FP only, RegCFA; RuleRegister (the value of Reg); and for RA
// and FP the zero Rule or RuleSameValue for "no rule" (the header's fixed
// offsets apply). On s390x the CFA offset is scaled and adjusted as in
// DEFAULT FDEs, as gas does.
func FlexFRE(a sframe.ABI, start uint32, cfa, ra, fp rule.Rule) (FRESpec, error) {
	r := FRESpec{StartOff: start}
	pair := func(x rule.Rule, what string) (ctl uint32, off int32, ok bool, err error) {
		switch x.Kind {
		case rule.Undefined, rule.SameValue:
			if x.Kind == rule.SameValue || x == (rule.Rule{}) {
				return 0, 0, false, nil
			}
		case rule.Register:
			if x.Reg >= 0 {
				return FlexControl(x.Reg, true, false), 0, true, nil
			}
		case rule.Offset, rule.ValOffset:
			if x.Offset != int64(int32(x.Offset)) || (x.Reg < 0 && x.Reg != rule.CFA) {
				break
			}
			ctl := FlexControl(0, false, x.Kind == rule.Offset)
			if x.Reg != rule.CFA {
				ctl = FlexControl(x.Reg, true, x.Kind == rule.Offset)
			}
			if ctl == 0 {
				return 0, 0, false, fmt.Errorf("sframetest: FLEX cannot encode %s = CFA+0 (a zero control word is padding)", what)
			}
			return ctl, int32(x.Offset), true, nil
		}
		return 0, 0, false, fmt.Errorf("sframetest: FLEX cannot encode %s rule %v", what, x)
	}
	if cfa.Reg == rule.CFA || cfa.Kind == rule.Undefined || cfa.Kind == rule.SameValue {
		return r, fmt.Errorf("sframetest: FLEX CFA rule %v has no base register", cfa)
	}
	ctl, off, _, err := pair(cfa, "CFA")
	if err != nil {
		return r, err
	}
	if a == sframe.ABIS390XBigEndian {
		enc, ok := sframe.S390XEncodeCFAOffset(int64(off))
		if !ok || enc != int64(int32(enc)) {
			return r, fmt.Errorf("sframetest: s390x CFA offset %d is not %d plus a multiple of %d", off, -sframe.S390XCFAOffsetAdjustment, sframe.S390XCFAOffsetAlignFactor)
		}
		off = int32(enc)
	}
	r.Words = append(r.Words, int32(ctl), off)
	rc, ro, raOK, err := pair(ra, "RA")
	if err != nil {
		return r, err
	}
	fc, fo, fpOK, err := pair(fp, "FP")
	if err != nil {
		return r, err
	}
	switch {
	case raOK:
		r.Words = append(r.Words, int32(rc), ro)
	case fpOK:
		r.Words = append(r.Words, 0) // padding for RA
	}
	if fpOK {
		r.Words = append(r.Words, int32(fc), fo)
	}
	return r, nil
}

// OutermostFRE returns an FRE with no data words: RA undefined, the
// outermost frame (spec v2 errata 2, v3 §2.4.1).
func OutermostFRE(start uint32) FRESpec { return FRESpec{StartOff: start} }

// MakeFREInfo builds an FRE info byte (spec v3 §2.4.1): fre_cfa_base_reg_id
// in bit 0, fre_dataword_count in bits 1-4, fre_dataword_size in bits 5-6,
// fre_mangled_ra_p in bit 7. Out-of-range values are truncated to their
// bits.
func MakeFREInfo(base sframe.BaseReg, count int, size sframe.DataWordSize, mangledRA bool) sframe.FREInfo {
	i := sframe.FREInfo(base&1) | sframe.FREInfo(count&0xf)<<1 | sframe.FREInfo(size&3)<<5
	if mangledRA {
		i |= 0x80
	}
	return i
}

// FlexControl builds a FLEX control data word (spec v3 §3.2): reg_p in
// bit 0 (the base is register reg, else the CFA), deref_p in bit 1 (the
// value is loaded from base + offset, else it is base + offset), and the
// DWARF register number from bit 3 on.
func FlexControl(reg rule.Reg, regP, derefP bool) uint32 {
	w := uint32(reg) << 3
	if regP {
		w |= 1
	}
	if derefP {
		w |= 2
	}
	return w
}
