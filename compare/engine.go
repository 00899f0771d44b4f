package compare

// This file is the one live comparison engine: every command that unwinds
// a thread (sfdbg bt, sample, demo, core; the debugger's bt, frame and info
// frame) builds a Trace with Unwind and renders it.

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/sfdbg/sfdbg/frames"
	"github.com/sfdbg/sfdbg/sframe"
)

// MaxDepthLimit is the largest depth a trace may be asked for.
const MaxDepthLimit = 1_000_000

// Options tune a trace.
type Options struct {
	// Methods selects the methods (All by default).
	Methods Methods
	// MaxDepth bounds the trace (0: frames.DefaultMaxDepth); at most
	// MaxDepthLimit.
	MaxDepth int
	// Independent (with All) also runs SFrame's and the FP chain's own
	// traces and matches their frames with the reference by identity.
	Independent bool
	// Prefetch starts loading the symbols and line table of every module
	// the trace enters as soon as it enters it (frames.Module.Prefetch),
	// for a caller that prints the trace.
	Prefetch bool
	// StopAtMain ends the trace at the frame of the program's main, as
	// gdb's default "set backtrace past-main off" does: the frames past it
	// (__libc_start_call_main, _start) are not shown. The step from main
	// is still computed and judged.
	StopAtMain bool
}

// sharedObject reports whether base names a shared library: libc.so.6,
// ld-linux-x86-64.so.2, libfoo.so.
func sharedObject(base string) bool {
	return strings.HasSuffix(base, ".so") || strings.Contains(base, ".so.")
}

// isMain reports whether f is the frame of the program's main: its
// function is the symbol "main" of a module that is not a shared library
// (gdb's inside_main_func looks "main" up in the executable's objfile).
func isMain(f *Frame) bool {
	if f.Module == nil || sharedObject(filepath.Base(f.Module.Name)) || strings.HasPrefix(f.Module.Name, "[") {
		return false
	}
	name, _, ok := f.Module.FuncName(f.LookupPC())
	return ok && name == "main"
}

// CheckMaxDepth validates a depth limit given by a user: 0 (the default)
// to MaxDepthLimit.
func CheckMaxDepth(n int) error {
	if n < 0 || n > MaxDepthLimit {
		return fmt.Errorf("depth limit %d out of range (0 for the default of %d, or 1 to %d)", n, frames.DefaultMaxDepth, MaxDepthLimit)
	}
	return nil
}

// Verdict is the outcome for a subject method (SFrame; subjects) at one
// frame of an All trace, judged against the reference (CFI).
type Verdict uint8

// Verdicts.
const (
	// VerdictNone: not judged (single-method trace).
	VerdictNone Verdict = iota
	// VerdictAgree: the method (SFrame) finds the same caller as CFI.
	VerdictAgree
	// VerdictDisagree: it finds another caller, or none (a finding says
	// how).
	VerdictDisagree
	// VerdictNotCovered: it has no data for the PC, or CFI has none to
	// judge it by.
	VerdictNotCovered
	// VerdictEnd: CFI says outermost frame and the method agrees.
	VerdictEnd
)

var verdictNames = [...]string{"", "agree", "disagree", "not covered", "end"}

func (v Verdict) String() string {
	if int(v) < len(verdictNames) {
		return verdictNames[v]
	}
	return fmt.Sprintf("Verdict(%d)", uint8(v))
}

// MarshalText writes the verdict's name (JSON).
func (v Verdict) MarshalText() ([]byte, error) { return []byte(v.String()), nil }

// UnmarshalText reads a verdict's name.
func (v *Verdict) UnmarshalText(b []byte) error {
	for i, n := range verdictNames {
		if string(b) == n {
			*v = Verdict(i)
			return nil
		}
	}
	return fmt.Errorf("unknown verdict %q", b)
}

