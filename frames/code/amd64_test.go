package code

import (
	"debug/elf"
	"encoding/binary"

	"github.com/sfdbg/sfdbg/sframe/arch"
	"github.com/sfdbg/sfdbg/sframe/rule"
)

// amd64 is x86-64 with the x86 decoder (System V psABI: CFA=rsp+8 at
// entry, RA at CFA-8; callee-saved rbx, rbp, r12-r15).
var amd64 = &arch.Arch{
	Name:        "x86-64",
	Machine:     elf.EM_X86_64,
	ByteOrder:   binary.LittleEndian,
	PtrSize:     8,
	PC:          16,
	SP:          7,
	FP:          6,
	RA:          16,
	CalleeSaved: []rule.Reg{3, 6, 12, 13, 14, 15},
	Entry: rule.Row{
		CFA: rule.Rule{Kind: rule.ValOffset, Reg: 7, Offset: 8},
		RA:  rule.Rule{Kind: rule.Offset, Reg: rule.CFA, Offset: -8},
		FP:  rule.Rule{Kind: rule.SameValue, Reg: rule.CFA},
	},
	RegNames: map[rule.Reg]string{0: "rax", 1: "rdx", 2: "rcx", 3: "rbx", 4: "rsi", 5: "rdi", 6: "rbp", 7: "rsp",
		8: "r8", 9: "r9", 10: "r10", 11: "r11", 12: "r12", 13: "r13", 14: "r14", 15: "r15", 16: "rip"},
	Decoder: arch.X86{},
}
