package cfi

import (
	"testing"

	"github.com/sfdbg/sfdbg/sframe/rule"
)

func TestSimplifyTurnsRegisterExpressionsIntoRules(t *testing.T) {
	expr := func(k rule.Kind, b ...byte) rule.Rule {
		return rule.Rule{Kind: k, Reg: rule.CFA, Expr: string(b)}
	}
	for _, tc := range []struct {
		name string
		in   rule.Rule
		want rule.Rule
	}{
		{"breg7 160 as an address is *(rsp+160)", expr(rule.Expression, 0x77, 0xa0, 0x01),
			rule.Rule{Kind: rule.Offset, Reg: 7, Offset: 160}},
		{"breg7 8 as a value is rsp+8", expr(rule.ValExpression, 0x77, 0x08),
			rule.Rule{Kind: rule.ValOffset, Reg: 7, Offset: 8}},
		{"breg6 -8; deref as a value is *(rbp-8)", expr(rule.ValExpression, 0x76, 0x78, 0x06),
			rule.Rule{Kind: rule.Offset, Reg: 6, Offset: -8}},
		{"bregx 33 16 as an address is *(r33+16)", expr(rule.Expression, 0x92, 33, 16),
			rule.Rule{Kind: rule.Offset, Reg: 33, Offset: 16}},
		{"an address read from memory stays an expression", expr(rule.Expression, 0x77, 0x08, 0x06),
			expr(rule.Expression, 0x77, 0x08, 0x06)},
		{"a PLT expression stays an expression", expr(rule.ValExpression, 0x77, 0x08, 0x80, 0x00, 0x3f, 0x1a),
			expr(rule.ValExpression, 0x77, 0x08, 0x80, 0x00, 0x3f, 0x1a)},
		{"a truncated offset stays an expression", expr(rule.Expression, 0x77, 0x80),
			expr(rule.Expression, 0x77, 0x80)},
		{"a plain rule is returned as it is", rule.Rule{Kind: rule.Offset, Reg: rule.CFA, Offset: -8},
			rule.Rule{Kind: rule.Offset, Reg: rule.CFA, Offset: -8}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Simplify(tc.in); got != tc.want {
				t.Errorf("Simplify(%v) = %v, want %v", tc.in, got, tc.want)
			}
		})
	}
}
