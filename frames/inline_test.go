package frames

import (
	"debug/dwarf"
	"debug/elf"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
)

const inlineFixture = "inline-v3-O2" // testdata/src/inline.c

func inlineModule(t *testing.T) *Module {
	t.Helper()
	m := &Module{Name: inlineFixture, OpenPath: filepath.Join("..", "testdata", "bin", inlineFixture), Start: 0, End: 1 << 40}
	t.Cleanup(func() { m.Close() })
	return m
}

// funcPCs returns every address of the function called name in m.
func funcPCs(t *testing.T, m *Module, name string) []uint64 {
	t.Helper()
	a, size, ok := m.LookupSymbol(name)
	if !ok || size == 0 {
		t.Fatalf("no function %s in %s", name, m.Name)
	}
	pcs := make([]uint64, size)
	for i := range pcs {
		pcs[i] = a + uint64(i)
	}
	return pcs
}

// chainText is a chain as "f@line g@line", innermost first.
func chainText(calls []InlinedCall) string {
	s := ""
	for i, c := range calls {
		if i > 0 {
			s += " "
		}
		s += fmt.Sprintf("%s@%s:%d", c.Function, filepath.Base(c.CallFile), c.CallLine)
	}
	return s
}

// TestInlinedAtFindsTheNestedInlinedSubroutines checks the inline chains
// of every PC of the fixture's functions against its source: spin_inline
// is inlined into stop_here at inline.c:38; inner_inline into
// outer_inline at line 50, itself inlined into run at line 56; main has
// none.
func TestInlinedAtFindsTheNestedInlinedSubroutines(t *testing.T) {
	m := inlineModule(t)
	for _, tc := range []struct {
		fn      string
		allowed []string // the chains a PC of fn may have
		want    string   // the chain some PC must have
	}{
		{"stop_here", []string{"", "spin_inline@inline.c:38"}, "spin_inline@inline.c:38"},
		{"run", []string{"", "outer_inline@inline.c:56", "inner_inline@inline.c:50 outer_inline@inline.c:56"},
			"inner_inline@inline.c:50 outer_inline@inline.c:56"},
		{"main", []string{""}, ""},
	} {
		t.Run(fmt.Sprintf("the PCs of %s have the chains its source gives", tc.fn), func(t *testing.T) {
			seen := false
			for _, pc := range funcPCs(t, m, tc.fn) {
				got := chainText(m.InlinedAt(pc))
				ok := false
				for _, a := range tc.allowed {
					ok = ok || got == a
				}
				if !ok {
					t.Errorf("%s+%#x: inline chain %q, want one of %q", tc.fn, pc-funcPCs(t, m, tc.fn)[0], got, tc.allowed)
				}
				seen = seen || got == tc.want
			}
			if !seen {
				t.Errorf("no PC of %s has the chain %q", tc.fn, tc.want)
			}
		})
	}
	t.Run("a PC in no function has no chain", func(t *testing.T) {
		if c := m.InlinedAt(0x10); c != nil {
			t.Errorf("InlinedAt(0x10) = %v", c)
		}
	})
	t.Run("a module without DWARF has no chain", func(t *testing.T) {
		nd := &Module{Name: "features-v3", OpenPath: filepath.Join("..", "testdata", "bin", "features-v3"), End: 1 << 40}
		defer nd.Close()
		if c := nd.InlinedAt(0x401000); c != nil {
			t.Errorf("InlinedAt = %v", c)
		}
	})
}

