package code

import (
	"encoding/binary"
	"fmt"
	"testing"
)

// TestS390XJumpTables: GCC's switch on s390x (clfi; jle to the table; the
// index scaled by sllg; larl of the table; lg of the entry; b 0(entry,
// table)) is resolved to its cases, bounded by the compare; without the
// bound nothing is guessed, and the walk judges every case.
func TestS390XJumpTables(t *testing.T) {
	const start = 0x1000
	const tab = start + 0x16 + 0x1000
	code := []byte{
		0xc2, 0x2f, 0x00, 0x00, 0x00, 0x02, // clfi %r2,2
		0xa7, 0xc4, 0x00, 0x05, // jle 0x10
		0xc0, 0xe5, 0x00, 0x00, 0x10, 0x00, // brasl %r14,abort (outside)
		0xeb, 0x32, 0x00, 0x03, 0x00, 0x0d, // 0x10: sllg %r3,%r2,3
		0xc0, 0x20, 0x00, 0x00, 0x08, 0x00, // larl %r2,the table
		0xe3, 0x33, 0x20, 0x00, 0x00, 0x04, // lg %r3,0(%r3,%r2)
		0x47, 0xf3, 0x20, 0x00, // b 0(%r3,%r2)
		0x07, 0xfe, // 0x26: br %r14 (case 0)
		0x07, 0xfe, // 0x28: br %r14 (case 1)
		0x07, 0xfe, // 0x2a: br %r14 (case 2)
	}
	table := make([]byte, 8*3)
	for i, off := range []int64{0x26, 0x28, 0x2a} {
		binary.BigEndian.PutUint64(table[8*i:], uint64(start+off-tab))
	}
	read := readAt(tab, table)
	jt := S390XJumpTables(code, start, read)
	if got := fmt.Sprint(jt(start + 0x22)); got != "[4134 4136 4138]" {
		t.Errorf("targets %s, want the three cases the compare bounds", got)
	}
	nb := append([]byte{}, code...)
	copy(nb[6:], []byte{0x07, 0x00, 0x07, 0x00}) // jle made two nopr
	if got := S390XJumpTables(nb, start, read)(start + 0x22); got != nil {
		t.Errorf("unbounded table resolved: %v", got)
	}
	f := Analyze(s390x, code, start, &Options{JumpTable: jt})
	for _, fd := range f.Findings {
		t.Errorf("finding: %s", f.Describe(fd))
	}
	if f.Judged != 10 {
		t.Errorf("%d of 10 instructions judged", f.Judged)
	}
}

// FuzzJumpTables: the AArch64 and s390x table readers, on any bytes at
// any PC with any table, return targets in the function or nil, never
// panic, and never more than the table's bound.
func FuzzJumpTables(f *testing.F) {
	f.Add(uint16(0x1c), words(0x7100081f, 0x54000128, 0xb0000001, 0x91004021, 0x38604822, 0x10000063, 0x8b020863, 0xd61f0060), []byte{0, 1, 2})
	f.Add(uint16(0x22), []byte{0xc2, 0x2f, 0, 0, 0, 2, 0xa7, 0xc4, 0, 5, 0xc0, 0xe5, 0, 0, 0x10, 0, 0xeb, 0x32, 0, 3, 0, 0x0d, 0xc0, 0x20, 0, 0, 8, 0, 0xe3, 0x33, 0x20, 0, 0, 4, 0x47, 0xf3, 0x20, 0}, []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xf0, 0x10})
	f.Fuzz(func(t *testing.T, pc uint16, text, table []byte) {
		const start = 0x1000
		read := readAt(0x2000, table)
		next := func(uint64) uint64 { return 0x2000 + uint64(len(table)) }
		for _, jt := range []func(uint64) []uint64{ARM64JumpTables(text, start, read), S390XJumpTables(text, start, read), S390XJumpTablesRefs(text, start, read, next)} {
			ts := jt(start + uint64(pc))
			if len(ts) > maxTable {
				t.Fatalf("%d targets", len(ts))
			}
			for _, tg := range ts {
				if tg < start || tg-start >= uint64(len(text)) {
					t.Fatalf("target %#x outside [%#x, %#x)", tg, start, start+len(text))
				}
			}
		}
	})
}

