package frames

import (
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/sfdbg/sfdbg/sframe"
	"github.com/sfdbg/sfdbg/sframe/rule"
)

// Layout of the Linux x86-64 signal frame (arch/x86/include/uapi/asm/
// sigcontext.h, struct rt_sigframe in arch/x86/include/asm/sigframe.h),
// checked against glibc's ucontext_t (offsetof(ucontext_t, uc_mcontext) is
// 40, gregs[REG_RSP] at 160, gregs[REG_RIP] at 168) and the CFI glibc gives
// __restore_rt. When a handler returns into the restorer (__restore_rt),
// its "ret" has popped rt_sigframe.pretcode, so the restorer's SP points at
// rt_sigframe.uc, a struct ucontext:
//
//	uc_flags 8, uc_link 8, uc_stack 24, then uc_mcontext (struct sigcontext):
//	r8 r9 r10 r11 r12 r13 r14 r15 rdi rsi rbp rbx rdx rax rcx rsp rip ...
const (
	amd64UContextMContext = 40 // offsetof(struct ucontext, uc_mcontext)
	amd64SigcontextWords  = 17 // r8 .. rip
)

// amd64SigcontextRegs lists the DWARF numbers of the sigcontext registers
// in their order in struct sigcontext.
var amd64SigcontextRegs = [amd64SigcontextWords]rule.Reg{
	R8, R9, R10, R11, R12, R13, R14, R15, RDI, RSI, RBP, RBX, RDX, RAX, RCX, RSP, RIP,
}

// amd64SigcontextOff returns the offset of register r's slot from the
// ucontext (the restorer's SP), or -1.
func amd64SigcontextOff(r rule.Reg) int64 {
	for i, x := range amd64SigcontextRegs {
		if x == r {
			return amd64UContextMContext + 8*int64(i)
		}
	}
	return -1
}

// stepSignalAMD64 unwinds from a frame in a signal trampoline (an FDE with
// the v3 signal bit): the caller is the interrupted frame, whose registers
// all come from the ucontext at the trampoline's SP. The caller is marked
// Interrupted: its PC is exact, not a return address. f.CFA becomes the
// interrupted SP, as glibc's CFI for __restore_rt defines it.
//
// The FRE's own CFA rule must name the sigcontext's RSP slot, SP+160
// (either its address or, with a FLEX dereference, its value): any other
// rule means the SFrame data does not describe the kernel's frame, and the
// step fails with ReasonBadFrame rather than silently using the layout.
func (u *SFrameUnwinder) stepSignalAMD64(f *Frame, mod *Module, cfa rule.Rule) (Frame, error) {
	sp, ok := f.Regs.Get(RSP)
	if !ok {
		return Frame{}, &StopError{Method: MethodSFrame, Reason: ReasonUnsafe, PC: f.PC, Module: mod.Name,
			Msg: fmt.Sprintf("signal frame at PC %#x in %s: SP unknown", f.PC, mod.Name)}
	}
	slot := amd64SigcontextOff(RSP)
	if cfa.Reg != RSP || cfa.Offset != slot ||
		(cfa.Kind != rule.ValOffset && cfa.Kind != rule.Offset) {
		f.Row.CFA = cfa
		return Frame{}, &StopError{Method: MethodSFrame, Reason: ReasonBadFrame, PC: f.PC, Module: mod.Name,
			Msg: fmt.Sprintf("signal frame at PC %#x in %s: the FRE's CFA rule %v does not locate the kernel's saved RSP (rsp+%d)",
				f.PC, mod.Name, RuleString(cfa), slot)}
	}
	f.Row.CFA = rule.Rule{Kind: rule.Offset, Reg: RSP, Offset: slot}
	f.Row.RA = rule.Rule{Kind: rule.Offset, Reg: RSP, Offset: amd64SigcontextOff(RIP)}
	f.Row.FP = rule.Rule{Kind: rule.Offset, Reg: RSP, Offset: amd64SigcontextOff(RBP)}
	caller, err := interruptedCaller(u.Space, f, MethodSFrame, sp+amd64UContextMContext, amd64SigcontextRegs[:])
	if err != nil {
		err.Module, err.Msg = mod.Name, fmt.Sprintf("signal frame at PC %#x in %s: %s", f.PC, mod.Name, err.Msg)
		return Frame{}, err
	}
	f.CFA = caller.Regs.SP()
	return caller, nil
}

