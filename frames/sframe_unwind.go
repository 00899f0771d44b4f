package frames

import (
	"errors"
	"fmt"

	"github.com/sfdbg/sfdbg/sframe"
	"github.com/sfdbg/sfdbg/sframe/arch"
	"github.com/sfdbg/sfdbg/sframe/rule"
)

// SFrameUnwinder unwinds with the modules' .sframe sections only, following
// the stack-trace algorithm of the SFrame specification (v3 Appendix A):
// DEFAULT FDEs (CFA from SP or FP plus an offset, RA and FP at fixed or
// per-FRE offsets from the CFA), FLEX FDEs (v3 §3.2: register bases and
// dereferences), PC-mask FDEs (PLT entries), the outermost-frame marker (an
// FRE without data words) and, on AMD64, v3 signal frames (the interrupted
// registers are read from the kernel's ucontext). It reads nothing but the
// SFrame data and the target's memory.
type SFrameUnwinder struct {
	Space *Space
}

// Method implements Unwinder.
func (u *SFrameUnwinder) Method() Method { return MethodSFrame }

// sframeHit is the result of a row lookup with the indices and PC range
// that Row.Source and Row.Start/End report.
type sframeHit struct {
	row        rule.Row
	fde        *sframe.FDE
	freIdx     int
	freOff     uint32
	start, end uint64 // link-time PC range of the FRE
}

// findRow finds the row covering the link-time address pc: the FDE, then
// the last FRE whose start is <= pc's offset into the function (PCTypeInc)
// or into its repeated block (PCTypeMask, spec v3 §2.3.3.1).
func findRow(sec *sframe.Section, pc uint64, h *sframeHit) error {
	fde, err := sec.FindFDE(pc)
	if err != nil {
		return err
	}
	h.fde = fde
	var fre sframe.FRE
	idx, freEnd, err := sec.FindFRERange(fde, pc, &fre)
	if err != nil {
		return err
	}
	// freEnd is relative to the function or, for PCTypeMask, to the block
	// holding pc (FindFRERange has rejected a zero RepSize).
	base, end := fde.Start, fde.End()
	if fde.PCType == sframe.PCTypeMask {
		rep := uint64(fde.RepSize)
		base += (pc - fde.Start) / rep * rep
		end = min(end, base+rep)
	}
	h.freIdx, h.freOff = idx, fre.Off
	h.start = base + uint64(fre.StartOff)
	end = min(end, base+uint64(freEnd))
	if err := sec.RowInto(&h.row, fde, &fre); err != nil {
		return err
	}
	h.end = end
	return nil
}

// lookup finds the row for frame f in module mod. For a frame whose PC is a
// return address it looks up PC-1; if that misses or lands in a previous
// function, and PC itself starts a signal trampoline (entered by the
// kernel, not by a call: glibc's __restore_rt), that FDE is used.
func (u *SFrameUnwinder) lookup(sec *sframe.Section, mod *Module, f *Frame, h *sframeHit) error {
	lpc := f.LookupPC() - mod.Bias
	err := findRow(sec, lpc, h)
	if f.Interrupted || (err == nil && h.fde.End() > lpc+1) {
		return err
	}
	if err != nil && !errors.Is(err, sframe.ErrNoFDE) {
		return err
	}
	var sig sframeHit
	if serr := findRow(sec, f.PC-mod.Bias, &sig); serr == nil && sig.row.Signal {
		*h = sig
		return nil
	}
	return err
}