// Step is one method's answer for "the caller of this frame", computed
// from the frame's registers.
type Step struct {
	// Ran is set when the method was asked; FPKnown when it recovered the
	// caller's FP (CallerFP).
	Ran, FPKnown bool
	// Err is why the method gave no caller (nil when it gave one); its
	// Reason ReasonOutermost says the frame is the outermost one.
	Err *frames.StopError
	// CFA is the frame's CFA as the method computed it (0 if it could not).
	CFA uint64
	// CallerPC, CallerSP and CallerFP are the caller's PC (the RA), SP and
	// FP.
	CallerPC, CallerSP, CallerFP uint64
	// Row is the rule the method used, with its source; nil when it found
	// none. Rows are shared within a trace and must not be modified.
	Row *frames.Row
}

// row returns the step's row, or an empty one.
func (s *Step) row() *frames.Row {
	if s.Row == nil {
		return &noRow
	}
	return s.Row
}

var noRow frames.Row

// OK reports whether the method found a caller.
func (s *Step) OK() bool { return s.Ran && s.Err == nil }

// Outermost reports whether the method says the frame is the outermost.
func (s *Step) Outermost() bool { return s.Err != nil && s.Err.Reason == frames.ReasonOutermost }

// reason is why the step found no caller (ReasonOutermost when it found
// one: callers look at it only after OK reported false).
func (s *Step) reason() frames.Reason {
	if s.Err == nil {
		return frames.ReasonOutermost
	}
	return s.Err.Reason
}

// Frame is one frame of a trace: where it is and, for each method, its
// step to the caller. Frames are small (no register set, no names): the
// registers of frame N are recomputed on demand (Trace.FrameAt), names when
// a frame is shown.
type Frame struct {
	Level int
	PC    uint64
	// CFA is the frame's CFA from the step the trace took (0 when no
	// method could unwind the frame).
	CFA uint64
	// SP and FP are the frame's stack and frame pointer (FPKnown: known).
	SP, FP  uint64
	FPKnown bool
	// FoundBy is the method whose step found this frame (MethodRegs for
	// frame 0).
	FoundBy frames.Method
	// Interrupted: the PC is exact (frame 0, or a frame a signal
	// interrupted), not a return address.
	Interrupted bool
	// Verdicts holds each subject method's verdict at this frame (All
	// only; VerdictNone for the reference, the FP chain and the methods
	// not run); FPAgrees says whether the frame-pointer step matched
	// CFI's. (Here, with the flags above, they fill one word.)
	Verdicts [frames.NumMethods]Verdict
	FPAgrees bool
	// Module holds PC, or nil.
	Module *frames.Module
	// Steps holds each method's step from this frame, by frames.Method.
	Steps Steps
}

// Steps holds one Step per unwinding method, indexed by frames.Method;
// the methods not run have Ran false.
type Steps [frames.NumMethods]Step

// Verdict is SFrame's verdict at this frame (All only): the one the trace
// counts (Trace.Agree ...) and the text and JSON show as "verdict".
func (f *Frame) Verdict() Verdict { return f.Verdicts[frames.MethodSFrame] }

// LookupPC is the address the frame's module, name, line, inline frames and
// unwind rows are looked up at: PC for an interrupted frame or a signal
// trampoline, PC-1 for a return address (frames.Frame.LookupPC, gdb's
// get_frame_address_in_block).
func (f *Frame) LookupPC() uint64 {
	return frames.LookupPC(f.PC, f.Interrupted || f.SignalTrampoline())
}

// SignalTrampoline reports whether the frame is a signal trampoline (the
// kernel's return path into the interrupted code, glibc's __restore_rt): a
// step from it used a signal-frame row (SFrame v3 signal bit, CIE
// augmentation "S"). gdb prints such a frame as "<signal handler called>".
func (f *Frame) SignalTrampoline() bool {
	for m := range f.Steps {
		if r := f.Steps[m].Row; r != nil && r.Signal {
			return true
		}
	}
	return false
}

