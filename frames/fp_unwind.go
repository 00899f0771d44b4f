package frames

import (
	"fmt"

	"github.com/sfdbg/sfdbg/sframe"
	"github.com/sfdbg/sfdbg/sframe/rule"
)

// FPUnwinder follows the frame-pointer chain the way sampling profilers
// and the kernel do, without unwind data. On AMD64 (the RBP chain), in a
// frame whose FP is fp, the caller's FP is *(fp), its return address
// *(fp+8) and the CFA fp+16 (the caller's SP). On AArch64 (the frame-record
// chain, AAPCS64 §6.2.3) the caller's x29 is *(x29) and its PC *(x29+8);
// the record does not say where the frame ends, so the CFA and the
// caller's SP are unknown (0), and a record must lie above the one before
// it, as the kernel's arm64 unwinder requires. On s390x (the back chain,
// -mbackchain; s390x ELF ABI supplement, "Stack frame") the word at SP is
// the caller's SP, the caller's r14 (the return address) is in its
// register save area at caller SP + 112, and the CFA is the caller's SP +
// 160; the FP (r11) is not recovered. The chain is wrong wherever the
// register does not hold the frame's base: in a prologue and epilogue
// (frame 0), in leaf functions on AArch64 and s390x, and in code built
// without frame pointers (or back chains). Sanity checks: FP (s390x: back
// chain) not below SP, 8-byte aligned. 0 ends the chain: as the outermost
// frame (ReasonOutermost) where the ABI's rule says the chain ends there
// (outermostByABI: the entry point or a thread's start cleared the
// register), else as an incomplete trace (ReasonBadFrame: a caller built
// without frame pointers left 0 in the register).
type FPUnwinder struct {
	Space *Space
}

// Method implements Unwinder.
func (u *FPUnwinder) Method() Method { return MethodFP }

// aarch64FPRow is the frame-record rule: RA at x29+8, FP at x29, the CFA
// unknown.
var aarch64FPRow = Row{
	Row: rule.Row{
		RA: rule.Rule{Kind: rule.Offset, Reg: sframe.AArch64RegFP, Offset: 8},
		FP: rule.Rule{Kind: rule.Offset, Reg: sframe.AArch64RegFP, Offset: 0},
	},
	Src: Source{Method: MethodFP, FDE: -1, CIE: -1, FRE: -1, ABI: sframe.ABIAArch64LittleEndian},
}

// s390xBackChainRow is the back-chain rule: the caller's SP is *(r15),
// the RA in its save area, the CFA 160 above it.
var s390xBackChainRow = Row{
	Row: rule.Row{
		CFA:      rule.Rule{Kind: rule.Offset, Reg: sframe.S390XRegSP, Offset: 0},
		RA:       rule.Rule{Kind: rule.Offset, Reg: rule.CFA, Offset: s390xSaveRA - s390xFrameSize},
		FP:       rule.Rule{Kind: rule.SameValue, Reg: rule.CFA},
		SPOffset: -s390xFrameSize,
	},
	Src: Source{Method: MethodFP, FDE: -1, CIE: -1, FRE: -1, ABI: sframe.ABIS390XBigEndian},
}

// The s390x stack frame: 160 bytes of which the register save area holds
// r14 at 112 (s390x ELF ABI supplement, "Stack frame").
const (
	s390xFrameSize = 160
	s390xSaveRA    = 112
)

// stepBackChain follows the s390x back chain from f (see FPUnwinder).
func (u *FPUnwinder) stepBackChain(f *Frame, fault func(Reason, uint8, uint64, uint64) (Frame, error)) (Frame, error) {
	sp, ok := f.Regs.Get(sframe.S390XRegSP)
	if !ok {
		return fault(ReasonNoData, fpUnknown, 0, 0)
	}
	f.Row = s390xBackChainRow
	back, err := ReadUint64(u.Space.Mem, sp)
	var ra uint64
	if err == nil && back != 0 && back%8 == 0 && back > sp && back+s390xFrameSize > back {
		ra, err = ReadUint64(u.Space.Mem, back+s390xSaveRA)
	}
	switch {
	case err != nil:
		se := &StopError{Method: MethodFP, Reason: ReasonMemory, PC: f.PC, Err: err,
			Msg: fmt.Sprintf("back chain at %#x (PC %#x): %v", sp, f.PC, err)}
		if f.Module != nil {
			se.Module = f.Module.Name
		}
		return Frame{}, se
	case back == 0:
		return u.zeroFP(f, fault)
	case back%8 != 0:
		return fault(ReasonBadFrame, fpMisaligned, back, sp)
	case back <= sp:
		return fault(ReasonBadFrame, fpBelowSP, back, sp)
	case back+s390xFrameSize < back:
		return fault(ReasonBadFrame, fpWraps, back, sp)
	}
	f.CFA = back + s390xFrameSize
	caller := u.linkCaller(f, ra)
	caller.Regs.Set(sframe.S390XRegSP, back)
	return caller, nil
}