// interruptedCaller returns the caller of f that a signal interrupted,
// with the registers the kernel saved at addr, one 64-bit word each in
// the target's byte order, slots naming each word's DWARF register (-1:
// none). The caller is Interrupted: its PC is exact. Its error is a
// ReasonMemory *StopError whose Msg says what could not be read.
func interruptedCaller(space *Space, f *Frame, method Method, addr uint64, slots []rule.Reg) (Frame, *StopError) {
	buf := make([]byte, 8*len(slots))
	if n, err := space.Mem.ReadAt(buf, addr); n < len(buf) {
		if err == nil {
			err = fmt.Errorf("short read (%d of %d bytes)", n, len(buf))
		}
		return Frame{}, &StopError{Method: method, Reason: ReasonMemory, PC: f.PC, Err: &MemoryError{Addr: addr, Err: err},
			Msg: fmt.Sprintf("cannot read the saved registers at %#x: %v", addr, err)}
	}
	order := ByteOrder(space.Mem)
	caller := Frame{Level: f.Level + 1, Method: method, Interrupted: true, Regs: f.Regs.empty()}
	for i, r := range slots {
		if r >= 0 {
			caller.Regs.Set(r, order.Uint64(buf[8*i:]))
		}
	}
	caller.PC = caller.Regs.PC()
	caller.locate(space.Modules)
	return caller, nil
}

// SectionSigtramp is the Source.Section of a row made from the kernel's
// signal frame layout for a trampoline recognised by its code (no unwind
// data describes it).
const SectionSigtramp = "[sigtramp]"

// Signal trampolines recognised by their code, as gdb's tramp_frame
// unwinders do (gdb/aarch64-linux-tdep.c, s390-linux-tdep.c), where no
// DWARF CFI covers them: qemu-user's trampoline page, a kernel's vDSO
// without CFI.
//
//	AArch64: mov x8, #139 (__NR_rt_sigreturn); svc #0
//	s390x:   svc 173 (__NR_rt_sigreturn), or svc 119 (__NR_sigreturn)
const (
	aarch64MovX8RtSigreturn = 0xd2801168
	aarch64Svc0             = 0xd4000001
	s390xSvcRtSigreturn     = 0x0aad
	s390xSvcSigreturn       = 0x0a77
)

// Offsets of the saved registers from the SP at the trampoline.
//
// AArch64 (arch/arm64/kernel/signal.c struct rt_sigframe, uapi
// asm/sigcontext.h): siginfo (128 bytes), then the ucontext, whose
// uc_mcontext is 176 bytes in; struct sigcontext holds fault_address, then
// x0-x30, sp, pc.
//
// s390x (arch/s390/kernel/signal.c rt_sigframe): 160 bytes of the
// callee's save area, the 2-byte svc_insn (padded to 8: siginfo is
// 8-aligned), siginfo (128), then uc_flags, uc_link, uc_stack (40) and
// uc_mcontext, a _sigregs: the PSW (mask, address), then r0-r15; gdb's
// s390_sigtramp_frame_unwind_cache uses the same offset. A non-rt frame
// (sigframe) holds, after the 160 bytes, a struct sigcontext whose second
// word points at the _sigregs.
// aarch64SigcontextSlots and s390xSigregsSlots name the saved words:
// AArch64's x0-x30, sp, pc; s390x's PSW mask (no DWARF number), PSW
// address, r0-r15.
var (
	aarch64SigcontextSlots = [...]rule.Reg{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
		17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, sframe.AArch64RegSP, AArch64PC}
	s390xSigregsSlots = [...]rule.Reg{-1, S390XPC, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}
)

const (
	aarch64SigcontextRegs = 128 + 176 + 8
	s390xRtSigregs        = 160 + 8 + 128 + 40
	s390xSigcontextSregs  = 160 + 8
)

