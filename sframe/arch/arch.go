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
	// AMD64, the link register on AArch64 and s390x). Every slot is below
	// 64, so a register set indexed by DWARF number fits a 64-bit mask:
	// the s390x PSW address, DWARF 65, is kept at slot 33.
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
	// SPOffset is the caller's SP relative to the CFA, in bytes: 0 where
	// the CFA is the SP before the call; -160 on s390x, whose CFA is the
	// caller's SP plus its 160-byte register save area (s390x ELF ABI
	// supplement, "Stack frame"; SFrame spec v3 §3.1.3).
	SPOffset int64
	// CallPushesRA is set where a call pushes the return address (AMD64),
	// so that a caller's SP is always above its callee's. Where the RA
	// goes to a link register (AArch64, s390x), a leaf without a frame
	// shares its caller's SP.
	CallPushesRA bool
	// PAuth is set where return addresses may be signed (AArch64 pointer
	// authentication, pac-ret): a row with a mangled RA is followed by
	// stripping the code's PAC.
	PAuth bool
	// Relocs are the relocation types of the machine that sfdbg applies
	// to an object's SFrame and CFI sections (elfobj), by ELF r_type.
	Relocs map[uint32]Reloc
	// Chain says how the frame-pointer chain links frames.
	Chain Chain
	// Signal is the kernel's signal frame as the trampoline sees it.
	Signal Signal
	// Core is how a Linux core file of the machine lays out a thread's
	// registers.
	Core Core
	// Decoder decodes instructions for the code oracle and the
	// disassembler (nil: this machine's code cannot be decoded).
	Decoder Decoder
	// Thumb, when not nil, says that code addresses carry the instruction
	// set in bit 0 (32-bit ARM interworking: a return address with bit 0
	// set returns to Thumb code), and where a frame keeps its state.
	Thumb *Thumb
	// EHABI is set where the machine's binaries carry ARM EHABI unwind
	// tables (.ARM.exidx, .ARM.extab): 32-bit ARM.
	EHABI bool
}

// Thumb is how a 32-bit ARM frame's instruction set is kept and used. A
// return address's bit 0 is the caller's state (ARM ARM A2.3.2 "BX" and
// "BLX"); the caller's PC is the address with bit 0 clear, as gdb's
// arm_addr_bits_remove makes it; the state goes to the T bit (bit 5) of the
// CPSR, which a register set keeps at register slot CPSR (no DWARF number
// names it). In Thumb code the frame pointer is FP (r7) rather than
// Arch.FP (r11).
type Thumb struct {
	CPSR rule.Reg
	FP   rule.Reg
	// Chain is the frame-pointer chain of Thumb code, through FP.
	Chain Chain
}

// CPSRT is the T (Thumb state) bit of the CPSR.
const CPSRT = 1 << 5

// Reloc is what a relocation type computes: a Size-byte field (0 for a
// NONE relocation) holding S+A, or S+A-P when PCRel (ELF gABI
// "Relocation"; the psABI's relocation table).
type Reloc struct {
	Size  int
	PCRel bool
}

// Chain says how a machine's frame-pointer chain (the chain profilers and
// the kernel follow without unwind data) links a frame to its caller.
type Chain struct {
	// BackChain is set for the s390x back chain (-mbackchain): the word
	// at SP is the caller's SP (0 ends the chain), and RA and CFA are
	// found from it. Otherwise the chain is linked through FP: the word at
	// FP is the caller's FP (0 ends the chain) and the word at FP+RA the
	// return address.
	BackChain bool
	// RA is the offset in bytes of the saved return address: from the
	// frame record at FP (AMD64, AArch64: 8), or from the caller's SP for
	// a back chain (s390x: 112, r14's slot of the register save area).
	RA int64
	// CFA is the offset in bytes of the CFA from the frame record (AMD64:
	// 16) or from the caller's SP (back chain: 160); 0 when the record
	// does not say where the frame ends (AArch64).
	CFA int64
	// FP is the offset in bytes of the caller's FP from the frame's FP:
	// 0 where FP points at a record that starts with it (AMD64, AArch64),
	// -4 in GCC's 32-bit ARM frames, whose FP points at the saved LR.
	FP int64
	// Ascending is set where a caller's record must lie at least 16 bytes
	// above its callee's (the arm64 kernel unwinder's rule).
	Ascending bool
	// Row is the step as rules: where the chain finds the CFA, RA and FP,
	// for the frame's Row and its comparison with other methods.
	Row rule.Row
	// Expected says when the chain is expected to differ from the unwind
	// tables, for reports ("expected with -fomit-frame-pointer").
	Expected string
}

