package frames

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/sfdbg/sfdbg/frames/cfi"
	"github.com/sfdbg/sfdbg/sframe/arch"
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
// 160; the FP (r11) is not recovered. On 32-bit ARM the frame's state
// (the CPSR's T bit) picks the chain: in ARM code GCC's frame through r11
// (the caller's r11 at *(r11-4), its LR at *(r11), the CFA r11+4), in
// Thumb code the frame record through r7 (*(r7), *(r7+4), the CFA r7+8);
// the LR's bit 0 gives the caller's state, and the other state's register
// keeps its value. The chain is wrong wherever the
// register does not hold the frame's base: in a prologue and epilogue
// (frame 0), in leaf functions on AArch64 and s390x, and in code built
// without frame pointers (or back chains). Sanity checks: FP (s390x: back
// chain) not below SP, aligned to a pointer's size. 0 ends the chain: as the outermost
// frame (ReasonOutermost) where the ABI's rule says the chain ends there
// (outermostByABI: the entry point or a thread's start cleared the
// register), else as an incomplete trace (ReasonBadFrame: a caller built
// without frame pointers left 0 in the register). The machine's values
// (offsets, the rules) are its arch.Chain.
type FPUnwinder struct {
	Space *Space
}

// Method implements Unwinder.
func (u *FPUnwinder) Method() Method { return MethodFP }

// chainRows holds the row of each machine's frame-pointer step (the rules
// of its chain, arch.Chain.Row), built on first use: a step copies a
// built row, which costs a third of building one at every frame. The
// slice is replaced, never changed, so that a step reads it without a
// lock.
var (
	chainRows   atomic.Pointer[[]chainEntry]
	chainRowsMu sync.Mutex
)

// chainEntry is the built row of one chain (a machine's, or its Thumb
// code's).
type chainEntry struct {
	ch  *arch.Chain
	row *Row
}

// chainRow returns the row of a frame-pointer step on machine a with its
// chain ch (a.Chain, or a.Thumb.Chain in Thumb code, whose FP register,
// not a.FP, gets its rule among the other registers').
func chainRow(a *arch.Arch, ch *arch.Chain) *Row {
	if rs := chainRows.Load(); rs != nil {
		for _, e := range *rs {
			if e.ch == ch {
				return e.row
			}
		}
	}
	chainRowsMu.Lock()
	defer chainRowsMu.Unlock()
	var rs []chainEntry
	if old := chainRows.Load(); old != nil {
		for _, e := range *old {
			if e.ch == ch {
				return e.row
			}
		}
		rs = append(rs, *old...)
	}
	r := &Row{Row: ch.Row, Src: Source{Method: MethodFP, FDE: -1, CIE: -1, FRE: -1, Arch: a}}
	if a.Thumb != nil && ch == &a.Thumb.Chain {
		fp := a.Thumb.FP
		r.Other = NewOtherRules([]cfi.RegRule{{Reg: fp, Rule: rule.Rule{Kind: rule.Offset, Reg: fp, Offset: ch.FP}}}, a.PC, a.FP)
	}
	rs = append(rs, chainEntry{ch, r})
	chainRows.Store(&rs)
	return r
}

// chainOf returns the frame-pointer chain of frame f on machine a and
// the register that links it: a.Chain through a.FP, or on 32-bit ARM in
// Thumb code (the CPSR's T bit) a.Thumb.Chain through r7.
func chainOf(f *Frame, a *arch.Arch) (*arch.Chain, rule.Reg) {
	if th := a.Thumb; th != nil {
		if cpsr, ok := f.Regs.Get(th.CPSR); ok && cpsr&arch.CPSRT != 0 {
			return &th.Chain, th.FP
		}
	}
	return &a.Chain, a.FP
}

// stepBackChain follows the back chain (arch.Chain.BackChain: s390x)
// from f (see FPUnwinder).
func (u *FPUnwinder) stepBackChain(f *Frame, a *arch.Arch, fault func(Reason, uint8, uint64, uint64) (Frame, error)) (Frame, error) {
	sp, ok := f.Regs.Get(a.SP)
	if !ok {
		return fault(ReasonNoData, fpUnknown, 0, 0)
	}
	f.Row = *chainRow(a, &a.Chain)
	back, err := ReadPtr(u.Space.Mem, sp, a.PtrSize)
	var ra uint64
	cfaOff := uint64(a.Chain.CFA)
	if err == nil && back != 0 && back%8 == 0 && back > sp && back+cfaOff > back {
		ra, err = ReadPtr(u.Space.Mem, back+uint64(a.Chain.RA), a.PtrSize)
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
		fr, err := fault(ReasonBadFrame, fpMisaligned, back, sp)
		err.(*StopError).Err.(*fpFault).align = 8
		return fr, err
	case back <= sp:
		return fault(ReasonBadFrame, fpBelowSP, back, sp)
	case back+cfaOff < back:
		return fault(ReasonBadFrame, fpWraps, back, sp)
	}
	f.CFA = back + cfaOff
	caller := u.linkCaller(f, ra)
	caller.Regs.Set(a.SP, back)
	return caller, nil
}

