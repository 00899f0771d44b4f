package compare

// This file adapts the code oracle of package frames/code to check
// (CodeOracle): per function it runs code.Analyze with what the file tells
// about the rest of the program: the calls that do not return (by the
// callee's name, code.NoReturnNames), jump tables (x86-64,
// code.X86JumpTables, read from the file) and cold partitions (GCC's
// foo.cold, entered from foo's jumps with foo's state there).

import (
	"debug/elf"
	"errors"
	"fmt"
	"sort"
	"strings"

	"golang.org/x/arch/x86/x86asm"

	"github.com/sfdbg/sfdbg/frames"
	"github.com/sfdbg/sfdbg/frames/code"
	"github.com/sfdbg/sfdbg/sframe/arch"
	"github.com/sfdbg/sfdbg/sframe/elfobj"
	"github.com/sfdbg/sfdbg/sframe/rule"
)

// FramesCode is the code oracle of sfdbg check (CheckOptions.Code): the
// machine-neutral walk of frames/code over the file's functions, on every
// machine with a decoder (arch.Arch.Decoder: x86-64, AArch64, s390x). It
// fails for a machine without one.
func FramesCode(m *frames.Module) (CodeFuncs, error) {
	a, err := m.Arch()
	if err != nil {
		return nil, err
	}
	if a.Decoder == nil {
		return nil, fmt.Errorf("no instruction decoder for %s", a.Name)
	}
	layout, err := m.Layout()
	if err != nil {
		return nil, err
	}
	o := &fileOracle{m: m, a: a, layout: layout}
	// One function's rows at a time (CodeFuncs): their buffers serve the
	// next function.
	rows := &funcRows{}
	return func(text []byte, start uint64) CodeRows {
		op := code.Options{NoReturn: o.noReturn}
		if a == arch.AMD64Arch {
			op.JumpTable = code.X86JumpTables(text, start, o.read)
		}
		end := start + uint64(len(text))
		// A jump into the middle of another function is not a tail call
		// (hand-written code shares blocks: libffi's closures, OpenSSL's
		// ecp_nistz256): the walk records it as an exit and does not
		// require the caller's frame there; the other function's own
		// tables are judged in its turn.
		op.Partition = o.intoSibling
		if p := o.partition(start, end); p != nil {
			op.Partition = func(t uint64) bool { return p.within(t) || o.intoSibling(t) }
			if p.hot != (Range{start, end}) {
				// A cold part: entered by the hot part's jumps, with its
				// state at each.
				if op.Entries = o.coldEntries(p, start, end); len(op.Entries) == 0 {
					return notFollowed("a cold part (" + p.name + ".cold) that its hot part's code does not jump to")
				}
			}
		} else if o.isCold(start) {
			return notFollowed("a cold part whose hot part is not known")
		}
		fn := o.hot[start]
		if fn != nil && fn.End == end {
			// Walked already for its cold part's entries, with the
			// same options.
			delete(o.hot, start)
		} else {
			fn = code.Analyze(a, text, start, &op)
		}
		rows.reset(fn, a, text)
		rows.jumps = len(op.Entries) > 0
		return rows
	}, nil
}

// fileOracle is what FramesCode knows about one file.
type fileOracle struct {
	m      *frames.Module
	a      *arch.Arch
	layout *elfobj.Layout
	// dead memoizes noReturn's walks by target.
	dead map[uint64]bool
	// hot holds the walks of hot parts made for their cold parts'
	// entries (coldEntries), by start, until the hot part's own turn.
	hot map[uint64]*code.Func
}

// intoSibling reports whether target is inside another function's CFI
// FDE, past its start (a jump there shares that function's code, it does
// not call it; a label there may have a symbol of its own).
func (o *fileOracle) intoSibling(target uint64) bool {
	r, err := o.m.CFIRow(target + o.m.Bias)
	return err == nil && r.Src.FDEStart != target+o.m.Bias
}

