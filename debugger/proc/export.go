package proc

import "fmt"

// IsRegisterName reports whether name is a general register of the host
// that "info registers" lists.
func IsRegisterName(name string) bool {
	for _, r := range ptraceRegList(&ptraceRegs{}) {
		if r.Name == name {
			return true
		}
	}
	return false
}

// RegList returns stopped thread tid's registers in the order of gdb's
// "info registers". Errors: a thread not stopped with its registers read.
func (s *Stop) RegList(tid int) ([]RegValue, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.threads[tid]
	if t == nil || !t.stopped || !t.regsOK || t.regsErr != nil {
		return nil, fmt.Errorf("thread %d of process %d is not stopped with its registers read", tid, s.pid)
	}
	return ptraceRegList(&t.raw), nil
}

// PACMaskOf returns the process's PAC mask (pacMaskLocked).
func (s *Stop) PACMaskOf() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pacMaskLocked()
}

// Mem returns the process's memory, whose page cache Resume empties.
func (s *Stop) Mem() *ProcMemory { return s.mem }

// EventLocked reports whether something continue waits for has happened
// since the last Resume: a breakpoint or watchpoint hit, an exit, an exec,
// no thread left, a signal held for the user. Called with the Stop's lock
// held: from a Wait condition.
func (s *Stop) EventLocked() bool {
	return len(s.bp.hits) > 0 || len(s.watch.hits) > 0 || s.exitedNow || len(s.execs) > 0 || len(s.threads) == 0 || s.signaled != 0
}

// Event is EventLocked, taking the lock.
func (s *Stop) Event() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.EventLocked()
}

// Execed reports whether the process called execve since it was seized.
func (s *Stop) Execed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.execs) > 0
}
