package compare

// This file adapts the code oracle of package frames/code to check
// (CodeOracle): per function it runs the module's frames.CodeAnalyzer
// (code.Analyze with what the file tells about the rest of the program:
// noreturn calls, jump tables, jumps into other functions, cold
// partitions) and gives its states as CodeRows.

import (
	"sort"

	"github.com/sfdbg/sfdbg/frames"
	"github.com/sfdbg/sfdbg/frames/code"
	"github.com/sfdbg/sfdbg/sframe/arch"
	"github.com/sfdbg/sfdbg/sframe/rule"
)

// FramesCode is the code oracle of sfdbg check (CheckOptions.Code): the
// machine-neutral walk of frames/code over the file's functions, on every
// machine with a decoder (arch.Arch.Decoder: x86-64, AArch64, s390x),
// with what the file tells the walk (frames.CodeAnalyzer, as the live code
// unwinder has it). It fails for a machine without one.
func FramesCode(m *frames.Module) (CodeFuncs, error) {
	a, err := m.Arch()
	if err != nil {
		return nil, err
	}
	an, err := m.CodeAnalyzer()
	if err != nil {
		return nil, err
	}
	// One function's rows at a time (CodeFuncs): their buffers serve the
	// next function.
	rows := &funcRows{}
	return func(text []byte, start uint64) CodeRows {
		fn, entered, why := an.Analyze(text, start)
		if fn == nil {
			return notFollowed(why)
		}
		rows.reset(fn, a, text)
		rows.jumps = entered
		return rows
	}, nil
}

// funcRows is the CodeRows of one function analyzed by frames/code.
type funcRows struct {
	f     *code.Func
	a     *arch.Arch
	text  []byte
	notes []CodeNote
	// next is the index in f.Insts after the last one At found: check
	// asks in address order, so most lookups need no search.
	next int
	// states caches At's answer per state of f (f.States), made on first
	// use: Row and the alternative rules are derived once per state.
	states []CodeState
	made   []bool
	jumps  bool // EnteredByJumps
}

// reset makes r the rows of fn, analyzed from text on a, reusing r's
// buffers.
func (r *funcRows) reset(fn *code.Func, a *arch.Arch, text []byte) {
	r.f, r.a, r.text, r.next = fn, a, text, 0
	r.notes = r.notes[:0]
	n := len(fn.States)
	if cap(r.states) < n {
		r.states, r.made = make([]CodeState, n), make([]bool, n)
	}
	r.states, r.made = r.states[:n], r.made[:n]
	clear(r.made)
	for _, fd := range fn.Findings {
		switch fd.Kind {
		case code.KindState, code.KindRet, code.KindTailCall:
			r.notes = append(r.notes, CodeNote{PC: fd.PC, Message: fn.Describe(fd)})
		}
	}
}

// At gives the code's state before the instruction at pc (CodeRows).
func (r *funcRows) At(pc uint64) CodeState {
	i := -1
	if k := r.next; k < len(r.f.Insts) && r.f.Start+uint64(r.f.Insts[k].Off) == pc {
		i = k
	} else {
		i = r.f.Index(pc)
	}
	if i < 0 {
		if r.padding(pc) {
			return CodeState{Padding: true}
		}
		return CodeState{Why: "not reached from the entry"}
	}
	r.next = i + 1
	id := r.f.Insts[i].State
	if id < 0 {
		return CodeState{Why: r.f.Reasons[-1-id]}
	}
	if !r.made[id] {
		st := r.f.States[id]
		cs := CodeState{Row: st.Row(r.a), Known: true, ID: int(id)}
		cs.AltRA = alt(r.a, st, r.a.RA, cs.Row.RA)
		cs.AltFP = alt(r.a, st, r.a.FP, cs.Row.FP)
		r.states[id], r.made[id] = cs, true
	}
	return r.states[id]
}

