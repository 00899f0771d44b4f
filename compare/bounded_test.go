package compare

import (
	"debug/elf"
	"path/filepath"
	"testing"
	"time"

	"github.com/sfdbg/sfdbg/sframe"
)

// textBounds returns the address range of the .text section of a fixture
// and the number of instruction boundaries CheckFile compares in the
// unpatched fixture.
func textBounds(t *testing.T, name string) (start, end uint64, insts int) {
	t.Helper()
	f, err := elf.Open(filepath.Join(fixtures, name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := f.Section(".text")
	if s == nil {
		t.Fatalf("%s has no .text", name)
	}
	rep, err := CheckFile(fixture(t, name), CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return s.Addr, s.Addr + s.Size, rep.Summary.Instructions
}

// checkWithin runs CheckFile and turns a run that does not end within
// limit into a failure (a hang guard, not a speed assertion: the checks
// that matter are on the work done).
func checkWithin(t *testing.T, path string, limit time.Duration) *FileReport {
	t.Helper()
	type result struct {
		rep *FileReport
		err error
	}
	done := make(chan result, 1)
	go func() {
		rep, err := CheckFile(path, CheckOptions{})
		done <- result{rep, err}
	}()
	select {
	case r := <-done:
		if r.err != nil {
			t.Fatalf("CheckFile: %v", r.err)
		}
		return r.rep
	case <-time.After(limit):
		t.Fatalf("CheckFile(%s) did not end within %v", path, limit)
	}
	return nil
}

// coverText patches the FDEs for which pick returns true so that each
// starts at the start of .text and covers all of it.
func coverText(t *testing.T, name string, pick func(i int) bool) string {
	t.Helper()
	start, end, _ := textBounds(t, name)
	return patched(t, name, func(sec *sframe.Section, data []byte) {
		if sec.Version != sframe.Version3 {
			t.Fatalf("%s: want an SFrame v3 fixture", name)
		}
		for i, fde := range sec.FDEs() {
			if !pick(i) {
				continue
			}
			// v3 FDE index entry: start field (8 bytes), size (4 bytes).
			sec.ByteOrder.PutUint64(data[fde.Off:], uint64(fde.StartField+int64(start)-int64(fde.Start)))
			sec.ByteOrder.PutUint32(data[fde.Off+8:], uint32(end-start))
		}
	})
}

func TestOverlappingFDEsAreComparedOncePerInstruction(t *testing.T) {
	const name = "sqlite-v3"
	_, _, clean := textBounds(t, name)
	for _, tc := range []struct {
		name string
		pick func(i int) bool
	}{
		{"16 FDEs each covering all of .text", func(i int) bool { return i%100 == 1 && i < 1600 }},
		{"every FDE covering all of .text", func(int) bool { return true }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := coverText(t, name, tc.pick)
			rep := checkWithin(t, path, 2*time.Minute)
			if rep.Summary.Instructions > clean {
				t.Errorf("%d instructions compared, more than the %d of the whole unpatched file: an instruction was compared against more than one FDE",
					rep.Summary.Instructions, clean)
			}
			// Bounded output: a few findings per FDE (the validator's
			// overlap, the bounds) plus, for the one FDE a stack tracer
			// picks, at most one finding per CFI row.
			if n, fdes := len(rep.Findings), rep.Summary.FunctionsSFrame; n > 4*fdes+40000 {
				t.Errorf("%d findings for %d FDEs", n, fdes)
			}
			if rep.Summary.ByKind[KindFormat] == 0 {
				t.Errorf("the overlap is not reported: %v", rep.Summary.ByKind)
			}
			if rep.Summary.Disagreements == 0 {
				t.Errorf("no disagreement on overlapping FDEs: %v", rep.Summary.ByKind)
			}
		})
	}
}

func TestZeroSizeFDEsAreDisagreements(t *testing.T) {
	path := patched(t, "deep-v3-O2", func(sec *sframe.Section, data []byte) {
		for _, fde := range sec.FDEs() {
			sec.ByteOrder.PutUint32(data[fde.Off+8:], 0)
		}
	})
	rep, err := CheckFile(path, CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Summary.Disagreements == 0 || rep.Summary.ByKind[KindBounds] == 0 {
		t.Errorf("FDEs of size 0 at every function's start: %d disagreements, findings by kind %v; want function-bounds disagreements",
			rep.Summary.Disagreements, rep.Summary.ByKind)
	}
}
