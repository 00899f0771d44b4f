package frames

import (
	"debug/elf"
	"path/filepath"
	"testing"
)

// TestCodeAnalyzerObjectNoReturnCall walks a relocatable object's
// function whose call abort@PLT holds no target (its field is 0; the
// R_X86_64_PLT32 relocation names abort): the path ends at the call, so
// the instruction after it is reached from the branch alone, with the
// entry's state (CFA=rsp+8), not with the call's (rsp+16).
func TestCodeAnalyzerObjectNoReturnCall(t *testing.T) {
	path := filepath.Join("..", "testdata", "codeoracle", "realworld", "false-findings", "noreturn_call.o")
	m := &Module{Name: "noreturn_call.o", OpenPath: path, Path: path, Start: 0, End: 1 << 40}
	defer m.Close()
	c, err := m.CodeAnalyzer()
	if err != nil {
		t.Fatal(err)
	}
	start, _, ok := m.LookupSymbol("h")
	if !ok {
		t.Fatal("no symbol h")
	}
	text := m.codeBytes(start, 14)
	if text == nil {
		t.Fatal("no code for h")
	}
	fn, _, why := c.Analyze(text, start)
	if fn == nil {
		t.Fatal(why)
	}
	if len(fn.Findings) != 0 {
		t.Errorf("findings: %+v", fn.Findings)
	}
	st, _, ok := fn.StateAt(start + 13) // ret
	if k, known := st.CFAVia(fn.Arch, fn.Arch.SP); !ok || !known || k != 8 {
		t.Errorf("CFA at the ret: rsp+%d (known %v, reached %v), want rsp+8", k, known, ok)
	}
}

// TestCodeUnwinderColdParts walks SQLite's cold parts (foo.cold) the way
// the live code unwinder does (Module.codeFuncAt): each starts from the
// states at its hot part's jumps into it, so its first instruction has a
// known state; the one a jump table alone enters (sqlite3Pragma.cold) may
// not be followed.
func TestCodeUnwinderColdParts(t *testing.T) {
	m := fixtureModule(t, "sqlite-v3")
	f, err := elf.Open(fixture(t, "sqlite-v3"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	walked, failed := 0, 0
	for _, s := range syms {
		if _, cold := ColdParent(s.Name); !cold || elf.ST_TYPE(s.Info) != elf.STT_FUNC || s.Size == 0 {
			continue
		}
		fn, err := m.codeFuncAt(s.Value)
		if err != nil {
			failed++
			t.Logf("%s: %v", s.Name, err)
			continue
		}
		if _, why, ok := fn.f.StateAt(s.Value); !ok {
			failed++
			t.Logf("%s: no state at its start: %s", s.Name, why)
			continue
		}
		walked++
	}
	t.Logf("%d cold parts walked, %d not", walked, failed)
	if walked == 0 || failed > 1 {
		t.Errorf("%d cold parts walked from their hot parts' jumps, %d not", walked, failed)
	}
}

// TestObjectJumpTablesAreNotRead: in a relocatable object a table's lea
// and its entries hold relocations, not addresses, so the walk reads no
// jump table there (valgrind's archives: a table read at the lea's zero
// displacement sent the walk to tail calls to nowhere); in a linked file
// it does.
func TestObjectJumpTablesAreNotRead(t *testing.T) {
	for _, tc := range []struct {
		path string
		want bool
	}{
		{filepath.Join("..", "testdata", "obj", "objlib-v3.o"), false},
		{filepath.Join("..", "testdata", "bin", "deep-v3-O2"), true},
	} {
		m := &Module{Name: filepath.Base(tc.path), OpenPath: tc.path, Path: tc.path, Start: 0, End: 1 << 40}
		c, err := m.CodeAnalyzer()
		if err != nil {
			t.Fatal(err)
		}
		if got := c.options(nil, 0, 0).JumpTable != nil; got != tc.want {
			t.Errorf("%s: jump tables read %v, want %v", tc.path, got, tc.want)
		}
		m.Close()
	}
}
