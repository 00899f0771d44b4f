package frames

import "testing"

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
