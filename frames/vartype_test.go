package frames

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestGlobalTypeIsTheVariablesDWARFType: deep.c's globals and file-scope
// statics with the types gdb's ptype gives them; a function, an unknown
// name and a module without DWARF have none.
func TestGlobalTypeIsTheVariablesDWARFType(t *testing.T) {
	m := fixtureModule(t, "deep-v3-O2")
	for name, want := range map[string]string{
		"spin_count":    "volatile long unsigned int",
		"spin_release":  "volatile int",
		"sink":          "volatile long int",
		"exit_after_ms": "long int",
	} {
		ty, ok := m.GlobalType(name)
		if !ok || ty.String() != want {
			t.Errorf("GlobalType(%q) = %v, %v; want %s", name, ty, ok, want)
		}
	}
	for _, name := range []string{"spin_here", "no_such_variable"} {
		if ty, ok := m.GlobalType(name); ok {
			t.Errorf("GlobalType(%q) = %v, want none", name, ty)
		}
	}
}

// TestCompUnitAtReadsTheUnitHeader: the unit holding spin_here, with its
// DWARF version read from the unit header.
func TestCompUnitAtReadsTheUnitHeader(t *testing.T) {
	m := fixtureModule(t, "deep-v3-O2")
	cu, ok := m.CompUnitAt(symbolAddr(t, m, "spin_here"))
	if !ok || cu.Name != "testdata/src/deep.c" || cu.CompDir != "." || cu.Version != 5 || cu.Language != 0x1d || cu.Macros {
		t.Errorf("CompUnitAt(spin_here) = %+v, %v", cu, ok)
	}
	if _, ok := m.CompUnitAt(0); ok {
		t.Errorf("CompUnitAt(0) found a unit")
	}
}

// TestLineOfAnAddressIsItsLastStatementRow: GCC's line program for
// scale.constprop.0 (clones.c) has three rows at its entry, lines 18
// (is_stmt), 21 (is_stmt, view 1) and 18 (not is_stmt, view 2); gdb gives
// the address line 21, the last is_stmt row ("Line 21 of clones.c starts
// at address 0x13e0 <scale>"), where the last row alone gave 18.
func TestLineOfAnAddressIsItsLastStatementRow(t *testing.T) {
	m := fixtureModule(t, "clones-v3-O2")
	for sym, want := range map[string]int{"scale.constprop.0": 21, "weigh.isra.0": 14} {
		if got := m.Symbolize(symbolAddr(t, m, sym)); got.Line != want {
			t.Errorf("%s: line %d, want %d (gdb's)", sym, got.Line, want)
		}
	}
}

// TestInlinedEntriesAreTheInlinedCopies: clones.c's check was inlined
// twice into main besides its out-of-line part check.part.0, at 0x1122
// and 0x1127 as gdb puts "break check" (the first copy's DW_AT_entry_pc,
// 0x111f, is in an empty range); weigh was not inlined.
func TestInlinedEntriesAreTheInlinedCopies(t *testing.T) {
	m := fixtureModule(t, "clones-v3-O2")
	if got := m.InlinedEntries("check"); len(got) != 2 || got[0] != 0x1122 || got[1] != 0x1127 {
		t.Errorf("InlinedEntries(check) = %#x, want [0x1122 0x1127]", got)
	}
	if got := m.InlinedEntries("weigh"); got != nil {
		t.Errorf("InlinedEntries(weigh) = %#x, want none", got)
	}
}

// TestGlobalTypeInALaterUnit: a variable of the second compilation unit
// is found past the end of the first unit's entries (a null entry, which
// debug/dwarf returns without an offset). Built with the C compiler.
func TestGlobalTypeInALaterUnit(t *testing.T) {
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("no C compiler to build a program of two units")
	}
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.c"), filepath.Join(dir, "b.c")
	os.WriteFile(a, []byte("int first_unit_var = 1;\nint main(void) { return 0; }\n"), 0o644)
	os.WriteFile(b, []byte("short second_unit_var = 2;\nint g(void) { return second_unit_var; }\n"), 0o644)
	bin := filepath.Join(dir, "two")
	if out, err := exec.Command(cc, "-g", "-o", bin, a, b).CombinedOutput(); err != nil {
		t.Skipf("cc: %v: %s", err, out)
	}
	m := &Module{Name: "two", OpenPath: bin, Start: 0, End: 1 << 40}
	defer m.Close()
	if ty, ok := m.GlobalType("second_unit_var"); !ok || ty.String() != "short int" {
		t.Errorf("GlobalType(second_unit_var) = %v, %v; want short int", ty, ok)
	}
}
