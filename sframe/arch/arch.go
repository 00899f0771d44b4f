// Package arch holds one value per machine (Arch), keyed by ELF machine and
// byte order, as Delve's pkg/proc/arch.go Arch is: the DWARF numbers of the
// PC, SP, FP and RA registers, the callee-saved registers, the register
// names, the CFA rule at a function's entry, and the instruction decoder
// that the code oracle and the debugger's disassembler use. An unwinder or
// a check asks the Arch; it never switches on the machine. A new machine is
// a new file that registers its value.
//
// The package knows nothing of processes: code is given as bytes.
package arch

import (
	"debug/elf"
	"encoding/binary"
	"fmt"
	"strconv"

	"github.com/sfdbg/sfdbg/sframe/rule"
)

// Arch describes one machine. Values are registered by the machine's file
// (amd64.go, arm64.go, s390x.go) and found with For; they are never
// modified after registration.
type Arch struct {
	// Name is the machine's name as GNU tools print it: "x86-64",
	// "aarch64", "s390x".
	Name string
	// Machine and ByteOrder key the value.
	Machine   elf.Machine
	ByteOrder binary.ByteOrder
	// PtrSize is the size of an address in bytes.
	PtrSize int
	// PC, SP, FP and RA are DWARF register numbers: the register slot of
	// the PC, the stack pointer, the frame pointer, and the register that
	// holds the return address on entry (the return-address column on
	// AMD64, the link register on AArch64 and s390x).
	PC, SP, FP, RA rule.Reg
	// CalleeSaved lists the registers the psABI preserves across calls.
	CalleeSaved []rule.Reg
	// Entry is the row at a function's first instruction: AMD64 CFA=rsp+8
	// with RA at c-8; AArch64 CFA=sp+0 with RA in x30; s390x CFA=r15+160
	// with RA in r14.
	Entry rule.Row
	// RegNames maps DWARF register numbers to names as gdb prints them
	// ("rbp", "x29", "r11"); a number it lacks prints as "r<N>".
	RegNames map[rule.Reg]string
	// Decoder decodes instructions for the code oracle and the
	// disassembler (nil: this machine's code cannot be decoded).
	Decoder Decoder
}

// RegName returns the name of DWARF register r on a ("rbp", "x29"), or
// "r<N>" when a has no name for it.
func (a *Arch) RegName(r rule.Reg) string {
	if n, ok := a.RegNames[r]; ok {
		return n
	}
	return "r" + strconv.Itoa(int(r))
}

// Format formats a rule with a's register names (rule.Rule.Format).
func (a *Arch) Format(r rule.Rule) string { return r.Format(a.RegName) }

type key struct {
	m  elf.Machine
	be bool
}

var arches = map[key]*Arch{}

// register adds a machine; each machine's file calls it from init.
func register(a *Arch) {
	k := key{a.Machine, a.ByteOrder == binary.BigEndian}
	if arches[k] != nil {
		panic("arch: " + a.Name + " registered twice")
	}
	arches[k] = a
}

// UnknownMachineError is returned by For for a machine sfdbg does not know.
type UnknownMachineError struct {
	Machine   elf.Machine
	ByteOrder binary.ByteOrder
}

func (e *UnknownMachineError) Error() string {
	return fmt.Sprintf("unsupported machine %v (%v)", e.Machine, e.ByteOrder)
}

// For returns the Arch of an ELF machine and byte order, or an
// *UnknownMachineError: an unknown machine is refused, never taken for
// another.
func For(m elf.Machine, order binary.ByteOrder) (*Arch, error) {
	if a := arches[key{m, order == binary.BigEndian}]; a != nil {
		return a, nil
	}
	return nil, &UnknownMachineError{m, order}
}
