package compare

// Inline and tail-call frames: gdb shows each function inlined at a
// frame's PC as a frame of its own, and each function that left by a tail
// call (a jump) between a frame and its caller as a virtual frame, and
// numbers frames with them. A trace's Frames are physical frames (one
// unwind step each, what the methods are compared on); this file numbers
// them as gdb does, looking the inline functions and tail calls up in
// DWARF (frames.Module.InlinedAt, TailCallsBetween) only when frames are
// shown. Neither kind has an unwind step, so neither is compared.

import (
	"fmt"
	"sort"
	"sync"

	"github.com/sfdbg/sfdbg/frames"
)

// Shown is one frame of a trace as gdb numbers and prints frames: a
// physical frame of Trace.Frames, or a function inlined into one. gdb
// shows the functions inlined at a frame's PC below it, innermost first:
// for a physical frame F with functions a (innermost) and b inlined at its
// PC, "#n a", "#n+1 b", "#n+2 F". An inline frame has no unwind step of
// its own: its registers, CFA and verdicts are those of the physical frame.
type Shown struct {
	// Level is gdb's frame level.
	Level int
	// Frame is the index in Trace.Frames of the physical frame.
	Frame int
	// Inline is set for an inline frame; InlinedInto is then the level of
	// the frame it was inlined into (Level+1).
	Inline      bool
	InlinedInto int
	// TailCall is set for a virtual tail-call frame, shown at PC (the
	// address after the function's jump) with File and Line.
	TailCall bool
	PC       uint64
	File     string
	Line     int
	// Function is the inline or tail-call frame's function ("" for a
	// physical frame, named by its symbol).
	Function string
	// call is the inlined call whose call site is this frame's line
	// (Caller); k is the frame's index in its physical frame's inline
	// chain (its length for the physical frame).
	call *frames.InlinedCall
	k    int
	// Caller is set when the next shown frame down (Level-1) is inlined
	// into this one: gdb then prints no address, since the location is
	// the call site, not the PC.
	Caller bool
}

// inlineView numbers a trace's frames as gdb does, looked up lazily: the
// physical frames [0, done) have been looked up, and only those with
// inline functions are kept.
type inlineView struct {
	mu     sync.Mutex
	done   int
	rows   int   // inline frames of the frames [0, done)
	at     []int // physical frames with inline frames, ascending
	before []int // before[j]: inline frames of the physical frames below at[j]
	chains [][]frames.InlinedCall
	cache  map[uint64][]frames.InlinedCall // by lookup PC: deep recursions repeat a few
	tails  map[[2]uint64][]frames.TailCall // by caller PC and callee entry
}

// maxInlineCache bounds the lookups a view remembers.
const maxInlineCache = 1 << 16

// lookUpTo looks up the inline functions of the physical frames up to n
// (exclusive). The caller holds v.mu.
func (t *Trace) lookUpTo(n int) {
	v := &t.inline
	n = min(n, len(t.Frames))
	if v.cache == nil && v.done < n {
		v.cache = map[uint64][]frames.InlinedCall{}
	}
	for ; v.done < n; v.done++ {
		f := &t.Frames[v.done]
		if f.Module == nil || f.SignalTrampoline() {
			continue
		}
		pc := f.LookupPC()
		c, ok := v.cache[pc]
		if !ok {
			c = f.Module.InlinedAt(pc)
			if len(v.cache) < maxInlineCache {
				v.cache[pc] = c
			}
		}
		if v.done == 0 && f.Interrupted && t.SkipInline != 0 {
			k := 0
			for k < len(c) && c[k].StartsAt(f.PC) && (t.SkipInline < 0 || k < t.SkipInline) {
				k++
			}
			if k > 0 {
				t.skippedCall = &c[k-1]
			}
			c, t.skippedInline = c[k:], k
		}
		if tc := t.tailCalls(v.done); len(tc) > 0 {
			// gdb shows them below the frame's inline frames: between
			// the callee's frames and this one's.
			chain := make([]frames.InlinedCall, 0, len(tc)+len(c))
			for _, x := range tc {
				chain = append(chain, frames.InlinedCall{Function: x.Function, CallFile: x.File, CallLine: x.Line,
					TailCall: true, PC: x.PC})
			}
			c = append(chain, c...)
		}
		if len(c) == 0 {
			continue
		}
		v.at = append(v.at, v.done)
		v.before = append(v.before, v.rows)
		v.chains = append(v.chains, c)
		v.rows += len(c)
	}
}

