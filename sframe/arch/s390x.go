package arch

import (
	"debug/elf"
	"encoding/binary"
	"strconv"

	"github.com/sfdbg/sfdbg/sframe/rule"
)

// s390x DWARF register numbers (s390x ELF ABI supplement, "DWARF
// definition": r0-r15 are 0-15, the FPRs 16-31 in the order f0 f2 f4 f6
// f1 f3 f5 f7 f8 f10 f12 f14 f9 f11 f13 f15).
const (
	s390xFP rule.Reg = 11
	s390xRA rule.Reg = 14
	s390xSP rule.Reg = 15
	// s390xPC is the slot of the PSW address (the PC). Its DWARF number,
	// 65, lies beyond the 64 slots a register set indexed by DWARF number
	// holds; 33, a control register no user-space CFI names, is free.
	s390xPC rule.Reg = 33
)

// s390x stack frame: 160 bytes, whose register save area holds r14 at 112
// (s390x ELF ABI supplement, "Stack frame").
const (
	s390xFrameSize = 160
	s390xSaveRA    = 112
)

// Signal trampolines: "svc 173" (__NR_rt_sigreturn) or "svc 119"
// (__NR_sigreturn) (gdb/s390-linux-tdep.c).
const (
	s390xSvcRtSigreturn = 0x0aad
	s390xSvcSigreturn   = 0x0a77
)

// S390XArch is s390x (64-bit, big-endian; s390x ELF ABI supplement): SP
// r15, FP r11, RA in r14 at entry, where the CFA is r15+160 (the caller's
// SP plus its register save area, so the caller's SP is CFA-160).
//
// The frame-pointer chain is the back chain (-mbackchain): the word at SP
// is the caller's SP, the caller's r14 (the RA) lies in the caller's save
// area at its SP + 112, and the CFA is the caller's SP + 160; the FP (r11)
// is not recovered.
//
// The signal frame (arch/s390/kernel/signal.c rt_sigframe): 160 bytes of
// the callee's save area, the 2-byte svc_insn (padded to 8: siginfo is
// 8-aligned), siginfo (128), then uc_flags, uc_link, uc_stack (40) and
// uc_mcontext, a _sigregs: the PSW (mask, address), then r0-r15; gdb's
// s390_sigtramp_frame_unwind_cache uses the same offset. A non-rt frame
// (sigframe) holds, after the 160 bytes, a struct sigcontext whose second
// word points at the _sigregs.
var S390XArch = newS390X()

// s390xTramp recognises the signal trampolines.
func s390xTramp(code []byte) (rt, ok bool) {
	if len(code) < 2 {
		return false, false
	}
	switch binary.BigEndian.Uint16(code) {
	case s390xSvcRtSigreturn:
		return true, true
	case s390xSvcSigreturn:
		return false, true
	}
	return false, false
}

func newS390X() *Arch {
	names := make([]string, 0, 34)
	for i := range 16 {
		names = append(names, "r"+strconv.Itoa(i))
	}
	names = append(names, "f0", "f2", "f4", "f6", "f1", "f3", "f5", "f7",
		"f8", "f10", "f12", "f14", "f9", "f11", "f13", "f15")
	regNames := namesOf(names, 0)
	regNames[s390xPC] = "pswa"
	slots := []rule.Reg{-1, s390xPC} // PSW mask (no DWARF number), address
	for i := range 16 {
		slots = append(slots, rule.Reg(i))
	}
	same := rule.Rule{Kind: rule.SameValue, Reg: rule.CFA}
	return &Arch{
		Name:      "s390x",
		Machine:   elf.EM_S390,
		ByteOrder: binary.BigEndian,
		PtrSize:   8,
		PC:        s390xPC, SP: s390xSP, FP: s390xFP, RA: s390xRA,
		// r6-r13 and f8-f15 (DWARF 24-31; "Register usage").
		CalleeSaved: []rule.Reg{6, 7, 8, 9, 10, s390xFP, 12, 13, 24, 25, 26, 27, 28, 29, 30, 31},
		Entry: rule.Row{
			CFA:      rule.Rule{Kind: rule.ValOffset, Reg: s390xSP, Offset: s390xFrameSize},
			RA:       same,
			FP:       same,
			SPOffset: -s390xFrameSize,
		},
		RegNames: regNames,
		// pr_reg (112 bytes into the big-endian elf_prstatus) is
		// s390_regs (arch/s390/include/uapi/asm/ptrace.h): the PSW
		// (mask, address), then r0-r15; the access registers and
		// orig_gpr2 that follow are not read.
		Core: Core{Off: 112, Names: append([]string{"pswm", "pswa"}, names[:16]...), Regs: slots},
		// s390x ELF ABI supplement, "Relocation Types".
		Relocs: map[uint32]Reloc{
			uint32(elf.R_390_NONE): {0, false},
			uint32(elf.R_390_PC32): {4, true},
			uint32(elf.R_390_PC64): {8, true},
			uint32(elf.R_390_32):   {4, false},
			uint32(elf.R_390_64):   {8, false},
		},
		SPOffset: -s390xFrameSize,
		Chain: Chain{
			BackChain: true,
			RA:        s390xSaveRA,
			CFA:       s390xFrameSize,
			Row: rule.Row{
				CFA:      rule.Rule{Kind: rule.Offset, Reg: s390xSP, Offset: 0},
				RA:       rule.Rule{Kind: rule.Offset, Reg: rule.CFA, Offset: s390xSaveRA - s390xFrameSize},
				FP:       same,
				SPOffset: -s390xFrameSize,
			},
			Expected: "the s390x back chain: expected without -mbackchain",
		},
		Signal: Signal{
			Regs:         s390xFrameSize + 8 + 128 + 40,
			Slots:        slots,
			IndirectRegs: s390xFrameSize + 8,
			TrampLen:     2,
			Tramp:        s390xTramp,
		},
		Decoder: S390X{},
	}
}

func init() { register(S390XArch) }
