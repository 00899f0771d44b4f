package proc

import (
	"encoding/binary"
	"fmt"
	"sync"
	"unsafe"

	"github.com/sfdbg/sfdbg/frames"
	"golang.org/x/sys/unix"
)

// PageSize is the granule of ProcMemory's cache, in bytes.
const PageSize = 4096

// maxCachedPages bounds ProcMemory's cache (256 KiB).
const maxCachedPages = 64

// ProcMemory reads a live process's memory with process_vm_readv(2). It
// implements frames.Memory. Reads go through a small cache of whole pages,
// so that the many 8-byte reads of an unwind cost one system call per stack
// page; Invalidate empties it (Stop.Resume does, since a running process
// changes its stack). process_vm_readv needs no ptrace stop, only the
// permission to attach, so any goroutine may read.
type ProcMemory struct {
	pid   int
	mu    sync.Mutex
	pages map[uint64]*[PageSize]byte
	// Reads counts process_vm_readv calls, for tests and benchmarks.
	Reads int
}

// NewProcMemory returns the memory of process pid.
func NewProcMemory(pid int) *ProcMemory {
	return &ProcMemory{pid: pid, pages: map[uint64]*[PageSize]byte{}}
}

// readThrough makes later reads go through thread tid of the process:
// process_vm_readv of the leader's ID fails once the leader has exited
// (pthread_exit) while other threads run, since it has no memory map left;
// any live thread's ID names the same memory.
func (m *ProcMemory) readThrough(tid int) {
	m.mu.Lock()
	m.pid = tid
	m.mu.Unlock()
}

// Invalidate drops every cached page.
func (m *ProcMemory) Invalidate() {
	m.mu.Lock()
	clear(m.pages)
	m.mu.Unlock()
}

// ReadAt reads len(p) bytes at addr. It returns the number of bytes read
// and, if fewer than len(p), a *frames.MemoryError-compatible error naming
// the first unreadable address.
func (m *ProcMemory) ReadAt(p []byte, addr uint64) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for n < len(p) {
		a := addr + uint64(n)
		base := a &^ (PageSize - 1)
		pg := m.pages[base]
		if pg == nil {
			pg = new([PageSize]byte)
			if k, _ := m.readv(pg[:], base); k != PageSize {
				// A partly readable page (end of a mapping): read the
				// bytes asked for directly, uncached.
				k, err := m.readv(p[n:], a)
				n += k
				if n < len(p) {
					if err == nil {
						err = fmt.Errorf("short read")
					}
					return n, fmt.Errorf("read %d bytes at %#x in process %d: %w", len(p)-n, addr+uint64(n), m.pid, err)
				}
				return n, nil
			}
			if len(m.pages) >= maxCachedPages {
				clear(m.pages)
			}
			m.pages[base] = pg
		}
		n += copy(p[n:], pg[a-base:])
	}
	return n, nil
}

// ReadUint64 reads the 64-bit word at addr in the host's byte order, the
// traced process's (the unwinders' read, frames.WordReader): from the page cache without copying when the
// page is cached and the word lies in it, else through ReadAt. Errors are
// *frames.MemoryError, as frames.ReadUint64 gives.
func (m *ProcMemory) ReadUint64(addr uint64) (uint64, error) {
	base := addr &^ (PageSize - 1)
	if addr-base <= PageSize-8 {
		m.mu.Lock()
		pg := m.pages[base]
		m.mu.Unlock()
		if pg != nil {
			return binary.NativeEndian.Uint64(pg[addr-base:]), nil
		}
	}
	var b [8]byte
	n, err := m.ReadAt(b[:], addr)
	if n < 8 {
		if err == nil {
			err = fmt.Errorf("short read (%d of 8 bytes)", n)
		}
		return 0, &frames.MemoryError{Addr: addr, Err: err}
	}
	return binary.NativeEndian.Uint64(b[:]), nil
}

func (m *ProcMemory) readv(p []byte, addr uint64) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	m.Reads++
	local := []unix.Iovec{{Base: (*byte)(unsafe.Pointer(&p[0]))}}
	local[0].SetLen(len(p))
	remote := []unix.RemoteIovec{{Base: uintptr(addr), Len: len(p)}}
	n, err := unix.ProcessVMReadv(m.pid, local, remote, 0)
	if n < 0 {
		n = 0
	}
	return n, err
}

// BigEndian implements frames.BigEndianMemory: a traced process has the
// host's byte order (s390x is big-endian).
func (m *ProcMemory) BigEndian() bool { return HostBigEndian }

// HostBigEndian is set on a big-endian host (s390x): a traced process's
// memory and values are in the host's byte order.
var HostBigEndian = binary.NativeEndian.Uint16([]byte{0, 1}) == 1
