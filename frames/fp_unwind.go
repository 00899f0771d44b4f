package frames

import (
	"fmt"

	"github.com/sfdbg/sfdbg/sframe"
)

// FPUnwinder follows the frame-pointer (RBP) chain the way sampling
// profilers do: in a frame whose FP is fp, the caller's FP is *(fp), its
// return address *(fp+8) and the CFA fp+16 (the caller's SP). It needs no
// unwind data, and is wrong wherever FP does not hold the frame's base: in
// a function's prologue and epilogue (frame 0), and in code built without
// frame pointers. Sanity checks: FP not below SP, 8-byte aligned; FP 0 ends
// the chain (ReasonOutermost), as _start clears RBP.
type FPUnwinder struct {
	Space *Space
}

// Method implements Unwinder.
func (u *FPUnwinder) Method() Method { return MethodFP }

var fpRow = Row{
	Row: sframe.Row{
		CFA: sframe.Rule{Kind: sframe.RuleValOffset, Reg: RBP, Offset: 16},
		RA:  sframe.Rule{Kind: sframe.RuleOffset, Reg: sframe.RegCFA, Offset: -8},
		FP:  sframe.Rule{Kind: sframe.RuleOffset, Reg: sframe.RegCFA, Offset: -16},
	},
	Src: Source{Method: MethodFP, FDE: -1, CIE: -1, FRE: -1},
}

// fpFault says why the frame-pointer chain stops at a frame; its message
// is made only when read (stopMessage).
type fpFault struct {
	why        uint8
	fp, pc, sp uint64
}

// Reasons of an fpFault.
const (
	fpUnknown = iota
	fpZero
	fpMisaligned
	fpBelowSP
	fpWraps
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
	fp, ok := f.Regs.FP()
	if !ok {
		return fault(ReasonNoData, fpUnknown, 0, 0)
	}
	f.Row = fpRow
	if fp == 0 {
		f.Row.CFA, f.Row.RA, f.Row.Outermost = sframe.Rule{}, sframe.Rule{}, true
		return fault(ReasonOutermost, fpZero, 0, 0)
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
	f.CFA = fp + 16
	caller := Frame{Level: f.Level + 1, PC: ra, Method: MethodFP}
	// The fields of NewRegs(AMD64), set in place: caller's registers are
	// zero, and a Regs value returned and copied costs more than the step.
	caller.Regs.PCReg, caller.Regs.SPReg, caller.Regs.FPReg, caller.Regs.ABI = RIP, RSP, RBP, sframe.ABIAMD64LittleEndian
	caller.Regs.Set(RIP, ra)
	caller.Regs.Set(RSP, fp+16)
	caller.Regs.Set(RBP, callerFP)
	caller.Module = u.Space.Modules.Find(ra)
	return caller, nil
}
