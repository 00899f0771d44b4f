package frames

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/sfdbg/sfdbg/sframe"
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
	row        sframe.Row
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
	if mod == nil || !mod.Contains(f.PC) {
		mod = u.Space.Modules.Find(f.PC)
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
	f.Row = RowFromSFrame(h.row)
	f.Row.Source, f.Row.Start, f.Row.End = mod.data.sframeSource(&h), h.start+mod.Bias, h.end+mod.Bias
	stop := func(r Reason, err error, format string, args ...any) (Frame, error) {
		return Frame{}, &StopError{Method: MethodSFrame, Reason: r, PC: f.PC, Module: mod.Name, Err: err,
			Msg: fmt.Sprintf(format, args...)}
	}
	if h.row.Outermost {
		return stop(ReasonOutermost, nil, "outermost frame at PC %#x in %s (%s: RA undefined)", f.PC, mod.Name, f.Row.Source)
	}
	if h.row.Signal {
		if sec.ABI != sframe.ABIAMD64LittleEndian {
			return stop(ReasonUnsupported, nil, "signal frame at PC %#x in %s: only AMD64 signal frames are supported", f.PC, mod.Name)
		}
		return u.stepSignalAMD64(f, mod, h.row.CFA)
	}
	if h.row.MangledRA {
		return stop(ReasonUnsupported, nil, "mangled (signed) RA at PC %#x in %s", f.PC, mod.Name)
	}

	e := ruleEval{f: f, mem: u.Space.Mem, abi: sec.ABI}
	cfa, err := e.eval(h.row.CFA, 0, true)
	if err != nil {
		return e.fail(f, mod, "CFA", h.row.CFA, err)
	}
	f.CFA = cfa
	ra, err := e.eval(h.row.RA, cfa, false)
	if err != nil {
		return e.fail(f, mod, "RA", h.row.RA, err)
	}
	caller := Frame{Level: f.Level + 1, PC: ra, Method: MethodSFrame}
	caller.Regs.PCReg, caller.Regs.SPReg, caller.Regs.FPReg = sec.ABI.RAReg(), sec.ABI.SPReg(), sec.ABI.FPReg()
	caller.Regs.Set(caller.Regs.PCReg, ra)
	caller.Regs.Set(caller.Regs.SPReg, uint64(int64(cfa)+h.row.SPOffset))
	if h.row.FP.Kind == sframe.RuleSameValue {
		if v, ok := f.Regs.FP(); ok {
			caller.Regs.Set(caller.Regs.FPReg, v)
		}
	} else {
		fp, err := e.eval(h.row.FP, cfa, false)
		if err != nil {
			return e.fail(f, mod, "FP", h.row.FP, err)
		}
		caller.Regs.Set(caller.Regs.FPReg, fp)
	}
	caller.Module = u.Space.Modules.Find(ra)
	return caller, nil
}

// sframeSource returns the Row.Source text of a hit, "sframe FDE 12 FRE 3",
// made once per FRE and then cached: this runs once per frame.
func (d *moduleData) sframeSource(h *sframeHit) string {
	key := uint64(h.fde.Index)<<32 | uint64(h.freIdx)
	if s, ok := d.sources.Load(key); ok {
		return s.(string)
	}
	b := make([]byte, 0, 40)
	b = append(b, "sframe FDE "...)
	b = strconv.AppendInt(b, int64(h.fde.Index), 10)
	b = append(b, " FRE "...)
	b = strconv.AppendInt(b, int64(h.freIdx), 10)
	if h.fde.Type == sframe.FDETypeFlex {
		b = append(b, " (flex)"...)
	}
	if h.row.Signal {
		b = append(b, " (signal)"...)
	}
	src := string(b)
	d.sources.Store(key, src)
	return src
}

// ruleEval evaluates SFrame rules in frame f.
type ruleEval struct {
	f   *Frame
	mem Memory
	abi sframe.ABI
}

// errUnsafe and errRegUnknown are the reasons a register base cannot be
// used.
var (
	errUnsafe     = errors.New("register only known in the topmost frame")
	errRegUnknown = errors.New("register value unknown")
)

// reg returns the value of register r in the frame. SP and FP are usable in
// every frame; other registers only in the topmost frame or in a frame whose
// registers were all restored from a signal frame (spec v3 Appendix A:
// ERR_SFRAME_UNSAFE_UNWIND).
func (e *ruleEval) reg(r sframe.Reg) (uint64, error) {
	if r != e.abi.SPReg() && r != e.abi.FPReg() && e.f.Level != 0 && !e.f.Interrupted {
		return 0, errUnsafe
	}
	v, ok := e.f.Regs.Get(r)
	if !ok {
		return 0, errRegUnknown
	}
	return v, nil
}

// eval evaluates rule r: base (a register, or the CFA cfa) plus offset,
// dereferenced for RuleOffset.
func (e *ruleEval) eval(r sframe.Rule, cfa uint64, isCFA bool) (uint64, error) {
	var base uint64
	switch r.Kind {
	case sframe.RuleOffset, sframe.RuleValOffset:
		if r.Reg == sframe.RegCFA {
			if isCFA {
				return 0, errors.New("CFA rule based on the CFA")
			}
			base = cfa
		} else {
			v, err := e.reg(r.Reg)
			if err != nil {
				return 0, err
			}
			base = v
		}
	case sframe.RuleRegister:
		return e.reg(r.Reg)
	case sframe.RuleSameValue:
		// RA still in its register (AArch64 LR, s390x r14): topmost only.
		if isCFA || e.abi.RAReg() == e.f.Regs.PCReg {
			return 0, errors.New("unsupported same-value rule")
		}
		return e.reg(e.abi.RAReg())
	default:
		return 0, fmt.Errorf("rule %v cannot be evaluated", r)
	}
	addr := uint64(int64(base) + r.Offset)
	if r.Kind == sframe.RuleValOffset {
		return addr, nil
	}
	return ReadUint64(e.mem, addr)
}

// fail turns an evaluation error into a StopError naming what failed.
func (e *ruleEval) fail(f *Frame, mod *Module, what string, r sframe.Rule, err error) (Frame, error) {
	se := &StopError{Method: MethodSFrame, Reason: ReasonUnsupported, PC: f.PC, Module: mod.Name, Err: err}
	var me *MemoryError
	switch {
	case errors.As(err, &me):
		se.Reason = ReasonMemory
		se.Msg = fmt.Sprintf("%s rule %v at PC %#x in %s: %v", what, RuleFromSFrame(r), f.PC, mod.Name, err)
	case errors.Is(err, errUnsafe):
		se.Reason = ReasonUnsafe
		se.Msg = fmt.Sprintf("%s rule %v at PC %#x in %s reads %s, known only in the topmost frame (frame %d)",
			what, RuleFromSFrame(r), f.PC, mod.Name, RegName(r.Reg), f.Level)
	case errors.Is(err, errRegUnknown):
		se.Reason = ReasonUnsafe
		se.Msg = fmt.Sprintf("%s rule %v at PC %#x in %s: the value of %s is unknown", what, RuleFromSFrame(r), f.PC, mod.Name, RegName(r.Reg))
	default:
		se.Msg = fmt.Sprintf("%s rule %v at PC %#x in %s: %v", what, RuleFromSFrame(r), f.PC, mod.Name, err)
	}
	return Frame{}, se
}