// TestS390XJumpTableBoundFarAway: GCC places the table's block after
// other code, entered by `clfi %rI,N; jle block` from further than the
// window before the jump (bash's expand_arith_string): the bound is the
// compare before the branch that enters the block.
func TestS390XJumpTableBoundFarAway(t *testing.T) {
	const start = 0x1000
	const tab = start + 0x54 + 0x1000
	code := []byte{
		0xc2, 0x2f, 0x00, 0x00, 0x00, 0x02, // clfi %r2,2
		0xa7, 0xc4, 0x00, 0x24, // jle 0x4e (the table's block)
	}
	for i := 0; i < 16; i++ {
		code = append(code, 0xb9, 0x04, 0x00, 0x00) // lgr %r0,%r0
	}
	code = append(code,
		0xa7, 0xf4, 0x00, 0x0d, // 0x4a: j 0x64
		0xeb, 0x32, 0x00, 0x03, 0x00, 0x0d, // 0x4e: sllg %r3,%r2,3
		0xc0, 0x20, 0x00, 0x00, 0x08, 0x00, // 0x54: larl %r2,the table
		0xe3, 0x33, 0x20, 0x00, 0x00, 0x04, // lg %r3,0(%r3,%r2)
		0x47, 0xf3, 0x20, 0x00, // 0x60: b 0(%r3,%r2)
		0x07, 0xfe, 0x07, 0xfe, 0x07, 0xfe, // 0x64: the cases
	)
	table := make([]byte, 8*4)
	for i, off := range []int64{0x64, 0x66, 0x68, 0x10} { // the 4th is past the bound
		binary.BigEndian.PutUint64(table[8*i:], uint64(start+off-tab))
	}
	if got := fmt.Sprint(S390XJumpTables(code, start, readAt(tab, table))(start + 0x60)); got != "[4196 4198 4200]" {
		t.Errorf("targets %s, want the three cases the far compare bounds", got)
	}
}

// TestS390XJumpTablesLLVMUnbounded: LLVM's switch on a Rust enum's
// discriminant on s390x (llgc of the byte; sllg by 2; larl of the table;
// agf of the 4-byte entry onto the table's address; br) has no compare:
// with nextRef it is read up to the next address the code refers to,
// ending at an entry that is no instruction (Debian 12's s390x fd,
// librsvg: 400,000 instructions were "not reached" behind such jumps);
// without, nothing is guessed.
func TestS390XJumpTablesLLVMUnbounded(t *testing.T) {
	const start = 0x1000
	const tab = start + 0xc + 0x1000
	code := []byte{
		0xe3, 0x00, 0x70, 0x10, 0x00, 0x90, // llgc %r0,16(%r7)
		0xeb, 0x10, 0x00, 0x02, 0x00, 0x0d, // sllg %r1,%r0,2
		0xc0, 0x20, 0x00, 0x00, 0x08, 0x00, // 0xc: larl %r2,the table
		0xe3, 0x22, 0x10, 0x00, 0x00, 0x18, // agf %r2,0(%r2,%r1)
		0x07, 0xf2, // 0x18: br %r2
		0x07, 0xfe, // 0x1a: br %r14 (case 0)
		0x07, 0xfe, // 0x1c: br %r14 (case 1)
		0x07, 0xfe, // 0x1e: br %r14 (case 2)
	}
	// Three entries, then the next table, whose first entry, read as
	// this one's, would land in the middle of llgc.
	table := make([]byte, 4*5)
	for i, off := range []int64{0x1a, 0x1c, 0x1e, 0x1a, 0x3} {
		binary.BigEndian.PutUint32(table[4*i:], uint32(int32(start+off-tab)))
	}
	read := readAt(tab, table)
	if got := S390XJumpTables(code, start, read)(start + 0x18); got != nil {
		t.Errorf("without nextRef: %v, want nothing guessed", got)
	}
	next := func(a uint64) uint64 {
		if a < tab+12 {
			return tab + 12
		}
		return 0
	}
	jt := S390XJumpTablesRefs(code, start, read, next)
	if got := fmt.Sprint(jt(start + 0x18)); got != "[4122 4124 4126]" {
		t.Errorf("targets %s, want the three entries before the next table", got)
	}
	far := func(uint64) uint64 { return tab + 4*5 }
	if got := fmt.Sprint(S390XJumpTablesRefs(code, start, read, far)(start + 0x18)); got != "[4122 4124 4126 4122]" {
		t.Errorf("targets %s, want the table ended at the entry inside llgc", got)
	}
	f := Analyze(s390x, code, start, &Options{JumpTable: jt})
	for _, fd := range f.Findings {
		t.Errorf("finding: %s", f.Describe(fd))
	}
	if f.Judged != 8 {
		t.Errorf("%d of 8 instructions judged", f.Judged)
	}
}
