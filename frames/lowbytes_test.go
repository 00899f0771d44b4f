package frames

import (
	"bytes"
	"encoding/binary"
	"testing"
)

// TestValuesInRegistersAreTheirLowOrderBytes checks the bytes of a value
// narrower than the register (or DWARF stack entry) that holds it: on
// s390x, big-endian, an int argument in r2 printed as 0 (the register's
// high half) where gdb printed 83 (scripts/vm-test.sh s390x: "x=0,
// x@entry=0").
func TestValuesInRegistersAreTheirLowOrderBytes(t *testing.T) {
	const v = 0x0000000000000053 // 83
	for _, c := range []struct {
		order binary.ByteOrder
		n     int
		want  []byte
	}{
		{binary.LittleEndian, 4, []byte{0x53, 0, 0, 0}},
		{binary.BigEndian, 4, []byte{0, 0, 0, 0x53}},
		{binary.BigEndian, 1, []byte{0x53}},
		{binary.BigEndian, 8, []byte{0, 0, 0, 0, 0, 0, 0, 0x53}},
		{binary.LittleEndian, 16, []byte{0x53, 0, 0, 0, 0, 0, 0, 0}},
	} {
		got := lowBytes(c.order, v, c.n)
		if !bytes.Equal(got, c.want) {
			t.Errorf("%v, %d bytes: % x, want % x", c.order, c.n, got, c.want)
		}
		if c.n <= 8 && len(got) > 0 {
			full := make([]byte, 8)
			copy(full[8-len(got):], got)
			if c.order == binary.LittleEndian {
				full = append(append([]byte{}, got...), make([]byte, 8-len(got))...)
			}
			if c.order.Uint64(full) != v {
				t.Errorf("%v, %d bytes: they read back as %#x", c.order, c.n, c.order.Uint64(full))
			}
		}
	}
}