// Core is how a Linux ELF core (fs/binfmt_elf.c) lays out a thread's
// registers: pr_reg, the machine's register struct, lies Off bytes into
// NT_PRSTATUS's struct elf_prstatus and holds len(Names) words of PtrSize
// bytes (8 in an ELFCLASS64 core, 4 in an ELFCLASS32 one) in the core's
// byte order; Regs gives each word's DWARF register (-1: none).
type Core struct {
	Off   int
	Names []string
	Regs  []rule.Reg
}

// Signal is the Linux signal frame of a machine: where the registers the
// kernel saved lie, as seen from the SP of the trampoline (the restorer a
// handler returns into), and how the trampoline is recognised by its code
// where no unwind data describes it (as gdb's tramp_frame unwinders do).
type Signal struct {
	// Regs is the offset in bytes from the trampoline's SP of the first
	// saved register word; Slots names the DWARF register of each word
	// (of PtrSize bytes) from there (-1: a word with no DWARF number).
	Regs  int64
	Slots []rule.Reg
	// NonRTRegs, when not 0, is Regs for a non-rt frame (32-bit ARM:
	// struct sigframe, whose ucontext is at the SP, where rt_sigframe has
	// the siginfo first).
	NonRTRegs int64
	// Word is the size in bytes of a saved register: 8, or 4 on 32-bit
	// ARM (0 means 8).
	Word int
	// IndirectRegs, when not 0, is the offset from the trampoline's SP of
	// a pointer to the saved registers in a non-rt frame (s390x struct
	// sigcontext's sregs), used instead of Regs.
	IndirectRegs int64
	// SFrame is set where an SFrame FDE marked as a signal frame is
	// followed with this layout (AMD64: its FRE's CFA rule must locate
	// the saved SP).
	SFrame bool
	// TrampLen is the number of code bytes Tramp needs; Tramp reports
	// whether code (the bytes at a PC) is a signal trampoline's first
	// instruction, and rt whether it returns from an rt frame. Tramp is nil
	// where trampolines are only known from unwind data (AMD64).
	TrampLen int
	Tramp    func(code []byte) (rt, ok bool)
}

// Slot returns the offset in bytes, from the trampoline's SP, of the word
// where the kernel saved register r in an rt signal frame, or -1.
func (s *Signal) Slot(r rule.Reg) int64 {
	for i, x := range s.Slots {
		if x == r {
			return s.Regs + int64(s.WordSize())*int64(i)
		}
	}
	return -1
}

// WordSize is the size in bytes of a saved register word (Word, 8 when
// not set).
func (s *Signal) WordSize() int {
	if s.Word == 0 {
		return 8
	}
	return s.Word
}

// RegName returns the name of DWARF register r on a ("rbp", "x29"), or
// "r<N>" when a has no name for it.
func (a *Arch) RegName(r rule.Reg) string {
	if n, ok := a.RegNames[r]; ok {
		return n
	}
	return "r" + strconv.Itoa(int(r))
}

// RegNamed returns the DWARF register of a called name ("rbp", "x29"),
// ok false when a has no register of that name.
func (a *Arch) RegNamed(name string) (r rule.Reg, ok bool) {
	for r, n := range a.RegNames {
		if n == name {
			return r, true
		}
	}
	return 0, false
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
	order := "little-endian"
	if e.ByteOrder == binary.BigEndian {
		order = "big-endian"
	}
	return fmt.Sprintf("unsupported machine %v, %s (ELF header e_machine, at byte 0x12): sfdbg knows x86-64, AArch64, s390x and 32-bit ARM", e.Machine, order)
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