// Trace is one thread's unwind with the methods compared: the one model
// that every command renders.
type Trace struct {
	Thread  int
	Methods Methods
	Frames  []Frame
	// Stop is why the trace ended: ReasonOutermost when it is complete,
	// ReasonDepth when the depth limit cut it (Truncated).
	Stop      *frames.StopError
	Truncated bool
	// Findings lists every finding, in frame order; FPBrokenFrom is the
	// level of the first frame whose frame-pointer step differs from CFI's
	// (-1 for none): one summary, not a finding per frame.
	Findings     []Finding
	FPBroken     int
	FPBrokenFrom int
	// Independent holds SFrame's and the FP chain's own traces (Options.
	// Independent).
	Independent []IndependentTrace
	// Agree, Disagree and NotCovered count frames by SFrame's verdict
	// (Frame.Verdict).
	Agree, Disagree, NotCovered int

	space *frames.Space
	regs  frames.Regs
	opts  Options
	// set is the methods the trace runs and judges on its machine
	// (setFor).
	set *methodSet
	// inline numbers the frames as gdb does, with inline frames
	// (inline.go), looked up when frames are shown.
	inline inlineView
	// SkipInline says how many of frame 0's inline frames whose entry is
	// its PC are hidden, as gdb hides them at a stop (inline-frame.c
	// skip_inline_frames: the stop shows the caller at the call's line
	// until "step" enters the function): -1 all of them, 0 none, n at
	// most n. Set before the trace's frames are shown.
	SkipInline int
	// skippedInline is how many were hidden (SkippedInline), skippedCall
	// the outermost of them, whose call line frame 0 then shows.
	skippedInline int
	skippedCall   *frames.InlinedCall
}

// SkippedInline returns how many inline frames at frame 0's PC the trace
// hides (SkipInline).
func (t *Trace) SkippedInline() int {
	v := &t.inline
	v.mu.Lock()
	defer v.mu.Unlock()
	t.lookUpTo(1)
	return t.skippedInline
}

// IndependentTrace is a method's own unwind, matched with the reference
// trace by frame identity (function start and CFA, as gdb's frame IDs).
type IndependentTrace struct {
	Method frames.Method
	Frames []IndependentFrame
	Stop   *frames.StopError
}

// IndependentFrame is one frame of an independent trace. Matches is the
// level of the reference frame with the same identity, or -1.
type IndependentFrame struct {
	PC, CFA uint64
	Matches int
}

// Complete reports whether the trace reached the outermost frame.
func (t *Trace) Complete() bool { return t.Stop == nil || t.Stop.Reason == frames.ReasonOutermost }

// Space returns the address space the trace was taken in.
func (t *Trace) Space() *frames.Space { return t.space }

// Disagreements counts the frames where SFrame, or another subject method
// (the code), disagrees with CFI, plus the frames an independent trace of
// one of them skipped or invented.
func (t *Trace) Disagreements() int {
	n := t.Disagree
	for i := 0; len(t.methods().subjects) > 1 && i < len(t.Frames); i++ {
		f := &t.Frames[i]
		if f.Verdict() == VerdictDisagree {
			continue // counted in t.Disagree
		}
		for _, m := range t.methods().subjects {
			if f.Verdicts[m] == VerdictDisagree {
				n++
				break
			}
		}
	}
	for _, f := range t.Findings {
		if f.Kind == KindMissingFrame || f.Kind == KindExtraFrame {
			n++
		}
	}
	return n
}

// Compared reports whether any frame was judged (SFrame agreed or
// disagreed with CFI there).
func (t *Trace) Compared() bool { return t.Agree+t.Disagree > 0 }

// lead is the frames.Unwinder a trace follows: it asks every method the
// trace runs for the caller of a frame, records their steps in the trace,
// and returns the caller of the first method (in t.methods().lead) that found
// one. When CFI says the frame is outermost, the trace ends there.
type lead struct {
	t    *Trace
	u    unwinders
	fs   []Frame
	rows rowCache
}

// rowCache interns the rows of a trace's steps, so that a step keeps a
// pointer to a shared row: rows are stored in chunks (one allocation for
// many steps), and a small direct-mapped table finds a row seen before (a
// deep recursion repeats a few rows), so that deep traces stay small.
type rowCache struct {
	chunk []frames.Row
	seen  [64]*frames.Row
}

