package frames

import (
	"encoding/binary"
	"testing"

	"github.com/sfdbg/sfdbg/sframe/arch"
)

// TestExpressionsOfBigEndianTargetsReadTheirOperandsInTheirOrder checks
// DWARF expressions of a big-endian target through Delve's evaluator,
// which reads operands and memory words little-endian: on s390x an
// entry value put in place as DW_OP_const8u printed x=-16580608 where gdb
// printed 83 (scripts/vm-test.sh s390x).
func TestExpressionsOfBigEndianTargetsReadTheirOperandsInTheirOrder(t *testing.T) {
	const base = 0x10000
	mem := &beMemory{SliceMemory{Base: base, Data: make([]byte, 64)}}
	binary.BigEndian.PutUint64(mem.Data[16:], 0x0102030405060708)
	regs := NewRegs(arch.S390XArch)
	x := &exprEnv{regs: &regs, mem: mem}
	be8 := func(v uint64) []byte { b := make([]byte, 8); binary.BigEndian.PutUint64(b, v); return b }
	for _, c := range []struct {
		name string
		prog []byte
		want int64
	}{
		{"DW_OP_const8u 83", append([]byte{0x0e}, be8(83)...), 83},
		{"DW_OP_const2u 0x1234", []byte{0x0a, 0x12, 0x34}, 0x1234},
		{"DW_OP_const4s -2", []byte{0x0d, 0xff, 0xff, 0xff, 0xfe}, -2},
		{"DW_OP_addr; DW_OP_deref", append(append([]byte{0x03}, be8(base+16)...), 0x06), 0x0102030405060708},
		{"DW_OP_addr; DW_OP_deref_size 4", append(append([]byte{0x03}, be8(base+16)...), 0x94, 4), 0x01020304},
		// skip over a const1u: the 2-byte offset 2 (big-endian 00 02).
		{"DW_OP_lit5; DW_OP_skip 2; DW_OP_const1u 9", []byte{0x35, 0x2f, 0x00, 0x02, 0x08, 0x09}, 5},
	} {
		got, _, err := x.exec(c.prog)
		if err != nil || got != c.want {
			t.Errorf("%s: %#x, %v; want %#x", c.name, got, err, c.want)
		}
	}
}
