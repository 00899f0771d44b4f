package compare

import (
	"errors"
	"fmt"

	"github.com/sfdbg/sfdbg/frames"
	"github.com/sfdbg/sfdbg/sframe"
)

// Verdict is the outcome for SFrame at one frame.
type Verdict string

// Verdicts.
const (
	VerdictAgree      Verdict = "agree"
	VerdictDisagree   Verdict = "disagree"
	VerdictNotCovered Verdict = "not covered"
	// VerdictEnd: the reference trace ends here (outermost frame) and
	// SFrame agrees.
	VerdictEnd Verdict = "end"
)

// Step is one method's answer for "the caller of this frame", computed from
// the reference frame's register state.
type Step struct {
	Method string `json:"method"`
	// OK is false when the method gave no caller; Reason and Error say why.
	OK     bool   `json:"ok"`
	Reason string `json:"reason,omitempty"`
	Error  string `json:"error,omitempty"`
	// CFA of the frame, and the caller's PC (the RA), SP and FP.
	CFA      uint64 `json:"cfa,omitempty"`
	CallerPC uint64 `json:"caller_pc,omitempty"`
	CallerSP uint64 `json:"caller_sp,omitempty"`
	CallerFP uint64 `json:"caller_fp,omitempty"`
	FPKnown  bool   `json:"caller_fp_known,omitempty"`
	// Rule is the row used ("cfa=rsp+16 ra=c-8 fp=c-16") and Source where it
	// came from ("sframe FDE 12 FRE 3", "eh_frame FDE 0x1c8", "fp chain").
	Rule   string `json:"rule,omitempty"`
	Source string `json:"source,omitempty"`

	reason frames.Reason
	row    frames.Row
	caller frames.Frame
}

// FrameResult compares the methods at one frame of the reference trace.
type FrameResult struct {
	Level    int    `json:"level"`
	PC       uint64 `json:"pc"`
	Function string `json:"function"`
	Module   string `json:"module,omitempty"`
	// CFI is the reference; SFrame and FP are computed from the same
	// register state (seeded steps).
	CFI    Step `json:"cfi"`
	SFrame Step `json:"sframe"`
	FP     Step `json:"fp"`
	// Verdict is SFrame's verdict; FPAgrees says whether the frame-pointer
	// step matched the reference.
	Verdict  Verdict   `json:"verdict"`
	FPAgrees bool      `json:"fp_agrees"`
	Findings []Finding `json:"findings,omitempty"`
}

// TraceFrame is one frame of a method's independent trace.
type TraceFrame struct {
	Level    int    `json:"level"`
	PC       uint64 `json:"pc"`
	CFA      uint64 `json:"cfa,omitempty"`
	Function string `json:"function"`
	// Matches is the level of the reference frame with the same identity
	// (function and CFA), or -1.
	Matches int `json:"matches"`
}

// Trace is one method's independent unwind of the whole stack.
type Trace struct {
	Method string       `json:"method"`
	Frames []TraceFrame `json:"frames"`
	// Stop says why the trace ended ("outermost frame" when complete).
	Stop string `json:"stop"`
}

// StackReport is the comparison of one thread's stack.
type StackReport struct {
	Thread   int           `json:"thread"`
	Frames   []FrameResult `json:"frames"`
	Traces   []Trace       `json:"traces"`
	Findings []Finding     `json:"findings"`
	// Summary counts frames by SFrame verdict.
	Agree      int `json:"agree"`
	Disagree   int `json:"disagree"`
	NotCovered int `json:"not_covered"`
}

// Disagreements counts the frames where SFrame disagrees with CFI plus the
// frames an independent SFrame trace skipped or invented.
func (r *StackReport) Disagreements() int {
	n := r.Disagree
	for _, f := range r.Findings {
		if f.Kind == KindMissingFrame || f.Kind == KindExtraFrame {
			n++
		}
	}
	return n
}

// Options tune a live comparison.
type Options struct {
	// MaxDepth bounds each trace (0: frames.DefaultMaxDepth).
	MaxDepth int
	// Independent also runs each method's own trace and matches frames.
	Independent bool
}

// Unwinders are the three methods over one address space.
type Unwinders struct {
	SFrame, CFI, FP frames.Unwinder
}

// NewUnwinders returns the three unwinders over space.
func NewUnwinders(space *frames.Space) Unwinders {
	return Unwinders{
		SFrame: &frames.SFrameUnwinder{Space: space},
		CFI:    &frames.CFIUnwinder{Space: space},
		FP:     &frames.FPUnwinder{Space: space},
	}
}

