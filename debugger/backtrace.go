package debugger

// This file is the adapter between the debugger and the unwinders of
// package frames: it computes a thread's backtrace with one method, or with
// all three compared frame by frame. It is written so that it can be
// replaced by compare.Stack (the lead's differential report) without
// touching the commands: they use only Trace and TraceFrame.

import (
	"errors"
	"fmt"
	"strings"

	"github.com/sfdbg/sfdbg/compare"
	"github.com/sfdbg/sfdbg/frames"
)

// loadModules reads the modules of process pid from /proc/PID/maps. Their
// unwind data and symbols load lazily, on the first PC in them.
func loadModules(pid int, mem frames.Memory) (*frames.Modules, error) {
	return frames.ModulesFromMaps(pid, mem)
}

// Mode says which methods a backtrace uses.
type Mode int

// Backtrace modes.
const (
	// ModeAll unwinds with SFrame where it can, with DWARF CFI where SFrame
	// cannot, then with frame pointers, and at every frame asks all three
	// methods for the caller and compares their answers.
	ModeAll Mode = iota
	ModeSFrame
	ModeCFI
	ModeFP
)

var modeNames = [...]string{"all", "sframe", "cfi", "fp"}

func (m Mode) String() string {
	if int(m) < len(modeNames) {
		return modeNames[m]
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// ParseMode parses "all", "sframe", "cfi" or "fp".
func ParseMode(s string) (Mode, error) {
	for i, n := range modeNames {
		if s == n {
			return Mode(i), nil
		}
	}
	return 0, fmt.Errorf("unknown method %q (want sframe, cfi, fp or all)", s)
}

// methods in order of preference for ModeAll.
var allMethods = [...]frames.Method{frames.MethodSFrame, frames.MethodCFI, frames.MethodFP}

func (m Mode) method() frames.Method {
	switch m {
	case ModeCFI:
		return frames.MethodCFI
	case ModeFP:
		return frames.MethodFP
	}
	return frames.MethodSFrame
}

func newUnwinder(m frames.Method, sp *frames.Space) frames.Unwinder {
	switch m {
	case frames.MethodCFI:
		return &frames.CFIUnwinder{Space: sp}
	case frames.MethodFP:
		return &frames.FPUnwinder{Space: sp}
	}
	return &frames.SFrameUnwinder{Space: sp}
}

// Verdict says how one method's answer for a frame's caller compares with
// the caller the backtrace took.
type Verdict int

// Verdicts.
const (
	VerdictNone   Verdict = iota // not asked (single-method backtrace, frame 0)
	VerdictUsed                  // this method found the caller
	VerdictAgree                 // it found the same caller (PC and CFA)
	VerdictDiffer                // it found another caller
	VerdictFailed                // it could not unwind this frame (Err says why)
	VerdictEnd                   // it says this frame is the outermost one
)

var verdictNames = [...]string{"", "found", "ok", "DIFF", "-", "end"}

func (v Verdict) String() string {
	if int(v) < len(verdictNames) {
		return verdictNames[v]
	}
	return fmt.Sprintf("Verdict(%d)", int(v))
}

// Step is one method's attempt to unwind a frame: the caller it computed,
// or the error; the CFA and the row it used.
type Step struct {
	Method  frames.Method
	Caller  frames.Frame
	CFA     uint64
	Row     frames.Row
	Err     error // *frames.StopError
	Verdict Verdict
}

// TraceFrame is one frame of a backtrace. Found holds, by method, how each
// method's unwind of the frame below compares with this frame (VerdictUsed
// for the method that found it); Unwind holds each method's attempt to
// unwind this frame (to find its caller).
type TraceFrame struct {
	frames.Frame
	Found  [3]Step
	Unwind [3]Step
}

// Trace is the backtrace of one thread.
type Trace struct {
	Mode   Mode
	Frames []TraceFrame
	// Stop is why the trace ended: ReasonOutermost for a complete trace.
	Stop *frames.StopError
	// SFrameEnd is, in ModeAll, the level of the first frame SFrame could
	// not unwind (-1 if it unwound every frame).
	SFrameEnd int
}

// Complete reports whether the trace reached the outermost frame.
func (t *Trace) Complete() bool { return t.Stop == nil || t.Stop.Reason == frames.ReasonOutermost }

func methodIndex(m frames.Method) int {
	switch m {
	case frames.MethodCFI:
		return 1
	case frames.MethodFP:
		return 2
	}
	return 0
}

// compareUnwinder implements frames.Unwinder for ModeAll: each Step asks all
// three methods, records their answers, and returns the first method's
// caller that is not an error. A method that says the frame is outermost
// ends the trace (another method that finds a caller disagrees).
type compareUnwinder struct {
	u     [3]frames.Unwinder
	steps map[int][3]Step // by the level of the frame unwound
}

func (c *compareUnwinder) Method() frames.Method { return frames.MethodSFrame }

func (c *compareUnwinder) Step(f *frames.Frame) (frames.Frame, error) {
	var st [3]Step
	chosen := -1
	for i, u := range c.u {
		fc := *f
		caller, err := safeStep(u, &fc)
		st[i] = Step{Method: u.Method(), Caller: caller, CFA: fc.CFA, Row: fc.Row, Err: err}
		if i == 0 && frames.IsOutermost(err) {
			chosen = -2 // SFrame says outermost: the trace ends here
		}
		if chosen == -1 && err == nil {
			chosen = i
		}
	}
	var ret frames.Frame
	var err error
	switch {
	case chosen >= 0:
		ret = st[chosen].Caller
		ret.Method = st[chosen].Method
		f.CFA, f.Row = st[chosen].CFA, st[chosen].Row
	case chosen == -2:
		err = st[0].Err
		f.CFA, f.Row = st[0].CFA, st[0].Row
	default:
		err = st[0].Err
		for i := range st {
			if frames.IsOutermost(st[i].Err) {
				err = st[i].Err
				break
			}
		}
		f.Row = st[0].Row
	}
	for i := range st {
		if i == chosen {
			st[i].Verdict = VerdictUsed
			continue
		}
		var taken *frames.Frame // nil: it finds a caller where SFrame ends
		if chosen >= 0 {
			taken = &ret
		}
		st[i].Verdict = verdict(&st[i], taken)
	}
	c.steps[f.Level] = st
	return ret, err
}

// verdict judges a method's step against the caller the trace took (nil
// if it took none): end, failed, agree or differ. The same caller is judged
// as package compare judges it (PC, SP and, when both know it, FP).
func verdict(st *Step, taken *frames.Frame) Verdict {
	switch {
	case frames.IsOutermost(st.Err):
		return VerdictEnd
	case st.Err != nil:
		return VerdictFailed
	case taken != nil && compare.SameCaller(&st.Caller, taken):
		return VerdictAgree
	}
	return VerdictDiffer
}

// safeStep calls u.Step, turning a panic into a StopError.
func safeStep(u frames.Unwinder, f *frames.Frame) (caller frames.Frame, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &frames.StopError{Method: u.Method(), Reason: frames.ReasonFormat, PC: f.PC,
				Msg: fmt.Sprintf("%v unwinder failed at PC %#x: %v", u.Method(), f.PC, r)}
		}
	}()
	return u.Step(f)
}

