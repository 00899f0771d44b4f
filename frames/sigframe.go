package frames

import (
	"fmt"
	"slices"

	"github.com/sfdbg/sfdbg/sframe/arch"
	"github.com/sfdbg/sfdbg/sframe/rule"
)

// stepSignal unwinds from a frame in a signal trampoline (an FDE with
// the v3 signal bit) on a machine whose signal frame SFrame's rows are
// followed with (arch.Signal.SFrame: AMD64): the caller is the
// interrupted frame, whose registers all come from the kernel's frame at
// the trampoline's SP (on AMD64 the ucontext). The caller is marked
// Interrupted: its PC is exact, not a return address. f.CFA becomes the
// interrupted SP, as glibc's CFI for __restore_rt defines it.
//
// The FRE's own CFA rule must name the saved SP's slot (AMD64: SP+160),
// either its address or, with a FLEX dereference, its value: any other
// rule means the SFrame data does not describe the kernel's frame, and the
// step fails with ReasonBadFrame rather than silently using the layout.
func (u *SFrameUnwinder) stepSignal(f *Frame, mod *Module, a *arch.Arch, cfa rule.Rule) (Frame, error) {
	sg := &a.Signal
	sp, ok := f.Regs.Get(a.SP)
	if !ok {
		return Frame{}, &StopError{Method: MethodSFrame, Reason: ReasonUnsafe, PC: f.PC, Module: mod.Name,
			Msg: fmt.Sprintf("signal frame at PC %#x in %s: SP unknown", f.PC, mod.Name)}
	}
	slot := sg.Slot(a.SP)
	if cfa.Reg != a.SP || cfa.Offset != slot ||
		(cfa.Kind != rule.ValOffset && cfa.Kind != rule.Offset) {
		f.Row.CFA = cfa
		return Frame{}, &StopError{Method: MethodSFrame, Reason: ReasonBadFrame, PC: f.PC, Module: mod.Name,
			Msg: fmt.Sprintf("signal frame at PC %#x in %s: the FRE's CFA rule %v does not locate the kernel's saved SP (%s+%d)",
				f.PC, mod.Name, a.Format(cfa), a.RegName(a.SP), slot)}
	}
	f.Row.CFA = rule.Rule{Kind: rule.Offset, Reg: a.SP, Offset: slot}
	f.Row.RA = rule.Rule{Kind: rule.Offset, Reg: a.SP, Offset: sg.Slot(a.PC)}
	f.Row.FP = rule.Rule{Kind: rule.Offset, Reg: a.SP, Offset: sg.Slot(a.FP)}
	caller, err := interruptedCaller(u.Space, f, MethodSFrame, sp+uint64(sg.Regs), sg.Slots)
	if err != nil {
		err.Module, err.Msg = mod.Name, fmt.Sprintf("signal frame at PC %#x in %s: %s", f.PC, mod.Name, err.Msg)
		return Frame{}, err
	}
	f.CFA = caller.Regs.SP()
	return caller, nil
}

// interruptedCaller returns the caller of f that a signal interrupted,
// with the registers the kernel saved at addr, one word each (8 bytes, 4
// on 32-bit ARM: arch.Signal.WordSize) in the target's byte order, slots
// naming each word's DWARF register (-1: none). The caller is
// Interrupted: its PC is exact. Its error is a ReasonMemory *StopError
// whose Msg says what could not be read.
func interruptedCaller(space *Space, f *Frame, method Method, addr uint64, slots []rule.Reg) (Frame, *StopError) {
	w := f.Regs.arch().Signal.WordSize()
	buf := make([]byte, w*len(slots))
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
		if r < 0 {
			continue
		}
		if w == 4 {
			caller.Regs.Set(r, uint64(order.Uint32(buf[4*i:])))
		} else {
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

// sigtramp reports whether pc is the first instruction of a signal
// trampoline of machine a (arch.Signal.Tramp: AArch64, s390x), reading
// its code from mem. rt is false for a non-rt (sigreturn) trampoline.
// The code method also knows the trampolines that only unwind data
// describes elsewhere (codeTramp: AMD64).
func sigtramp(space *Space, a *arch.Arch, pc uint64, method Method) (rt, ok bool) {
	tramp, n := a.Signal.Tramp, a.Signal.TrampLen
	if tramp == nil && method == MethodCode {
		tramp, n = codeTramp(a)
	}
	if tramp == nil {
		return false, false
	}
	var code [16]byte
	n = min(n, len(code))
	if method == MethodCode && space.Modules != nil {
		// The code method reads code from the module's file where
		// there is one (a snapshot of the stack has no code pages).
		if m := space.Modules.Find(pc); m != nil {
			if b := m.codeBytes(pc-m.Bias, n); b != nil {
				return tramp(b)
			}
		}
	}
	if got, _ := space.Mem.ReadAt(code[:n], pc); got < n {
		return false, false
	}
	return tramp(code[:n])
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
	a := f.Regs.arch()
	rt, ok := sigtramp(space, a, f.PC, method)
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
	regs, slots = sp+uint64(a.Signal.Regs), a.Signal.Slots
	if off := a.Signal.NonRTRegs; !rt && off != 0 {
		regs = sp + uint64(off)
	}
	if ind := a.Signal.IndirectRegs; !rt && ind != 0 {
		p, err := ReadPtr(space.Mem, sp+uint64(ind), a.PtrSize)
		if err != nil {
			return fail(ReasonMemory, err, "cannot read the sigcontext's _sigregs pointer at %#x: %v", sp+uint64(ind), err)
		}
		regs = p
	}
	caller, serr := interruptedCaller(space, f, method, regs, slots)
	if serr != nil {
		serr.Msg = fmt.Sprintf("signal frame at PC %#x: %s", f.PC, serr.Msg)
		return Frame{}, true, serr
	}
	slot := func(r rule.Reg) int64 {
		if i := slices.Index(slots, r); i >= 0 {
			return int64(regs-sp) + int64(a.Signal.WordSize())*int64(i)
		}
		return 0
	}
	spOff := a.SPOffset
	f.CFA = uint64(int64(caller.Regs.SP()) - spOff)
	f.Row = Row{
		Row: rule.Row{
			CFA:      rule.Rule{Kind: rule.Offset, Reg: f.Regs.SPReg, Offset: slot(f.Regs.SPReg)},
			RA:       rule.Rule{Kind: rule.Offset, Reg: f.Regs.SPReg, Offset: slot(f.Regs.PCReg)},
			FP:       rule.Rule{Kind: rule.Offset, Reg: f.Regs.SPReg, Offset: slot(f.Regs.FPReg)},
			Signal:   true,
			SPOffset: spOff,
		},
		Src:   Source{Method: method, Section: SectionSigtramp, FDE: -1, CIE: -1, FRE: -1, Arch: a},
		Start: f.PC, End: f.PC + 8,
	}
	if spOff != 0 || !rt && a.Signal.IndirectRegs != 0 {
		// s390x: the CFA is the saved r15 plus 160, which no rule of
		// one dereference gives; a non-rt frame's registers are behind a
		// pointer besides.
		f.Row.CFA = rule.Rule{Kind: rule.Undefined}
	}
	return caller, true, nil
}
