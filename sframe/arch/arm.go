package arch

import (
	"debug/elf"
	"encoding/binary"
	"strconv"

	"github.com/sfdbg/sfdbg/sframe/rule"
)

// ARM (AArch32) DWARF register numbers ("DWARF for the Arm Architecture",
// table 1: r0-r15 are 0-15; s0-s31 are the obsolescent 64-95, which GCC's
// CFI still uses for the VFP registers it saves; d0-d31 are 256-287).
const (
	armFP rule.Reg = 11 // r11, the frame pointer in ARM state (r7 in Thumb)
	armSP rule.Reg = 13
	armLR rule.Reg = 14
	armPC rule.Reg = 15
	// armCPSR is the register slot of the CPSR, which has no DWARF
	// number: 33 lies in the range DWARF for the Arm Architecture leaves
	// unallocated (16-63), and below frames.MaxReg.
	armCPSR    rule.Reg = 33
	armThumbFP rule.Reg = 7 // r7, the frame pointer in Thumb state
	// ARMS0 and ARMD0 are the DWARF numbers of VFP registers s0 and d0.
	ARMS0 rule.Reg = 64
	ARMD0 rule.Reg = 256
)

// ARMArch is little-endian 32-bit ARM (AAPCS, armhf and armel), ARMBEArch
// big-endian: 4-byte pointers, the RA in the link register r14 at entry,
// where the CFA is sp+0. The frame pointer is r11 (GCC's in ARM state;
// Thumb code uses r7, which rows then carry among the other registers).
// Its unwind tables are EHABI's (.ARM.exidx/.ARM.extab, package
// frames/ehabi) and DWARF CFI (.debug_frame); there is no SFrame ABI for
// it and no decoder yet. Code addresses carry the Thumb bit (Thumb).
//
// The core layout is the ELFCLASS32 one (fs/binfmt_elf.c, qemu-user's
// linux-user/elfload.c): pr_reg lies 72 bytes into the 32-bit struct
// elf_prstatus and is struct pt_regs (arch/arm/include/uapi/asm/ptrace.h):
// uregs[18], r0-r15, cpsr, orig_r0, 32-bit words.
var (
	ARMArch   = newARM(binary.LittleEndian)
	ARMBEArch = newARM(binary.BigEndian)
)