// intern returns the shared copy of r, or nil when r was not found.
func (c *rowCache) intern(r *frames.Row) *frames.Row {
	if !r.Found() {
		return nil
	}
	slot := &c.seen[(r.Start^uint64(r.Src.FDE)<<3^uint64(r.Src.Method))%uint64(len(c.seen))]
	if p := *slot; p != nil && sameRow(p, r) {
		return p
	}
	if len(c.chunk) == cap(c.chunk) {
		c.chunk = make([]frames.Row, 0, min(256, max(8, 2*cap(c.chunk))))
	}
	c.chunk = append(c.chunk, *r)
	p := &c.chunk[len(c.chunk)-1]
	*slot = p
	return p
}

// sameRow reports whether two rows are the same: equal rules, source and
// range, and the same (shared) Other rules.
func sameRow(a, b *frames.Row) bool {
	return a.Row == b.Row && a.Src == b.Src && a.Start == b.Start && a.End == b.End &&
		a.Other == b.Other
}

func (l *lead) Method() frames.Method {
	if m, ok := l.t.Methods.Single(); ok {
		return m
	}
	return Reference
}

func (l *lead) Step(f *frames.Frame) (frames.Frame, error) {
	fr := l.frame(f)
	var caller frames.Frame
	var taken *Step
	decided := false // a method gave a caller, or a table said outermost
	for _, m := range l.t.methods().lead {
		if !l.t.Methods.Runs(m) {
			continue
		}
		st := &fr.Steps[m]
		c := runStep(l.u[m], f, st)
		st.Row = l.rows.intern(&f.Row)
		switch {
		case decided:
		case st.OK():
			taken, caller, decided = st, c, true
			caller.Method = m
		case m.Table() && st.Outermost():
			// An unwind table says outermost before any gave a caller
			// (EHABI's EXIDX_CANTUNWIND where CFI has no FDE): the
			// trace ends, rather than follow the FP chain's guess.
			decided = true
		}
	}
	if ref := &fr.Steps[Reference]; ref.Outermost() {
		// CFI says outermost: the trace ends here, whatever the others say.
		taken = nil
	}
	if taken == nil {
		st := l.firstErr(fr)
		f.CFA, f.Row = st.CFA, *st.row()
		return frames.Frame{}, st.Err
	}
	fr.CFA = taken.CFA
	f.CFA, f.Row = taken.CFA, *taken.Row
	return caller, nil
}

// firstErr returns the step whose error ends the trace: the reference's outermost
// verdict, else the first method's (in l.t.methods().lead) error.
func (l *lead) firstErr(fr *Frame) *Step {
	var first *Step
	for _, m := range l.t.methods().lead {
		st := &fr.Steps[m]
		if !st.Ran {
			continue
		}
		if st.Outermost() {
			return st
		}
		if first == nil {
			first = st
		}
	}
	return first
}

// frame appends the trace frame for f (levels come in order) and returns
// it.
func (l *lead) frame(f *frames.Frame) *Frame {
	fr := Frame{Level: f.Level, PC: f.PC, SP: f.Regs.SP(), FoundBy: f.Method, Interrupted: f.Interrupted, Module: f.Module}
	if l.t.opts.Prefetch && f.Module != nil {
		f.Module.Prefetch()
	}
	fr.FP, fr.FPKnown = f.Regs.FP()
	if len(l.fs) == cap(l.fs) {
		// Double: append grows large slices by 1.25x, which would
		// allocate about five times a deep trace's frames.
		fs := make([]Frame, len(l.fs), max(16, 2*cap(l.fs)))
		copy(fs, l.fs)
		l.fs = fs
	}
	l.fs = append(l.fs, fr)
	return &l.fs[len(l.fs)-1]
}

