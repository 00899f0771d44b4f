package frames

import (
	"encoding/binary"
	"fmt"
)

// Memory reads the target's memory. ReadAt reads len(p) bytes at address
// addr, returning the number read and an error if fewer were. A live process
// implements it with process_vm_readv (debugger.ProcMemory); tests with a
// byte slice.
type Memory interface {
	ReadAt(p []byte, addr uint64) (n int, err error)
}

// MemoryError reports an unreadable address.
type MemoryError struct {
	Addr uint64
	Err  error
}

func (e *MemoryError) Error() string {
	return fmt.Sprintf("cannot read memory at %#x: %v", e.Addr, e.Err)
}

func (e *MemoryError) Unwrap() error { return e.Err }

// WordReader is an optional interface of a Memory that reads 64-bit words
// in the target's byte order without a buffer (ReadUint64 uses it: a buffer
// passed through the Memory interface has to be allocated on the heap). A
// big-endian target's memory must implement it, and BigEndianMemory.
type WordReader interface {
	ReadUint64(addr uint64) (uint64, error)
}

// BigEndianMemory is implemented by the Memory of a big-endian target
// (an s390x or AArch64 big-endian core); ByteOrder reports its order.
type BigEndianMemory interface {
	BigEndian() bool
}

// ByteOrder returns the byte order of the target whose memory m is:
// little-endian unless m says it is big-endian (BigEndianMemory).
func ByteOrder(m Memory) binary.ByteOrder {
	if b, ok := m.(BigEndianMemory); ok && b.BigEndian() {
		return binary.BigEndian
	}
	return binary.LittleEndian
}

// ReadUint64 reads a 64-bit word at addr in the target's byte order
// (WordReader, else ByteOrder). Errors are *MemoryError.
func ReadUint64(m Memory, addr uint64) (uint64, error) {
	if w, ok := m.(WordReader); ok {
		return w.ReadUint64(addr)
	}
	var b [8]byte
	n, err := m.ReadAt(b[:], addr)
	if n < 8 {
		if err == nil {
			err = fmt.Errorf("short read (%d of 8 bytes)", n)
		}
		return 0, &MemoryError{Addr: addr, Err: err}
	}
	return ByteOrder(m).Uint64(b[:]), nil
}

// ReadPtr reads a pointer of size bytes (the machine's arch.Arch.PtrSize:
// 8, or 4 on 32-bit ARM) at addr in the target's byte order, zero-extended.
// Any size but 4 reads 8 bytes (ReadUint64). Errors are *MemoryError.
func ReadPtr(m Memory, addr uint64, size int) (uint64, error) {
	if size != 4 {
		return ReadUint64(m, addr)
	}
	var b [4]byte
	n, err := m.ReadAt(b[:], addr)
	if n < 4 {
		if err == nil {
			err = fmt.Errorf("short read (%d of 4 bytes)", n)
		}
		return 0, &MemoryError{Addr: addr, Err: err}
	}
	return uint64(ByteOrder(m).Uint32(b[:])), nil
}