// linkCaller is f's caller at PC ra on a machine with a link register
// (AArch64's x30, s390x's r14), which holds ra in the caller too.
func (u *FPUnwinder) linkCaller(f *Frame, ra uint64) Frame {
	caller := Frame{Level: f.Level + 1, PC: ra, Method: MethodFP, Regs: f.Regs.empty()}
	caller.Regs.Set(caller.Regs.PCReg, ra)
	caller.Regs.Set(f.Regs.arch().RA, ra)
	caller.locate(u.Space.Modules)
	return caller
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
	align      int    // fpMisaligned: the alignment wanted, a pointer's size
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
		return fmt.Sprintf("frame pointer %#x at PC %#x is not %d-byte aligned", e.fp, e.pc, e.align)
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
	a := f.Regs.arch()
	if a.Chain.BackChain {
		return u.stepBackChain(f, a, fault)
	}
	ch, fpReg := chainOf(f, a)
	fp, ok := f.Regs.Get(fpReg)
	if !ok {
		return fault(ReasonNoData, fpUnknown, 0, 0)
	}
	f.Row = *chainRow(a, ch)
	if fp == 0 {
		return u.zeroFP(f, fault)
	}
	sp := f.Regs.SP()
	if fp%uint64(a.PtrSize) != 0 {
		fr, err := fault(ReasonBadFrame, fpMisaligned, fp, sp)
		err.(*StopError).Err.(*fpFault).align = a.PtrSize
		return fr, err
	}
	if sp != 0 && fp < sp {
		return fault(ReasonBadFrame, fpBelowSP, fp, sp)
	}
	if fp+16 < fp {
		return fault(ReasonBadFrame, fpWraps, fp, sp)
	}
	callerFP, err := ReadPtr(u.Space.Mem, fp+uint64(ch.FP), a.PtrSize)
	var ra uint64
	if err == nil {
		ra, err = ReadPtr(u.Space.Mem, fp+uint64(ch.RA), a.PtrSize)
	}
	if err != nil {
		se := &StopError{Method: MethodFP, Reason: ReasonMemory, PC: f.PC, Err: err,
			Msg: fmt.Sprintf("frame record at %#x (PC %#x): %v", fp, f.PC, err)}
		if f.Module != nil {
			se.Module = f.Module.Name
		}
		return Frame{}, se
	}
	if a.Chain.Ascending && callerFP != 0 && callerFP < fp+16 {
		return fault(ReasonBadFrame, fpNotAbove, callerFP, fp)
	}
	if a.RA != a.PC {
		// A frame record's LR may be signed (pac-ret): stripped, as the
		// kernel's unwinder does; a user address without a PAC is
		// unchanged.
		if a.PAuth {
			ra = u.Space.StripPAC(ra)
		}
		if th := a.Thumb; th != nil {
			// 32-bit ARM: the LR's bit 0 is the caller's state; the
			// chain register of the other state keeps its value.
			caller := u.linkCaller(f, ra&^1)
			caller.Regs.Set(a.RA, ra)
			caller.Regs.Set(th.CPSR, (ra&1)*arch.CPSRT)
			other := th.FP
			if fpReg == th.FP {
				other = a.FP
			}
			if v, ok := f.Regs.Get(other); ok {
				caller.Regs.Set(other, v)
			}
			caller.Regs.Set(fpReg, callerFP)
			f.CFA = fp + uint64(ch.CFA)
			caller.Regs.Set(a.SP, f.CFA)
			return caller, nil
		}
		caller := u.linkCaller(f, ra)
		caller.Regs.Set(a.FP, callerFP)
		return caller, nil
	}
	f.CFA = fp + uint64(a.Chain.CFA)
	caller := Frame{Level: f.Level + 1, PC: ra, Method: MethodFP}
	// The fields of NewRegs(a), set in place: caller's registers are
	// zero, and a Regs value returned and copied costs more than the step.
	caller.Regs.PCReg, caller.Regs.SPReg, caller.Regs.FPReg, caller.Regs.Arch = a.PC, a.SP, a.FP, a
	caller.Regs.Set(a.PC, ra)
	caller.Regs.Set(a.SP, f.CFA)
	caller.Regs.Set(a.FP, callerFP)
	caller.locate(u.Space.Modules)
	return caller, nil
}
