package code

import (
	"fmt"
	"slices"
	"sort"
	"sync"

	"github.com/sfdbg/sfdbg/sframe/arch"
	"github.com/sfdbg/sfdbg/sframe/rule"
)

// MaxFindings bounds the findings of one function; more are counted in
// Func.Dropped.
const MaxFindings = 4096

// maxQueued bounds the branches waiting to be walked for n bytes of code
// (a jump table resolver could give every byte as a target at every
// visit).
func maxQueued(n int) int { return n/4 + 1024 }

// item is a branch waiting to be walked: an offset and the state there;
// call is the offset of the call whose fall-through it is, or -1.
type item struct {
	off, call int
	st        State
	// ks, when set, are the constants a call's fall-through starts with:
	// those in registers its callee keeps (Options.CallKeeps).
	ks *consts
}

// walker holds one walk's scratch; walkers are pooled so that analysing
// many functions does not allocate per instruction.
type walker struct {
	a    *arch.Arch
	t    *regTable
	text []byte
	pc0  uint64
	opts Options
	f    *Func

	// at[off] is 0 when the instruction at off was not reached, 1+i when
	// its state is states[i], and -1-r when it is unknown for
	// f.Reasons[r]. lens[off] is its length.
	at     []int32
	lens   []uint8
	intern map[State]int32
	// states are the distinct states so far, copied to f.States at the
	// end (kept across walks: growing f.States itself costs a copy per
	// doubling).
	states []State
	// plain[i] is states[i].plain().
	plain  []bool
	stack  []item
	budget int
	// later holds the fall-throughs of calls, walked when stack is empty
	// (see presume).
	later []item
	next  int // the first of later not yet walked
	inst  arch.Inst
	nst   State // the state after the instruction being walked
	// reported marks offsets with a KindState finding, one per PC.
	reported map[int]bool
	// via[off] is 1+c when the instruction at off was first reached
	// straight from the fall-through of the call at offset c (through
	// nothing but instructions without stack effect), else 0.
	via []int32
	// presumed holds the offsets of calls presumed not to return in this
	// walk (see Func.PresumedNoReturn), confirmed those that made a walk
	// start again: found after the call's fall-through was walked, whose
	// state may have reached other joins and made presumptions there.
	presumed, confirmed map[int]bool
	rewalk              bool
	// syscalls holds the offsets of the system calls walked
	// (arch.Inst.Syscall), for presumeSyscall.
	syscalls map[int]bool
	// spBound lists the registers the walk saw compared with SP
	// (arch.Inst.CmpSP): a loop's bound for joinBound.
	spBound []rule.Reg
	// pads holds the state each landing pad will be entered with, by
	// offset, and whether it was walked: pads are walked after the rest
	// (see addPad).
	pads map[int]*pad
	// padBest keeps, across the walks of one function, the state a pad
	// must be entered with when a better one (fewer bytes on the stack)
	// came after the pad was walked: the function is walked again.
	padBest map[int]State
}

// pad is a landing pad's state for the walk, and whether it was walked.
type pad struct {
	st     State
	walked bool
}

// maxWalks bounds the walks of one function: the first, and one more each
// time a call is presumed not to return after its fall-through was walked
// (the work budget bounds them all together).
const maxWalks = 64

var walkers = sync.Pool{New: func() any { return &walker{intern: map[State]int32{}} }}

// Analyze walks the function whose code is text, text[0] being at address
// start, from its entry along every branch, and returns the state before
// every instruction it reaches and its findings. a gives the decoder and
// the registers (a.Decoder nil: nothing is decoded, one Unknown finding).
// Work is bounded by opts.Budget instruction visits (DefaultBudget: linear
// in len(text)); memory is linear in len(text).
func Analyze(a *arch.Arch, text []byte, start uint64, opts *Options) *Func {
	f := &Func{Arch: a, Start: start, End: start + uint64(len(text))}
	if f.End < start { // wraps: keep the part below 2^64
		text = text[:-start]
		f.End = start + uint64(len(text))
	}
	if a == nil || a.Decoder == nil {
		name := "nil"
		if a != nil {
			name = a.Name
		}
		f.Findings = append(f.Findings, Finding{Kind: KindUnknown, PC: start, Why: "no instruction decoder for machine " + name})
		return f
	}
	if len(text) == 0 {
		return f
	}
	t := tableFor(a)
	if t.err != "" {
		f.Findings = append(f.Findings, Finding{Kind: KindUnknown, PC: start, Why: t.err})
		return f
	}
	w := walkers.Get().(*walker)
	defer w.release()
	w.a, w.t, w.text, w.pc0, w.f = a, t, text, start, f
	w.opts = Options{}
	if opts != nil {
		w.opts = *opts
	}
	w.budget = w.opts.Budget
	if w.budget <= 0 {
		w.budget = DefaultBudget(len(text))
	}
	w.lens = growU8(w.lens, len(text))

	entry := t.entry
	if w.opts.Entry != nil {
		entry = *w.opts.Entry
		if _, _, ok := entry.cfa(t); !ok {
			f.Findings = append(f.Findings, Finding{Kind: KindUnknown, PC: start, Why: "entry state has no CFA"})
			return f
		}
	}
	for walk := 1; ; walk++ {
		w.walk(entry)
		if !w.rewalk || walk == maxWalks || w.budget <= 0 {
			break
		}
		// A call's fall-through state was walked before the call was
		// presumed not to return: walk again without it.
		*f = Func{Arch: f.Arch, Start: f.Start, End: f.End, Visits: f.Visits}
		w.reset()
	}
	for off := range w.presumed {
		f.PresumedNoReturn = append(f.PresumedNoReturn, start+uint64(off))
	}
	sort.Slice(f.PresumedNoReturn, func(i, j int) bool { return f.PresumedNoReturn[i] < f.PresumedNoReturn[j] })
	w.collect()
	return f
}

