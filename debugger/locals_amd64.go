package debugger

import (
	"github.com/sfdbg/sfdbg/sframe/rule"
)

// ptraceRegField returns the field of user_regs_struct that holds DWARF
// register r (System V AMD64 psABI, table 3.36), nil for a register it
// does not hold.
func ptraceRegField(raw *ptraceRegs, r rule.Reg) *uint64 {
	fields := [...]*uint64{&raw.Rax, &raw.Rdx, &raw.Rcx, &raw.Rbx, &raw.Rsi, &raw.Rdi, &raw.Rbp, &raw.Rsp,
		&raw.R8, &raw.R9, &raw.R10, &raw.R11, &raw.R12, &raw.R13, &raw.R14, &raw.R15, &raw.Rip}
	if int(r) < len(fields) {
		return fields[r]
	}
	return nil
}
