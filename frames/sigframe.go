package frames

import (
	"encoding/binary"
	"fmt"

	"github.com/sfdbg/sfdbg/sframe"
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
var amd64SigcontextRegs = [amd64SigcontextWords]sframe.Reg{
	R8, R9, R10, R11, R12, R13, R14, R15, RDI, RSI, RBP, RBX, RDX, RAX, RCX, RSP, RIP,
}

// amd64SigcontextOff returns the offset of register r's slot from the
// ucontext (the restorer's SP), or -1.
func amd64SigcontextOff(r sframe.Reg) int64 {
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
func (u *SFrameUnwinder) stepSignalAMD64(f *Frame, mod *Module, cfa sframe.Rule) (Frame, error) {
	sp, ok := f.Regs.Get(RSP)
	if !ok {
		return Frame{}, &StopError{Method: MethodSFrame, Reason: ReasonUnsafe, PC: f.PC, Module: mod.Name,
			Msg: fmt.Sprintf("signal frame at PC %#x in %s: SP unknown", f.PC, mod.Name)}
	}
	slot := amd64SigcontextOff(RSP)
	if cfa.Reg != RSP || cfa.Offset != slot ||
		(cfa.Kind != sframe.RuleValOffset && cfa.Kind != sframe.RuleOffset) {
		f.Row.CFA = cfa
		return Frame{}, &StopError{Method: MethodSFrame, Reason: ReasonBadFrame, PC: f.PC, Module: mod.Name,
			Msg: fmt.Sprintf("signal frame at PC %#x in %s: the FRE's CFA rule %v does not locate the kernel's saved RSP (rsp+%d)",
				f.PC, mod.Name, RuleString(cfa), slot)}
	}
	f.Row.CFA = sframe.Rule{Kind: sframe.RuleOffset, Reg: RSP, Offset: slot}
	f.Row.RA = sframe.Rule{Kind: sframe.RuleOffset, Reg: RSP, Offset: amd64SigcontextOff(RIP)}
	f.Row.FP = sframe.Rule{Kind: sframe.RuleOffset, Reg: RSP, Offset: amd64SigcontextOff(RBP)}
	var buf [amd64SigcontextWords * 8]byte
	addr := sp + amd64UContextMContext
	if n, err := u.Space.Mem.ReadAt(buf[:], addr); n < len(buf) {
		if err == nil {
			err = fmt.Errorf("short read (%d of %d bytes)", n, len(buf))
		}
		return Frame{}, &StopError{Method: MethodSFrame, Reason: ReasonMemory, PC: f.PC, Module: mod.Name,
			Err: &MemoryError{Addr: addr, Err: err},
			Msg: fmt.Sprintf("signal frame at PC %#x in %s: cannot read the sigcontext at %#x: %v", f.PC, mod.Name, addr, err)}
	}
	caller := Frame{Level: f.Level + 1, Method: MethodSFrame, Interrupted: true}
	caller.Regs = NewRegs(sframe.ABIAMD64LittleEndian)
	for i, r := range amd64SigcontextRegs {
		caller.Regs.Set(r, binary.LittleEndian.Uint64(buf[8*i:]))
	}
	caller.PC = caller.Regs.PC()
	f.CFA = caller.Regs.SP()
	caller.Module = u.Space.Modules.Find(caller.PC)
	return caller, nil
}