// walk walks the function from its entry state and Options.Entries.
func (w *walker) walk(entry State) {
	w.at = grow(w.at, len(w.text))
	w.states, w.plain = w.states[:0], w.plain[:0]
	w.via = grow(w.via, len(w.text))
	w.rewalk = false
	clear(w.presumed)
	clear(w.syscalls)
	clear(w.pads)
	for c := range w.confirmed {
		w.presume1(c)
	}
	w.stack, w.later, w.next = w.stack[:0], w.later[:0], 0
	if w.opts.Entry != nil || len(w.opts.Entries) == 0 {
		w.stack = append(w.stack, item{0, -1, entry, nil})
	}
	for i := len(w.opts.Entries) - 1; i >= 0; i-- {
		e := &w.opts.Entries[i]
		if to := w.target(e.Target); to >= 0 {
			if _, _, ok := e.State.cfa(w.t); ok {
				w.stack = append(w.stack, item{to, -1, e.State, nil})
			}
		}
	}
	for !(w.opts.UntilReturns && w.f.Returns) {
		var it item
		if n := len(w.stack); n > 0 {
			it, w.stack = w.stack[n-1], w.stack[:n-1]
		} else if w.next < len(w.later) {
			// First in, first out: the fall-throughs reached through
			// fewer calls first.
			it = w.later[w.next]
			w.next++
		} else if !w.flushPads() {
			break
		} else {
			continue
		}
		w.path(it.off, it.call, it.st, it.ks)
	}
}

// reset forgets a walk's states and findings before the next walk.
func (w *walker) reset() {
	if len(w.intern) > 0 {
		w.intern = map[State]int32{}
	}
	clear(w.reported)
}

func grow(s []int32, n int) []int32 {
	if cap(s) < n {
		return make([]int32, n)
	}
	s = s[:n]
	clear(s)
	return s
}

func growU8(s []uint8, n int) []uint8 {
	if cap(s) < n {
		return make([]uint8, n)
	}
	return s[:n]
}

func (w *walker) release() {
	const keep = 1 << 20 // do not pool scratch of huge functions
	if cap(w.at) > keep {
		w.at, w.lens, w.via = nil, nil, nil
	}
	if cap(w.states) > keep/256 {
		w.states, w.plain = nil, nil
	}
	if len(w.intern) > 0 {
		w.intern = map[State]int32{} // clear would cost the map's peak size on every later walk
	}
	clear(w.reported)
	clear(w.presumed)
	clear(w.confirmed)
	clear(w.syscalls)
	clear(w.pads)
	clear(w.padBest)
	w.spBound = w.spBound[:0]
	w.rewalk = false
	w.later, w.next = w.later[:0], 0
	w.a, w.t, w.text, w.f, w.opts = nil, nil, nil, nil, Options{}
	w.stack = w.stack[:0]
	walkers.Put(w)
}

// stateIndex interns a state in w.states: a linear search while there
// are few (most functions have a few dozen), a map beyond.
func (w *walker) stateIndex(st *State) int32 {
	const linear = 32
	states := w.states
	if len(states) <= linear {
		for i := len(states) - 1; i >= 0; i-- {
			// sp and the first slots reject most candidates before the
			// whole comparison.
			if c := &states[i]; c.sp == st.sp && c.regs[0] == st.regs[0] && c.regs[1] == st.regs[1] && *c == *st {
				return int32(i)
			}
		}
	} else {
		if len(w.intern) == 0 {
			for i := range states {
				w.intern[states[i]] = int32(i)
			}
		}
		if i, ok := w.intern[*st]; ok {
			return i
		}
	}
	i := int32(len(states))
	w.states = append(states, *st)
	w.plain = append(w.plain, st.plain())
	if len(w.intern) > 0 {
		w.intern[*st] = i
	}
	return i
}

