package debugger

import (
	"fmt"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// pageSize is the granule of ProcMemory's cache, in bytes.
const pageSize = 4096

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
	pages map[uint64]*[pageSize]byte
	// Reads counts process_vm_readv calls, for tests and benchmarks.
	Reads int
}

// NewProcMemory returns the memory of process pid.
func NewProcMemory(pid int) *ProcMemory {
	return &ProcMemory{pid: pid, pages: map[uint64]*[pageSize]byte{}}
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
		base := a &^ (pageSize - 1)
		pg := m.pages[base]
		if pg == nil {
			pg = new([pageSize]byte)
			if k, _ := m.readv(pg[:], base); k != pageSize {
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

// ReadUncached reads len(p) bytes at addr with one process_vm_readv call,
// bypassing the cache (for x/ on memory that may change, and benchmarks).
func (m *ProcMemory) ReadUncached(p []byte, addr uint64) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n, err := m.readv(p, addr)
	if n < len(p) && err == nil {
		err = fmt.Errorf("short read at %#x", addr+uint64(n))
	}
	return n, err
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