// runStep runs one unwinder from f into st (all but st.Row) and returns
// the caller; the row the unwinder used is left in f.Row. f.CFA and f.Row
// are cleared first: they are all an unwinder writes of f (Unwinder's
// contract), so the methods can step from the same frame in turn without
// a copy of it. A panic in an unwinder becomes a StopError.
func runStep(u frames.Unwinder, f *frames.Frame, st *Step) (caller frames.Frame) {
	f.CFA, f.Row = 0, frames.Row{}
	*st = Step{Ran: true}
	defer func() {
		if r := recover(); r != nil {
			st.Err = &frames.StopError{Method: u.Method(), Reason: frames.ReasonFormat, PC: f.PC,
				Msg: fmt.Sprintf("%v unwinder failed at PC %#x: %v", u.Method(), f.PC, r)}
			caller = frames.Frame{}
		}
	}()
	caller, err := u.Step(f)
	st.CFA = f.CFA
	if err != nil {
		var se *frames.StopError
		if !errors.As(err, &se) {
			se = &frames.StopError{Method: u.Method(), Reason: frames.ReasonUnsupported, PC: f.PC, Err: err}
		}
		st.Err = se
		return frames.Frame{}
	}
	st.CallerPC, st.CallerSP = caller.PC, caller.Regs.SP()
	st.CallerFP, st.FPKnown = caller.Regs.FP()
	return caller
}

// Unwind unwinds the thread whose registers are regs in space with the
// methods opts.Methods selects, and judges SFrame and the frame-pointer
// chain against DWARF CFI at every frame (All). Its time and memory are
// linear in the depth, independent traces included.
func Unwind(space *frames.Space, regs frames.Regs, opts Options) *Trace {
	t := &Trace{Methods: opts.Methods, FPBrokenFrom: -1, space: space, regs: regs, opts: opts, set: setFor(opts.Methods, regs.Arch)}
	l := &lead{t: t, u: t.methods().newUnwinders(space)}
	s := frames.NewStack(l, regs, space, frames.StackOptions{MaxDepth: opts.MaxDepth})
	var pastMain *frames.StopError
	for s.Next() {
		f := s.Frame()
		if len(l.fs) == f.Level {
			// The frame the stack stopped at before stepping from it (the
			// depth limit): record where it is, with no steps.
			l.frame(&f)
		}
		if opts.StopAtMain && f.Level < len(l.fs) && isMain(&l.fs[f.Level]) {
			l.fs = l.fs[:f.Level+1]
			pastMain = &frames.StopError{Method: frames.MethodCFI, Reason: frames.ReasonOutermost, PC: f.PC,
				Msg: "main: backtrace past-main is off"}
			break
		}
	}
	t.Frames, t.Stop = l.fs, s.Stop()
	if pastMain != nil {
		t.Stop = pastMain
	}
	t.Truncated = t.Stop != nil && t.Stop.Reason == frames.ReasonDepth
	if t.Methods != All {
		return t
	}
	for i := range t.Frames {
		t.judgeFrame(i)
	}
	if opts.Independent {
		t.independent(l.u)
	}
	return t
}

// judgeFrame sets frame i's verdicts and adds its findings: each subject
// method judged against the reference, and the FP chain's step compared
// with the reference's.
func (t *Trace) judgeFrame(i int) {
	fr := &t.Frames[i]
	ref := &fr.Steps[Reference]
	if !ref.Ran {
		return // the depth limit cut the trace before this frame was unwound
	}
	fn := "" // described once, on the first finding
	for _, m := range t.methods().subjects {
		fr.Verdicts[m] = t.judge(fr, m, Reference, &fn)
	}
	switch fr.Verdict() {
	case VerdictAgree, VerdictEnd:
		t.Agree++
	case VerdictDisagree:
		t.Disagree++
	default:
		t.NotCovered++
	}
	fp := &fr.Steps[chainMethod]
	fr.FPAgrees = fp.OK() == ref.OK() && len(stepDiff(ref, fp)) == 0
	if !fr.FPAgrees && ref.OK() {
		t.FPBroken++
		if t.FPBrokenFrom < 0 {
			t.FPBrokenFrom = fr.Level
		}
	}
}