// linkCaller is f's caller at PC ra on an ABI with a link register
// (AArch64's x30, s390x's r14), which holds ra in the caller too.
func (u *FPUnwinder) linkCaller(f *Frame, ra uint64) Frame {
	caller := Frame{Level: f.Level + 1, PC: ra, Method: MethodFP, Regs: f.Regs.empty()}
	caller.Regs.Set(caller.Regs.PCReg, ra)
	caller.Regs.Set(f.Regs.raReg(), ra)
	caller.locate(u.Space.Modules)
	return caller
}

var fpRow = Row{
	Row: rule.Row{
		CFA: rule.Rule{Kind: rule.ValOffset, Reg: RBP, Offset: 16},
		RA:  rule.Rule{Kind: rule.Offset, Reg: rule.CFA, Offset: -8},
		FP:  rule.Rule{Kind: rule.Offset, Reg: rule.CFA, Offset: -16},
	},
	Src: Source{Method: MethodFP, FDE: -1, CIE: -1, FRE: -1},
}

// zeroFP ends the chain at frame f, whose FP (s390x: back chain) is 0:
// at the outermost frame when the ABI's rule says so (outermostByABI),
// else as a stop that leaves the trace incomplete.
func (u *FPUnwinder) zeroFP(f *Frame, fault func(Reason, uint8, uint64, uint64) (Frame, error)) (Frame, error) {
	name, ok := outermostByABI(f)
	if !ok {
		fr, err := fault(ReasonBadFrame, fpZeroEarly, 0, 0)
		err.(*StopError).Err.(*fpFault).fn = name
		return fr, err
	}
	f.Row.CFA, f.Row.RA, f.Row.Outermost = rule.Rule{}, rule.Rule{}, true
	return fault(ReasonOutermost, fpZero, 0, 0)
}

// threadStarts are the C libraries' functions that clear the frame
// pointer (s390x: the back chain) in a new thread before calling its
// start routine (glibc's clone3.S and clone.S, musl's __clone).
var threadStarts = map[string]bool{"clone": true, "__clone": true, "clone3": true, "__clone3": true,
	"thread_start": true, "__thread_start": true}

// outermostByABI reports whether frame f, whose FP is 0, is the outermost
// frame by the ABI's rule: the deepest frame is the one whose code
// cleared the register before its first call (x86-64 psABI §3.4.1 "the
// user code should mark the deepest stack frame by setting the frame
// pointer to zero"; AAPCS64 §6.2.3, the frame record chain ends at 0;
// the s390x ELF ABI supplement's back chain 0): the program's entry
// point (_start, the function holding the module's e_entry) or a thread's
// start in the C library's clone. A 0 seen in any other function was left
// there by a caller that does not keep frame pointers. name is f's
// function ("" when no symbol covers it: then it cannot be told).
func outermostByABI(f *Frame) (name string, ok bool) {
	m := f.Module
	if m == nil {
		return "", false
	}
	pc := f.LookupPC()
	name, off, found := m.FuncName(pc)
	if !found {
		return "", false
	}
	if threadStarts[name] {
		return name, true
	}
	if ef, err := m.File(); err == nil && ef.Entry != 0 {
		entry := ef.Entry + m.Bias
		en, eoff, ok := m.FuncName(entry)
		if ok && en == name && entry-eoff == pc-off {
			return name, true
		}
	}
	return name, false
}

// fpFault says why the frame-pointer chain stops at a frame; its message
// is made only when read (stopMessage).
type fpFault struct {
	why        uint8
	fp, pc, sp uint64
	fn         string // fpZeroEarly: the function, "" if unknown
}

// Reasons of an fpFault.
const (
	fpUnknown = iota
	fpZero
	fpMisaligned
	fpBelowSP
	fpWraps
	fpNotAbove  // AArch64: the next frame record is not above this one (sp holds this record's address)
	fpZeroEarly // 0 in a frame that is not the outermost by the ABI's rule
)