func (w *walker) reason(why string) int32 {
	for i, r := range w.f.Reasons {
		if r == why {
			return int32(-1 - i)
		}
	}
	w.f.Reasons = append(w.f.Reasons, why)
	return int32(-len(w.f.Reasons))
}

func (w *walker) text1(off int) string {
	defer func() { _ = recover() }() // a decoder's formatter must not end the walk
	return w.a.Decoder.Text(w.text[off:], w.pc0+uint64(off))
}

func (w *walker) find(k Kind, off int, why string, a, b *State) {
	if k == KindUnknown {
		w.f.Returns = true // what follows might return
	}
	if len(w.f.Findings) >= MaxFindings {
		w.f.Dropped++
		return
	}
	fd := Finding{Kind: k, PC: w.pc0 + uint64(off), Why: why}
	if off < len(w.text) && w.lens[off] > 0 {
		fd.Insn = w.text1(off)
	}
	if a != nil {
		fd.A = *a
	}
	if b != nil {
		fd.B = *b
	}
	w.f.Findings = append(w.f.Findings, fd)
}

// target returns the offset of an address in the function, or -1.
func (w *walker) target(addr uint64) int {
	if addr < w.pc0 || addr-w.pc0 >= uint64(len(w.text)) {
		return -1
	}
	return int(addr - w.pc0)
}

// leave handles a jump from off to addr outside the function: into
// another part of it (an Exit) or a tail call, which must leave the
// caller's frame as at the entry.
//
// A conditional jump out of the function with the frame modified is a
// coverage note (KindUnknown), not a finding: it is how GCC and clang
// compile __builtin_unreachable (a switch's default that cannot happen,
// dav1d's), a jump to whatever the linker placed after the label, which
// may be the start of another function.
func (w *walker) leave(off int, addr uint64, st *State, cond bool) {
	w.f.Returns = true // a tail call, or a part that may return
	if w.opts.Partition != nil && w.opts.Partition(addr) {
		w.f.Exits = append(w.f.Exits, Exit{PC: w.pc0 + uint64(off), Target: addr, State: *st, Cond: cond})
		return
	}
	if why := frameAtEntry(w.t, w.a, st, false); why != "" {
		if note := raNotJudged(w.t, w.a, st, w.t.regs[w.t.ra], false); note != "" {
			w.find(KindUnknown, off, fmt.Sprintf("tail call to %#x with %s", addr, note), st, nil)
			return
		}
		if cond {
			w.find(KindUnknown, off, fmt.Sprintf("a conditional jump out of the function, to %#x, with the stack frame modified (__builtin_unreachable's jump to what follows, or a fault): %s", addr, why), st, nil)
			return
		}
		w.find(KindTailCall, off, fmt.Sprintf("tail call to %#x with the stack frame modified: %s", addr, why), st, nil)
	}
}

// branch queues the walk of a direct branch from off to addr.
func (w *walker) branch(off int, addr uint64, st *State) {
	if to := w.target(addr); to >= 0 {
		if at := w.at[to]; at > 0 && w.states[at-1] == *st {
			return // walked from there with this state already
		}
		if len(w.stack) >= maxQueued(len(w.text)) {
			w.find(KindUnknown, off, "too many branches waiting to be walked", st, nil)
			return
		}
		w.stack = append(w.stack, item{to, -1, *st, nil})
		return
	}
	w.leave(off, addr, st, true)
}

