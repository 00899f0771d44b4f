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

// TestARM64JumpTableBoundFarAway: the table's block is entered by `cmp
// w0, #2; b.ls block` from further than the window before the br (GCC
// placing the table after other code): the bound is that compare.
func TestARM64JumpTableBoundFarAway(t *testing.T) {
	const start, tab = 0x1000, 0x2010
	ws := []uint32{0x7100081f, 0x54000349} // cmp w0, #2; b.ls 0x6c
	for i := 0; i < 24; i++ {
		ws = append(ws, 0xd503201f) // nop
	}
	ws = append(ws,
		0x14000007,                         // 0x68: b 0x84 (the default)
		0xb0000001,                         // 0x6c: adrp x1, 0x2000
		0x91004021,                         // add x1, x1, #0x10
		0x38604822,                         // ldrb w2, [x1, w0, uxtw]
		0x10000083,                         // adr x3, 0x88
		0x8b020863,                         // add x3, x3, x2, lsl #2
		0xd61f0060,                         // 0x80: br x3
		0xd65f03c0,                         // 0x84: ret (the default)
		0xd65f03c0, 0xd65f03c0, 0xd65f03c0, // 0x88: the cases
	)
	code := words(ws...)
	got := fmt.Sprint(ARM64JumpTables(code, start, readAt(tab, []byte{0, 1, 2, 200}))(start + 0x80))
	if got != "[4232 4236 4240]" {
		t.Errorf("targets %s, want the three cases the far compare bounds", got)
	}
}