func (e *fpFault) Error() string { return e.stopMessage() }

func (e *fpFault) stopMessage() string {
	switch e.why {
	case fpUnknown:
		return fmt.Sprintf("frame pointer unknown at PC %#x", e.pc)
	case fpZero:
		return fmt.Sprintf("frame pointer is 0 at PC %#x: end of the chain", e.pc)
	case fpMisaligned:
		return fmt.Sprintf("frame pointer %#x at PC %#x is not 8-byte aligned", e.fp, e.pc)
	case fpBelowSP:
		return fmt.Sprintf("frame pointer %#x at PC %#x is below SP %#x", e.fp, e.pc, e.sp)
	case fpZeroEarly:
		if e.fn == "" {
			return fmt.Sprintf("frame pointer is 0 at PC %#x in an unknown function: maybe not outermost", e.pc)
		}
		return fmt.Sprintf("frame pointer is 0 at PC %#x in %s, not _start or clone: not outermost", e.pc, e.fn)
	case fpNotAbove:
		return fmt.Sprintf("frame record at %#x (PC %#x) links to %#x, not above it", e.sp, e.pc, e.fp)
	}
	return fmt.Sprintf("frame pointer %#x at PC %#x wraps around", e.fp, e.pc)
}

// Step implements Unwinder.
func (u *FPUnwinder) Step(f *Frame) (Frame, error) {
	fault := func(r Reason, why uint8, fp, sp uint64) (Frame, error) {
		se := &StopError{Method: MethodFP, Reason: r, PC: f.PC, Err: &fpFault{why: why, fp: fp, pc: f.PC, sp: sp}}
		if f.Module != nil {
			se.Module = f.Module.Name
		}
		return Frame{}, se
	}
	abi := f.Regs.abi()
	if abi == sframe.ABIS390XBigEndian {
		return u.stepBackChain(f, fault)
	}
	fp, ok := f.Regs.FP()
	if !ok {
		return fault(ReasonNoData, fpUnknown, 0, 0)
	}
	f.Row = fpRow
	if abi.IsAArch64() {
		f.Row = aarch64FPRow
	}
	if fp == 0 {
		return u.zeroFP(f, fault)
	}
	sp := f.Regs.SP()
	if fp%8 != 0 {
		return fault(ReasonBadFrame, fpMisaligned, fp, sp)
	}
	if sp != 0 && fp < sp {
		return fault(ReasonBadFrame, fpBelowSP, fp, sp)
	}
	if fp+16 < fp {
		return fault(ReasonBadFrame, fpWraps, fp, sp)
	}
	callerFP, err := ReadUint64(u.Space.Mem, fp)
	var ra uint64
	if err == nil {
		ra, err = ReadUint64(u.Space.Mem, fp+8)
	}
	if err != nil {
		se := &StopError{Method: MethodFP, Reason: ReasonMemory, PC: f.PC, Err: err,
			Msg: fmt.Sprintf("frame record at %#x (PC %#x): %v", fp, f.PC, err)}
		if f.Module != nil {
			se.Module = f.Module.Name
		}
		return Frame{}, se
	}
	if abi.IsAArch64() {
		if callerFP != 0 && callerFP < fp+16 {
			return fault(ReasonBadFrame, fpNotAbove, callerFP, fp)
		}
		// A frame record's LR may be signed (pac-ret): stripped, as the
		// kernel's unwinder does; a user address without a PAC is
		// unchanged.
		caller := u.linkCaller(f, u.Space.StripPAC(ra))
		caller.Regs.Set(sframe.AArch64RegFP, callerFP)
		return caller, nil
	}
	f.CFA = fp + 16
	caller := Frame{Level: f.Level + 1, PC: ra, Method: MethodFP}
	// The fields of NewRegs(AMD64), set in place: caller's registers are
	// zero, and a Regs value returned and copied costs more than the step.
	caller.Regs.PCReg, caller.Regs.SPReg, caller.Regs.FPReg, caller.Regs.ABI = RIP, RSP, RBP, sframe.ABIAMD64LittleEndian
	caller.Regs.Set(RIP, ra)
	caller.Regs.Set(RSP, fp+16)
	caller.Regs.Set(RBP, callerFP)
	caller.locate(u.Space.Modules)
	return caller, nil
}