// judge judges the step of the method subj at frame fr against the step
// of the method ref, adds the findings and returns subj's verdict. fn
// holds the frame's description once a finding has made it.
func (t *Trace) judge(fr *Frame, subj, ref frames.Method, fn *string) Verdict {
	sf, cfi := &fr.Steps[subj], &fr.Steps[ref]
	S, R := subj.Title(), ref.Title()
	add := func(k Kind, format string, args ...any) {
		if *fn == "" {
			*fn = describeFunc(t.space, fr)
		}
		f := Finding{Kind: subjectKind(subj, k), Module: moduleName(fr.Module), Function: *fn,
			Frame: fr.Level, PC: fr.PC, Message: fmt.Sprintf("frame #%d %s: ", fr.Level, *fn) + fmt.Sprintf(format, args...)}
		for m := range fr.Steps {
			f.Rules[m] = stepRule(&fr.Steps[m])
		}
		t.Findings = append(t.Findings, f)
	}
	v := VerdictAgree
	cfiOuter := cfi.Outermost()
	switch {
	case !sf.OK() && (sf.reason() == frames.ReasonNoData || sf.reason() == frames.ReasonNoModule):
		v = VerdictNotCovered
	case !cfi.OK() && !cfiOuter:
		v = VerdictNotCovered // no reference to judge the subject by
	case cfiOuter && sf.OK():
		v = VerdictDisagree
		add(KindOutermost, "%s says outermost frame (RA undefined), %s gives caller %#x", R, S, sf.CallerPC)
	case !sf.OK() && (sf.reason() == frames.ReasonNoFDE || sf.reason() == frames.ReasonNoRow):
		v = VerdictNotCovered
		if subj == frames.MethodSFrame && inGap(fr.Module, fr.LookupPC()) {
			add(KindGap, "the PC lies in a gap of %s's coverage of its function: %v", S, sf.Err)
		} else {
			add(KindNoFDE, "%s covers the PC but %s does not: %v", R, S, sf.Err)
		}
	case cfiOuter:
		v = VerdictEnd
		if !sf.Outermost() {
			v = VerdictDisagree
			add(KindOutermost, "%s says outermost frame, %s stops with: %v", R, S, sf.Err)
		}
	case !sf.OK():
		v = VerdictDisagree
		switch {
		case sf.Outermost():
			add(KindOutermost, "%s says outermost frame, %s gives caller %#x", S, R, cfi.CallerPC)
		case sf.row().Signal:
			add(KindSignal, "%s cannot unwind: %v", S, sf.Err)
		default:
			add(KindCFA, "%s cannot unwind: %v", S, sf.Err)
		}
	default:
		kinds := stepDiff(cfi, sf)
		if len(kinds) == 0 {
			break
		}
		if subj == frames.MethodEHABI && fr.Interrupted {
			// EHABI describes the function's body at its call sites
			// (as check compares it): an interrupted PC may be in a
			// prologue or an epilogue, where it does not hold.
			v = VerdictNotCovered
			var diffs []string
			for _, k := range kinds {
				diffs = append(diffs, fmt.Sprintf("%s %s, %s %s", S, stepValue(sf, k), R, stepValue(cfi, k)))
			}
			add(KindSkipped, "%s describes the body at call sites, and this frame is interrupted at %#x (a prologue or an epilogue?): %s",
				S, fr.PC, strings.Join(diffs, "; "))
			break
		}
		v = VerdictDisagree
		special := Kind(0)
		switch {
		case sf.row().Signal || cfi.row().Signal:
			special = KindSignal
		case sf.row().Src.PCType == sframe.PCTypeMask:
			special = KindPLT
		}
		first := len(t.Findings)
		for _, k := range kinds {
			msg := fmt.Sprintf("%s: %s %s, %s %s", k.Title(), S, stepValue(sf, k), R, stepValue(cfi, k))
			if special != 0 {
				add(special, "%s (%s)", msg, k.Title())
			} else {
				add(k, "%s", msg)
			}
		}
		if special == 0 && subj == frames.MethodSFrame && fr.Module != nil {
			if b, ok := boundaryAt(fr.Module, fr.LookupPC()); ok {
				for j := first; j < len(t.Findings); j++ {
					t.Findings[j].Kind, t.Findings[j].Shift = KindFREBoundary, b.Shift
					t.Findings[j].Message += "; static check: " + b.Message
				}
			}
		}
	}
	return v
}

