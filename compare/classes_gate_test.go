package compare

import (
	"path/filepath"
	"testing"
)

// TestIgnoreKnownExcusesClassifiedFindings: with --ignore-known, a
// finding of a named class (here LLVM's late push adjust) does not fail
// the run, as a known producer fault does not; without it, it does.
func TestIgnoreKnownExcusesClassifiedFindings(t *testing.T) {
	path := filepath.Join("..", "testdata", "codeoracle", "realworld", "clang_late_adjust.o")
	for _, ignore := range []bool{false, true} {
		rep, err := CheckFile(path, CheckOptions{Code: FramesCode})
		if err != nil {
			t.Fatal(err)
		}
		(&Gate{IgnoreKnown: ignore}).Classify(rep)
		failing := rep.Failing()
		if ignore && failing != 0 || !ignore && failing == 0 {
			t.Errorf("ignore-known %v: %d failing findings (%+v)", ignore, failing, rep.Gate)
		}
	}
}
