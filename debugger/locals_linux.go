package debugger

import (
	"fmt"

	"github.com/sfdbg/sfdbg/sframe/rule"
)

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

// SetRegister sets DWARF register reg of thread tid (set var on a
// variable held in a register of frame 0).
func (t *liveTarget) SetRegister(tid int, reg rule.Reg, v uint64) error {
	if err := t.live(); err != nil {
		return err
	}
	return t.st.SetRegister(tid, reg, v)
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
		return fmt.Errorf("sfdbg does not write register %s", hostArch.RegName(reg))
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
