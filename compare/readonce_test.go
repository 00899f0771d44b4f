package compare

import (
	"os"
	"testing"

	"github.com/sfdbg/sfdbg/frames"
	"github.com/sfdbg/sfdbg/sframe"
)

// TestALiveModuleIsCheckedOnItself: the static check a live trace asks
// for (boundaryAt) runs on the live module, whose file is already open
// and read, at its file's link-time addresses, and is kept on the module:
// it finds the same FRE-boundary finding as CheckFile of the file, at the
// module's load bias, even once the file's path is gone. It once ran
// CheckFile on the path again (a second open, SFrame, CFI and symbols
// read twice) and found nothing when the path no longer opened.
func TestALiveModuleIsCheckedOnItself(t *testing.T) {
	const bin, fn = "deep-v3-O0", "level1"
	path := patched(t, bin, func(sec *sframe.Section, data []byte) {
		data[nthFRE(t, sec, fdeFor(t, bin, fn, sec), 1).Off]++ // an FRE starting one byte late
	})
	rep, err := CheckFile(path, CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var want *Finding
	for i, f := range rep.Findings {
		if f.Kind == KindFREBoundary {
			want = &rep.Findings[i]
		}
	}
	if want == nil {
		t.Fatal("the static check finds no FRE boundary finding")
	}
	const bias = 0x7f0000000000
	mod := &frames.Module{Name: bin, Path: path, OpenPath: path, Start: bias, End: bias + 1<<32, Bias: bias}
	defer mod.Close()
	if _, err := mod.SFrame(); err != nil { // the trace has read it
		t.Fatal(err)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	for call := 1; call <= 2; call++ {
		got, ok := boundaryAt(mod, bias+want.PC)
		if !ok || got.PC != want.PC || got.PCEnd != want.PCEnd || got.Message != want.Message {
			t.Fatalf("call %d: boundaryAt = %v %+v; want the static check's %+v", call, ok, got, *want)
		}
	}
	if r := staticReport(mod).rep; r == nil || len(r.Findings) != len(rep.Findings) {
		t.Errorf("the module's static report has %v, want the %d findings of CheckFile", r, len(rep.Findings))
	}
}