// Stack compares SFrame and frame-pointer unwinding with DWARF CFI on one
// thread whose registers are regs. Seeded: at every frame of the CFI trace
// each method computes the caller from the same register state, so one bad
// FRE is one disagreement at one frame. Independent (opts.Independent):
// each method unwinds on its own and frames are matched by identity.
func Stack(space *frames.Space, regs frames.Regs, opts Options) *StackReport {
	return StackWith(space, NewUnwinders(space), regs, opts)
}

// StackWith is Stack with the given unwinders.
func StackWith(space *frames.Space, u Unwinders, regs frames.Regs, opts Options) *StackReport {
	rep := &StackReport{Findings: []Finding{}}
	ref, refErr := frames.Trace(u.CFI, regs, space, frames.StackOptions{MaxDepth: opts.MaxDepth})
	for i := range ref {
		var caller *frames.Frame
		if i+1 < len(ref) {
			caller = &ref[i+1]
		}
		fr := seeded(space, u, &ref[i], caller)
		rep.Frames = append(rep.Frames, fr)
		rep.Findings = append(rep.Findings, fr.Findings...)
		switch fr.Verdict {
		case VerdictAgree, VerdictEnd:
			rep.Agree++
		case VerdictDisagree:
			rep.Disagree++
		default:
			rep.NotCovered++
		}
	}
	if opts.Independent {
		refIDs := frameIDs(space, ref)
		names := make([]string, len(rep.Frames))
		for i := range rep.Frames {
			names[i] = rep.Frames[i].Function
		}
		rep.Traces = append(rep.Traces, traceOf("cfi", space, ref, refIDs, refErr, refIDs, names))
		for _, m := range []struct {
			name string
			u    frames.Unwinder
		}{{"sframe", u.SFrame}, {"fp", u.FP}} {
			tr, err := frames.Trace(m.u, regs, space, frames.StackOptions{MaxDepth: opts.MaxDepth})
			ids := frameIDs(space, tr)
			rep.Traces = append(rep.Traces, traceOf(m.name, space, tr, ids, err, refIDs, names))
			rep.Findings = append(rep.Findings, matchTraces(space, m.name, tr, ids, ref, refIDs, names)...)
		}
	}
	return rep
}

// traceOf describes a method's trace, whose frames have identities ids;
// names are the descriptions of the reference frames, reused for the frames
// that match one.
func traceOf(name string, space *frames.Space, tr []frames.Frame, ids []identity, err error, ref []identity, names []string) Trace {
	t := Trace{Method: name, Stop: "outermost frame"}
	if err != nil && !frames.IsOutermost(err) {
		t.Stop = err.Error()
	}
	for i := range tr {
		tf := TraceFrame{Level: i, PC: tr[i].PC, CFA: tr[i].CFA, Matches: matchIndex(ids[i], ref)}
		if tf.Matches >= 0 && ref[tf.Matches].pc == tr[i].PC {
			tf.Function = names[tf.Matches]
		} else {
			tf.Function = describe(space, &tr[i])
		}
		t.Frames = append(t.Frames, tf)
	}
	return t
}

// identity is a frame's identity for matching across methods: the start of
// its function (or its PC) and its CFA, as gdb's frame IDs.
type identity struct{ fn, cfa, pc uint64 }

func frameID(space *frames.Space, f *frames.Frame) identity {
	id := identity{fn: f.PC, cfa: f.CFA, pc: f.PC}
	if m := space.Modules.Find(f.LookupPC()); m != nil {
		// The function's start is enough: no line table needed.
		if _, off, ok := m.FuncName(f.LookupPC()); ok {
			id.fn = f.LookupPC() - off
		}
	}
	return id
}

func frameIDs(space *frames.Space, fs []frames.Frame) []identity {
	ids := make([]identity, len(fs))
	for i := range fs {
		ids[i] = frameID(space, &fs[i])
	}
	return ids
}

// matchIndex returns the index of the reference frame with identity id.
// A frame whose CFA is unknown (the last of a trace that stopped) matches
// on function and exact PC instead.
func matchIndex(id identity, ref []identity) int {
	for i, rid := range ref {
		if rid == id || (rid.fn == id.fn && (id.cfa == 0 || rid.cfa == 0) && rid.pc == id.pc) {
			return i
		}
	}
	return -1
}

// matchTraces reports frames a method's own trace (with identities ids)
// skipped or invented, up to where the method stopped; names are the
// descriptions of the reference frames.
func matchTraces(space *frames.Space, method string, tr []frames.Frame, ids []identity, ref []frames.Frame, refIDs []identity, names []string) []Finding {
	var out []Finding
	missingKind, extraKind := KindMissingFrame, KindExtraFrame
	if method == "fp" {
		missingKind, extraKind = KindFPChain, KindFPChain
	}
	last := -1
	for i := range tr {
		j := matchIndex(ids[i], refIDs)
		if j < 0 {
			fn := describe(space, &tr[i])
			out = append(out, Finding{Kind: extraKind, Frame: i, PC: tr[i].PC, Function: fn,
				Message: fmt.Sprintf("%s trace frame #%d %s (CFA %#x) is not in the CFI trace", method, i, fn, tr[i].CFA)})
			continue
		}
		for k := last + 1; k < j; k++ {
			out = append(out, Finding{Kind: missingKind, Frame: k, PC: ref[k].PC, Function: names[k],
				Message: fmt.Sprintf("%s trace skipped frame #%d %s", method, k, names[k])})
		}
		last = j
	}
	return out
}