// tailCalls returns the tail-call frames gdb shows between physical frame
// i and the frame below it (frames.Module.TailCallsBetween, or
// frames.TailCallsAcross when the call went into another module: a
// program's qsort call that glibc's qsort turned into a jump to
// qsort_r), innermost first; the caller holds t.inline.mu. There are none
// for frame 0, or for a frame a signal interrupted or that is a signal
// trampoline.
func (t *Trace) tailCalls(i int) []frames.TailCall {
	if i == 0 || i >= len(t.Frames) {
		return nil
	}
	f, callee := &t.Frames[i], &t.Frames[i-1]
	if f.Module == nil || callee.Module == nil || f.Interrupted || f.SignalTrampoline() || callee.SignalTrampoline() {
		return nil
	}
	// The callee's entry from the symbol table alone (Symbolize would
	// look its line and DWARF name up too, for every frame).
	lpc := callee.LookupPC()
	_, off, ok := callee.Module.FuncName(lpc)
	if !ok || off > lpc {
		return nil
	}
	entry := lpc - off
	v := &t.inline
	k := [2]uint64{f.PC, entry}
	if tc, ok := v.tails[k]; ok {
		return tc
	}
	var tc []frames.TailCall
	if f.Module == callee.Module {
		tc = f.Module.TailCallsBetween(f.PC, entry)
	} else {
		tc = frames.TailCallsAcross(f.Module, f.PC, callee.Module, entry)
	}
	if v.tails == nil {
		v.tails = map[[2]uint64][]frames.TailCall{}
	}
	if len(v.tails) < maxInlineCache {
		v.tails[k] = tc
	}
	return tc
}

// inlinedAt returns the functions inlined at physical frame i's PC,
// innermost first (nil for none), looking them up if need be.
func (t *Trace) inlinedAt(i int) []frames.InlinedCall {
	if i < 0 || i >= len(t.Frames) {
		return nil
	}
	v := &t.inline
	v.mu.Lock()
	defer v.mu.Unlock()
	t.lookUpTo(i + 1)
	if j, ok := v.find(i); ok {
		return v.chains[j]
	}
	return nil
}

// find returns the index in at of physical frame i.
func (v *inlineView) find(i int) (int, bool) {
	j := sort.SearchInts(v.at, i)
	return j, j < len(v.at) && v.at[j] == i
}

// inlineBelow is the number of inline frames of the physical frames below
// i; the caller holds v.mu and has looked up frames [0, i).
func (v *inlineView) inlineBelow(i int) int {
	j := sort.SearchInts(v.at, i) // at[j-1] < i
	if j == 0 {
		return 0
	}
	return v.before[j-1] + len(v.chains[j-1])
}

// Level returns gdb's level of physical frame i itself (the outermost of
// its shown frames): i plus the inline frames at it and below it.
func (t *Trace) Level(i int) int {
	if i < 0 {
		return i
	}
	v := &t.inline
	v.mu.Lock()
	defer v.mu.Unlock()
	t.lookUpTo(i + 1)
	n := v.inlineBelow(i)
	if j, ok := v.find(i); ok {
		n += len(v.chains[j])
	}
	return i + n
}

// Levels returns the number of frames gdb shows: the physical frames and
// the inline frames. It looks up every frame.
func (t *Trace) Levels() int {
	v := &t.inline
	v.mu.Lock()
	defer v.mu.Unlock()
	t.lookUpTo(len(t.Frames))
	return len(t.Frames) + v.rows
}

// ShownExtra returns the frames gdb shows beyond the physical ones: inline
// frames and tail-call frames. It looks up every frame.
func (t *Trace) ShownExtra() (inline, tail int) {
	v := &t.inline
	v.mu.Lock()
	defer v.mu.Unlock()
	t.lookUpTo(len(t.Frames))
	for _, c := range v.chains {
		for _, x := range c {
			if x.TailCall {
				tail++
			} else {
				inline++
			}
		}
	}
	return inline, tail
}

// ShownAt returns the frame gdb shows at level; ok is false when there is
// none. It looks up the frames up to that level only.
func (t *Trace) ShownAt(level int) (Shown, bool) {
	if level < 0 {
		return Shown{}, false
	}
	v := &t.inline
	v.mu.Lock()
	// Each physical frame shows at least one level: frame level holds it
	// if it has no inline frames below it, so looking up to there is
	// enough for the levels below.
	t.lookUpTo(level + 1)
	// The physical frame: the largest i with its first level <= level.
	i := sort.Search(min(level+1, len(t.Frames)), func(i int) bool { return i+v.inlineBelow(i) > level }) - 1
	if i < 0 {
		v.mu.Unlock()
		return Shown{}, false
	}
	var chain []frames.InlinedCall
	if j, ok := v.find(i); ok {
		chain = v.chains[j]
	}
	first := i + v.inlineBelow(i)
	v.mu.Unlock()
	k := level - first // 0: innermost shown frame of the physical frame
	if k > len(chain) {
		return Shown{}, false
	}
	return t.withSkipped(shown(level, i, k, chain), len(chain)), true
}

// withSkipped makes frame 0's physical frame, when the inline frames at
// its entry are hidden (SkipInline), show the hidden call's line, as gdb
// shows the caller of a skipped inline frame at the call's line.
func (t *Trace) withSkipped(s Shown, chainLen int) Shown {
	if s.Frame == 0 && s.k == chainLen && !s.Caller && !s.TailCall && t.skippedCall != nil {
		s.call, s.Caller = t.skippedCall, true
	}
	return s
}

