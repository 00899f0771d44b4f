package debugger

import (
	"github.com/sfdbg/sfdbg/sframe/rule"
)

// WriteMemory writes b at addr in the attached process (set var).
func (t *liveTarget) WriteMemory(addr uint64, b []byte) error {
	if err := t.live(); err != nil {
		return err
	}
	return t.st.WriteMemory(addr, b)
}

// SetRegister sets DWARF register reg of thread tid (set var on a
// variable held in a register of frame 0).
func (t *liveTarget) SetRegister(tid int, reg rule.Reg, v uint64) error {
	if err := t.live(); err != nil {
		return err
	}
	return t.st.SetRegister(tid, reg, v)
}