// path walks one path from off with state st until it ends, meets an
// instruction already walked with the same state, or cannot go on.
func (w *walker) path(off, fromCall int, st State, kept *consts) {
	// fromCall is the offset of the call whose fall-through this path is
	// in, with no stack effect since, or -1; last the offset of the
	// instruction this one follows on the path, or -1 after a jump.
	idx := int32(-1) // st's index in w.states when known
	last := -1
	// ks holds the constants loaded on this path (arch.Inst.Const) and
	// not overwritten since: `mov x13, #0x2300 ... mov w20, #0x2 ... sub
	// sp, sp, x13` allocates a large frame of known size.
	var ks consts
	if kept != nil {
		ks = *kept
	}
	// cmpReg is the register the instruction before compared with SP
	// (arch.Inst.CmpSP), or -1.
	cmpReg := rule.Reg(-1)
	// pushReg is the register the instruction before pushed, or -1.
	pushReg := rule.Reg(-1)
	// padCall is the call whose fall-through this path is, when alignment
	// padding follows it and SP has not moved since (presumePadded), or -1.
	padCall := fromCall
	for {
		if at := w.at[off]; at != 0 {
			if at < 0 {
				return // unknown instruction, reported when first reached
			}
			old := w.states[at-1]
			if old == st {
				return
			}
			j, ok := join(w.t, old, st)
			for _, r := range w.spBound {
				if ok {
					break
				}
				j, ok = joinBound(w.t, old, st, r)
			}
			if ok && j == old {
				return
			}
			// The states differ: unless a call's fall-through explains
			// it (presume), the paths meet with another state.
			if w.presume(fromCall, off) || w.presumeSyscall(last, off) {
				return // this path is a dead fall-through
			}
			v, c := w.via[off], -1
			if v > 0 && w.presume(int(v)-1, off) {
				c = int(v) - 1
			} else if v < 0 && w.presumeSyscall(int(-v)-1, off) {
				c = int(-v) - 1
			}
			if c >= 0 {
				// The state walked from here came from a dead
				// fall-through: the function is walked again.
				if w.confirmed == nil {
					w.confirmed = map[int]bool{}
				}
				w.confirmed[c] = true
				w.rewalk = true
				w.stack, w.later, w.next = w.stack[:0], w.later[:0], 0
				return
			}
			if !ok {
				if w.reported == nil {
					w.reported = map[int]bool{}
				}
				if !w.reported[off] {
					w.reported[off] = true
					w.find(KindState, off, "two paths meet with different stack states", &old, &st)
				}
				return
			}
			st, idx = j, -1
		}
		if w.budget <= 0 {
			w.find(KindUnknown, off, fmt.Sprintf("work budget of %d instruction visits spent", w.f.Visits), nil, nil)
			w.stack = w.stack[:0]
			return
		}
		w.budget--
		w.f.Visits++
		first := w.at[off] == 0
		in := &w.inst
		in.Len, in.Class, in.Target, in.NOps, in.Why, in.Syscall, in.Const = 0, arch.Other, 0, 0, "", false, false
		in.RetOther, in.RetJump, in.CmpSP, in.Cond = false, false, false, arch.CondOther
		err := w.decode(off, in)
		if err == nil && (in.Len <= 0 || in.Len > len(w.text)-off || in.Len > 255) {
			err = fmt.Errorf("decoder returned length %d with %d bytes left", in.Len, len(w.text)-off)
		}
		if err != nil {
			if first {
				w.f.Decoded++
			}
			w.lens[off] = 0
			w.at[off] = w.reason("not an instruction: " + err.Error())
			w.find(KindUnknown, off, "not an instruction: "+err.Error(), &st, nil)
			return
		}
		if first {
			w.f.Decoded++
		}
		w.lens[off] = uint8(in.Len)
		if idx < 0 {
			idx = w.stateIndex(&st)
		}
		if first && fromCall >= 0 {
			w.via[off] = int32(1 + fromCall)
		} else if first && last >= 0 {
			w.via[off] = int32(-1 - last)
		}
		w.at[off] = 1 + idx
		if in.Syscall {
			if w.syscalls == nil {
				w.syscalls = map[int]bool{}
			}
			w.syscalls[off] = true
		}
		if len(w.presumed) > 0 && w.presumed[off] {
			return // a system call presumed not to return
		}
		next := off + in.Len
		if in.Class != arch.Other || in.NOps > 0 {
			fromCall = -1
		}
		if w.opts.BranchReloc != nil && (in.Class == arch.Jump || in.Class == arch.CondJump) {
			if t, ok := w.opts.BranchReloc(w.pc0+uint64(off), in.Len); ok {
				in.Target = t
			}
		}
		var keep *consts // the constants a direct call's callee keeps
		if in.Class == arch.Call && ks != (consts{}) && w.opts.CallKeeps != nil {
			if k := ks.only(w.opts.CallKeeps(in.Target)); k != (consts{}) {
				keep = &k
			}
		}
		ks.apply(in)
		if padCall >= 0 && (in.Class != arch.Other && in.Class != arch.Return || movesSP(w.t, in)) {
			padCall = -1
		}
		cmp := cmpReg
		cmpReg = -1
		pushed := pushReg
		pushReg = -1
		if in.Class == arch.Other && in.NOps == 1 && in.Ops[0].Kind == arch.OpPush {
			pushReg = in.Ops[0].Reg
		}
		if in.CmpSP {
			cmpReg = in.CmpReg
			if !slices.Contains(w.spBound, cmpReg) {
				w.spBound = append(w.spBound, cmpReg)
			}
		}

		switch in.Class {
		case arch.Unknown:
			why := in.Why
			if why == "" {
				why = "instruction's stack effect not modelled"
			}
			w.find(KindUnknown, off, why, &st, nil)
			return
		case arch.Return, arch.CondReturn:
			w.f.Returns = true
			if in.RetJump && !st.same(w.t.ra) {
				// br %r14 with r14 not holding the RA: a jump through a
				// table (larl %r14,TABLE; agf %r14,...), not a return.
				if why := frameAtEntry(w.t, w.a, &st, false); why != "" {
					w.find(KindUnknown, off, "indirect jump through the link register, which no longer holds the RA (a jump table), with the stack frame modified: "+why, &st, nil)
				}
				if in.Class == arch.Return {
					return
				}
				break
			}
			auth := st
			if why := frameAtEntry(w.t, w.a, &st, auth.pauth(in.Why)); why == "" && in.RetOther {
				if !holdsRA(w.a, &st, in.RetReg) {
					w.find(KindRet, off, fmt.Sprintf("return through %s, which does not hold the RA", w.a.Format(rule.Rule{Kind: rule.Register, Reg: in.RetReg})), &st, nil)
				}
			} else if why != "" && !(in.RetOther && retVia(w.t, w.a, &st, in.RetReg)) {
				if w.presumePadded(padCall) {
					return
				}
				reg := w.t.regs[w.t.ra]
				if in.RetOther {
					reg = in.RetReg
				}
				if note := raNotJudged(w.t, w.a, &st, reg, auth.flags&flagMangled == 0); note != "" {
					w.find(KindUnknown, off, "return through "+note, &st, nil)
					if in.Class == arch.Return {
						return
					}
					break
				}
				if pushed >= 0 && w.a.CallPushesRA && in.Class == arch.Return && pushJumps(w.t, w.a, &st, pushed) {
					// push %reg; ret with the frame still allocated: a
					// jump to the address in reg (inline asm), not a
					// return.
					return
				}
				w.find(KindRet, off, "return with the stack frame modified: "+why, &st, nil)
			}
			if in.Class == arch.Return {
				return
			}
			// Not taken: the path goes on below with the same state.
		case arch.Stop:
			return
		}

		// ns is the state after the instruction: st itself when the
		// instruction cannot change it (no copy of the state, which is
		// most of a step's cost), else the walker's scratch.
		ns := &st
		if in.NOps > 0 && in.Why == "" && (w.plain[idx] && inertPlain(w.t, in) || st.inert(w.t, in)) {
			in.NOps = 0
		}
		if in.Why != "" || in.NOps > 0 || in.Class == arch.Call || in.Class == arch.CallIndirect {
			w.nst = st
			ns = &w.nst
		}
		if in.Why != "" {
			if old := ns.flags; ns.pauth(in.Why) || ns.flags != old {
				idx = -1
			}
		}
		if in.Syscall {
			// vfork's child runs on this stack before the parent's system
			// call returns: a slot below SP holds no copy after it.
			below := *ns
			if below.dropBelowSP(w.t); below != *ns {
				w.nst, ns, idx = below, &w.nst, -1
			}
		}
		if in.NOps > 0 {
			why, changed := apply(w.t, ns, in)
			if why != "" {
				w.find(KindUnknown, off, why, &st, nil)
				return
			}
			if in.Const && in.ConstPC && w.target(uint64(in.Const64)) >= 0 {
				ns.local |= regBit(in.ConstReg) // adr x30, 2f: a continuation
			}
			if changed && idx >= 0 && *ns != st {
				idx = -1 // an instruction that changes nothing keeps the state's index
			}
		}

		switch in.Class {
		case arch.Call, arch.CallIndirect:
			if w.opts.LandingPad != nil {
				if pad, args := w.opts.LandingPad(w.pc0 + uint64(off)); pad != 0 && w.target(pad) >= 0 {
					landing := *ns
					landing.call(w.t)
					landing.sp = addOff(landing.sp, args)
					if _, _, ok := landing.cfa(w.t); ok {
						w.addPad(w.target(pad), &landing)
					}
				}
			}
			if in.Class == arch.Call && (w.opts.NoReturnCall != nil && w.opts.NoReturnCall(w.pc0+uint64(off), in.Target) ||
				w.opts.NoReturnCall == nil && w.opts.NoReturn != nil && w.opts.NoReturn(in.Target)) || w.presumed[off] {
				return
			}
			if !w.call(off, ns, &st) {
				return
			}
			// The fall-through is walked after every branch waiting:
			// a block after a call that does not return (directly,
			// or through a pointer: Tcl's panic procedure) is then
			// reached by its jumps first (presume).
			if next < len(w.text) {
				if len(w.later)-w.next >= maxQueued(len(w.text)) {
					w.find(KindUnknown, off, "too many branches waiting to be walked", &st, nil)
					return
				}
				w.later = append(w.later, item{next, off, *ns, keep})
				return
			}
			idx = -1
		case arch.Jump:
			to := w.target(in.Target)
			if to < 0 {
				if to = w.stub(in.Target, ns); to < 0 {
					w.leave(off, in.Target, ns, false)
					return
				}
			}
			off, last = to, -1
			if ns != &st {
				st = *ns
			}
			continue
		case arch.CondJump:
			taken := ns
			if cmp >= 0 && in.Cond != arch.CondOther {
				// After cmp %r11,%rsp: on the way where they are
				// equal, SP is r11's value.
				eq := *ns
				if eq.learnSP(w.t, cmp) {
					if in.Cond == arch.CondEQ {
						taken = &eq
					} else {
						w.nst, ns, idx = eq, &w.nst, -1
					}
				}
			}
			w.branch(off, in.Target, taken)
		case arch.JumpIndirect:
			var targets []uint64
			if w.opts.JumpTable != nil {
				targets = w.opts.JumpTable(w.pc0 + uint64(off))
			}
			if len(targets) == 0 {
				w.f.Returns = true
				if why := frameAtEntry(w.t, w.a, ns, false); why != "" {
					w.find(KindUnknown, off, "indirect jump (a jump table or a tail call) whose targets are not known, with the stack frame modified: "+why, &st, nil)
				}
				// With the caller's frame as at the entry it is a
				// tail call as far as the stack is concerned.
				return
			}
			if len(targets) > len(w.text) {
				targets = targets[:len(w.text)]
			}
			for _, tg := range targets {
				w.branch(off, tg, ns)
			}
			return
		}
		if next >= len(w.text) {
			w.find(KindFallThrough, off, "execution runs past the function's end (a call that does not return?)", ns, nil)
			return
		}
		off, last = next, off
		if ns != &st {
			st = *ns
		}
	}
}