// alt returns the other right rule for the caller's value of reg whose
// rule in the code's row is cur: a register loaded back from a slot that
// is still intact (code.State.SavedAt), or copied to another register
// (code.State.CopiedTo), is in both places, so a table may name either (GCC's last epilogue keeps
// FP=c-16 after pop %rbp: it writes no .cfi_restore there); so may the
// RA's register when it may hold the RA (code.State.MayHoldCaller).
func alt(a *arch.Arch, st code.State, reg rule.Reg, cur rule.Rule) rule.Rule {
	if st.MayHoldCaller(a, reg) && cur.Kind == rule.Offset && !st.InRegister(a, reg) {
		// x30 loaded from a slot the walk does not follow: it may hold
		// the RA, so a table naming it is not refuted.
		return a.Entry.RA
	}
	if !st.InRegister(a, reg) {
		if r, ok := st.CopiedTo(a, reg); ok && cur.Kind == rule.Offset {
			return rule.Rule{Kind: rule.Register, Reg: r} // saved and in r: the RA popped to rdi, pushed back
		}
		return rule.Rule{}
	}
	if r, ok := st.CopiedTo(a, reg); ok {
		// A copy in another register (s390x: ldgr %f0,%r14 keeps the RA
		// in f0 and in r14).
		if cur.Kind == rule.Register {
			if reg == a.RA {
				return a.Entry.RA
			}
			return rule.Rule{Kind: rule.SameValue, Reg: rule.CFA}
		}
		return rule.Rule{Kind: rule.Register, Reg: r}
	}
	k, ok := st.SavedAt(a, reg)
	if !ok {
		return rule.Rule{}
	}
	if cur.Kind == rule.Offset {
		if reg == a.RA {
			return a.Entry.RA
		}
		return rule.Rule{Kind: rule.SameValue, Reg: rule.CFA}
	}
	return rule.Rule{Kind: rule.Offset, Reg: rule.CFA, Offset: k}
}

// padding reports whether the unreached instruction at pc is alignment
// padding (code.IsPadding).
func (r *funcRows) padding(pc uint64) bool {
	off := pc - r.f.Start
	return off < uint64(len(r.text)) && code.IsPadding(r.a, r.text[off:], pc)
}

// FirstInstruction returns the address of the function's first
// instruction that is not a nop (its start when there is none): a nop
// leaves the stack as it was, so a table that changes the CFA after
// leading nops says the function is not entered by a call
// (enteredOtherwise).
func (r *funcRows) FirstInstruction() uint64 {
	for _, in := range r.f.Insts {
		pc := r.f.Start + uint64(in.Off)
		if in.Len == 0 || !r.nop(pc) {
			return pc
		}
	}
	return r.f.Start
}

// nop reports whether the instruction at pc is a nop (code.IsNop).
func (r *funcRows) nop(pc uint64) bool {
	off := pc - r.f.Start
	return off < uint64(len(r.text)) && code.IsNop(r.a, r.text[off:], pc)
}

// walked gives the instructions the walk decoded (walkedInsts).
func (r *funcRows) walked() (uint64, []code.Inst) { return r.f.Start, r.f.Insts }

// Exits lists the function's jumps into other FDEs, with the state at
// each (code.Func.Exits).
func (r *funcRows) Exits() []code.Exit { return r.f.Exits }

// EnteredByJumps reports whether the walk started from the states at the
// jumps into the function (a cold part), not from a call's.
func (r *funcRows) EnteredByJumps() bool { return r.jumps }

// CFAVia gives CFA - reg before the instruction at pc, where the code
// knows it (CodeRows).
func (r *funcRows) CFAVia(pc uint64, reg rule.Reg) (int64, bool) {
	if k := r.next - 1; k >= 0 && k < len(r.f.Insts) && r.f.Start+uint64(r.f.Insts[k].Off) == pc {
		// The instruction At found last (judge asks At first).
		if id := r.f.Insts[k].State; id >= 0 {
			return r.f.States[id].CFAVia(r.a, reg)
		}
		return 0, false
	}
	st, _, ok := r.f.StateAt(pc)
	if !ok {
		return 0, false
	}
	return st.CFAVia(r.a, reg)
}

// HoldsCaller reports whether callee-saved register reg (not SP, FP or
// the RA's) still holds the caller's value before the instruction at pc:
// the code never set it, so no CFA can be based on it.
func (r *funcRows) HoldsCaller(pc uint64, reg rule.Reg) bool {
	if reg == r.a.SP || reg == r.a.FP || reg == r.a.RA {
		return false
	}
	st, _, ok := r.f.StateAt(pc)
	return ok && st.InRegister(r.a, reg)
}

// States lists the walk's own findings (CodeRows).
func (r *funcRows) States() []CodeNote {
	sort.SliceStable(r.notes, func(i, j int) bool { return r.notes[i].PC < r.notes[j].PC })
	return r.notes
}
