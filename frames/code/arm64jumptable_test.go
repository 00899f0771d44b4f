package code

import (
	"fmt"
	"testing"
)

// TestARM64JumpTables: GCC's switch on AArch64 (cmp; b.hi; adrp and add
// of the table; ldrb of the entry; adr of the base; add base, entry, lsl
// #2; br) is resolved to its cases, bounded by the compare; without the
// bound nothing is guessed, and the walk judges every case.
func TestARM64JumpTables(t *testing.T) {
	const start, tab = 0x1000, 0x2010
	code := words(
		0x7100081f, // cmp w0, #2
		0x54000128, // b.hi +0x24 (the default, at 0x28)
		0xb0000001, // adrp x1, 0x2000
		0x91004021, // add x1, x1, #0x10
		0x38604822, // ldrb w2, [x1, w0, uxtw]
		0x10000063, // adr x3, 0x1020
		0x8b020863, // add x3, x3, x2, lsl #2
		0xd61f0060, // br x3
		0xd65f03c0, // 0x20: ret (case 0)
		0xd65f03c0, // 0x24: ret (case 1)
		0xd65f03c0, // 0x28: ret (case 2, and the default)
	)
	read := readAt(tab, []byte{0, 1, 2, 7, 9})
	jt := ARM64JumpTables(code, start, read)
	if got := fmt.Sprint(jt(start + 0x1c)); got != "[4128 4132 4136]" {
		t.Errorf("targets %s, want the three cases the compare bounds", got)
	}
	if got := jt(start + 0x18); got != nil {
		t.Errorf("targets of an add: %v", got)
	}
	nb := append([]byte{}, code...)
	copy(nb, words(0xd503201f, 0xd503201f)) // the compare and b.hi made nops
	if got := ARM64JumpTables(nb, start, read)(start + 0x1c); got != nil {
		t.Errorf("unbounded table resolved: %v", got)
	}
	f := Analyze(arm64, code, start, &Options{JumpTable: jt})
	for _, fd := range f.Findings {
		t.Errorf("finding: %s", f.Describe(fd))
	}
	if f.Judged != len(code)/4 {
		t.Errorf("%d of %d instructions judged", f.Judged, len(code)/4)
	}
}

// readAt is a table reader (the read of the JumpTables functions) that
// holds b at address at, and nothing else.
func readAt(at uint64, b []byte) func(uint64, int) []byte {
	return func(a uint64, n int) []byte {
		if n < 0 || a < at || a-at+uint64(n) > uint64(len(b)) {
			return nil
		}
		return b[a-at : a-at+uint64(n)]
	}
}