// addPad records that the landing pad at offset to may be entered with
// state st (the state after a call of its call-site range, its pushed
// arguments popped). Calls that differ only in SP are a call that cannot
// throw with arguments still pushed (GCC covers it with the range, and
// writes DW_CFA_GNU_args_size only for calls that can throw): the pad
// keeps the state with the fewest bytes on the stack, the one the unwinder
// leaves. Pads are walked when nothing else is left (flushPads).
func (w *walker) addPad(to int, st *State) {
	if to < 0 {
		return
	}
	if w.pads == nil {
		w.pads = map[int]*pad{}
	}
	better := func(x, y State) bool {
		// x has fewer bytes on the stack than y, and keeps the caller's
		// registers in the same slots (whether a saved register still
		// holds its value too, and the pointers into the frame that other
		// registers hold, may differ).
		a, b := x, y
		for _, s := range []*State{&a, &b} {
			s.sp, s.val, s.spSlot, s.spVal = 0, [MaxVals]int16{}, 0, 0
			s.inreg, s.restored, s.cp = 0, 0, [MaxRegs]uint8{}
			if s.flags&flagFPFrame == 0 {
				s.fp = 0 // FP is not the frame pointer: a pointer like the others
			}
		}
		return a == b && x.sp != unknown && (y.sp == unknown || x.sp > y.sp)
	}
	p := w.pads[to]
	if p == nil {
		p = &pad{st: *st}
		if best, ok := w.padBest[to]; ok && better(best, *st) {
			p.st = best
		}
		w.pads[to] = p
		return
	}
	switch {
	case p.st == *st:
	case better(*st, p.st) && !p.walked:
		p.st = *st
	case better(*st, p.st):
		// Walked with a state that had more on the stack: walk the
		// function again with this one.
		if w.padBest == nil {
			w.padBest = map[int]State{}
		}
		w.padBest[to], w.rewalk = *st, true
	case better(p.st, *st):
	case !p.walked:
		// Another state: the walk meets it at the pad (a finding).
		w.stack = append(w.stack, item{to, -1, *st, nil})
	}
}