func newARM(order binary.ByteOrder) *Arch {
	names := make([]string, 0, 16)
	for i := range 13 {
		names = append(names, "r"+strconv.Itoa(i))
	}
	names = append(names, "sp", "lr", "pc")
	slots := make([]rule.Reg, 0, 18)
	for i := range 16 {
		slots = append(slots, rule.Reg(i))
	}
	slots = append(slots, armCPSR, -1)
	regs := namesOf(names, 0)
	regs[armCPSR] = "cpsr"
	for i := range 32 {
		regs[ARMS0+rule.Reg(i)] = "s" + strconv.Itoa(i)
		regs[ARMD0+rule.Reg(i)] = "d" + strconv.Itoa(i)
	}
	same := rule.Rule{Kind: rule.SameValue, Reg: rule.CFA}
	return &Arch{
		Name:      "arm",
		Machine:   elf.EM_ARM,
		ByteOrder: order,
		PtrSize:   4,
		PC:        armPC, SP: armSP, FP: armFP, RA: armLR,
		// r4-r11 (AAPCS §5.1.1; d8-d15 are not tracked).
		CalleeSaved: []rule.Reg{4, 5, 6, 7, 8, 9, 10, armFP},
		Entry: rule.Row{
			CFA: rule.Rule{Kind: rule.ValOffset, Reg: armSP},
			RA:  same,
			FP:  same,
		},
		RegNames: regs,
		// ELF for the Arm Architecture, "Static Data relocations".
		Relocs: map[uint32]Reloc{
			uint32(elf.R_ARM_NONE):  {0, false},
			uint32(elf.R_ARM_ABS32): {4, false},
			uint32(elf.R_ARM_REL32): {4, true},
		},
		Core: Core{Off: 72, Names: append(names[:16:16], "cpsr", "orig_r0"), Regs: slots},
		// In Thumb state the chain is the AAPCS frame record through r7
		// ("push {r7, lr}; mov r7, sp", as clang and GCC without locals
		// leave it): the caller's r7 at r7, the LR at r7+4, the CFA r7+8.
		// r11 keeps its value.
		Thumb: &Thumb{CPSR: armCPSR, FP: armThumbFP, Chain: Chain{
			RA:  4,
			CFA: 8,
			Row: rule.Row{
				CFA: rule.Rule{Kind: rule.ValOffset, Reg: armThumbFP, Offset: 8},
				RA:  rule.Rule{Kind: rule.Offset, Reg: armThumbFP, Offset: 4},
				FP:  same,
			},
			Expected: "expected in leaf functions, without -fno-omit-frame-pointer, and in Thumb functions with locals (GCC sets r7 below them)",
		}},
		EHABI: true,
		// In ARM state, GCC's frame (-fno-omit-frame-pointer, as the
		// arm kernel unwinder reads user frames) is "push {..., fp, lr};
		// add fp, sp, #N": fp points at the saved LR, the caller's fp
		// is the word below it, and the CFA is fp+4.
		// arch/arm/kernel/signal.c: struct sigframe is the ucontext
		// (uc_flags, uc_link, uc_stack: 20 bytes), whose struct
		// sigcontext (asm/sigcontext.h) holds trap_no, error_code,
		// oldmask, then arm_r0-arm_r10, fp, ip, sp, lr, pc, cpsr: r0 is
		// 32 bytes in; struct rt_sigframe has the 128-byte siginfo first.
		Signal: Signal{
			Regs:      128 + 32,
			NonRTRegs: 32,
			Slots:     slots[:17],
			Word:      4,
			TrampLen:  8,
			Tramp:     armTramp,
		},
		Chain: Chain{
			RA:  0,
			FP:  -4,
			CFA: 4,
			Row: rule.Row{
				CFA: rule.Rule{Kind: rule.ValOffset, Reg: armFP, Offset: 4},
				RA:  rule.Rule{Kind: rule.Offset, Reg: armFP, Offset: 0},
				FP:  rule.Rule{Kind: rule.Offset, Reg: armFP, Offset: -4},
			},
			Expected: "expected in leaf functions, without -fno-omit-frame-pointer, and in Thumb functions with locals (GCC sets r7 below them)",
		},
	}
}

// Signal trampolines: "mov r7, #119 (__NR_sigreturn) or #173
// (__NR_rt_sigreturn); svc 0" in ARM state (the kernel's sigreturn_codes),
// in Thumb with "movs r7, #N" (the kernel's) or "mov.w r7, #N" (glibc's
// __default_sa_restorer and __default_rt_sa_restorer), as gdb's
// arm-linux-tdep.c recognises them. Instructions are little-endian
// (BE8) in either data byte order.
func armTramp(code []byte) (rt, ok bool) {
	if len(code) < 6 {
		return false, false
	}
	le := binary.LittleEndian
	nr := func(n uint32) (rt, ok bool) {
		switch n {
		case 119:
			return false, true
		case 173:
			return true, true
		}
		return false, false
	}
	if len(code) >= 8 && le.Uint32(code)&^0xff == 0xe3a07000 && le.Uint32(code[4:]) == 0xef000000 {
		return nr(le.Uint32(code) & 0xff)
	}
	if h := le.Uint16(code); h&^0xff == 0x2700 && le.Uint16(code[2:]) == 0xdf00 {
		return nr(uint32(h & 0xff))
	}
	if le.Uint16(code) == 0xf04f && le.Uint16(code[2:])&^0xff == 0x0700 && le.Uint16(code[4:]) == 0xdf00 {
		return nr(uint32(le.Uint16(code[2:]) & 0xff))
	}
	return false, false
}

func init() {
	register(ARMArch)
	register(ARMBEArch)
}
