package sframe

import "github.com/sfdbg/sfdbg/sframe/rule"

// Row interprets fre, which belongs to fde, for the section's ABI, version and
// the FDE type. It returns a *FormatError if the data words cannot be
// interpreted (an illegal count for the ABI or FDE type).
func (s *Section) Row(fde *FDE, fre *FRE) (rule.Row, error) {
	var row rule.Row
	err := s.RowInto(&row, fde, fre)
	return row, err
}

// RowInto is Row writing into *row, for callers on hot paths.
func (s *Section) RowInto(row *rule.Row, fde *FDE, fre *FRE) error {
	p, pf, base := s.partOf(fde)
	if base == 0 {
		return s.errFor(p.rowInto(row, pf, fre))
	}
	local := *fre
	local.Off -= base
	return shiftErr(p.rowInto(row, pf, &local), base)
}

// rowInto is RowInto on an FDE of s itself and an FRE offset in s.
func (s *Section) rowInto(row *rule.Row, fde *FDE, fre *FRE) error {
	*row = rule.Row{}
	row.Signal = fde.Signal
	row.MangledRA = fre.Info.MangledRA()
	row.PAuthKey = fde.PAuthKey
	row.SPOffset = s.rules.spValOffset
	n := fre.NumWords()
	if n == 0 {
		row.Outermost = true
		return nil
	}
	if fde.Type == FDETypeFlex {
		err := s.flexRow(row, fre)
		row.TopmostOnly = row.TopmostOnly || row.RA.Kind == rule.SameValue
		return err
	}
	if fde.Type != FDETypeDefault {
		return formatErr(int64(fde.infoOff(s))+1, "FDE %d: unknown FDE type %d", fde.Index, uint8(fde.Type))
	}
	if n > 3 || (n > 2 && s.ABI == ABIAMD64LittleEndian) {
		return formatErr(int64(fre.Off), "FRE with %d data words is illegal for %v", n, s.ABI)
	}
	base := s.rules.sp
	if fre.Info.BaseReg() == BaseRegFP {
		base = s.rules.fp
	}
	cfaOff := int64(fre.Words[0])
	if s.ABI == ABIS390XBigEndian {
		cfaOff = S390XDecodeCFAOffset(cfaOff)
	}
	row.CFA = rule.Rule{Kind: rule.ValOffset, Reg: base, Offset: cfaOff}
	row.RA, row.FP = s.rules.ra, s.rules.fpSaved
	if s.ABI == ABIAMD64LittleEndian {
		// AMD64: RA at the fixed offset, FP = CFA + word 2 (spec v3 §3.1.1).
		if n >= 2 {
			row.FP = rule.Rule{Kind: rule.Offset, Reg: rule.CFA, Offset: int64(fre.Words[1])}
		}
		return nil
	}
	// AArch64 and s390x: RA = CFA + word 2, FP = CFA + word 3 (§3.1.2, §3.1.3).
	if n >= 2 {
		row.RA = s.trackedRule(fre.Words[1], true, row)
	}
	if n >= 3 {
		row.FP = s.trackedRule(fre.Words[2], false, row)
	}
	// RA still in its register (AArch64 LR, s390x r14) is only known in the
	// topmost frame.
	row.TopmostOnly = row.TopmostOnly || row.RA.Kind == rule.SameValue
	return nil
}

// abiRules are the per-section constants RowInto needs, computed once by
// ParseAt from the ABI and the header's fixed offsets.
type abiRules struct {
	sp, fp      rule.Reg  // DWARF numbers of SP and FP
	spValOffset int64     // caller's SP relative to the CFA
	ra          rule.Rule // RA rule when the FRE does not give one
	fpSaved     rule.Rule // FP rule when the FRE does not give one
}

func newABIRules(h *Header) abiRules {
	r := abiRules{sp: h.ABI.SPReg(), fp: h.ABI.FPReg(), spValOffset: h.ABI.SPValOffset(),
		ra: fixedRule(h.CFAFixedRAOffset), fpSaved: fixedRule(h.CFAFixedFPOffset)}
	if h.ABI == ABIAMD64LittleEndian && h.CFAFixedRAOffset == 0 {
		// The AMD64 ABI fixes the RA at CFA-8 even when the header omits it.
		r.ra = rule.Rule{Kind: rule.Offset, Reg: rule.CFA, Offset: -8}
	}
	return r
}

