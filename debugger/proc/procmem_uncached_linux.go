package proc

import "fmt"

// ReadUncached reads len(p) bytes at addr with one process_vm_readv call,
// bypassing the cache: what the tests compare cached reads with.
func (m *ProcMemory) ReadUncached(p []byte, addr uint64) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n, err := m.readv(p, addr)
	if n < len(p) && err == nil {
		err = fmt.Errorf("short read at %#x", addr+uint64(n))
	}
	return n, err
}