// TestStmtAtMarksStatementStarts checks StmtAt against the line program:
// true exactly at the addresses of is_stmt rows.
func TestStmtAtMarksStatementStarts(t *testing.T) {
	m := inlineModule(t)
	f, err := elf.Open(m.OpenPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d, err := f.DWARF()
	if err != nil {
		t.Fatal(err)
	}
	stmt := map[uint64]bool{}
	r := d.Reader()
	for {
		cu, err := r.Next()
		if err != nil || cu == nil {
			break
		}
		r.SkipChildren()
		lr, err := d.LineReader(cu)
		if err != nil || lr == nil {
			continue
		}
		var e dwarf.LineEntry
		for lr.Next(&e) == nil {
			if e.IsStmt && !e.EndSequence {
				stmt[e.Address] = true
			}
		}
	}
	n := 0
	for _, fn := range []string{"stop_here", "run", "main"} {
		for _, pc := range funcPCs(t, m, fn) {
			if got := m.StmtAt(pc); got != stmt[pc] {
				t.Errorf("StmtAt(%#x) = %v, want %v", pc, got, stmt[pc])
			}
			if stmt[pc] {
				n++
			}
		}
	}
	if n == 0 {
		t.Fatal("no is_stmt row in the fixture's functions")
	}
}

// TestInlinedAtOnDamagedDWARFNeitherPanicsNorRunsAway looks up every PC
// of the inline fixture's functions in copies whose .debug_info has one
// byte changed, at every offset: a lookup returns (any chain, bounded by
// maxInlineDepth), never panics and never loops.
func TestInlinedAtOnDamagedDWARFNeitherPanicsNorRunsAway(t *testing.T) {
	orig, info := fixtureSection(t, inlineFixture, ".debug_info")
	if info == nil {
		t.Fatal("fixture has no .debug_info")
	}
	clean := inlineModule(t)
	var pcs []uint64
	for _, fn := range []string{"stop_here", "run"} {
		pcs = append(pcs, funcPCs(t, clean, fn)...)
	}
	step := 1
	if testing.Short() {
		step = 7
	}
	for off := uint64(0); off < info.Size; off += uint64(step) {
		for _, x := range []byte{0xff, 0x01} {
			b := append([]byte(nil), orig...)
			b[info.Offset+off] ^= x
			m := &Module{Name: "damaged", ELF: b, End: 1 << 40}
			for _, pc := range pcs {
				if c := m.InlinedAt(pc); len(c) > maxInlineDepth {
					t.Fatalf(".debug_info byte %#x ^ %#x: chain of %d at %#x", off, x, len(c), pc)
				}
				m.StmtAt(pc)
			}
		}
	}
}

// TestInlineLookupIsLazy checks that naming a frame (Symbolize, which
// asks the unit's subprograms for gdb's name) and an inline lookup index
// the one unit holding the PC, and no other.
func TestInlineLookupIsLazy(t *testing.T) {
	m := inlineModule(t)
	pc := funcPCs(t, m, "run")[0]
	m.Symbolize(pc)
	d, err := m.load()
	if err != nil {
		t.Fatal(err)
	}
	lt := m.lineData(d)
	u := slices.Collect(lt.units(pc))
	if len(u) != 1 {
		t.Fatalf("%d units hold %#x", len(u), pc)
	}
	if u[0].inl.funcs == nil {
		t.Fatal("Symbolize did not index the unit of the PC")
	}
	if lt.sparse == nil {
		t.Fatal("the line table reads the whole DWARF, not the unit of the PC (.debug_aranges)")
	}
	for off, su := range lt.sparse.units {
		if su.u != u[0] {
			t.Errorf("Symbolize read a unit at %#x that does not hold %#x", off, pc)
		}
	}
	if lt.sparse.full != nil {
		t.Error("Symbolize read the whole DWARF")
	}
	m.InlinedAt(pc)
	want := []InlinedCall(nil)
	if got := m.InlinedAt(funcPCs(t, m, "main")[0]); !reflect.DeepEqual(got, want) {
		t.Errorf("main: %v", got)
	}
}

// fixtureSection returns the bytes of testdata/bin/NAME and the header of
// its section sec (nil if it has none).
func fixtureSection(t *testing.T, name, sec string) ([]byte, *elf.Section) {
	t.Helper()
	path := filepath.Join("..", "testdata", "bin", name)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return b, f.Section(sec)
}