// sigtramp reports whether pc is the first instruction of a signal
// trampoline of abi (AArch64 or s390x), reading its code from mem. rt is
// false for an s390x non-rt (sigreturn) trampoline.
func sigtramp(mem Memory, abi sframe.ABI, pc uint64) (rt, ok bool) {
	var code [8]byte
	switch {
	case abi.IsAArch64():
		if n, _ := mem.ReadAt(code[:], pc); n < 8 {
			return false, false
		}
		// A64 instructions are little-endian in either data byte order.
		le := binary.LittleEndian
		return true, le.Uint32(code[:]) == aarch64MovX8RtSigreturn && le.Uint32(code[4:]) == aarch64Svc0
	case abi == sframe.ABIS390XBigEndian:
		if n, _ := mem.ReadAt(code[:2], pc); n < 2 {
			return false, false
		}
		switch binary.BigEndian.Uint16(code[:]) {
		case s390xSvcRtSigreturn:
			return true, true
		case s390xSvcSigreturn:
			return false, true
		}
	}
	return false, false
}

// stepSigtramp unwinds from a frame whose PC is a signal trampoline that
// no unwind data covers (sigtramp), for method: the caller is the
// interrupted frame, with every register the kernel saved, marked
// Interrupted. f.Row is a signal row whose rules locate the saved PC and
// FP and, on AArch64, give the CFA as the saved SP (Section
// SectionSigtramp; on s390x the CFA rule is undefined: see below); f.CFA is
// such that the caller's SP is CFA plus the ABI's SP offset, as for the
// AMD64 trampoline. ok is false
// when f's PC is no trampoline.
func stepSigtramp(space *Space, f *Frame, method Method) (caller Frame, ok bool, err error) {
	abi := f.Regs.abi()
	rt, ok := sigtramp(space.Mem, abi, f.PC)
	if !ok {
		return Frame{}, false, nil
	}
	sp, known := f.Regs.Get(f.Regs.SPReg)
	fail := func(r Reason, err error, format string, args ...any) (Frame, bool, error) {
		return Frame{}, true, &StopError{Method: method, Reason: r, PC: f.PC, Err: err,
			Msg: fmt.Sprintf("signal frame at PC %#x: ", f.PC) + fmt.Sprintf(format, args...)}
	}
	if !known {
		return fail(ReasonUnsafe, nil, "SP unknown")
	}
	var (
		regs  uint64     // address of the first saved register
		slots []rule.Reg // the register of each saved word
	)
	if abi.IsAArch64() {
		regs, slots = sp+aarch64SigcontextRegs, aarch64SigcontextSlots[:]
	} else {
		regs, slots = sp+s390xRtSigregs, s390xSigregsSlots[:]
		if !rt {
			p, err := ReadUint64(space.Mem, sp+s390xSigcontextSregs)
			if err != nil {
				return fail(ReasonMemory, err, "cannot read the sigcontext's _sigregs pointer at %#x: %v", sp+s390xSigcontextSregs, err)
			}
			regs = p
		}
	}
	caller, serr := interruptedCaller(space, f, method, regs, slots)
	if serr != nil {
		serr.Msg = fmt.Sprintf("signal frame at PC %#x: %s", f.PC, serr.Msg)
		return Frame{}, true, serr
	}
	slot := func(r rule.Reg) int64 {
		if i := slices.Index(slots, r); i >= 0 {
			return int64(regs-sp) + 8*int64(i)
		}
		return 0
	}
	spOff := abi.SPValOffset()
	f.CFA = uint64(int64(caller.Regs.SP()) - spOff)
	f.Row = Row{
		Row: rule.Row{
			CFA:      rule.Rule{Kind: rule.Offset, Reg: f.Regs.SPReg, Offset: slot(f.Regs.SPReg)},
			RA:       rule.Rule{Kind: rule.Offset, Reg: f.Regs.SPReg, Offset: slot(f.Regs.PCReg)},
			FP:       rule.Rule{Kind: rule.Offset, Reg: f.Regs.SPReg, Offset: slot(f.Regs.FPReg)},
			Signal:   true,
			SPOffset: spOff,
		},
		Src:   Source{Method: method, Section: SectionSigtramp, FDE: -1, CIE: -1, FRE: -1, ABI: abi},
		Start: f.PC, End: f.PC + 8,
	}
	if spOff != 0 || !rt {
		// s390x: the CFA is the saved r15 plus 160, which no rule of
		// one dereference gives; a non-rt frame's registers are behind a
		// pointer besides.
		f.Row.CFA = rule.Rule{Kind: rule.Undefined}
	}
	return caller, true, nil
}