// Step implements Unwinder.
func (u *SFrameUnwinder) Step(f *Frame) (Frame, error) {
	if f.PC == 0 {
		return Frame{}, &StopError{Method: MethodSFrame, Reason: ReasonBadFrame, Msg: "PC is 0"}
	}
	mod := f.Module
	if mod == nil || !mod.Contains(f.LookupPC()) {
		mod = u.Space.Modules.Find(f.LookupPC())
	}
	if mod == nil {
		return Frame{}, &StopError{Method: MethodSFrame, Reason: ReasonNoModule, PC: f.PC,
			Msg: fmt.Sprintf("PC %#x is in no module", f.PC)}
	}
	sec, err := mod.SFrame()
	if err != nil {
		se := &StopError{Method: MethodSFrame, Reason: ReasonNoData, PC: f.PC, Module: mod.Name, Err: err}
		var fe *sframe.FormatError
		switch {
		case errors.Is(err, sframe.ErrNoSection):
			se.Msg = fmt.Sprintf("no SFrame for PC %#x in %s", f.PC, mod.Name)
		case errors.As(err, new(*arch.UnknownMachineError)):
			se.Reason = ReasonUnsupported
			se.Msg = fmt.Sprintf("cannot unwind PC %#x: %v", f.PC, err)
		case errors.As(err, &fe):
			se.Reason = ReasonFormat
			se.Msg = fmt.Sprintf("bad SFrame section in %s: %v", mod.Name, err)
		default:
			se.Msg = fmt.Sprintf("cannot read SFrame for PC %#x: %v", f.PC, err)
		}
		return Frame{}, se
	}
	var h sframeHit
	if err := u.lookup(sec, mod, f, &h); err != nil {
		se := &StopError{Method: MethodSFrame, Reason: ReasonFormat, PC: f.PC, Module: mod.Name, Err: err}
		switch {
		case errors.Is(err, sframe.ErrNoFDE):
			se.Reason = ReasonNoFDE
			se.Msg = fmt.Sprintf("no SFrame FDE for PC %#x in %s", f.PC, mod.Name)
		case errors.Is(err, sframe.ErrNoFRE):
			se.Reason = ReasonNoRow
			se.Msg = fmt.Sprintf("SFrame FDE %d has no FRE for PC %#x in %s", h.fde.Index, f.PC, mod.Name)
		default:
			se.Msg = fmt.Sprintf("bad SFrame data for PC %#x in %s: %v", f.PC, mod.Name, err)
		}
		return Frame{}, se
	}
	a, _ := mod.Arch() // known: SFrame refuses an unknown machine
	if err := sframeRowInto(&f.Row, mod, a, &h.row, h.fde, h.freIdx); err != nil {
		return Frame{}, &StopError{Method: MethodSFrame, Reason: ReasonFormat, PC: f.PC, Module: mod.Name, Err: err,
			Msg: fmt.Sprintf("bad SFrame row for PC %#x in %s: %v", f.PC, mod.Name, err)}
	}
	f.Row.Start, f.Row.End = h.start+mod.Bias, h.end+mod.Bias
	if f.Row.Signal && !f.Row.Outermost {
		if !a.Signal.SFrame {
			return Frame{}, &StopError{Method: MethodSFrame, Reason: ReasonUnsupported, PC: f.PC, Module: mod.Name,
				Msg: fmt.Sprintf("signal frame at PC %#x in %s: SFrame signal frames of %s are not supported", f.PC, mod.Name, a.Name)}
		}
		return u.stepSignal(f, mod, a, f.Row.CFA)
	}
	var caller Frame
	err = stepRow(f, u.Space, &caller)
	return caller, err
}

// SFrameRow interprets FRE freIdx (fre) of fde, from sec, the .sframe
// section of mod, as a Row: the checked conversion of an SFrame FRE into
// the one row form (spec v3 §3 and Appendix A, through
// sframe.Section.RowInto). Start and End are left 0: the caller knows the
// range (a PC-mask FDE repeats its FREs). mod may be nil (Source.Module
// nil, FDE range at link-time addresses). Errors are *sframe.FormatError
// for data words that cannot be interpreted, or an error naming a rule kind
// SFrame cannot give.
func SFrameRow(mod *Module, sec *sframe.Section, fde *sframe.FDE, fre *sframe.FRE, freIdx int) (Row, error) {
	var r rule.Row
	if err := sec.RowInto(&r, fde, fre); err != nil {
		return Row{}, err
	}
	var row Row
	err := sframeRowInto(&row, mod, SFrameArch(sec.ABI), &r, fde, freIdx)
	return row, err
}

// SFrameArch returns the machine of SFrame ABI abi (sframe.ABI.Machine),
// nil for an ABI the format does not define.
func SFrameArch(abi sframe.ABI) *arch.Arch {
	m, order, ok := abi.Machine()
	if !ok {
		return nil
	}
	a, _ := arch.For(m, order)
	return a
}

// sframeRowInto converts the interpreted FRE r of fde into *dst, checking
// that its rules are of the kinds SFrame can express (a decoder fault
// otherwise).
func sframeRowInto(dst *Row, mod *Module, a *arch.Arch, r *rule.Row, fde *sframe.FDE, freIdx int) error {
	for _, x := range [...]rule.Kind{r.CFA.Kind, r.RA.Kind, r.FP.Kind} {
		if sframeRuleKinds&(1<<x) == 0 {
			return fmt.Errorf("SFrame FDE %d FRE %d: rule of kind %v", fde.Index, freIdx, x)
		}
	}
	var bias uint64
	if mod != nil {
		bias = mod.Bias
	}
	dst.Row, dst.Other, dst.Start, dst.End = *r, OtherRules{}, 0, 0
	dst.Src = Source{Method: MethodSFrame, Module: mod, Section: ".sframe", FDE: int64(fde.Index), CIE: -1,
		FRE: int32(freIdx), PCType: fde.PCType, Flex: fde.Type == sframe.FDETypeFlex,
		FDEStart: fde.Start + bias, FDEEnd: fde.End() + bias, Arch: a}
	return nil
}
