package frames

import (
	"fmt"

	"github.com/sfdbg/sfdbg/sframe/arch"
	"github.com/sfdbg/sfdbg/sframe/rule"
	"golang.org/x/sys/unix"
)

// threadRegsOf reads the general registers of ptrace-stopped thread tid
// (PTRACE_GETREGS) by DWARF number.
func threadRegsOf(tid int) (Regs, error) {
	var r unix.PtraceRegs
	if err := unix.PtraceGetRegs(tid, &r); err != nil {
		return Regs{}, fmt.Errorf("PTRACE_GETREGS %d: %w", tid, err)
	}
	g := NewRegs(arch.AMD64Arch)
	for reg, v := range map[rule.Reg]uint64{
		RAX: r.Rax, RDX: r.Rdx, RCX: r.Rcx, RBX: r.Rbx, RSI: r.Rsi, RDI: r.Rdi, RBP: r.Rbp, RSP: r.Rsp,
		R8: r.R8, R9: r.R9, R10: r.R10, R11: r.R11, R12: r.R12, R13: r.R13, R14: r.R14, R15: r.R15, RIP: r.Rip,
	} {
		g.Set(reg, v)
	}
	return g, nil
}
