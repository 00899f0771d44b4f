package compare

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzDiff diffs arbitrary bytes, as an ELF file, against themselves and
// against a fixture: an error names the file, never an internal error (a
// recovered panic), and a file against itself differs in nothing.
func FuzzDiff(f *testing.F) {
	for _, n := range []string{diffObj("diff-known-gas.o"), diffObj("diff-split-clang22.o"), filepath.Join("..", "testdata", "obj", "objsections-lld22")} {
		if b, err := os.ReadFile(n); err == nil {
			f.Add(b)
		}
	}
	other := diffObj("diff-known-gas.o")
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<20 {
			return
		}
		p := filepath.Join(t.TempDir(), "x")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		rep, err := Diff(p, p, DiffOptions{})
		if err != nil {
			if strings.Contains(err.Error(), "internal error") || !strings.Contains(err.Error(), p) {
				t.Fatalf("error: %v", err)
			}
			return
		}
		if rep.Summary.Semantic != 0 {
			t.Fatalf("a file differs from itself: %+v", rep.Differences)
		}
		if _, err := Diff(other, p, DiffOptions{}); err != nil && strings.Contains(err.Error(), "internal error") {
			t.Fatalf("error: %v", err)
		}
	})
}
