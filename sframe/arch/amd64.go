package arch

import (
	"debug/elf"
	"encoding/binary"

	"github.com/sfdbg/sfdbg/sframe/rule"
)

// AMD64 DWARF register numbers (System V AMD64 psABI, table 3.36), as
// the machine's values use them.
const (
	amd64RBX rule.Reg = 3
	amd64RBP rule.Reg = 6
	amd64RSP rule.Reg = 7
	amd64R8  rule.Reg = 8
	amd64R12 rule.Reg = 12
	amd64RIP rule.Reg = 16 // the return-address column
)

// amd64Names are the names of the AMD64 DWARF registers 0-16.
var amd64Names = [...]string{"rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp", "rsp",
	"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "rip"}

// AMD64Arch is x86-64 (System V AMD64 psABI): RA column 16 (RIP, which
// also holds the PC), SP rsp (7), FP rbp (6); a call pushes the RA, so
// the CFA at entry is rsp+8 with the RA at CFA-8.
//
// The frame-pointer chain is the RBP chain: in a frame whose FP is fp the
// caller's FP is *(fp), its RA *(fp+8), the CFA fp+16 (the caller's SP).
//
// The signal frame is Linux's rt_sigframe (arch/x86/include/asm/
// sigframe.h, uapi asm/sigcontext.h), checked against glibc's ucontext_t
// (offsetof(ucontext_t, uc_mcontext) is 40, gregs[REG_RSP] at 160,
// gregs[REG_RIP] at 168) and the CFI glibc gives __restore_rt: when a
// handler returns into the restorer its "ret" has popped pretcode, so the
// restorer's SP points at the ucontext, whose uc_mcontext (after uc_flags
// 8, uc_link 8, uc_stack 24) holds r8-r15, rdi, rsi, rbp, rbx, rdx, rax,
// rcx, rsp, rip.
var AMD64Arch = &Arch{
	Name:      "x86-64",
	Machine:   elf.EM_X86_64,
	ByteOrder: binary.LittleEndian,
	PtrSize:   8,
	PC:        amd64RIP, SP: amd64RSP, FP: amd64RBP, RA: amd64RIP,
	// RBX, RBP, R12-R15 (psABI §3.2.1, figure 3.4).
	CalleeSaved: []rule.Reg{amd64RBX, amd64RBP, amd64R12, 13, 14, 15},
	Entry: rule.Row{
		CFA: rule.Rule{Kind: rule.ValOffset, Reg: amd64RSP, Offset: 8},
		RA:  rule.Rule{Kind: rule.Offset, Reg: rule.CFA, Offset: -8},
		FP:  rule.Rule{Kind: rule.SameValue, Reg: rule.CFA},
	},
	RegNames: namesOf(amd64Names[:], 0),
	Decoder:  X86{},
	// psABI table 4.10.
	Relocs: map[uint32]Reloc{
		uint32(elf.R_X86_64_NONE): {0, false},
		uint32(elf.R_X86_64_PC32): {4, true},
		uint32(elf.R_X86_64_PC64): {8, true},
		uint32(elf.R_X86_64_32):   {4, false},
		uint32(elf.R_X86_64_32S):  {4, false},
		uint32(elf.R_X86_64_64):   {8, false},
	},
	CallPushesRA: true,
	// pr_reg (112 bytes into the 336-byte elf_prstatus) is struct
	// user_regs_struct (arch/x86/include/asm/user_64.h).
	Core: Core{
		Off: 112,
		Names: []string{"r15", "r14", "r13", "r12", "rbp", "rbx", "r11", "r10", "r9", "r8",
			"rax", "rcx", "rdx", "rsi", "rdi", "orig_rax", "rip", "cs", "eflags", "rsp", "ss",
			"fs_base", "gs_base", "ds", "es", "fs", "gs"},
		Regs: []rule.Reg{15, 14, 13, amd64R12, amd64RBP, amd64RBX, 11, 10, 9, amd64R8, 0, 2, 1, 4,
			5, -1, amd64RIP, -1, -1, amd64RSP, -1, -1, -1, -1, -1, -1, -1},
	},
	Chain: Chain{
		RA:  8,
		CFA: 16,
		Row: rule.Row{
			CFA: rule.Rule{Kind: rule.ValOffset, Reg: amd64RBP, Offset: 16},
			RA:  rule.Rule{Kind: rule.Offset, Reg: rule.CFA, Offset: -8},
			FP:  rule.Rule{Kind: rule.Offset, Reg: rule.CFA, Offset: -16},
		},
		Expected: "expected with -fomit-frame-pointer",
	},
	Signal: Signal{
		Regs: 40,
		Slots: []rule.Reg{amd64R8, 9, 10, 11, amd64R12, 13, 14, 15, 5, 4, amd64RBP, amd64RBX, 1, 0, 2,
			amd64RSP, amd64RIP},
		SFrame: true,
	},
}

// namesOf maps DWARF registers first, first+1, ... to names.
func namesOf(names []string, first rule.Reg) map[rule.Reg]string {
	m := make(map[rule.Reg]string, len(names))
	for i, n := range names {
		m[first+rule.Reg(i)] = n
	}
	return m
}

func init() { register(AMD64Arch) }