func describe(space *frames.Space, f *frames.Frame) string {
	return space.DescribeFrame(f)
}

// step runs one unwinder from a copy of the reference frame.
func step(u frames.Unwinder, ref *frames.Frame) Step {
	f := *ref
	f.CFA, f.Row = 0, frames.Row{}
	s := Step{Method: u.Method().String()}
	caller, err := u.Step(&f)
	s.CFA, s.row = f.CFA, f.Row
	s.Rule, s.Source = ruleText(f.Row), f.Row.Source
	if err != nil {
		var se *frames.StopError
		if errors.As(err, &se) {
			s.reason = se.Reason
			s.Reason = se.Reason.String()
		}
		s.Error = err.Error()
		return s
	}
	s.OK, s.caller = true, caller
	s.CallerPC, s.CallerSP = caller.PC, caller.Regs.SP()
	s.CallerFP, s.FPKnown = caller.Regs.FP()
	return s
}

// traceStep describes the step a trace made from f to its caller.
func traceStep(u frames.Unwinder, f, caller *frames.Frame) Step {
	s := Step{Method: u.Method().String(), OK: true, CFA: f.CFA, row: f.Row, caller: *caller,
		Rule: ruleText(f.Row), Source: f.Row.Source, CallerPC: caller.PC, CallerSP: caller.Regs.SP()}
	s.CallerFP, s.FPKnown = caller.Regs.FP()
	return s
}

// seeded compares the methods' steps from one reference frame.
//
// The CFI step is the reference trace's own: caller is the next frame of
// the CFI trace (nil for its last frame, where CFI is asked again for why
// it stopped).
func seeded(space *frames.Space, u Unwinders, ref, caller *frames.Frame) FrameResult {
	fr := FrameResult{Level: ref.Level, PC: ref.PC, Function: describe(space, ref)}
	mod := space.Modules.Find(ref.LookupPC())
	if mod != nil {
		fr.Module = mod.Name
	}
	if caller != nil {
		fr.CFI = traceStep(u.CFI, ref, caller)
	} else {
		fr.CFI = step(u.CFI, ref)
	}
	fr.SFrame, fr.FP = step(u.SFrame, ref), step(u.FP, ref)
	fr.Verdict = VerdictAgree
	base := Finding{Module: fr.Module, Function: fr.Function, Frame: ref.Level, PC: ref.PC,
		SFrame: fr.SFrame.Rule, CFI: fr.CFI.Rule, FP: fr.FP.Rule}
	add := func(k Kind, format string, args ...any) {
		f := base
		f.Kind = k
		f.Message = fmt.Sprintf("frame #%d %s: ", ref.Level, fr.Function) + fmt.Sprintf(format, args...)
		fr.Findings = append(fr.Findings, f)
	}
	cfiOuter := !fr.CFI.OK && fr.CFI.reason == frames.ReasonOutermost
	sf := &fr.SFrame
	switch {
	case !sf.OK && (sf.reason == frames.ReasonNoData || sf.reason == frames.ReasonNoModule):
		fr.Verdict = VerdictNotCovered
	case !fr.CFI.OK && !cfiOuter:
		// No reference: nothing to judge SFrame against.
		fr.Verdict = VerdictNotCovered
	case cfiOuter && sf.OK:
		fr.Verdict = VerdictDisagree
		add(KindOutermost, "CFI says outermost frame (RA undefined), SFrame gives caller %#x", sf.CallerPC)
	case !sf.OK && (sf.reason == frames.ReasonNoFDE || sf.reason == frames.ReasonNoRow):
		// CFI covers the PC (or says it is outermost); SFrame has nothing.
		fr.Verdict = VerdictNotCovered
		if inGap(mod, ref.LookupPC()) {
			add(KindGap, "the PC lies in a gap of SFrame's coverage of its function: %s", sf.Error)
		} else {
			add(KindNoFDE, "CFI covers the PC but SFrame does not: %s", sf.Error)
		}
	case cfiOuter:
		fr.Verdict = VerdictEnd
		if sf.reason != frames.ReasonOutermost {
			fr.Verdict = VerdictDisagree
			add(KindOutermost, "CFI says outermost frame, SFrame stops with: %s", sf.Error)
		}
	case !sf.OK:
		fr.Verdict = VerdictDisagree
		switch sf.reason {
		case frames.ReasonOutermost:
			add(KindOutermost, "SFrame says outermost frame, CFI gives caller %#x", fr.CFI.CallerPC)
		default:
			k := KindCFA
			if sf.row.Signal {
				k = KindSignal
			}
			add(k, "SFrame cannot unwind: %s", sf.Error)
		}
	default:
		kinds := stepDiff(&fr.CFI, sf)
		if len(kinds) > 0 {
			fr.Verdict = VerdictDisagree
			special := specialKind(mod, ref, sf)
			for _, k := range kinds {
				msg := fmt.Sprintf("%s: SFrame %s, CFI %s", k.Title(), stepValue(sf, k), stepValue(&fr.CFI, k))
				if special != 0 {
					add(special, "%s (%s)", msg, k.Title())
				} else {
					add(k, "%s", msg)
				}
			}
			if special == 0 && mod != nil {
				if b, ok := boundaryAt(mod, ref.LookupPC()); ok {
					for i := range fr.Findings {
						fr.Findings[i].Kind, fr.Findings[i].Shift = KindFREBoundary, b.Shift
						fr.Findings[i].Message += fmt.Sprintf("; static check: %s", b.Message)
					}
				}
			}
		}
	}
	fr.FPAgrees = fr.FP.OK == fr.CFI.OK && len(stepDiff(&fr.CFI, &fr.FP)) == 0
	if !fr.FPAgrees && fr.CFI.OK {
		f := base
		f.Kind = KindFPChain
		why := fr.FP.Error
		if fr.FP.OK {
			why = fmt.Sprintf("FP chain gives caller %#x CFA %#x, CFI %#x CFA %#x", fr.FP.CallerPC, fr.FP.CFA, fr.CFI.CallerPC, fr.CFI.CFA)
		}
		f.Message = fmt.Sprintf("frame #%d %s: frame-pointer unwinding disagrees (%s)", ref.Level, fr.Function, why)
		fr.Findings = append(fr.Findings, f)
	}
	return fr
}