// flushPads queues the walk of every landing pad not walked with its
// state yet, and reports whether it queued any.
func (w *walker) flushPads() bool {
	// In offset order, highest first on the stack so the lowest is walked
	// first: the walk, and so what it judges, must not depend on a map's
	// order.
	tos := make([]int, 0, len(w.pads))
	for to, p := range w.pads {
		if !p.walked {
			tos = append(tos, to)
		}
	}
	slices.Sort(tos)
	for i := len(tos) - 1; i >= 0; i-- {
		p := w.pads[tos[i]]
		p.walked = true
		w.stack = append(w.stack, item{tos[i], -1, p.st, nil})
	}
	return len(tos) > 0
}

// retVia reports whether a return through register r (AArch64 `ret
// x15`) leaves the caller's frame as at the entry: SP back, and the RA's
// caller value in r (mov x15, x30 before x30 was overwritten).
func retVia(t *regTable, a *arch.Arch, s *State, r rule.Reg) bool {
	return s.sp == t.entry.sp && holdsRA(a, s, r)
}

// consts are the registers known to hold a constant on a path: the few
// most recently loaded (a prologue loads its frame's size a few
// instructions before it uses it).
type consts struct {
	reg [8]rule.Reg // 0: empty; else 1 + the register
	val [8]int64
	n   int // the next slot to fill
}