// stepDiff compares a method's step with the reference step: the same
// CFA and caller SP (unless the method does not know the CFA: AArch64's
// frame records), the same caller PC and, when both know it, the same
// caller FP.
func stepDiff(ref, s *Step) []Kind {
	if !s.OK() || !ref.OK() {
		if s.OK() != ref.OK() {
			return []Kind{KindCFA}
		}
		return nil
	}
	var out []Kind
	if s.CFA != 0 && (s.CFA != ref.CFA || s.CallerSP != ref.CallerSP) {
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

// stepRule is the rule text of a step for findings: "cfa=rsp+16 ra=c-8
// fp=u", "" when the method found no row.
func stepRule(s *Step) string {
	if s.Row == nil {
		return ""
	}
	return ruleText(*s.Row)
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

func moduleName(m *frames.Module) string {
	if m == nil {
		return ""
	}
	return m.Name
}

// describeFunc names a frame's code for findings and independent traces:
// "module!function+0xoff at file.c:12".
func describeFunc(space *frames.Space, fr *Frame) string {
	return space.DescribeAt(fr.PC, fr.LookupPC())
}

// identity is a frame's identity for matching across methods: the start of
// its function (or its PC) and its CFA, as gdb's frame IDs.
type identity struct{ fn, cfa uint64 }

func frameID(space *frames.Space, pc, lookupPC, cfa uint64) identity {
	id := identity{fn: pc, cfa: cfa}
	if m := space.Modules.Find(lookupPC); m != nil {
		if _, off, ok := m.FuncName(lookupPC); ok {
			id.fn = lookupPC - off
		}
	}
	return id
}

// independent runs the other methods' own traces (SFrame's, the FP
// chain's: every method with an unwinder but the reference) and matches
// their frames with the reference by identity, in time linear in the
// depth: the reference frames are indexed by identity in a map.
func (t *Trace) independent(u unwinders) {
	byID := make(map[identity]int, len(t.Frames))
	byFnPC := make(map[[2]uint64]int, len(t.Frames))
	for i := range t.Frames {
		f := &t.Frames[i]
		id := frameID(t.space, f.PC, f.LookupPC(), f.CFA)
		if _, dup := byID[id]; !dup {
			byID[id] = i
		}
		if _, dup := byFnPC[[2]uint64{id.fn, f.PC}]; !dup {
			byFnPC[[2]uint64{id.fn, f.PC}] = i
		}
	}
	match := func(pc, lookupPC, cfa uint64) int {
		id := frameID(t.space, pc, lookupPC, cfa)
		if i, ok := byID[id]; ok {
			return i
		}
		// A frame whose CFA is unknown (the last of a trace that stopped)
		// matches on function and exact PC.
		if i, ok := byFnPC[[2]uint64{id.fn, pc}]; ok && (cfa == 0 || t.Frames[i].CFA == 0) {
			return i
		}
		return -1
	}
	for _, m := range t.methods().lead[1:] {
		it := IndependentTrace{Method: m}
		s := frames.NewStack(u[m], t.regs, t.space, frames.StackOptions{MaxDepth: t.opts.MaxDepth})
		missing, extra := subjectKind(m, KindMissingFrame), subjectKind(m, KindExtraFrame)
		if m == chainMethod {
			missing, extra = KindFPChain, KindFPChain
		}
		last := -1
		for s.Next() {
			f := s.Frame()
			j := match(f.PC, f.LookupPC(), f.CFA)
			it.Frames = append(it.Frames, IndependentFrame{PC: f.PC, CFA: f.CFA, Matches: j})
			if m == chainMethod {
				continue // the FP chain's own trace is shown, not judged frame by frame
			}
			if j < 0 {
				fn := t.space.DescribeFrame(&f)
				t.Findings = append(t.Findings, Finding{Kind: extra, Frame: f.Level, PC: f.PC, Function: fn,
					Message: fmt.Sprintf("%v trace frame #%d %s (CFA %#x) is not in the CFI trace", m, f.Level, fn, f.CFA)})
				continue
			}
			for k := last + 1; k < j; k++ {
				fn := describeFunc(t.space, &t.Frames[k])
				t.Findings = append(t.Findings, Finding{Kind: missing, Frame: k, PC: t.Frames[k].PC, Function: fn,
					Message: fmt.Sprintf("%v trace skipped frame #%d %s", m, k, fn)})
			}
			last = max(last, j)
		}
		it.Stop = s.Stop()
		t.Independent = append(t.Independent, it)
	}
}

// FrameAt returns frame n of the trace as the unwinders see it, with the
// registers recovered so far, by unwinding again from frame 0 along the
// trace's own path (the registers are not kept per frame: a trace holds
// millions of frames in little memory). The target must still be stopped
// as it was, or the same core. ok is false when n is out of range or the
// path cannot be retraced.
func (t *Trace) FrameAt(n int) (frames.Frame, bool) {
	if n < 0 || n >= len(t.Frames) {
		return frames.Frame{}, false
	}
	u := t.methods().newUnwinders(t.space)
	s := frames.NewStack(&replay{t: t, u: u}, t.regs, t.space, frames.StackOptions{MaxDepth: n + 1})
	for s.Next() {
		if f := s.Frame(); f.Level == n {
			return f, f.PC == t.Frames[n].PC
		}
	}
	return frames.Frame{}, false
}

// FramesTo returns frames 0 to n of the trace as FrameAt returns them,
// in one replay of the trace's path (FrameAt for each would replay it n
// times); fewer when the path cannot be retraced that far. Each frame's
// CFA is the trace's (Frame.CFA).
func (t *Trace) FramesTo(n int) []frames.Frame {
	n = min(n, len(t.Frames)-1)
	if n < 0 {
		return nil
	}
	u := set.newUnwinders(t.space)
	s := frames.NewStack(&replay{t: t, u: u}, t.regs, t.space, frames.StackOptions{MaxDepth: n + 1})
	out := make([]frames.Frame, 0, n+1)
	for s.Next() {
		f := s.Frame()
		if f.Level != len(out) || f.PC != t.Frames[f.Level].PC {
			break
		}
		f.CFA = t.Frames[f.Level].CFA
		out = append(out, f)
	}
	return out
}

// replay follows a trace's recorded path: at each frame the method that
// found the next frame.
type replay struct {
	t *Trace
	u unwinders
}

func (r *replay) Method() frames.Method { return frames.MethodCFI }

func (r *replay) Step(f *frames.Frame) (frames.Frame, error) {
	if f.Level+1 >= len(r.t.Frames) {
		return frames.Frame{}, &frames.StopError{Reason: frames.ReasonDepth, PC: f.PC, Msg: "end of the recorded trace"}
	}
	m := r.t.Frames[f.Level+1].FoundBy
	c, err := r.u[m].Step(f)
	c.Method = m
	return c, err
}

// StepsAt returns every method's step from frame n: those the trace
// recorded and, for a single-method trace, the other methods' steps
// computed now from the frame's registers. It returns false when n is out
// of range.
func (t *Trace) StepsAt(n int) (Steps, bool) {
	if n < 0 || n >= len(t.Frames) {
		return Steps{}, false
	}
	steps := t.Frames[n].Steps
	if t.Methods == All && steps[Reference].Ran {
		return steps, true
	}
	f, ok := t.FrameAt(n)
	if !ok {
		return steps, true
	}
	u := setFor(All, t.regs.Arch).newUnwinders(t.space)
	for m := range steps {
		if !steps[m].Ran && u[m] != nil {
			runStep(u[m], &f, &steps[m])
			steps[m].Row = nil
			if f.Row.Found() {
				r := f.Row // f.Row is the next method's scratch
				steps[m].Row = &r
			}
		}
	}
	return steps, true
}
