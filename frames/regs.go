package frames

import (
	"fmt"
	"strconv"

	"github.com/sfdbg/sfdbg/sframe"
	"github.com/sfdbg/sfdbg/sframe/rule"
)

// MaxReg is one more than the largest DWARF register number a Regs holds.
// AMD64 uses 0-16 (16 is the return-address column, RIP); AArch64 0-32
// (31 SP, 32 PC); s390x 0-31 (GPRs, then FPRs), with the PSW address, DWARF
// 65, kept at slot S390XPC. Rules for registers beyond (AArch64's vector
// registers, s390x's access and control registers) are not tracked.
const MaxReg = 34

// AArch64 DWARF register numbers beyond those sframe names ("DWARF for the
// Arm 64-bit Architecture", table 2: X0-X30 are 0-30, SP 31, PC 32).
const (
	AArch64X19 rule.Reg = 19
	AArch64PC  rule.Reg = 32
)

// S390XPC is the slot of the s390x PSW address (the PC; DWARF 65, which
// lies beyond MaxReg). DWARF 33 is a control register no user-space CFI
// names, so the slot is free.
const S390XPC rule.Reg = 33

// PCReg returns the register slot that holds the PC for an ABI: the
// return-address column RIP on AMD64, PC (32) on AArch64, S390XPC on s390x.
// On AArch64 and s390x the return-address column is the link register
// (x30, r14), which differs from the PC in the topmost frame.
func PCReg(abi sframe.ABI) rule.Reg {
	switch {
	case abi.IsAArch64():
		return AArch64PC
	case abi == sframe.ABIS390XBigEndian:
		return S390XPC
	}
	return RIP
}

// Regs is a set of register values of one frame, indexed by DWARF register
// number (rule.Reg), each either known or not. The zero value knows no
// register. Regs is a value type: copying it copies the set.
type Regs struct {
	vals  [MaxReg]uint64
	known uint64 // bit r set: vals[r] is known
	// PCReg and SPReg name the DWARF numbers of the PC (return-address
	// column) and the stack pointer for this ABI.
	PCReg, SPReg, FPReg rule.Reg
	// ABI is the ABI whose register numbers these are (0: AMD64).
	ABI sframe.ABI
}

// NewRegs returns an empty register set for an ABI.
func NewRegs(abi sframe.ABI) Regs {
	return Regs{PCReg: PCReg(abi), SPReg: abi.SPReg(), FPReg: abi.FPReg(), ABI: abi}
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
func (r *Regs) raReg() rule.Reg { return r.abi().RAReg() }

// calleeSaved returns the registers the ABI preserves across calls, which
// keep their value in the caller when DWARF CFI gives them no rule.
func (r *Regs) calleeSaved() []rule.Reg {
	switch a := r.abi(); {
	case a == sframe.ABIAMD64LittleEndian:
		return AMD64CalleeSaved
	case a.IsAArch64():
		return aarch64CalleeSaved
	case a == sframe.ABIS390XBigEndian:
		return s390xCalleeSaved
	}
	return nil
}

// aarch64CalleeSaved: x19-x29 (AAPCS64 §6.1.1; d8-d15, DWARF 72-79, are
// beyond MaxReg). s390xCalleeSaved: r6-r13 and f8-f15 (DWARF 24-31; s390x
// ELF ABI supplement, "Register usage").
var (
	aarch64CalleeSaved = []rule.Reg{19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29}
	s390xCalleeSaved   = []rule.Reg{6, 7, 8, 9, 10, 11, 12, 13, 24, 25, 26, 27, 28, 29, 30, 31}
)

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

// AMD64CalleeSaved lists the registers the SysV AMD64 ABI preserves across
// calls (besides RSP): RBX, RBP, R12-R15.
var AMD64CalleeSaved = []rule.Reg{RBX, RBP, R12, R13, R14, R15}

// AMD64RegNames are the names of the AMD64 DWARF registers 0-16.
var AMD64RegNames = [...]string{"rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp", "rsp",
	"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "rip"}

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

// RegName returns the AMD64 name of a DWARF register, or "rN".
func RegName(reg rule.Reg) string {
	if reg >= 0 && int(reg) < len(AMD64RegNames) {
		return AMD64RegNames[reg]
	}
	return fmt.Sprintf("r%d", reg)
}

// s390xFPRNames are the s390x FPRs in DWARF order 16-31 (the ELF ABI
// supplement's DWARF table interleaves them).
var s390xFPRNames = [...]string{"f0", "f2", "f4", "f6", "f1", "f3", "f5", "f7",
	"f8", "f10", "f12", "f14", "f9", "f11", "f13", "f15"}

// ABIRegName returns the name of a DWARF register of an ABI as its
// assembler and gdb spell it: "rsp" (AMD64), "x29", "sp", "pc" (AArch64),
// "r15", "f8", "pswa" (s390x); "rN" for a number without a name. ABI 0 is
// AMD64.
func ABIRegName(abi sframe.ABI, reg rule.Reg) string {
	switch {
	case abi.IsAArch64():
		switch {
		case reg >= 0 && reg <= 30:
			return "x" + strconv.Itoa(int(reg))
		case reg == sframe.AArch64RegSP:
			return "sp"
		case reg == AArch64PC:
			return "pc"
		}
	case abi == sframe.ABIS390XBigEndian:
		switch {
		case reg >= 0 && reg <= 15:
			return "r" + strconv.Itoa(int(reg))
		case reg >= 16 && reg <= 31:
			return s390xFPRNames[reg-16]
		case reg == S390XPC:
			return "pswa"
		}
	default:
		return RegName(reg)
	}
	return fmt.Sprintf("r%d", reg)
}
