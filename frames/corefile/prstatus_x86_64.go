package corefile

import (
	"debug/elf"

	"github.com/sfdbg/sfdbg/frames"
	"github.com/sfdbg/sfdbg/sframe"
)

// layout is how one machine's core lays out a thread's registers: pr_reg
// of NT_PRSTATUS, at regOff in struct elf_prstatus, holds len(regNames)
// 64-bit words.
type layout struct {
	machine  elf.Machine
	class    elf.Class
	data     elf.Data
	abi      sframe.ABI
	regOff   int
	regNames []string
	// dwarf gives each word's DWARF register number, -1 for none.
	dwarf []sframe.Reg
}

// layouts lists the machines whose cores are read.
var layouts = []layout{x86_64}

// x86_64 is the x86-64 layout: pr_reg (112 bytes into the 336-byte
// elf_prstatus) is struct user_regs_struct
// (arch/x86/include/asm/user_64.h); DWARF numbers from the psABI, table
// 3.36.
var x86_64 = layout{
	machine: elf.EM_X86_64, class: elf.ELFCLASS64, data: elf.ELFDATA2LSB,
	abi: sframe.ABIAMD64LittleEndian, regOff: 112,
	regNames: []string{"r15", "r14", "r13", "r12", "rbp", "rbx", "r11", "r10", "r9", "r8",
		"rax", "rcx", "rdx", "rsi", "rdi", "orig_rax", "rip", "cs", "eflags", "rsp", "ss",
		"fs_base", "gs_base", "ds", "es", "fs", "gs"},
	dwarf: []sframe.Reg{frames.R15, frames.R14, frames.R13, frames.R12, frames.RBP, frames.RBX,
		frames.R11, frames.R10, frames.R9, frames.R8, frames.RAX, frames.RCX, frames.RDX, frames.RSI,
		frames.RDI, -1, frames.RIP, -1, -1, frames.RSP, -1, -1, -1, -1, -1, -1, -1},
}