// eachShown calls fn with the frames shown at levels [lo, hi), in order,
// walking the physical frames once (ShownAt for each level would search
// for each).
func (t *Trace) eachShown(lo, hi int, fn func(Shown)) {
	first, ok := t.ShownAt(lo)
	if !ok {
		return
	}
	v := &t.inline
	v.mu.Lock()
	t.lookUpTo(hi) // level < hi: in a physical frame below hi
	at, chains := v.at, v.chains
	v.mu.Unlock()
	j := sort.SearchInts(at, first.Frame)
	level, k := lo, first.k
	for i := first.Frame; i < len(t.Frames) && level < hi; i, k = i+1, 0 {
		var chain []frames.InlinedCall
		if j < len(at) && at[j] == i {
			chain = chains[j]
			j++
		}
		for ; k <= len(chain) && level < hi; k, level = k+1, level+1 {
			fn(t.withSkipped(shown(level, i, k, chain), len(chain)))
		}
	}
}

// shown is the frame shown at level: row k of physical frame i whose
// inline chain is chain (k == len(chain): the physical frame itself).
func shown(level, i, k int, chain []frames.InlinedCall) Shown {
	s := Shown{Level: level, Frame: i, k: k}
	if k < len(chain) && chain[k].TailCall {
		c := &chain[k]
		s.TailCall, s.Function, s.PC, s.File, s.Line = true, c.Function, c.PC, c.CallFile, c.CallLine
		return s
	}
	s.Inline = k < len(chain)
	if s.Inline {
		s.Function, s.InlinedInto = chain[k].Function, level+1
	}
	if k > 0 && !chain[k-1].TailCall {
		s.call, s.Caller = &chain[k-1], true
	}
	return s
}

// ShownPC returns the address gdb prints for the frame shown as s: its
// physical frame's PC, or a tail-call frame's own.
func (t *Trace) ShownPC(s Shown) uint64 {
	if s.TailCall {
		return s.PC
	}
	return t.Frames[s.Frame].PC
}

// ShownLine returns the source line gdb shows for s: the PC's line (the
// call's, for a return address) for the innermost frame at a PC, for the
// others the line of the inlined call (DW_AT_call_file, DW_AT_call_line).
// file is "" when it is unknown.
func (t *Trace) ShownLine(s Shown) (file string, line int) {
	if s.TailCall {
		return s.File, s.Line
	}
	if s.call != nil {
		return s.call.CallFile, s.call.CallLine
	}
	f := &t.Frames[s.Frame]
	if f.Module == nil {
		return "", 0
	}
	sym := f.Module.SymbolizeAt(f.PC, f.LookupPC())
	return sym.File, sym.Line
}

// ShownLocation describes the frame shown at level s as gdb's backtrace
// does: "name () at FILE:LINE", or frameLocation's text for a physical
// frame without inline functions.
func (t *Trace) ShownLocation(s Shown) string {
	f := &t.Frames[s.Frame]
	if s.TailCall {
		return locationText(s.Function, s.File, s.Line, f.Module)
	}
	if !s.Inline && !s.Caller {
		return t.frameLocation(s.Frame)
	}
	name := s.Function
	if !s.Inline {
		name = f.Module.SymbolizeAt(f.PC, f.LookupPC()).Name
	}
	file, line := t.ShownLine(s)
	return locationText(name, file, line, f.Module)
}

// locationText is Location's text for function name at file:line in m.
func locationText(name, file string, line int, m *frames.Module) string {
	if name == "" {
		name = "??"
	}
	if file == "" {
		return fmt.Sprintf("%s () from %s", name, m.Path)
	}
	return fmt.Sprintf("%s () at %s:%d", name, file, line)
}

// InnermostLocation describes the frame gdb shows as frame 0 of a thread
// stopped at pc (gdb's "info threads" line): the innermost function
// inlined at pc when there is one, else Location's text. showPC is false
// when gdb prints no address: pc in an inline function at the start of a
// statement (Trace.ShowPC).
func InnermostLocation(space *frames.Space, pc uint64) (loc string, showPC bool) {
	if m := space.Modules.Find(pc); m != nil {
		if chain := m.InlinedAt(pc); len(chain) > 0 {
			sym := m.Symbolize(pc)
			return locationText(chain[0].Function, sym.File, sym.Line, m), !m.StmtAt(pc)
		}
	}
	return Location(space, pc, pc, true), true
}

// ShowPC reports whether gdb prints the address of the frame shown as s
// ("#2  0x... in f () at ..." rather than "#2  f () at ..."), as gdb's
// frame_show_address decides: not for a frame whose location is an
// inlined call (Caller); for an interrupted frame (frame 0, or one a
// signal interrupted), only where its PC is not a statement's start (an
// is_stmt row of the line table at the PC, which for a physical frame
// must also be where its line's entry starts: pc != sal.pc ||
// !sal.is_stmt); always for a caller's return address and a tail call.
func (t *Trace) ShowPC(s Shown) bool {
	switch {
	case s.TailCall:
		return true
	case s.Caller:
		return false
	}
	f := &t.Frames[s.Frame]
	if !f.Interrupted || f.Module == nil {
		return true
	}
	if !s.Inline {
		if _, _, start, _, ok := f.Module.LineRange(f.PC); !ok || start != f.PC {
			return true
		}
	}
	return !f.Module.StmtAt(f.PC)
}
