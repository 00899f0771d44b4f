package compare

import (
	"testing"

	"github.com/sfdbg/sfdbg/frames"
	"github.com/sfdbg/sfdbg/sframe/rule"
)

func TestDiffRowsComparesMeaningNotSpelling(t *testing.T) {
	sp := func(off int64) rule.Rule {
		return rule.Rule{Kind: rule.ValOffset, Reg: frames.RSP, Offset: off}
	}
	at := func(off int64) rule.Rule {
		return rule.Rule{Kind: rule.Offset, Reg: rule.CFA, Offset: off}
	}
	same := rule.Rule{Kind: rule.SameValue, Reg: rule.CFA}
	undef := rule.Rule{Kind: rule.Undefined, Reg: rule.CFA}
	// The AMD64 PLT CFA expression: rsp + 8 + ((rip & 15) >= 11) * 8.
	pltExpr := []byte{0x77, 0x08, 0x80, 0x00, 0x3f, 0x1a, 0x3b, 0x2a, 0x33, 0x24, 0x22}
	plt := rule.Rule{Kind: rule.ValExpression, Expr: string(pltExpr)}
	tests := []struct {
		name    string
		sf, cfi frames.Row
		pc      uint64
		want    RowDiff
	}{
		{"identical rules agree", frames.Row{Row: rule.Row{CFA: sp(16), RA: at(-8), FP: at(-16)}}, frames.Row{Row: rule.Row{CFA: sp(16), RA: at(-8), FP: at(-16)}}, 0, RowDiff{}},
		{"a different CFA offset is a CFA difference", frames.Row{Row: rule.Row{CFA: sp(24), RA: at(-8), FP: same}}, frames.Row{Row: rule.Row{CFA: sp(16), RA: at(-8), FP: same}}, 0, RowDiff{CFA: true}},
		{"an untracked FP against a saved one is an FP difference", frames.Row{Row: rule.Row{CFA: sp(16), RA: at(-8), FP: same}}, frames.Row{Row: rule.Row{CFA: sp(16), RA: at(-8), FP: at(-16)}}, 0, RowDiff{FP: true}},
		{"an FP that CFI leaves undefined matches anything", frames.Row{Row: rule.Row{CFA: sp(16), RA: at(-8), FP: at(-16)}}, frames.Row{Row: rule.Row{CFA: sp(16), RA: at(-8), FP: undef}}, 0, RowDiff{}},
		{"the PLT expression before the push equals sp+8", frames.Row{Row: rule.Row{CFA: sp(8), RA: at(-8), FP: same}}, frames.Row{Row: rule.Row{CFA: plt, RA: at(-8), FP: same}}, 0x1036, RowDiff{}},
		{"the PLT expression after the push equals sp+16", frames.Row{Row: rule.Row{CFA: sp(16), RA: at(-8), FP: same}}, frames.Row{Row: rule.Row{CFA: plt, RA: at(-8), FP: same}}, 0x103b, RowDiff{}},
		{"sp+16 before the push differs from the PLT expression", frames.Row{Row: rule.Row{CFA: sp(16), RA: at(-8), FP: same}}, frames.Row{Row: rule.Row{CFA: plt, RA: at(-8), FP: same}}, 0x1030, RowDiff{CFA: true}},
		{"RA undefined on one side only is an outermost difference", frames.Row{Row: rule.Row{CFA: sp(8), RA: at(-8), FP: same}}, frames.Row{Row: rule.Row{CFA: sp(8), RA: undef, FP: same}}, 0, RowDiff{Outermost: true}},
		{"a FLEX register rule equals DW_CFA_register", frames.Row{Row: rule.Row{CFA: sp(160), RA: rule.Rule{Kind: rule.ValOffset, Reg: 16}, FP: same}},
			frames.Row{Row: rule.Row{CFA: sp(160), RA: rule.Rule{Kind: rule.Register, Reg: 16}, FP: same}}, 0, RowDiff{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := DiffRows(tc.sf, tc.cfi, tc.pc); got != tc.want {
				t.Errorf("DiffRows = %+v, want %+v", got, tc.want)
			}
		})
	}
}
