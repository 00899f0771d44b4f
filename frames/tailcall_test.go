package frames

import (
	"path/filepath"
	"testing"
)

// TestTailCallsAreGdbsVirtualFrames checks the tail calls of
// testdata/bin/tailcall-v3-O2 (stage1 calls stage2, which jumps to stage3,
// which jumps to leaf): between leaf's frame and stage1's, gdb shows stage3
// and stage2 (testdata/golden/gdb-tailcall-v3-O2-spin.txt: "#1 ... in
// stage3 (...) at testdata/src/tailcall.c:28", "#2 ... in stage2 (...) at
// ...:34"), each at the address after its jump; between stage1 and main,
// whose call site calls stage1 itself, there are none.
func TestTailCallsAreGdbsVirtualFrames(t *testing.T) {
	path := filepath.Join("..", "testdata", "bin", "tailcall-v3-O2")
	m := &Module{Name: "tailcall-v3-O2", OpenPath: path, Start: 0, End: 1 << 40}
	t.Cleanup(func() { m.Close() })
	entry := func(name string) (uint64, uint64) {
		a, size, ok := m.LookupSymbol(name)
		if !ok {
			t.Fatalf("no %s in %s", name, path)
		}
		return a, size
	}
	d, err := m.load()
	if err != nil {
		t.Fatal(err)
	}
	lt := m.lineData(d)
	stage1, _ := entry("stage1")
	stage2, stage2Size := entry("stage2")
	stage3, stage3Size := entry("stage3")
	leaf, _ := entry("leaf")
	main, _ := entry("main")
	var ra, mainRA uint64 // stage1's call to stage2, main's to stage1
	for _, cs := range lt.callSites(stage1) {
		if t := entries(m, cs.d, cs.origin); len(t) == 1 && t[0] == stage2 && !cs.tail {
			ra = cs.ret
		}
	}
	for _, cs := range lt.callSites(main) {
		if t := entries(m, cs.d, cs.origin); len(t) == 1 && t[0] == stage1 {
			mainRA = cs.ret
		}
	}
	if ra == 0 || mainRA == 0 {
		t.Fatalf("no call site stage1 -> stage2 (%#x) or main -> stage1 (%#x)", ra, mainRA)
	}
	got := m.TailCallsBetween(ra, leaf)
	want := []struct {
		fn          string
		start, size uint64
		line        int
	}{{"stage3", stage3, stage3Size, 28}, {"stage2", stage2, stage2Size, 34}}
	if len(got) != len(want) {
		t.Fatalf("tail calls between leaf and stage1: %+v, want stage3, stage2", got)
	}
	for i, w := range want {
		g := got[i]
		if g.Function != w.fn || g.PC <= w.start || g.PC > w.start+w.size || g.Line != w.line ||
			g.File != "testdata/src/tailcall.c" {
			t.Errorf("tail call %d: %+v, want %s after its jump in [%#x, %#x], tailcall.c:%d", i, g, w.fn, w.start, w.start+w.size, w.line)
		}
	}
	if tc := m.TailCallsBetween(mainRA, stage1); tc != nil {
		t.Errorf("main calls stage1 itself, yet tail calls %+v", tc)
	}
	if tc := m.TailCallsBetween(ra, stage2); tc != nil {
		t.Errorf("stage1 calls stage2 itself, yet tail calls %+v", tc)
	}
}
