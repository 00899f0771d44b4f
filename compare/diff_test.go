package compare

import (
	"path/filepath"
	"testing"
)

// The objects of scripts/assembler-diff.sh --fixtures (testdata/diff): the same .s
// assembled by GNU as 2.47.50 (SFrame v3) and clang 22 (SFrame v2).
func diffObj(name string) string { return filepath.Join("..", "testdata", "diff", name) }

func TestDiffClassesEachDifference(t *testing.T) {
	for _, tc := range []struct {
		name, a, b string
		want       []Difference // Class, Table, What, Function, OffA, Agrees
		semantic   int
	}{
		{"a file against itself differs in nothing", "diff-known-gas.o", "diff-known-gas.o", nil, 0},
		{"rows split at another instruction are a representation difference", "diff-split-gas.o", "diff-split-clang22.o",
			[]Difference{{Class: DiffRepresentation, Table: TableSFrame, What: "split", Function: "split_restore"}}, 0},
		{"GNU as's lost CFA offset is semantic, and clang's side agrees with its CFI", "diff-known-gas.o", "diff-known-clang22.o",
			[]Difference{
				{Class: DiffRepresentation, Table: TableSFrame, What: "no-fde", Function: "cfa_r12"},
				{Class: DiffRepresentation, Table: TableSFrame, What: "no-fde", Function: "setcontext_like"},
				{Class: DiffSemantic, Table: TableSFrame, What: "cfa", Function: "defreg_after_off", OffA: 5, Agrees: "b"},
			}, 1},
		{"clang's SFrame v2 cannot mark _start outermost: GNU as 2.47.50's side agrees with its CFI", "diff-features-gas.o", "diff-features-clang22.o",
			[]Difference{
				{Class: DiffSemantic, Table: TableSFrame, What: "outermost", Function: "_start", OffA: 0, Agrees: "a"},
				{Class: DiffRepresentation, Table: TableSFrame, What: "no-fde", Function: "flex_drap"},
			}, 1},
		{"two executables work alike: GNU as 2.40's _start is not outermost, 2.47.50's is", "../bin/features-v1", "../bin/features-v3",
			[]Difference{
				{Class: DiffSemantic, Table: TableSFrame, What: "outermost", Function: "_start", OffA: 0, Agrees: "b"},
				{Class: DiffRepresentation, Table: TableSFrame, What: "no-fde", Function: "flex_drap"},
			}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep, err := Diff(diffObj(tc.a), diffObj(tc.b), DiffOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Summary.Paired == 0 || rep.Summary.Instructions == 0 {
				t.Fatalf("nothing compared: %+v", rep.Summary)
			}
			if rep.Summary.Semantic != tc.semantic || len(rep.Differences) != len(tc.want) {
				t.Fatalf("%d semantic, %d differences, want %d and %d: %+v", rep.Summary.Semantic, len(rep.Differences), tc.semantic, len(tc.want), rep.Differences)
			}
			for i, w := range tc.want {
				g := rep.Differences[i]
				if g.Class != w.Class || g.Table != w.Table || g.What != w.What || g.Function != w.Function || g.OffA != w.OffA || g.Agrees != w.Agrees {
					t.Errorf("difference %d: got %s %s %s %s+%#x agrees=%q, want %s %s %s %s+%#x agrees=%q (%s)", i,
						g.Class, g.Table, g.What, g.Function, g.OffA, g.Agrees, w.Class, w.Table, w.What, w.Function, w.OffA, w.Agrees, g.Message)
				}
			}
		})
	}
}

// Padding differs between assemblers (GNU as and clang pad loop heads
// differently); instructions are paired once the nops are left out.
func TestPairInstsSkipsPaddingNops(t *testing.T) {
	a := &diffFn{decoded: true, insts: []uint64{0, 1, 3, 7, 8}, nop: []bool{false, false, true, false, false}}
	b := &diffFn{decoded: true, insts: []uint64{0, 1, 3, 4}, nop: []bool{false, false, false, false}}
	pairs, same := pairInsts(a, b)
	want := []instPair{{0, 0}, {1, 1}, {7, 3}, {8, 4}}
	if !same || len(pairs) != len(want) {
		t.Fatalf("same=%v pairs %v, want %v", same, pairs, want)
	}
	for i := range want {
		if pairs[i] != want[i] {
			t.Fatalf("pairs %v, want %v", pairs, want)
		}
	}
	b.insts, b.nop = b.insts[:3], b.nop[:3]
	if pairs, same := pairInsts(a, b); same || pairs != nil {
		t.Errorf("code differing beyond padding: same=%v pairs %v, want false and none", same, pairs)
	}
}

func TestX86NopRecognizesPadding(t *testing.T) {
	for _, tc := range []struct {
		code []byte
		nop  bool
	}{
		{[]byte{0x90}, true},
		{[]byte{0x66, 0x90}, true},
		{[]byte{0x0f, 0x1f, 0x40, 0x00}, true},
		{[]byte{0x66, 0x2e, 0x0f, 0x1f, 0x84, 0, 0, 0, 0, 0}, true},
		{[]byte{0x48, 0x89, 0xe5}, false},
		{[]byte{0x66}, false},
		{nil, false},
	} {
		if got := x86Nop(tc.code); got != tc.nop {
			t.Errorf("x86Nop(% x) = %v, want %v", tc.code, got, tc.nop)
		}
	}
}
