package corefile

import (
	"debug/elf"
	"strconv"

	"github.com/sfdbg/sfdbg/frames"
	"github.com/sfdbg/sfdbg/sframe/arch"
	"github.com/sfdbg/sfdbg/sframe/rule"
)

// layout is how one machine's core lays out a thread's registers: pr_reg
// of NT_PRSTATUS, at regOff in struct elf_prstatus, holds len(regNames)
// 64-bit words.
type layout struct {
	machine  elf.Machine
	class    elf.Class
	data     elf.Data
	arch     *arch.Arch
	regOff   int
	regNames []string
	// dwarf gives each word's DWARF register number, -1 for none.
	dwarf []rule.Reg
}

// layouts lists the machines whose cores are read.
var layouts = []layout{x86_64, aarch64, aarch64be, s390x}

// x86_64 is the x86-64 layout: pr_reg (112 bytes into the 336-byte
// elf_prstatus) is struct user_regs_struct
// (arch/x86/include/asm/user_64.h); DWARF numbers from the psABI, table
// 3.36.
var x86_64 = layout{
	machine: elf.EM_X86_64, class: elf.ELFCLASS64, data: elf.ELFDATA2LSB,
	arch: arch.AMD64Arch, regOff: 112,
	regNames: []string{"r15", "r14", "r13", "r12", "rbp", "rbx", "r11", "r10", "r9", "r8",
		"rax", "rcx", "rdx", "rsi", "rdi", "orig_rax", "rip", "cs", "eflags", "rsp", "ss",
		"fs_base", "gs_base", "ds", "es", "fs", "gs"},
	dwarf: []rule.Reg{frames.R15, frames.R14, frames.R13, frames.R12, frames.RBP, frames.RBX,
		frames.R11, frames.R10, frames.R9, frames.R8, frames.RAX, frames.RCX, frames.RDX, frames.RSI,
		frames.RDI, -1, frames.RIP, -1, -1, frames.RSP, -1, -1, -1, -1, -1, -1, -1},
}

// aarch64 is the AArch64 layout: pr_reg (112 bytes into elf_prstatus) is
// struct user_pt_regs (arch/arm64/include/uapi/asm/ptrace.h): x0-x30, sp,
// pc, pstate; DWARF numbers from "DWARF for the Arm 64-bit Architecture"
// (x0-x30 0-30, sp 31, pc 32). Big-endian AArch64 cores (aarch64be) use
// the same layout in their byte order.
var (
	aarch64 = layout{
		machine: elf.EM_AARCH64, class: elf.ELFCLASS64, data: elf.ELFDATA2LSB,
		arch: arch.ARM64Arch, regOff: 112,
		regNames: aarch64RegNames(),
		dwarf:    aarch64DWARF(),
	}
	aarch64be = layout{
		machine: elf.EM_AARCH64, class: elf.ELFCLASS64, data: elf.ELFDATA2MSB,
		arch: arch.ARM64BEArch, regOff: 112,
		regNames: aarch64.regNames,
		dwarf:    aarch64.dwarf,
	}
)

func aarch64RegNames() []string {
	n := make([]string, 0, 34)
	for i := range 31 {
		n = append(n, "x"+strconv.Itoa(i))
	}
	return append(n, "sp", "pc", "pstate")
}

func aarch64DWARF() []rule.Reg {
	d := make([]rule.Reg, 0, 34)
	for i := range 32 {
		d = append(d, rule.Reg(i))
	}
	return append(d, arch.ARM64Arch.PC, -1)
}

// s390x is the s390x layout: pr_reg (112 bytes into the big-endian
// elf_prstatus) is s390_regs (arch/s390/include/uapi/asm/ptrace.h): the
// PSW (mask, address), then r0-r15; the access registers and orig_gpr2
// that follow are not read. DWARF numbers from the s390x ELF ABI
// supplement (r0-r15 0-15); the PSW address, DWARF 65, is kept at
// arch.S390XArch.PC.
var s390x = layout{
	machine: elf.EM_S390, class: elf.ELFCLASS64, data: elf.ELFDATA2MSB,
	arch: arch.S390XArch, regOff: 112,
	regNames: s390xRegNames(),
	dwarf:    s390xDWARF(),
}

func s390xRegNames() []string {
	n := []string{"pswm", "pswa"}
	for i := range 16 {
		n = append(n, "r"+strconv.Itoa(i))
	}
	return n
}

func s390xDWARF() []rule.Reg {
	d := []rule.Reg{-1, arch.S390XArch.PC}
	for i := range 16 {
		d = append(d, rule.Reg(i))
	}
	return d
}