// partition is a function split by the compiler into a hot part (foo) and
// a cold part (foo.cold, GCC's -freorder-blocks-and-partition).
type partition struct {
	name      string // the hot part's
	hot, cold Range
	m         *frames.Module // names the targets of jumps, or nil
}

// within reports whether target lies in another part of p's function
// (code.Options.Partition): the hot part, the cold part, or a cold part
// of the same name (static functions of one name in several units each
// have theirs: the symbol at target says which).
func (p *partition) within(target uint64) bool {
	if target >= p.hot.Start && target < p.hot.End || target >= p.cold.Start && target < p.cold.End {
		return true
	}
	if p.m == nil {
		return false
	}
	name, _, ok := p.m.FuncName(target)
	hot, cold := frames.ColdParent(name)
	if !ok || !cold {
		return false
	}
	if hot == p.name {
		return true
	}
	// The two parts may be named by different aliases
	// (__GI___printf_fp_l.cold of __printf_fp_l).
	a, _, ok := p.m.LookupSymbol(hot)
	return ok && a == p.hot.Start
}

// isCold reports whether the function at start is a cold part by its
// symbol's name.
func (o *fileOracle) isCold(start uint64) bool {
	name, off, ok := o.m.FuncName(start)
	_, cold := frames.ColdParent(name)
	return ok && off == 0 && cold
}

// partition returns the partition of the function [start, end) from the
// module's symbols (foo and foo.cold), or nil when it has none.
func (o *fileOracle) partition(start, end uint64) *partition {
	name, off, ok := o.m.FuncName(start)
	if !ok || off != 0 {
		return nil
	}
	if hot, ok := frames.ColdParent(name); ok {
		a, size, ok := o.m.LookupSymbol(hot)
		if !ok || size == 0 || a+size < a {
			return nil
		}
		return &partition{name: hot, hot: Range{a, a + size}, cold: Range{start, end}}
	}
	// Any jump out of it may enter a cold part of it (whose name may
	// use another alias of it): within asks the symbols.
	return &partition{name: name, hot: Range{start, end}, m: o.m}
}

// coldEntries analyzes the hot part of p and returns its jumps into
// [start, end), the cold part, with their states.
func (o *fileOracle) coldEntries(p *partition, start, end uint64) []code.Exit {
	fn := o.hot[p.hot.Start]
	if fn == nil || fn.End != p.hot.End {
		text, err := o.readErr(p.hot.Start, int(p.hot.End-p.hot.Start))
		if err != nil {
			return nil
		}
		// The options the hot part's own turn uses (its partition asks
		// the symbols), so that it can reuse this walk.
		hot := &partition{name: p.name, hot: p.hot, m: o.m}
		op := code.Options{NoReturn: o.noReturn, Partition: func(t uint64) bool { return hot.within(t) || o.intoSibling(t) }}
		if o.a == arch.AMD64Arch {
			op.JumpTable = code.X86JumpTables(text, p.hot.Start, o.read)
		}
		fn = code.Analyze(o.a, text, p.hot.Start, &op)
		if o.hot == nil {
			o.hot = map[uint64]*code.Func{}
		}
		o.hot[p.hot.Start] = fn
	}
	var ex []code.Exit
	for _, e := range fn.Exits {
		if e.Target >= start && e.Target < end {
			ex = append(ex, e)
		}
	}
	return ex
}

// noReturn reports whether the function called at target is known not to
// return: by its symbol or PLT name (code.NoReturnNames), or because no
// path of its own code returns (code.Func.Returns, objtool's
// dead_end_function: glibc's malloc_printerr), for a function of at most
// maxNoReturnSize bytes, followed at most maxNoReturnDepth calls deep;
// each target is decided once.
func (o *fileOracle) noReturn(target uint64) bool {
	return o.noReturnAt(target, 0)
}

