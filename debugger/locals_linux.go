package debugger

import "fmt"

// WriteMemory writes b at addr in the process (set var), through Delve's
// native backend, and drops the memory cache.
func (t *DelveTarget) WriteMemory(addr uint64, b []byte) error {
	tgt, err := t.live()
	if err != nil {
		return err
	}
	n, err := tgt.Memory().WriteMemory(addr, b)
	t.mem.Invalidate()
	if err == nil && n < len(b) {
		err = fmt.Errorf("wrote %d of %d bytes", n, len(b))
	}
	return err
}

// WriteMemory writes b at addr in the attached process (set var).
func (t *liveTarget) WriteMemory(addr uint64, b []byte) error {
	if err := t.live(); err != nil {
		return err
	}
	return t.st.WriteMemory(addr, b)
}

// WriteMemory writes b at addr with PTRACE_POKEDATA from the tracing
// thread, through a stopped thread, and drops the memory cache. The
// process must be stopped.
func (s *Stop) WriteMemory(addr uint64, b []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.running || s.closed {
		return ErrRunning
	}
	var err error
	s.tr.do(func() {
		tid := s.anyStopped()
		if tid == 0 {
			err = fmt.Errorf("process %d: no stopped thread to write memory with", s.pid)
			return
		}
		err = s.ops.poke(tid, addr, b)
	})
	s.mem.Invalidate()
	return err
}
