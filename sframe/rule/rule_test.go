package rule

import "testing"

func TestFormat(t *testing.T) {
	names := func(r Reg) string { return map[Reg]string{6: "rbp", 7: "rsp"}[r] }
	for _, tc := range []struct {
		r          Rule
		num, named string
	}{
		{Rule{Kind: ValOffset, Reg: 7, Offset: 16}, "r7+16", "rsp+16"},
		{Rule{Kind: Offset, Reg: CFA, Offset: -8}, "c-8", "c-8"},
		{Rule{Kind: Offset, Reg: 6, Offset: -8}, "(r6-8)", "(rbp-8)"},
		{Rule{Kind: ValOffset, Reg: CFA, Offset: 16}, "v+16", "v+16"},
		{Rule{Kind: Register, Reg: 6}, "r6", "rbp"},
		{Rule{Kind: SameValue}, "u", "u"},
		{Rule{Kind: Undefined}, "undefined", "undefined"},
		{Rule{Kind: Expression, Expr: "\x77\x08"}, "*expr[2]", "*expr[2]"},
		{Rule{Kind: ValExpression, Expr: "\x77"}, "expr[1]", "expr[1]"},
		{Rule{Kind: 42}, "Kind(42)", "Kind(42)"},
	} {
		if got := tc.r.String(); got != tc.num {
			t.Errorf("%+v.String() = %q, want %q", tc.r, got, tc.num)
		}
		if got := tc.r.Format(names); got != tc.named {
			t.Errorf("%+v.Format(names) = %q, want %q", tc.r, got, tc.named)
		}
	}
}
