package compare

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzCheckFile checks arbitrary bytes as an ELF file (CheckFile on a
// module given as bytes) and asserts a work budget, not only the absence
// of a panic: the bytes allocated stay within allocPerByte times the
// input's size plus its executable code, plus allocBase, and no PC is
// compared twice (assertBudget). A recovered panic ("internal error")
// fails too.
//
// Seeds: the fixtures of ../testdata/bin up to 100 KB (larger ones make
// each execution slow), and the committed corpus in
// testdata/fuzz/FuzzCheckFile: every input that ever failed, among them
// the mutants of scripts/hostile.sh -m that ran out of time or memory.
func FuzzCheckFile(f *testing.F) {
	entries, _ := os.ReadDir(fixtures)
	for _, e := range entries {
		if info, err := e.Info(); err != nil || !info.Mode().IsRegular() || info.Size() > 100<<10 {
			continue
		}
		if b, err := os.ReadFile(filepath.Join(fixtures, e.Name())); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 4<<20 {
			return
		}
		assertBudget(t, data)
	})
}
