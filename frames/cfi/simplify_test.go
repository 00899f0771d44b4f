package cfi

import (
	"testing"

	"github.com/sfdbg/sfdbg/sframe"
)

func TestSimplifyTurnsRegisterExpressionsIntoRules(t *testing.T) {
	expr := func(k sframe.RuleKind, b ...byte) sframe.Rule {
		return sframe.Rule{Kind: k, Reg: sframe.RegCFA, Expr: string(b)}
	}
	for _, tc := range []struct {
		name string
		in   sframe.Rule
		want sframe.Rule
	}{
		{"breg7 160 as an address is *(rsp+160)", expr(sframe.RuleExpression, 0x77, 0xa0, 0x01),
			sframe.Rule{Kind: sframe.RuleOffset, Reg: 7, Offset: 160}},
		{"breg7 8 as a value is rsp+8", expr(sframe.RuleValExpression, 0x77, 0x08),
			sframe.Rule{Kind: sframe.RuleValOffset, Reg: 7, Offset: 8}},
		{"breg6 -8; deref as a value is *(rbp-8)", expr(sframe.RuleValExpression, 0x76, 0x78, 0x06),
			sframe.Rule{Kind: sframe.RuleOffset, Reg: 6, Offset: -8}},
		{"bregx 33 16 as an address is *(r33+16)", expr(sframe.RuleExpression, 0x92, 33, 16),
			sframe.Rule{Kind: sframe.RuleOffset, Reg: 33, Offset: 16}},
		{"an address read from memory stays an expression", expr(sframe.RuleExpression, 0x77, 0x08, 0x06),
			expr(sframe.RuleExpression, 0x77, 0x08, 0x06)},
		{"a PLT expression stays an expression", expr(sframe.RuleValExpression, 0x77, 0x08, 0x80, 0x00, 0x3f, 0x1a),
			expr(sframe.RuleValExpression, 0x77, 0x08, 0x80, 0x00, 0x3f, 0x1a)},
		{"a truncated offset stays an expression", expr(sframe.RuleExpression, 0x77, 0x80),
			expr(sframe.RuleExpression, 0x77, 0x80)},
		{"a plain rule is returned as it is", sframe.Rule{Kind: sframe.RuleOffset, Reg: sframe.RegCFA, Offset: -8},
			sframe.Rule{Kind: sframe.RuleOffset, Reg: sframe.RegCFA, Offset: -8}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Simplify(tc.in); got != tc.want {
				t.Errorf("Simplify(%v) = %v, want %v", tc.in, got, tc.want)
			}
		})
	}
}
