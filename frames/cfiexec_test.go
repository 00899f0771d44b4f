package frames

import (
	"testing"

	"github.com/sfdbg/sfdbg/sframe/sframetest"
)

// TestCFIRowsStopAtTheCodeThatExists builds the rows of a hostile
// .eh_frame (2 MB of FDEs that end a row at every byte, hostileEH) in a
// file whose code is 64 bytes: the rows stop at the end of the code that
// holds an FDE's start (cfiTable.rowsEnd), and an FDE outside the code
// gets none, so the rows cost the code that exists, not the range and
// advances the FDEs declare (issue 18). Without the clipping the same
// section allocates several hundred bytes per input byte.
func TestCFIRowsStopAtTheCodeThatExists(t *testing.T) {
	data := hostileEH(2<<20, 0).section()
	build := func(exec [][2]uint64) (rows int, allocs uint64) {
		allocs = sframetest.Allocs(func() {
			tab, err := parseCFILE(data, 0x2000, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			tab.exec = exec
			for _, fd := range tab.fdes {
				r, err := tab.rowsOf(fd)
				if err != nil {
					t.Fatal(err)
				}
				rows += len(r)
			}
		})
		return rows, allocs
	}
	rows, allocs := build([][2]uint64{{0x100000, 0x100040}})
	if rows != 64 {
		t.Errorf("%d rows over 64 bytes of code, want 64 (one per byte)", rows)
	}
	if perByte := float64(allocs) / float64(len(data)); perByte > 16 {
		t.Errorf("%.0f bytes allocated per .eh_frame byte with 64 bytes of code, want at most 16", perByte)
	}
	unclipped, _ := build(nil)
	if unclipped < 1<<20 {
		t.Errorf("without the code's ranges: %d rows; the section is not hostile", unclipped)
	}
}