// apply follows the constants across the instruction in: records the one
// it loads, forgets those it overwrites (all of them at a branch), and
// turns `SP -= reg` and `SP += reg` (OpSubSPReg, OpAddSPReg) of a register
// with a known constant into OpAddSP in it.
func (k *consts) apply(in *arch.Inst) {
	if in.Const && !in.ConstPC { // an address (adr) is no size: its OpClobber below forgets the register
		i := k.find(in.ConstReg)
		switch {
		case in.ConstKeep == 0:
			if i < 0 {
				i, k.n = k.n, (k.n+1)%len(k.reg)
			}
			k.reg[i], k.val[i] = in.ConstReg+1, in.Const64
		case i >= 0:
			k.val[i] = int64(uint64(k.val[i])&in.ConstKeep | uint64(in.Const64))
		}
		return
	}
	if *k == (consts{}) {
		return
	}
	for j := 0; j < in.NOps && j < len(in.Ops); j++ {
		op := &in.Ops[j]
		i := k.find(op.Reg)
		switch {
		case i < 0:
		case op.Kind == arch.OpSubSPReg && k.val[i] > -maxOff && k.val[i] < maxOff:
			*op = arch.StackOp{Kind: arch.OpAddSP, Imm: -k.val[i]}
		case op.Kind == arch.OpAddSPReg && k.val[i] > -maxOff && k.val[i] < maxOff:
			*op = arch.StackOp{Kind: arch.OpAddSP, Imm: k.val[i]}
		case op.Kind != arch.OpPush && op.Kind != arch.OpSave && op.Kind != arch.OpSubSPReg && op.Kind != arch.OpAddSPReg:
			k.reg[i] = 0 // overwritten
		}
	}
	if in.Class != arch.Other {
		*k = consts{}
	}
}

// only returns the constants in the registers of mask (a bit per
// register number).
func (k *consts) only(mask uint64) consts {
	var o consts
	for i, r := range k.reg {
		if r != 0 && r-1 < 64 && mask>>(r-1)&1 != 0 {
			o.reg[o.n], o.val[o.n] = r, k.val[i]
			o.n++
		}
	}
	o.n %= len(o.reg)
	return o
}

// find returns the slot of register r, or -1.
func (k *consts) find(r rule.Reg) int {
	for i, x := range k.reg {
		if x == r+1 && x != 0 {
			return i
		}
	}
	return -1
}

// stub returns the offset in the function that the linker-made stub at
// target (outside the function: Options.Stub) jumps back to, after
// applying its instructions to st, or -1 when target is no such stub: at
// most four instructions, each without a branch, unknown effect or change
// of the CFA, then a direct jump into the function.
func (w *walker) stub(target uint64, st *State) int {
	if w.opts.Stub == nil {
		return -1
	}
	b := w.opts.Stub(target)
	s := *st
	var in arch.Inst
	for i, off := 0, 0; i < 4 && off < len(b); i++ {
		in = arch.Inst{}
		if err := w.a.Decoder.Decode(b[off:], target+uint64(off), &in); err != nil || in.Len <= 0 {
			return -1
		}
		switch in.Class {
		case arch.Jump:
			to := w.target(in.Target)
			if to >= 0 {
				*st = s
			}
			return to
		case arch.Other:
		default:
			return -1
		}
		if in.NOps > 0 {
			if why, _ := apply(w.t, &s, &in); why != "" {
				return -1
			}
		}
		off += in.Len
	}
	return -1
}

