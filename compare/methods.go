package compare

import (
	"fmt"
	"strings"
	"sync"

	"github.com/sfdbg/sfdbg/frames"
	"github.com/sfdbg/sfdbg/sframe/arch"
)

// Methods says which unwinding methods a trace runs: All, or one method
// alone (Only).
type Methods uint8

// The method sets. All runs every method that has an unwinder
// (frames.LiveMethods): the trace follows the reference, DWARF CFI (as gdb
// unwinds), where it can, else the next method of the lead order, and at
// every frame each method computes the caller from the same registers
// (seeded) and is judged against the reference: SFrame (and any other
// method but the frame-pointer chain) with a Verdict and findings, the FP
// chain as a chain (Frame.FPAgrees). A single method (Only: OnlySFrame,
// OnlyCFI, OnlyFP) follows that method alone and judges nothing: a view of
// the same model.
const (
	All        Methods = 0
	OnlySFrame         = Methods(frames.MethodSFrame) + 1
	OnlyCFI            = Methods(frames.MethodCFI) + 1
	OnlyFP             = Methods(frames.MethodFP) + 1
)

// Only returns the set of method m alone.
func Only(m frames.Method) Methods { return Methods(m) + 1 }

// Single returns the one method of a single-method set; ok is false for
// All.
func (m Methods) Single() (x frames.Method, ok bool) {
	if m == All {
		return 0, false
	}
	return frames.Method(m - 1), true
}

func (m Methods) String() string {
	if x, ok := m.Single(); !ok {
		return "all"
	} else if x < frames.NumMethods {
		return x.String()
	}
	return fmt.Sprintf("Methods(%d)", uint8(m))
}

// ParseMethods parses "all" (or "compare") or the name of a method with an
// unwinder ("sframe", "cfi", "fp", "code", "ehabi"). A method without an
// unwinder is refused, saying so.
func ParseMethods(s string) (Methods, error) {
	if s == "compare" || s == "all" {
		return All, nil
	}
	x, ok := frames.ParseMethod(s)
	if ok && set.has(x) {
		return Only(x), nil
	}
	want := MethodNames(", ") + ", or all/compare"
	if ok {
		return 0, fmt.Errorf("method %q cannot unwind a stack yet: it has no unwinder (want %s)", s, want)
	}
	return 0, fmt.Errorf("unknown method %q (want %s)", s, want)
}

// MethodNames returns the names of the methods a trace can run alone
// (those with an unwinder), joined by sep: "sframe|cfi|fp" for usage
// lines and help, which then list a new method once it can unwind.
func MethodNames(sep string) string {
	names := make([]string, len(set.live))
	for i, m := range set.live {
		names[i] = m.String()
	}
	return strings.Join(names, sep)
}

// Checked says what an All trace judges, in words for headers: "SFRAME,
// FP and CODE checked against CFI", naming every method that applies to
// the trace's machine but the reference, as its column in the text table
// is headed, so a method that gains an unwinder is named without a second
// list.
func (t *Trace) Checked() string {
	var names []string
	for _, m := range t.LiveMethods() {
		if m != Reference {
			names = append(names, strings.ToUpper(m.String()))
		}
	}
	var list string
	switch n := len(names); n {
	case 0:
	case 1:
		list = names[0]
	default:
		list = strings.Join(names[:n-1], ", ") + " and " + names[n-1]
	}
	return list + " checked against " + strings.ToUpper(Reference.String())
}

// Runs reports whether the set runs method x: a method with an unwinder,
// all of them for All.
func (m Methods) Runs(x frames.Method) bool {
	if !set.has(x) {
		return false
	}
	if one, ok := m.Single(); ok {
		return x == one
	}
	return true
}

// Reference is the method an All trace follows first and judges the others
// against: DWARF CFI, as gdb unwinds.
const Reference = frames.MethodCFI

// chainMethod is the method an All trace judges as a chain rather than
// frame by frame: the frame-pointer chain, which code built without frame
// pointers breaks by design (Frame.FPAgrees, Trace.FPBroken).
const chainMethod = frames.MethodFP