// maxNoReturnSize and maxNoReturnDepth bound the walks noReturn makes of
// called functions: small ones (error reporters), a few calls deep.
const (
	maxNoReturnSize  = 512
	maxNoReturnDepth = 3
)

func (o *fileOracle) noReturnAt(target uint64, depth int) bool {
	if v, ok := o.dead[target]; ok {
		return v
	}
	if o.dead == nil {
		o.dead = map[uint64]bool{}
	}
	name, off, ok := o.m.FuncName(target)
	if !ok || off != 0 {
		o.dead[target] = false
		return false
	}
	if code.NoReturn(name) {
		o.dead[target] = true
		return true
	}
	if depth >= maxNoReturnDepth {
		return false // not memoized: a shallower walk may decide it
	}
	o.dead[target] = false // while it is walked: a recursive call returns
	if i := strings.IndexByte(name, '@'); i >= 0 {
		name = name[:i]
	}
	_, size, ok := o.m.LookupSymbol(name)
	if !ok || size == 0 || size > maxNoReturnSize {
		return false
	}
	text, err := o.readErr(target, int(size))
	if err != nil {
		return false
	}
	op := code.Options{NoReturn: func(t uint64) bool { return o.noReturnAt(t, depth+1) }}
	fn := code.Analyze(o.a, text, target, &op)
	o.dead[target] = !fn.Returns
	return !fn.Returns
}

// maxOracleRead bounds one read of the file for the oracle (a function's
// code or a jump table): a declared size never sizes an allocation beyond
// it.
const maxOracleRead = 64 << 20

// readErr returns size bytes at the link-time address addr of the file.
func (o *fileOracle) readErr(addr uint64, size int) ([]byte, error) {
	if size < 0 || size > maxOracleRead {
		return nil, errors.New("too large")
	}
	s, off, ok := o.layout.Locate(addr)
	if !ok || s.Type == elf.SHT_NOBITS || off+uint64(size) > s.Size {
		return nil, errors.New("not in the file")
	}
	b := make([]byte, size)
	if _, err := s.ReadAt(b, int64(off)); err != nil {
		return nil, err
	}
	return b, nil
}

// read is readErr for code.X86JumpTables: nil when not in the file.
func (o *fileOracle) read(addr uint64, size int) []byte {
	b, _ := o.readErr(addr, size)
	return b
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
// FP=c-16 after pop %rbp: it writes no .cfi_restore there).
func alt(a *arch.Arch, st code.State, reg rule.Reg, cur rule.Rule) rule.Rule {
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
// padding: a nop, int3 or ud2 (x86-64), a nop elsewhere.
func (r *funcRows) padding(pc uint64) bool {
	off := pc - r.f.Start
	if off >= uint64(len(r.text)) {
		return false
	}
	if r.a == arch.AMD64Arch {
		in, err := x86asm.Decode(r.text[off:], 64)
		return err == nil && (in.Op == x86asm.NOP || in.Op == x86asm.INT || in.Op == x86asm.UD2)
	}
	t := r.a.Decoder.Text(r.text[off:], pc)
	return strings.HasPrefix(t, "nop") || strings.HasPrefix(t, "bcr\t0,") || strings.HasPrefix(t, "bcr 0,")
}

// EnteredByJumps reports whether the walk started from the states at the
// jumps into the function (a cold part), not from a call's.
func (r *funcRows) EnteredByJumps() bool { return r.jumps }

// CFAVia gives CFA - reg before the instruction at pc, where the code
// knows it (CodeRows).
func (r *funcRows) CFAVia(pc uint64, reg rule.Reg) (int64, bool) {
	st, _, ok := r.f.StateAt(pc)
	if !ok {
		return 0, false
	}
	return st.CFAVia(r.a, reg)
}

// States lists the walk's own findings (CodeRows).
func (r *funcRows) States() []CodeNote {
	sort.SliceStable(r.notes, func(i, j int) bool { return r.notes[i].PC < r.notes[j].PC })
	return r.notes
}