// SameCaller reports whether two methods found the same caller: the same
// PC, the same SP (the CFA of the frame unwound on AMD64) and, when both
// know it, the same FP. It is the judgement stepDiff makes, for callers
// that hold frames rather than Steps (the debugger's backtrace).
func SameCaller(a, b *frames.Frame) bool {
	if a.PC != b.PC || a.Regs.SP() != b.Regs.SP() {
		return false
	}
	fa, oka := a.Regs.FP()
	fb, okb := b.Regs.FP()
	return !oka || !okb || fa == fb
}

// stepDiff compares a method's step with the reference step.
func stepDiff(ref, s *Step) []Kind {
	if !s.OK || !ref.OK {
		if s.OK != ref.OK {
			return []Kind{KindCFA}
		}
		return nil
	}
	var out []Kind
	if s.CFA != ref.CFA || s.CallerSP != ref.CallerSP {
		out = append(out, KindCFA)
	}
	if s.CallerPC != ref.CallerPC {
		out = append(out, KindRA)
	}
	if s.FPKnown && ref.FPKnown && s.CallerFP != ref.CallerFP {
		out = append(out, KindFP)
	}
	return out
}

func stepValue(s *Step, k Kind) string {
	switch k {
	case KindRA:
		return fmt.Sprintf("RA %#x", s.CallerPC)
	case KindFP:
		return fmt.Sprintf("FP %#x", s.CallerFP)
	}
	return fmt.Sprintf("CFA %#x", s.CFA)
}

// specialKind labels a disagreement at a signal frame or in a PLT stub.
func specialKind(mod *frames.Module, ref *frames.Frame, sf *Step) Kind {
	if sf.row.Signal || ref.Row.Signal {
		return KindSignal
	}
	if mod == nil {
		return 0
	}
	if sec, err := mod.SFrame(); err == nil && sec != nil {
		if fde, err := sec.FindFDE(ref.LookupPC() - mod.Bias); err == nil && fde.PCType == sframe.PCTypeMask {
			return KindPLT
		}
	}
	return 0
}

// inGap reports whether SFrame covers part of the function containing the
// runtime PC pc, but not pc itself (the FDE is too short, or the PC lies
// before its first FRE).
func inGap(mod *frames.Module, pc uint64) bool {
	if mod == nil {
		return false
	}
	sec, err := mod.SFrame()
	if err != nil || sec == nil {
		return false
	}
	_, off, ok := mod.FuncName(pc)
	if !ok {
		return false
	}
	fde, err := sec.FindFDE(pc - off - mod.Bias)
	return err == nil && fde.Start == pc-off-mod.Bias
}
