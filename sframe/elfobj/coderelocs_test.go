package elfobj

import (
	"debug/elf"
	"path/filepath"
	"testing"
)

// TestCodeRelocIn finds the relocation that names the callee of an
// object's call to another file's function: in noreturn_call.o, call
// abort@PLT at .text+8 holds 0 and R_X86_64_PLT32 against abort at +9.
func TestCodeRelocIn(t *testing.T) {
	f, err := elf.Open(filepath.Join("..", "..", "testdata", "codeoracle", "realworld", "false-findings", "noreturn_call.o"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	l := Link(f)
	text, ok := l.SectionAddr(f.Section(".text"))
	if !ok {
		t.Fatal("no .text")
	}
	t.Run("the call's five bytes hold the relocation against abort", func(t *testing.T) {
		r, ok := l.CodeRelocIn(text+8, text+13)
		if !ok || r.Sym.Name != "abort" || r.Addr != text+9 || r.Type != uint32(elf.R_X86_64_PLT32) || r.Addend != -4 {
			t.Fatalf("CodeRelocIn = %+v, %v", r, ok)
		}
	})
	t.Run("the instructions before the call hold none", func(t *testing.T) {
		if r, ok := l.CodeRelocIn(text, text+8); ok {
			t.Fatalf("CodeRelocIn = %+v", r)
		}
	})
	t.Run("a linked layout has none", func(t *testing.T) {
		if r, ok := AsIs(f).CodeRelocIn(0, 1<<40); ok {
			t.Fatalf("CodeRelocIn = %+v", r)
		}
	})
}
