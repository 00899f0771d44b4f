package compare

import (
	"bytes"
	"debug/elf"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/sfdbg/sfdbg/frames"
	"github.com/sfdbg/sfdbg/sframe"
)

// The work budget of a check (clip.go): bytes allocated and PCs compared
// stay within a constant times the input's size plus the executable code
// it holds, whatever sizes and counts its SFrame section declares.
const (
	allocPerByte = 64      // bytes allocated per byte of input and of code
	allocBase    = 8 << 20 // bytes allocated whatever the input
)

// execBytes returns the bytes of executable code in the ELF file data
// (execRanges), 0 if it does not parse.
func execBytes(data []byte) uint64 {
	f, err := elf.NewFile(bytes.NewReader(data))
	if err != nil {
		return 0
	}
	var n uint64
	for _, r := range execRanges(f, nil) {
		n += r.End - r.Start
	}
	return n
}

// checkWork checks the ELF file data as CheckFile would and returns its
// report, the bytes allocated meanwhile (runtime.MemStats.TotalAlloc, so
// the caller must not run in parallel with other tests) and the budget
// for them. PCs compared are bounded by the code: each is compared once.
func checkWork(data []byte) (rep *FileReport, alloc, budget uint64) {
	code := execBytes(data)
	budget = allocPerByte*(uint64(len(data))+code) + allocBase
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	m := &frames.Module{Name: "input", ELF: data, Start: 0, End: ^uint64(0)}
	rep, _ = checkModule("input", m, CheckOptions{})
	runtime.ReadMemStats(&after)
	return rep, after.TotalAlloc - before.TotalAlloc, budget
}

// assertBudget fails when a check of data exceeds its work budget.
func assertBudget(t *testing.T, data []byte) *FileReport {
	t.Helper()
	rep, alloc, budget := checkWork(data)
	if alloc > budget {
		t.Errorf("check allocated %d bytes for a %d-byte input with %d bytes of code: over the budget of %d", alloc, len(data), execBytes(data), budget)
	}
	if code := execBytes(data); uint64(rep.Summary.Instructions) > code {
		t.Errorf("check compared %d PCs in %d bytes of code: a PC was compared more than once or outside the code", rep.Summary.Instructions, code)
	}
	if rep.Err != "" && bytes.Contains([]byte(rep.Err), []byte("internal error")) {
		t.Errorf("check failed: %s", rep.Err)
	}
	return rep
}

// maskAtEnd patches the first PC-mask FDE of the SFrame v3 fixture name to
// start 2 bytes into the last function and declare size bytes: the
// mutant of issue 18 that made check run 68 s and reach 17.8 GB (a PC-mask
// FDE of 0xe1fff008 bytes that a lookup picks past the end of .text).
func maskAtEnd(t *testing.T, name string, size uint32) []byte {
	t.Helper()
	path := patched(t, name, func(sec *sframe.Section, data []byte) {
		fdes := sec.FDEs()
		last := fdes[0].Start
		for i := range fdes {
			last = max(last, fdes[i].Start)
		}
		for i := range fdes {
			fde := &fdes[i]
			if fde.PCType != sframe.PCTypeMask {
				continue
			}
			// v3 FDE index entry: start field (8 bytes), size (4 bytes).
			sec.ByteOrder.PutUint64(data[fde.Off:], uint64(fde.StartField+int64(last+2)-int64(fde.Start)))
			sec.ByteOrder.PutUint32(data[fde.Off+8:], size)
			return
		}
		t.Fatalf("%s has no PC-mask FDE", name)
	})
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestAPCMaskFDEOfGigabytesCostsOnlyItsSection(t *testing.T) {
	for _, tc := range []struct {
		name string
		size uint32
	}{
		// Before the FDE was clipped to its section: 0.06 s, 90 MB RSS,
		// 33 M PCs listed (one per FRE per 16-byte repetition).
		{"a PC-mask FDE of 32 MiB past the end of .text is compared in .text only", 0x1fff008},
		// Before: 68 s and 17.8 GB (issue 18).
		{"a PC-mask FDE of 0xe1fff008 bytes past the end of .text is compared in .text only", 0xe1fff008},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep := assertBudget(t, maskAtEnd(t, "cet-v3", tc.size))
			found := false
			for _, f := range rep.Findings {
				found = found || f.Kind == KindBounds && bytes.Contains([]byte(f.Message), []byte("runs past the end of its executable section"))
			}
			if !found {
				t.Errorf("no finding says the FDE runs past its section; findings: %+v", rep.Findings)
			}
		})
	}
}

func TestFixturesCheckWithinTheWorkBudget(t *testing.T) {
	for _, name := range []string{"cet-v3", "deep-v1-O2", "deep-v2-O0", "features-v3", "aarch64-v3", "s390x-v3", "sqlite-v3"} {
		t.Run(name, func(t *testing.T) {
			b, err := os.ReadFile(fixture(t, name))
			if err != nil {
				t.Fatal(err)
			}
			assertBudget(t, b)
		})
	}
}

func TestALiveModuleWithDamagedSFrameIsCheckedOnceWithinTheBudget(t *testing.T) {
	// The damaged copy of a library a live trace finds disagreements in:
	// classifying them runs the static check of the module's file.
	data := maskAtEnd(t, "cet-v3", 0x1fff008)
	path := filepath.Join(t.TempDir(), "libdamaged.so")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	mod := &frames.Module{Name: "libdamaged.so", Path: path, OpenPath: path, Start: 0x7f0000000000, End: 0x7f0000100000, Bias: 0x7f0000000000}
	budget := allocPerByte*(uint64(len(data))+execBytes(data)) + allocBase
	var before, after runtime.MemStats
	for call := 1; call <= 3; call++ {
		runtime.GC()
		runtime.ReadMemStats(&before)
		boundaryAt(mod, mod.Bias+0x1380)
		runtime.ReadMemStats(&after)
		alloc := after.TotalAlloc - before.TotalAlloc
		switch {
		case call == 1 && alloc > budget:
			t.Errorf("the first lookup allocated %d bytes for a %d-byte file: over the budget of %d", alloc, len(data), budget)
		case call > 1 && alloc > 64<<10:
			t.Errorf("lookup %d allocated %d bytes: the module's static check ran again", call, alloc)
		}
	}
}
