package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckSaysFileErrorsOnStderr: a file check cannot read is said on
// stderr, as dump, diff and core say it; the reports of the others stay on
// stdout; the status is 2.
func TestCheckSaysFileErrorsOnStderr(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "notelf.txt")
	if err := os.WriteFile(bad, []byte("root:x:0:0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runSfdbg("check", bad, dumpFixture(t, "deep-v3-O2"))
	if code != exitError || !strings.Contains(errOut, bad+": error: not an ELF file") || strings.Contains(out, "error:") ||
		!strings.Contains(out, "deep-v3-O2: SFrame v3") {
		t.Errorf("status %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}

// TestDiffOfUnrelatedFilesSaysSo: two files with no function in common
// compare nothing, which diff says, with status 2; files sharing few
// functions get a warning.
func TestDiffOfUnrelatedFilesSaysSo(t *testing.T) {
	obj := dumpFixture(t, filepath.Join("..", "obj", "objlib-v3.o"))
	code, out, errOut := runSfdbg("diff", obj, dumpFixture(t, "features-v3"))
	if code != exitError || !strings.Contains(errOut, "have no function in common") {
		t.Errorf("no function in common: status %d\n%s%s", code, out, errOut)
	}
	code, _, errOut = runSfdbg("diff", dumpFixture(t, "noreturn-v3-O2"), dumpFixture(t, "tailcall-v3-O2"))
	if code == exitError || !strings.Contains(errOut, "warning:") || !strings.Contains(errOut, "do not look like two builds of the same source") {
		t.Errorf("few functions in common: status %d\n%s", code, errOut)
	}
	code, _, errOut = runSfdbg("diff", dumpFixture(t, "deep-v2-O2"), dumpFixture(t, "deep-v3-O2"))
	if code == exitError || strings.Contains(errOut, "warning:") {
		t.Errorf("two builds of deep.c: status %d\n%s", code, errOut)
	}
}