// methodSet is how traces use the methods that have an unwinder, derived
// once from frames' set (newMethodSet).
type methodSet struct {
	// live are the methods with an unwinder, in the set's order.
	live []frames.Method
	// lead is the order in which an All trace takes a method's caller:
	// the reference, then the other unwind tables, then the other live
	// methods, each in the set's order.
	lead []frames.Method
	// subjects are the methods an All trace gives a Verdict at every
	// frame: the live methods but the reference and the chain (SFrame,
	// then the code once it has an unwinder).
	subjects []frames.Method
	// columns are the judgement columns of an All trace's text table.
	columns []judgeColumn
	// unwinder builds a live method's unwinder over a space.
	unwinder func(frames.Method, *frames.Space) frames.Unwinder
	// machines caches the set of each machine taken from this one
	// (setFor), by *arch.Arch.
	machines sync.Map
}

// judgeColumn is a column of an All trace's table: a method judged
// against the reference, its verdict (subjects) or "ok"/"differs" (the FP
// chain), under its name in capitals, width columns wide.
type judgeColumn struct {
	m     frames.Method
	width int
}

// set is the method set every trace uses: frames' methods with an
// unwinder (frames.Method.NewUnwinder).
var set = newMethodSet(frames.LiveMethods(), frames.Method.NewUnwinder)

func newMethodSet(live []frames.Method, unwinder func(frames.Method, *frames.Space) frames.Unwinder) *methodSet {
	s := &methodSet{live: live, lead: []frames.Method{Reference}, unwinder: unwinder}
	// The unwind tables (SFrame, EHABI) lead before the methods that
	// reconstruct a frame without them (the FP chain, the code).
	for _, table := range []bool{true, false} {
		for _, m := range live {
			if m != Reference && m.Table() == table {
				s.lead = append(s.lead, m)
			}
		}
	}
	for _, m := range live {
		switch m {
		case Reference:
		case chainMethod:
			s.columns = append(s.columns, judgeColumn{m, 7})
		default:
			s.subjects = append(s.subjects, m)
			s.columns = append(s.columns, judgeColumn{m, 11})
		}
	}
	return s
}

// has reports whether m is live.
func (s *methodSet) has(m frames.Method) bool {
	for _, x := range s.live {
		if x == m {
			return true
		}
	}
	return false
}

// unwinders are the methods' unwinders over one address space, by
// frames.Method; nil for a method without one.
type unwinders [frames.NumMethods]frames.Unwinder

func (s *methodSet) newUnwinders(space *frames.Space) unwinders {
	var u unwinders
	for _, m := range s.live {
		u[m] = s.unwinder(m, space)
	}
	return u
}

// setFor returns the method set of a trace of methods ms on machine a
// (nil: AMD64): for a single method, every live method (the trace runs
// the one chosen); for All, the live methods whose data can exist on the
// machine (frames.Method.AppliesTo), so that an AMD64 trace has no EHABI
// column and a 32-bit ARM trace has one.
func setFor(ms Methods, a *arch.Arch) *methodSet {
	if _, ok := ms.Single(); ok {
		return set
	}
	if s, ok := set.machines.Load(a); ok {
		return s.(*methodSet)
	}
	var live []frames.Method
	for _, m := range set.live {
		if m.AppliesTo(a) {
			live = append(live, m)
		}
	}
	s, _ := set.machines.LoadOrStore(a, newMethodSet(live, set.unwinder))
	return s.(*methodSet)
}

// methods returns the trace's method set (setFor); set for a Trace not
// made by Unwind.
func (t *Trace) methods() *methodSet {
	if t.set == nil {
		return set
	}
	return t.set
}

// LiveMethods returns the methods that apply to the trace's machine
// (frames.Method.AppliesTo), in the set's order: those an All trace runs,
// and StepsAt computes for a single method's.
func (t *Trace) LiveMethods() []frames.Method { return setFor(All, t.regs.Arch).live }