// call applies a call's effect to ns (the state after the call at off;
// st the state before it) and reports whether the walk can go on: not
// when the CFA was only known through a register the call may overwrite
// (a copy of SP in r11 after a realignment).
func (w *walker) call(off int, ns, st *State) bool {
	ns.call(w.t)
	if _, _, ok := ns.cfa(w.t); !ok {
		w.find(KindUnknown, off, "the CFA is in a register that the call may overwrite", st, nil)
		return false
	}
	return true
}

// presume reports whether the call at offset c (c < 0: none) is presumed
// not to return because its fall-through meets, at off, a path with
// another state: the instructions between the call and off are padding
// (nops) or there are none. Compilers place the next block right after a
// call that does not return (GCC: a call to a noreturn function ends its
// block), so the block is entered by its jumps, not by the call; the walk
// then ends the call's path (Func.PresumedNoReturn) instead of reporting
// two paths meeting with different states.
func (w *walker) presume(c, off int) bool {
	if c < 0 || w.lens[c] == 0 {
		return false
	}
	for o := c + int(w.lens[c]); o < off; o += int(w.lens[o]) {
		if w.lens[o] == 0 || !IsNop(w.a, w.text[o:], w.pc0+uint64(o)) {
			return false
		}
	}
	// The padding between is not reached, unless another path reached it.
	for o := c + int(w.lens[c]); o < off; o += int(w.lens[o]) {
		if w.via[o] == int32(1+c) {
			w.at[o] = 0
		}
	}
	w.presume1(c)
	return true
}

func (w *walker) presume1(c int) {
	if w.presumed == nil {
		w.presumed = map[int]bool{}
	}
	w.presumed[c] = true
}

// movesSP reports whether an instruction's stack operations change SP.
func movesSP(t *regTable, in *arch.Inst) bool {
	for k := 0; k < in.NOps && k < len(in.Ops); k++ {
		switch op := in.Ops[k]; op.Kind {
		case arch.OpPush, arch.OpPop, arch.OpAddSP, arch.OpAndSP, arch.OpSubSPReg, arch.OpAddSPReg:
			return true
		case arch.OpSetReg, arch.OpRestore, arch.OpClobber:
			if op.Reg == t.sp {
				return true
			}
		}
	}
	return false
}

// presumePadded reports whether the call at offset c (c < 0: none), whose
// fall-through this path is (with no stack effect since), is followed by
// alignment padding and so presumed not to return, now that the path
// returns with the frame it had modified before the call: `push %rax;
// call vpanic; nopl` then a jump table's target that returns (valgrind's
// objects, where vpanic is an undefined symbol; issue 30's fourth class).
// A compiler pads after a call only when the call ends its block. The
// function is then walked again without the fall-through.
func (w *walker) presumePadded(c int) bool {
	if c < 0 || w.lens[c] == 0 || w.presumed[c] {
		return false
	}
	next := c + int(w.lens[c])
	if next >= len(w.text) || w.lens[next] == 0 || !IsNop(w.a, w.text[next:], w.pc0+uint64(next)) {
		return false
	}
	if w.confirmed == nil {
		w.confirmed = map[int]bool{}
	}
	w.confirmed[c] = true
	w.rewalk = true
	w.stack, w.later, w.next = w.stack[:0], w.later[:0], 0
	return true
}

// presumeSyscall reports whether the system call at offset c, the
// instruction before off (c < 0: none), is presumed not to return because
// its fall-through meets, at off, a path with another state: exit and
// exit_group in a clone child's inline assembly (the sanitizers'
// internal_clone: syscall; then the parent's label). Like presume.
func (w *walker) presumeSyscall(c, off int) bool {
	if c < 0 || w.lens[c] == 0 || c+int(w.lens[c]) != off {
		return false
	}
	if !w.syscalls[c] {
		return false
	}
	w.presume1(c)
	return true
}

// decode runs the decoder, turning a panic into an error so that a
// decoder's fault on hostile bytes cannot end the program.
func (w *walker) decode(off int, in *arch.Inst) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("decoder panic: %v", r)
		}
	}()
	return w.a.Decoder.Decode(w.text[off:], w.pc0+uint64(off), in)
}

// collect builds f.Insts from the walk's per-offset marks.
func (w *walker) collect() {
	f := w.f
	f.States = append([]State(nil), w.states...)
	sort.SliceStable(f.Findings, func(i, j int) bool { return f.Findings[i].PC < f.Findings[j].PC })
	f.Insts = make([]Inst, 0, f.Decoded)
	for off, at := range w.at {
		if at == 0 {
			continue
		}
		in := Inst{Off: uint32(off), Len: w.lens[off]}
		if at > 0 {
			in.State = at - 1
			f.Judged++
		} else {
			in.State = at
		}
		f.Insts = append(f.Insts, in)
	}
}