// fixedRule returns the rule for a header fixed offset: saved at CFA+off, or
// not saved when off is 0.
func fixedRule(off int8) rule.Rule {
	if off == 0 {
		return rule.Rule{Kind: rule.SameValue, Reg: rule.CFA}
	}
	return rule.Rule{Kind: rule.Offset, Reg: rule.CFA, Offset: int64(off)}
}

// trackedRule interprets an RA or FP data word of a DEFAULT FDE on AArch64 or
// s390x, including the s390x encodings for "RA not saved" and (v2 only)
// "saved in DWARF register w>>1".
func (s *Section) trackedRule(w int32, isRA bool, row *rule.Row) rule.Rule {
	if s.ABI == ABIS390XBigEndian {
		if isRA && w == RAOffsetInvalid {
			return rule.Rule{Kind: rule.SameValue, Reg: rule.CFA}
		}
		if s.Version == Version2 && w&1 != 0 {
			row.TopmostOnly = true
			return rule.Rule{Kind: rule.Register, Reg: rule.Reg(w >> 1)}
		}
	}
	return rule.Rule{Kind: rule.Offset, Reg: rule.CFA, Offset: int64(w)}
}

// Flex control-word fields (spec v3 §3.2).
const (
	flexRegP   = 1 << 0
	flexDerefP = 1 << 1
)

// flexRule interprets one control/offset pair of a FLEX FRE.
func (s *Section) flexRule(ctl uint32, off int32, row *rule.Row) rule.Rule {
	r := rule.Rule{Kind: rule.ValOffset, Reg: rule.CFA, Offset: int64(off)}
	if ctl&flexRegP != 0 {
		r.Reg = rule.Reg(ctl >> 3)
		if r.Reg != s.rules.sp && r.Reg != s.rules.fp {
			row.TopmostOnly = true
		}
	}
	if ctl&flexDerefP != 0 {
		r.Kind = rule.Offset
	}
	return r
}

// flexRow interprets the data words of an FRE of a FLEX FDE: control/offset
// pairs for CFA, RA and FP, with a single zero padding word standing for an
// RA pair when only FP follows (spec v3 §3.2). Legal counts: 2, 3, 4, 5, 6.
func (s *Section) flexRow(row *rule.Row, fre *FRE) error {
	n := fre.NumWords()
	if n < 2 || n > 6 {
		return formatErr(int64(fre.Off), "FLEX FRE with %d data words, want 2 to 6", n)
	}
	cfaCtl := fre.uword(0)
	if cfaCtl&flexRegP == 0 {
		return formatErr(int64(fre.Off), "FLEX FRE: CFA control word %#x has no base register (reg_p clear)", cfaCtl)
	}
	row.CFA = s.flexRule(cfaCtl, fre.Words[1], row)
	if s.ABI == ABIS390XBigEndian {
		// The CFA offset word is scaled on s390x in FLEX FDEs too (gas
		// 2.47.50 stores 0 for sp+160; libsframe decodes it for any FDE type).
		row.CFA.Offset = S390XDecodeCFAOffset(row.CFA.Offset)
	}
	row.RA, row.FP = s.rules.ra, s.rules.fpSaved
	i := 2
	if i < n {
		if ctl := fre.uword(i); ctl == 0 {
			i++ // padding: RA keeps its default rule
		} else {
			if i+1 >= n {
				return formatErr(int64(fre.Off), "FLEX FRE: RA control word without its offset word")
			}
			row.RA = s.flexRule(ctl, fre.Words[i+1], row)
			i += 2
		}
	}
	if i < n {
		if i+1 >= n {
			return formatErr(int64(fre.Off), "FLEX FRE: FP control word without its offset word")
		}
		ctl := fre.uword(i)
		if ctl != 0 {
			row.FP = s.flexRule(ctl, fre.Words[i+1], row)
		}
		i += 2
	}
	if i != n {
		return formatErr(int64(fre.Off), "FLEX FRE: %d data words, %d left over", n, n-i)
	}
	return nil
}
