package frames

import (
	"github.com/sfdbg/sfdbg/sframe/arch"
	"github.com/sfdbg/sfdbg/sframe/rule"
)

// MaxReg is one more than the largest DWARF register number a Regs holds.
// AMD64 uses 0-16 (16 is the return-address column, RIP); AArch64 0-32
// (31 SP, 32 PC); s390x 0-31 (GPRs, then FPRs), with the PSW address, DWARF
// 65, kept at slot 33 (arch.S390XArch.PC). Rules for registers beyond (AArch64's vector
// registers, s390x's access and control registers) are not tracked.
const MaxReg = 34

// Regs is a set of register values of one frame, indexed by DWARF register
// number (rule.Reg), each either known or not. The zero value knows no
// register. Regs is a value type: copying it copies the set.
type Regs struct {
	vals  [MaxReg]uint64
	known uint64 // bit r set: vals[r] is known
	// PCReg, SPReg and FPReg are the DWARF numbers (register slots) of
	// the PC, the stack pointer and the frame pointer of Arch.
	PCReg, SPReg, FPReg rule.Reg
	// Arch is the machine whose DWARF register numbers these are (nil, in
	// a zero Regs: AMD64).
	Arch *arch.Arch
}

// NewRegs returns an empty register set of machine a.
func NewRegs(a *arch.Arch) Regs {
	return Regs{PCReg: a.PC, SPReg: a.SP, FPReg: a.FP, Arch: a}
}

// empty returns a register set of the same machine with no register known.
func (r *Regs) empty() Regs {
	return Regs{PCReg: r.PCReg, SPReg: r.SPReg, FPReg: r.FPReg, Arch: r.Arch}
}

// arch returns the set's machine, AMD64 for a zero Regs.
func (r *Regs) arch() *arch.Arch { return archOr(r.Arch) }

// archOr returns a, or AMD64 when a is nil (a zero Regs or Source).
func archOr(a *arch.Arch) *arch.Arch {
	if a == nil {
		return arch.AMD64Arch
	}
	return a
}

// AMD64 DWARF register numbers (System V psABI, table 3.36).
const (
	RAX rule.Reg = 0
	RDX rule.Reg = 1
	RCX rule.Reg = 2
	RBX rule.Reg = 3
	RSI rule.Reg = 4
	RDI rule.Reg = 5
	RBP rule.Reg = 6
	RSP rule.Reg = 7
	R8  rule.Reg = 8
	R9  rule.Reg = 9
	R10 rule.Reg = 10
	R11 rule.Reg = 11
	R12 rule.Reg = 12
	R13 rule.Reg = 13
	R14 rule.Reg = 14
	R15 rule.Reg = 15
	RIP rule.Reg = 16
)

// Get returns the value of register r and whether it is known.
func (r *Regs) Get(reg rule.Reg) (uint64, bool) {
	if reg < 0 || int(reg) >= MaxReg || r.known&(1<<uint(reg)) == 0 {
		return 0, false
	}
	return r.vals[reg], true
}

// Set makes register reg known with value v. Out-of-range numbers are ignored.
func (r *Regs) Set(reg rule.Reg, v uint64) {
	if reg < 0 || int(reg) >= MaxReg {
		return
	}
	r.vals[reg] = v
	r.known |= 1 << uint(reg)
}

// Forget makes register reg unknown.
func (r *Regs) Forget(reg rule.Reg) {
	if reg >= 0 && int(reg) < MaxReg {
		r.known &^= 1 << uint(reg)
	}
}

// Known reports whether reg is known.
func (r *Regs) Known(reg rule.Reg) bool { _, ok := r.Get(reg); return ok }

// PC returns the program counter (0 if unknown).
func (r *Regs) PC() uint64 { v, _ := r.Get(r.PCReg); return v }

// SP returns the stack pointer (0 if unknown).
func (r *Regs) SP() uint64 { v, _ := r.Get(r.SPReg); return v }

// FP returns the frame pointer and whether it is known.
func (r *Regs) FP() (uint64, bool) { return r.Get(r.FPReg) }
