package compare

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestFunctionRowsShowTheFault lays out clang_late_adjust's sqlite3Select
// reproducer instruction by instruction: at the instruction after the
// pushq, CFI and SFrame say rsp+16 where the code says rsp+24, and only
// there they differ; the push is marked as a stack operation.
func TestFunctionRowsShowTheFault(t *testing.T) {
	path := filepath.Join("..", "testdata", "codeoracle", "realworld", "clang_late_adjust.o")
	rep, err := CheckFile(path, CheckOptions{Code: FramesCode})
	if err != nil {
		t.Fatal(err)
	}
	var f *Finding
	for i := range rep.Findings {
		if rep.Findings[i].Kind == KindCodeCFA {
			f = &rep.Findings[i]
			break
		}
	}
	if f == nil {
		t.Fatal("no code-cfa finding")
	}
	fr, err := FunctionRows(path, f.FuncStart)
	if err != nil {
		t.Fatal(err)
	}
	var differ []InsnRows
	for i, in := range fr.Insns {
		if in.Differs {
			differ = append(differ, in)
			if i == 0 || !fr.Insns[i-1].StackOp || !strings.HasPrefix(fr.Insns[i-1].Text, "push") {
				t.Errorf("the instruction before %#x (%s) is not the push: %+v", in.PC, in.Text, fr.Insns[max(0, i-1)])
			}
		}
	}
	if len(differ) != 1 || differ[0].PC != f.PC || !strings.Contains(differ[0].Code, "CFA=rsp+24") || !strings.Contains(differ[0].CFI, "CFA=rsp+16") {
		t.Errorf("rows that differ: %+v (finding at %#x)", differ, f.PC)
	}
}

// TestFunctionRowsJudgeByValue lays out an LLVM-style prologue whose CFI
// records the saves after the last push (the registers still hold the
// caller's values until then) and an epilogue without .cfi_restore: no
// row differs, as the check's judge finds nothing there. Compared as text
// the rows differ at the pushes and after the pops (FP=u against c-16).
func TestFunctionRowsJudgeByValue(t *testing.T) {
	path := filepath.Join("..", "testdata", "codeoracle", "realworld", "false-findings", "saves_after_pushes.o")
	fr, err := FunctionRows(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(fr.Insns) != 8 {
		t.Fatalf("%d instructions, want 8: %+v", len(fr.Insns), fr.Insns)
	}
	textDiffers := 0
	for _, in := range fr.Insns {
		if in.Code == "" || in.CFI == "" || in.SFrame == "" {
			t.Errorf("%#x %s: a witness has no row: %+v", in.PC, in.Text, in)
		}
		if in.Code != in.CFI {
			textDiffers++
		}
		if in.Differs {
			t.Errorf("%#x %s differs: SFrame %s, CFI %s, code %s", in.PC, in.Text, in.SFrame, in.CFI, in.Code)
		}
	}
	if textDiffers == 0 {
		t.Error("no row differs as text: the fixture no longer tests the judge")
	}
}
