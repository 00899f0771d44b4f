package proc

import (
	"fmt"

	"github.com/sfdbg/sfdbg/sframe/rule"
)

// WriteMemory writes b at addr with PTRACE_POKEDATA from the tracing
// thread, through a stopped thread, and drops the memory cache. The
// process must be stopped.
func (s *Stop) WriteMemory(addr uint64, b []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.running || s.closed {
		return ErrRunning
	}
	err := s.throughStopped(func(tid int) error { return s.ops.poke(tid, addr, b) })
	s.mem.Invalidate()
	return err
}

// SetRegister sets DWARF register reg of stopped thread tid with
// PTRACE_SETREGS from the tracing thread, and the registers the Stop
// keeps for it.
func (s *Stop) SetRegister(tid int, reg rule.Reg, v uint64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.running || s.closed {
		return ErrRunning
	}
	t := s.threads[tid]
	if t == nil || !t.stopped || !t.regsOK || t.regsErr != nil {
		return fmt.Errorf("thread %d of process %d is not stopped with its registers read", tid, s.pid)
	}
	raw := t.raw
	f := ptraceRegField(&raw, reg)
	if f == nil {
		return fmt.Errorf("sfdbg does not write register %s", HostArch.RegName(reg))
	}
	*f = v
	var err error
	s.tr.do(func() { err = s.ops.setRegs(tid, &raw) })
	if err != nil {
		return fmt.Errorf("write registers of thread %d: %w", tid, err)
	}
	t.raw = raw
	t.regs = regsFromPtrace(&t.raw)
	return nil
}
