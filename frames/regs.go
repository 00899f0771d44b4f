package frames

import (
	"fmt"

	"github.com/sfdbg/sfdbg/sframe"
)

// MaxReg is one more than the largest DWARF register number a Regs holds.
// AMD64 uses 0-16 (16 is the return-address column, RIP); AArch64 0-31 and
// s390x 0-15 fit too.
const MaxReg = 34

// Regs is a set of register values of one frame, indexed by DWARF register
// number (sframe.Reg), each either known or not. The zero value knows no
// register. Regs is a value type: copying it copies the set.
type Regs struct {
	vals  [MaxReg]uint64
	known uint64 // bit r set: vals[r] is known
	// PCReg and SPReg name the DWARF numbers of the PC (return-address
	// column) and the stack pointer for this ABI.
	PCReg, SPReg, FPReg sframe.Reg
	// ABI is the ABI whose register numbers these are (0: AMD64).
	ABI sframe.ABI
}

// NewRegs returns an empty register set for an ABI.
func NewRegs(abi sframe.ABI) Regs {
	return Regs{PCReg: abi.RAReg(), SPReg: abi.SPReg(), FPReg: abi.FPReg(), ABI: abi}
}

// empty returns a register set of the same ABI with no register known.
func (r *Regs) empty() Regs {
	return Regs{PCReg: r.PCReg, SPReg: r.SPReg, FPReg: r.FPReg, ABI: r.ABI}
}

// abi returns the set's ABI, AMD64 for a zero Regs.
func (r *Regs) abi() sframe.ABI {
	if r.ABI == 0 {
		return sframe.ABIAMD64LittleEndian
	}
	return r.ABI
}

// raReg returns the DWARF number of the register that holds the return
// address at a function's entry: the PC column itself on AMD64 (the RA is
// on the stack), the link register on AArch64 and s390x.
func (r *Regs) raReg() sframe.Reg { return r.abi().RAReg() }

// calleeSaved returns the registers the ABI preserves across calls, which
// keep their value in the caller when DWARF CFI gives them no rule.
func (r *Regs) calleeSaved() []sframe.Reg {
	if r.abi() == sframe.ABIAMD64LittleEndian {
		return AMD64CalleeSaved
	}
	return nil
}

// AMD64 DWARF register numbers (System V psABI, table 3.36).
const (
	RAX sframe.Reg = 0
	RDX sframe.Reg = 1
	RCX sframe.Reg = 2
	RBX sframe.Reg = 3
	RSI sframe.Reg = 4
	RDI sframe.Reg = 5
	RBP sframe.Reg = 6
	RSP sframe.Reg = 7
	R8  sframe.Reg = 8
	R9  sframe.Reg = 9
	R10 sframe.Reg = 10
	R11 sframe.Reg = 11
	R12 sframe.Reg = 12
	R13 sframe.Reg = 13
	R14 sframe.Reg = 14
	R15 sframe.Reg = 15
	RIP sframe.Reg = 16
)

// AMD64CalleeSaved lists the registers the SysV AMD64 ABI preserves across
// calls (besides RSP): RBX, RBP, R12-R15.
var AMD64CalleeSaved = []sframe.Reg{RBX, RBP, R12, R13, R14, R15}

// AMD64RegNames are the names of the AMD64 DWARF registers 0-16.
var AMD64RegNames = [...]string{"rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp", "rsp",
	"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "rip"}

// Get returns the value of register r and whether it is known.
func (r *Regs) Get(reg sframe.Reg) (uint64, bool) {
	if reg < 0 || int(reg) >= MaxReg || r.known&(1<<uint(reg)) == 0 {
		return 0, false
	}
	return r.vals[reg], true
}

// Set makes register reg known with value v. Out-of-range numbers are ignored.
func (r *Regs) Set(reg sframe.Reg, v uint64) {
	if reg < 0 || int(reg) >= MaxReg {
		return
	}
	r.vals[reg] = v
	r.known |= 1 << uint(reg)
}

// Forget makes register reg unknown.
func (r *Regs) Forget(reg sframe.Reg) {
	if reg >= 0 && int(reg) < MaxReg {
		r.known &^= 1 << uint(reg)
	}
}

// Known reports whether reg is known.
func (r *Regs) Known(reg sframe.Reg) bool { _, ok := r.Get(reg); return ok }

// PC returns the program counter (0 if unknown).
func (r *Regs) PC() uint64 { v, _ := r.Get(r.PCReg); return v }

// SP returns the stack pointer (0 if unknown).
func (r *Regs) SP() uint64 { v, _ := r.Get(r.SPReg); return v }

// FP returns the frame pointer and whether it is known.
func (r *Regs) FP() (uint64, bool) { return r.Get(r.FPReg) }

// RegName returns the AMD64 name of a DWARF register, or "rN".
func RegName(reg sframe.Reg) string {
	if reg >= 0 && int(reg) < len(AMD64RegNames) {
		return AMD64RegNames[reg]
	}
	return fmt.Sprintf("r%d", reg)
}