// Backtrace computes the backtrace of a thread whose registers are regs.
// maxDepth bounds the number of frames (0: frames.DefaultMaxDepth).
func Backtrace(sp *frames.Space, regs frames.Regs, mode Mode, maxDepth int) *Trace {
	t := &Trace{Mode: mode, SFrameEnd: -1}
	opts := frames.StackOptions{MaxDepth: maxDepth}
	var u frames.Unwinder
	var cu *compareUnwinder
	if mode == ModeAll {
		cu = &compareUnwinder{steps: map[int][3]Step{}}
		for i, m := range allMethods {
			cu.u[i] = newUnwinder(m, sp)
		}
		u = cu
	} else {
		u = newUnwinder(mode.method(), sp)
	}
	s := frames.NewStack(u, regs, sp, opts)
	// Collect the frames first: a TraceFrame is ~5 KB (six Steps), so
	// growing a []TraceFrame by append would copy and allocate several
	// times what the trace needs.
	var fs []frames.Frame
	for s.Next() {
		fs = append(fs, s.Frame())
	}
	t.Frames = make([]TraceFrame, len(fs))
	for i := range fs {
		t.Frames[i].Frame = fs[i]
	}
	t.Stop = s.Stop()
	if cu != nil {
		for i := range t.Frames {
			st, ok := cu.steps[t.Frames[i].Level]
			if !ok {
				continue
			}
			t.Frames[i].Unwind = st
			if i+1 < len(t.Frames) {
				t.Frames[i+1].Found = st
			}
			if t.SFrameEnd < 0 && st[0].Err != nil && !frames.IsOutermost(st[0].Err) {
				t.SFrameEnd = i
			}
		}
	} else {
		m := mode.method()
		k := methodIndex(m)
		for i := range t.Frames {
			f := &t.Frames[i]
			f.Unwind[k] = Step{Method: m, CFA: f.CFA, Row: f.Row, Verdict: VerdictUsed}
			if i+1 < len(t.Frames) {
				f.Unwind[k].Caller = t.Frames[i+1].Frame
				t.Frames[i+1].Found[k] = f.Unwind[k]
			} else if t.Stop != nil {
				f.Unwind[k].Err = t.Stop
				f.Unwind[k].Verdict = VerdictFailed
			}
		}
	}
	return t
}

// Disagreements counts the frames where a method found a different caller
// than the one taken, by method index (sframe, cfi, fp).
func (t *Trace) Disagreements() [3]int {
	var n [3]int
	for i := range t.Frames {
		for k, st := range t.Frames[i].Unwind {
			if st.Verdict == VerdictDiffer {
				n[k]++
			}
		}
	}
	return n
}

// stopText describes why a trace ended, for the line after its frames.
func stopText(se *frames.StopError) string {
	if se == nil {
		return ""
	}
	msg := se.Error()
	var inner *frames.StopError
	if errors.As(se.Err, &inner) && inner != se {
		msg = inner.Error()
	}
	return strings.TrimSpace(msg)
}
