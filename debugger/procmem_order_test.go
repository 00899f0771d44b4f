package debugger

import (
	"testing"
	"unsafe"
)

// TestIntegersAreReadInTheHostsByteOrder checks the integer of a value's
// bytes as the process stores them: on s390x a 4-byte int read into the
// wrong half printed as 0 where gdb printed 83 (scripts/vm-test.sh s390x).
func TestIntegersAreReadInTheHostsByteOrder(t *testing.T) {
	for _, n := range []int{1, 2, 4, 8} {
		b := nativeLow(83, n)
		if len(b) != n {
			t.Fatalf("nativeLow(83, %d): %d bytes", n, len(b))
		}
		var stored uint64
		switch n {
		case 1:
			stored = uint64(*(*uint8)(unsafe.Pointer(&b[0])))
		case 2:
			stored = uint64(*(*uint16)(unsafe.Pointer(&b[0])))
		case 4:
			stored = uint64(*(*uint32)(unsafe.Pointer(&b[0])))
		case 8:
			stored = *(*uint64)(unsafe.Pointer(&b[0]))
		}
		if stored != 83 || uintOf(b) != 83 {
			t.Errorf("%d bytes % x: the CPU reads %d, uintOf %d; want 83", n, b, stored, uintOf(b))
		}
	}
}
