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

// TestOverlappingFDEsCostOneRowPerByte gives 64 FDEs that start 16 bytes
// apart and each declare the rest of the code, with a row at every byte:
// an FDE's rows stop where the next FDE starts (a lookup there picks the
// next one), so the rows are about one per byte of code, not one per
// byte per FDE. (A 20 MB hostile .debug_frame of 1,178 such FDEs over
// SQLite's .text took check 67 s and 8.9 GB before, 0.4 s and 134 MB
// after.)
func TestOverlappingFDEsCostOneRowPerByte(t *testing.T) {
	const code, size = 0x100000, 0x10000
	eh := &ehBuilder{addr: 0x2000}
	cie := eh.stdCIE()
	for k := range uint64(64) {
		p := cfiProg()
		for range 4000 {
			p.advance(1)
		}
		eh.fde(cie, code+16*k, size-16*k, p.bytes())
	}
	tab, err := parseCFILE(eh.section(), 0x2000, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	tab.exec = [][2]uint64{{code, code + size}}
	rows := 0
	for _, fd := range tab.fdes {
		r, err := tab.rowsOf(fd)
		if err != nil {
			t.Fatal(err)
		}
		rows += len(r)
	}
	if want := 63*16 + 4001; rows != want {
		t.Errorf("%d rows, want %d: 16 per FDE but the last, whose 4,000 advances make 4,001", rows, want)
	}
}
