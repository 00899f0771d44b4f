package arch

import (
	"debug/elf"
	"encoding/binary"
	"strconv"

	"github.com/sfdbg/sfdbg/sframe/rule"
)

// AArch64 DWARF register numbers ("DWARF for the Arm 64-bit Architecture",
// table 2: x0-x30 are 0-30, sp 31, pc 32).
const (
	arm64FP rule.Reg = 29
	arm64LR rule.Reg = 30
	arm64SP rule.Reg = 31
	arm64PC rule.Reg = 32
)

// ARM64Arch is little-endian AArch64 (AAPCS64), ARM64BEArch big-endian
// AArch64: the same registers and rules, data in the other byte order (A64
// instructions are little-endian in both). The RA is in the link register
// x30 at entry, where the CFA is sp+0; RA may be signed (pac-ret).
//
// The frame-pointer chain is the frame-record chain (AAPCS64 §6.2.3): the
// caller's x29 is *(x29), its PC *(x29+8); the record does not say where
// the frame ends (CFA unknown), and a caller's record lies above its
// callee's, as the kernel's arm64 unwinder requires.
//
// The signal frame (arch/arm64/kernel/signal.c struct rt_sigframe, uapi
// asm/sigcontext.h): siginfo (128 bytes), then the ucontext, whose
// uc_mcontext is 176 bytes in; struct sigcontext holds fault_address, then
// x0-x30, sp, pc. The trampoline is "mov x8, #139 (__NR_rt_sigreturn);
// svc #0" (gdb/aarch64-linux-tdep.c).
var (
	ARM64Arch   = newARM64(binary.LittleEndian)
	ARM64BEArch = newARM64(binary.BigEndian)
)

// A64 encodings of the signal trampoline.
const (
	arm64MovX8RtSigreturn = 0xd2801168
	arm64Svc0             = 0xd4000001
)

// arm64Tramp recognises the signal trampoline: A64 instructions are
// little-endian in either data byte order.
func arm64Tramp(code []byte) (rt, ok bool) {
	if len(code) < 8 {
		return false, false
	}
	le := binary.LittleEndian
	ok = le.Uint32(code) == arm64MovX8RtSigreturn && le.Uint32(code[4:]) == arm64Svc0
	return ok, ok
}

func newARM64(order binary.ByteOrder) *Arch {
	names := make([]string, 0, 33)
	slots := make([]rule.Reg, 0, 33)
	for i := range 31 {
		names = append(names, "x"+strconv.Itoa(i))
		slots = append(slots, rule.Reg(i))
	}
	names = append(names, "sp", "pc")
	slots = append(slots, arm64SP, arm64PC)
	same := rule.Rule{Kind: rule.SameValue, Reg: rule.CFA}
	return &Arch{
		Name:      "aarch64",
		Machine:   elf.EM_AARCH64,
		ByteOrder: order,
		PtrSize:   8,
		PC:        arm64PC, SP: arm64SP, FP: arm64FP, RA: arm64LR,
		// x19-x29 (AAPCS64 §6.1.1; d8-d15, DWARF 72-79, are not tracked).
		CalleeSaved: []rule.Reg{19, 20, 21, 22, 23, 24, 25, 26, 27, 28, arm64FP},
		Entry: rule.Row{
			CFA: rule.Rule{Kind: rule.ValOffset, Reg: arm64SP},
			RA:  same,
			FP:  same,
		},
		RegNames: namesOf(names, 0),
		// ELF for the Arm 64-bit Architecture, "Static data relocations".
		Relocs: map[uint32]Reloc{
			uint32(elf.R_AARCH64_NONE):   {0, false},
			uint32(elf.R_AARCH64_PREL32): {4, true},
			uint32(elf.R_AARCH64_PREL64): {8, true},
			uint32(elf.R_AARCH64_ABS32):  {4, false},
			uint32(elf.R_AARCH64_ABS64):  {8, false},
		},
		PAuth: true,
		// pr_reg (112 bytes into elf_prstatus) is struct user_pt_regs
		// (arch/arm64/include/uapi/asm/ptrace.h): x0-x30, sp, pc, pstate.
		Core: Core{Off: 112, Names: append(names[:33:33], "pstate"), Regs: append(slots[:33:33], -1)},
		Chain: Chain{
			RA:        8,
			Ascending: true,
			Row: rule.Row{
				RA: rule.Rule{Kind: rule.Offset, Reg: arm64FP, Offset: 8},
				FP: rule.Rule{Kind: rule.Offset, Reg: arm64FP, Offset: 0},
			},
			Expected: "expected in leaf functions, and with -fomit-frame-pointer",
		},
		Signal: Signal{
			Regs:     128 + 176 + 8,
			Slots:    slots,
			TrampLen: 8,
			Tramp:    arm64Tramp,
		},
		Decoder: ARM64{},
	}
}

func init() {
	register(ARM64Arch)
	register(ARM64BEArch)
}
