package proc

import (
	"testing"
	"unsafe"

	"github.com/sfdbg/sfdbg/frames"
)

// TestProcMemoryWordsAreInTheHostsByteOrder checks that a traced process's
// words read in the host's byte order, the process's: on s390x (big-endian)
// a little-endian read turned the return address 0x101e120 into
// 0x20e1010100000000 (scripts/vm-test.sh s390x). It stores a word as the
// CPU stores it and reads it through the page cache, through ReadAt, and
// through frames.ReadUint64's byte order.
func TestProcMemoryWordsAreInTheHostsByteOrder(t *testing.T) {
	const base, want = 0x10000, uint64(0x000000000101e120)
	pg := new([PageSize]byte)
	*(*uint64)(unsafe.Pointer(&pg[16])) = want
	m := NewProcMemory(0)
	m.pages[base] = pg
	if got, err := m.ReadUint64(base + 16); err != nil || got != want {
		t.Errorf("ReadUint64 from the page cache = %#x, %v; want %#x", got, err, want)
	}
	var b [8]byte
	if _, err := m.ReadAt(b[:], base+16); err != nil {
		t.Fatal(err)
	}
	if got := frames.ByteOrder(m).Uint64(b[:]); got != want {
		t.Errorf("ReadAt's bytes in frames.ByteOrder = %#x, want %#x", got, want)
	}
}
