package frames

// The one adapter between a module and the code oracle's walk
// (frames/code.Analyze): what the module's file tells about the rest of
// the program, given to the walk as code.Options. The live code unwinder
// (code_unwind.go) and check's oracle (compare.FramesCode) both walk
// through it: the calls that do not return (by the callee's name,
// code.NoReturnNames, through a relocatable object's relocations, or
// because a small callee's own code never returns), x86-64 jump tables
// read from the file, jumps into another function's code (not tail
// calls), and cold partitions (GCC's foo.cold, entered from foo's jumps
// with foo's state there).

import (
	"debug/elf"
	"errors"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/sfdbg/sfdbg/frames/cfi"
	"github.com/sfdbg/sfdbg/frames/code"
	"github.com/sfdbg/sfdbg/sframe/arch"
	"github.com/sfdbg/sfdbg/sframe/elfobj"
	"github.com/sfdbg/sfdbg/sframe/rule"
)

// CodeAnalyzer walks the functions of one module's file with everything
// the file tells the walk (code.Options). Addresses are link-time (the
// file's, or elfobj.Layout's placement of an object). It is safe for
// concurrent use; its memos (noreturn callees, hot parts walked for their
// cold parts) live with it, on the module (Module.CodeAnalyzer).
type CodeAnalyzer struct {
	m      *Module
	a      *arch.Arch
	layout *elfobj.Layout

	mu sync.Mutex
	// dead memoizes noReturn's answers by callee address; entered
	// intoSibling's at FDE starts (NotCallEntry of the first row).
	dead, entered map[uint64]bool
	// hot holds the walks of hot parts made for their cold parts'
	// entries, by start, until the hot part's own turn (at most
	// maxCodeFuncs).
	hot map[uint64]*code.Func
	// into holds, by the start of the FDE they jump into, the jumps of
	// the functions walked so far into another FDE that no call enters
	// (a cold part no symbol names, in a stripped file), with their
	// states: that FDE is walked from them when its turn comes after
	// (compare checks such FDEs last), when each agrees with the FDE's CFA
	// where it jumps (jumpsInto). At most maxInto a target.
	into map[uint64][]code.Exit
	// keeps memoizes callKeeps's answers by callee address.
	keeps map[uint64]uint64
	// rip holds the addresses the code refers to (nextRef), read at the
	// first jump table no compare bounds.
	rip ripRefs
}

// maxInto bounds the jumps recorded into one FDE (CodeAnalyzer.into).
const maxInto = 64

// codeAnalyzerKey keys a module's CodeAnalyzer (Module.Memo).
type codeAnalyzerKey struct{}

// CodeAnalyzer returns the module's analyzer, made on first use. Errors:
// the module's file cannot be read, its machine is not known, or the
// machine has no instruction decoder (arch.Arch.Decoder).
func (m *Module) CodeAnalyzer() (*CodeAnalyzer, error) {
	a, err := m.Arch()
	if err != nil {
		return nil, err
	}
	if a.Decoder == nil {
		return nil, errors.New("no instruction decoder for " + a.Name)
	}
	l, err := m.Layout()
	if err != nil {
		return nil, err
	}
	return m.Memo(codeAnalyzerKey{}, func() any {
		return &CodeAnalyzer{m: m, a: a, layout: l}
	}).(*CodeAnalyzer), nil
}

// Analyze walks the function whose code is text, text[0] being at the
// link-time address start, with the options the module gives (options).
// A cold part (foo.cold) is walked from the states at its hot part's
// jumps into it (entered is then true). fn is nil when the function is
// not walked, and why says why: a cold part whose hot part is not known or
// does not jump to it.
func (c *CodeAnalyzer) Analyze(text []byte, start uint64) (fn *code.Func, entered bool, why string) {
	end := start + uint64(len(text))
	op := c.options(text, start, 0)
	if p := c.partition(start, end); p != nil {
		op.Partition = func(t uint64) bool { return p.within(t) || c.intoSibling(t) }
		if p.hot != [2]uint64{start, end} {
			// A cold part: entered by the hot part's jumps, with its
			// state at each.
			if op.Entries = c.coldEntries(p, start, end); len(op.Entries) == 0 {
				return nil, false, "a cold part (" + p.name + ".cold) that its hot part's code does not jump to"
			}
		}
	} else if c.isCold(start) {
		return nil, false, "a cold part whose hot part is not known"
	} else if ex := c.jumpsInto(start); len(ex) > 0 {
		// An FDE no call enters, no symbol pairs with its hot part:
		// walked from the jumps into it seen so far.
		op.Entries = ex
	}
	c.mu.Lock()
	fn = c.hot[start]
	if fn != nil && fn.End == end {
		// Walked already for its cold part's entries, with the same
		// options.
		delete(c.hot, start)
	} else {
		fn = nil
	}
	c.mu.Unlock()
	if fn == nil {
		fn = code.Analyze(c.a, text, start, op)
	}
	c.recordJumps(fn)
	return fn, len(op.Entries) > 0, ""
}

// recordJumps keeps fn's jumps into other FDEs that no call enters
// (CodeAnalyzer.into), distinct states only.
func (c *CodeAnalyzer) recordJumps(fn *code.Func) {
	if fn == nil || len(fn.Exits) == 0 {
		return
	}
	for _, e := range fn.Exits {
		s, ok := c.m.cfiFDEStart(e.Target)
		if !ok || s == fn.Start || !c.intoSibling(s) || !c.directJump(e.PC) {
			continue
		}
		c.mu.Lock()
		if c.into == nil {
			c.into = map[uint64][]code.Exit{}
		}
		if l := c.into[s]; len(l) < maxInto && !slices.ContainsFunc(l, func(x code.Exit) bool { return x.Target == e.Target && x.State == e.State }) {
			c.into[s] = append(l, e)
		}
		c.mu.Unlock()
	}
}

// directJump reports whether the instruction at the link-time address pc
// is a direct jump (an exit read from a jump table is not kept: a table
// read too far could name another function's cold part).
func (c *CodeAnalyzer) directJump(pc uint64) bool {
	var b []byte
	for n := 16; b == nil && n >= 2; n /= 2 { // near a section's end, fewer
		b = c.m.codeBytes(pc, n)
	}
	var in arch.Inst
	if b == nil || c.a.Decoder.Decode(b, pc, &in) != nil {
		return false
	}
	return in.Class == arch.Jump || in.Class == arch.CondJump
}

// jumpsInto returns the jumps recorded into the FDE that starts at start
// (CodeAnalyzer.into), and forgets them; none when two of them enter one
// address with different states (the FDE is then entered from more than
// one frame, as no compiler's cold part is: which one its CFI describes
// cannot be told).
func (c *CodeAnalyzer) jumpsInto(start uint64) []code.Exit {
	c.mu.Lock()
	defer c.mu.Unlock()
	ex := c.into[start]
	delete(c.into, start)
	rows := make([]rule.Row, len(ex))
	for i := range ex {
		rows[i] = ex[i].State.Row(c.a)
		for j := range i {
			// The same frame: the same unwind row (CFA, RA and FP),
			// whatever else the two states differ in (a scratch
			// register's copy of SP: _PyMem_RawWcsdup's three jumps into
			// its cold part); the walk starts from each state.
			if ex[i].Target == ex[j].Target && rows[i] != rows[j] {
				return nil
			}
		}
		// A jump with another CFA than the FDE's at its target is not
		// its hot part's (a stripped file's cold parts lie together, and
		// a jump read wrong would enter the wrong one): none is taken.
		r, err := c.m.CFIRow(ex[i].Target + c.m.Bias)
		if err != nil || r.CFA.Kind != rule.ValOffset {
			return nil
		}
		if k, ok := ex[i].State.CFAVia(c.a, r.CFA.Reg); !ok || k != r.CFA.Offset {
			return nil
		}
	}
	return ex
}

// options returns the walk's options for the function whose code is text
// at the link-time address start, but for its partition (Analyze adds
// it): calls that do not return (noReturnCall), a jump into the middle of
// another function as an exit, not a tail call (hand-written code shares
// blocks: libffi's closures, OpenSSL's ecp_nistz256; the other function's
// own tables are judged in its turn), and on x86-64 the jump tables
// (code.X86JumpTables) read from the file. depth counts the calls below
// the function checked: noReturn's walks of callees (depth > 0) know the
// calls that do not return only.
func (c *CodeAnalyzer) options(text []byte, start uint64, depth int) *code.Options {
	op := &code.Options{
		NoReturnCall: func(pc, target uint64) bool { return c.noReturnCall(text, start, pc, target, depth) },
	}
	if depth > 0 {
		return op
	}
	op.Partition = c.intoSibling
	if c.a == arch.AMD64Arch && !c.layout.Synthetic() {
		// A relocatable object's calls name no target; LeafKeeps reads
		// x86-64 callees only.
		op.CallKeeps = c.callKeeps
	}
	if c.layout.Synthetic() {
		op.BranchReloc = c.branchReloc
	} else {
		op.Stub = c.stub
	}
	if pads, args := c.m.callSites(start); len(pads) > 0 {
		op.LandingPad = func(pc uint64) (uint64, int64) {
			// The table is sorted by Start (the ABI requires it); the
			// calls are asked in no order.
			i := sort.Search(len(pads), func(i int) bool { return pads[i].End > pc })
			if i >= len(pads) || pads[i].Start > pc {
				return 0, 0
			}
			// The args size in effect at the call: the last one at or
			// before it.
			n := int64(0)
			if k := sort.Search(len(args), func(k int) bool { return args[k].PC > pc }); k > 0 {
				n = int64(args[k-1].Size)
			}
			return pads[i].LandingPad, n
		}
	}
	// The tables of a relocatable object are not read: its lea of a table
	// and the table's entries hold relocations, not addresses
	// (valgrind's archives gave tail calls to nowhere).
	switch a := c.a; {
	case c.layout.Synthetic():
	case a == arch.AMD64Arch:
		op.JumpTable = code.X86JumpTablesRefs(text, start, c.m.codeBytes, c.nextRef)
	case a == arch.ARM64Arch:
		op.JumpTable = code.ARM64JumpTables(text, start, c.m.codeBytes)
	case a == arch.S390XArch:
		op.JumpTable = code.S390XJumpTablesRefs(text, start, c.m.codeBytes, c.nextRef)
	}
	return op
}

// callKeeps is code.LeafKeeps of the function at target, read from the
// file (a relocatable object's calls name no target: 0 there).
func (c *CodeAnalyzer) callKeeps(target uint64) uint64 {
	return memo(&c.mu, &c.keeps, target, func() uint64 {
		return code.LeafKeeps(c.a, c.m.codeBytesUpTo(target, 1024), target)
	})
}

// intoSibling reports whether target is inside another function's CFI
// FDE, past its start (a jump there shares that function's code, it does
// not call it; a label there may have a symbol of its own), or at the
// start of an FDE that a call does not enter: its CFI there gives another
// CFA than the machine's after a call (NotCallEntry). That is a cold part
// (GCC's foo.cold) in a file whose symbols do not name it (a stripped
// program: vim's, qemu's), or a trampoline a jump enters; a jump there
// leaves the caller's frame modified on purpose. A jump to padding that no
// FDE covers (a nop, int3 or ud2 past the function's end: the branch clang
// and GCC emit for __builtin_unreachable, libLLVM's llvm_unreachable) is
// not a tail call either: no code runs there.
func (c *CodeAnalyzer) intoSibling(target uint64) bool {
	start, ok := c.m.cfiFDEStart(target)
	if !ok {
		return c.padding(target)
	}
	if start != target {
		return true
	}
	// One entry per FDE jumped to: bounded by the module's CFI.
	return memo(&c.mu, &c.entered, target, func() bool {
		r, err := c.m.CFIRow(target + c.m.Bias)
		return err == nil && NotCallEntry(c.a, &r.Row)
	})
}

// memo returns (*m)[k], computing it with f (outside mu) and storing it
// the first time: the CodeAnalyzer's per-address answers, each computed
// once per module (two goroutines asking at once may both compute it).
func memo[K comparable, V any](mu *sync.Mutex, m *map[K]V, k K, f func() V) V {
	mu.Lock()
	v, ok := (*m)[k]
	mu.Unlock()
	if ok {
		return v
	}
	v = f()
	mu.Lock()
	if *m == nil {
		*m = map[K]V{}
	}
	(*m)[k] = v
	mu.Unlock()
	return v
}

// padding reports whether the instruction at the link-time address addr
// is alignment padding (code.IsPadding).
func (c *CodeAnalyzer) padding(addr uint64) bool {
	b := c.m.codeBytes(addr, 16)
	if b == nil {
		if l, err := c.m.Layout(); err == nil {
			if s, off, ok := l.Locate(addr); ok && off < s.Size {
				b = c.m.codeBytes(addr, int(s.Size-off)) // the section's last bytes
			}
		}
	}
	return len(b) > 0 && code.IsPadding(c.a, b, addr)
}

// NotCallEntry reports whether a CFI row at a function's first
// instruction says that no call enters it: the CFA is not the machine's
// after a call (arch.Arch.Entry), and the row has a return address and is
// not a signal frame's. A cold part or a trampoline a jump enters
// (glibc's _dl_runtime_resolve, from PLT0 with two words pushed, on AArch64
// with the RA stored), or a C++ landing pad the unwinder enters.
func NotCallEntry(a *arch.Arch, r *rule.Row) bool {
	if a == nil || r.RA.Kind == rule.Undefined || r.Signal {
		return false
	}
	// On a machine whose call leaves the RA in a register (AArch64 x30,
	// s390x r14), a first row that has it in memory says the entry is
	// not a call's too: glibc's AArch64 _dl_runtime_resolve, entered
	// from PLT0 with x16 and x30 stored at [sp] (RA=c+8).
	return r.CFA != a.Entry.CFA || a.Entry.RA.Kind != rule.Offset && r.RA.Kind == rule.Offset
}

// codePartition is a function split by the compiler into a hot part (foo)
// and a cold part (foo.cold, GCC's -freorder-blocks-and-partition).
// Ranges are link-time [start, end).
type codePartition struct {
	name      string // the hot part's
	hot, cold [2]uint64
	m         *Module // names the targets of jumps, or nil
}

// within reports whether target lies in another part of p's function
// (code.Options.Partition): the hot part, the cold part, or a cold part
// of the same name (static functions of one name in several units each
// have theirs: the symbol at target says which).
func (p *codePartition) within(target uint64) bool {
	if target >= p.hot[0] && target < p.hot[1] || target >= p.cold[0] && target < p.cold[1] {
		return true
	}
	if p.m == nil {
		return false
	}
	name, _, ok := p.m.FuncName(target + p.m.Bias)
	hot, cold := ColdParent(name)
	if !ok || !cold {
		return false
	}
	if hot == p.name {
		return true
	}
	// The two parts may be named by different aliases
	// (__GI___printf_fp_l.cold of __printf_fp_l).
	a, _, ok := p.m.LookupSymbol(hot)
	return ok && a-p.m.Bias == p.hot[0]
}

// isCold reports whether the function at start is a cold part by its
// symbol's name.
func (c *CodeAnalyzer) isCold(start uint64) bool {
	name, off, ok := c.m.FuncName(start + c.m.Bias)
	_, cold := ColdParent(name)
	return ok && off == 0 && cold
}

// partition returns the partition of the function [start, end) from the
// module's symbols (foo and foo.cold), or nil when it has none.
func (c *CodeAnalyzer) partition(start, end uint64) *codePartition {
	name, off, ok := c.m.FuncName(start + c.m.Bias)
	if !ok || off != 0 {
		return nil
	}
	if hot, ok := ColdParent(name); ok {
		a, size, ok := c.m.LookupSymbol(hot)
		a -= c.m.Bias
		if !ok || size == 0 || a+size < a {
			return nil
		}
		return &codePartition{name: hot, hot: [2]uint64{a, a + size}, cold: [2]uint64{start, end}}
	}
	// Any jump out of it may enter a cold part of it (whose name may
	// use another alias of it): within asks the symbols.
	return &codePartition{name: name, hot: [2]uint64{start, end}, m: c.m}
}

// coldEntries walks the hot part of p and returns its jumps into
// [start, end), the cold part, with their states.
func (c *CodeAnalyzer) coldEntries(p *codePartition, start, end uint64) []code.Exit {
	c.mu.Lock()
	fn := c.hot[p.hot[0]]
	c.mu.Unlock()
	if fn == nil || fn.End != p.hot[1] {
		if p.hot[1]-p.hot[0] > maxCodeFunc {
			return nil
		}
		text := c.m.codeBytes(p.hot[0], int(p.hot[1]-p.hot[0]))
		if text == nil {
			return nil
		}
		// The options the hot part's own turn uses (its partition asks
		// the symbols), so that it can reuse this walk.
		hot := &codePartition{name: p.name, hot: p.hot, m: c.m}
		op := c.options(text, p.hot[0], 0)
		op.Partition = func(t uint64) bool { return hot.within(t) || c.intoSibling(t) }
		fn = code.Analyze(c.a, text, p.hot[0], op)
		c.mu.Lock()
		if c.hot == nil || len(c.hot) >= maxCodeFuncs {
			c.hot = map[uint64]*code.Func{}
		}
		c.hot[p.hot[0]] = fn
		c.mu.Unlock()
	}
	var ex []code.Exit
	for _, e := range fn.Exits {
		if e.Target >= start && e.Target < end {
			ex = append(ex, e)
		}
	}
	return ex
}

// maxNoReturnSize and maxNoReturnDepth bound the walks noReturn makes of
// called functions: small ones (error reporters), a few calls deep.
const (
	maxNoReturnSize  = 512
	maxNoReturnDepth = 3
)

// noReturnCall reports whether the call at pc (in text, at start) to
// target does not return. In a relocatable object the relocation inside
// the call instruction names the callee (call abort@PLT has target 0
// bytes past itself and R_X86_64_PLT32 against abort): by its name, or
// its own code where the object defines it. Elsewhere noReturn decides
// by target.
func (c *CodeAnalyzer) noReturnCall(text []byte, start, pc, target uint64, depth int) bool {
	if c.layout.Synthetic() && pc >= start && pc-start < uint64(len(text)) {
		var in arch.Inst
		if err := c.a.Decoder.Decode(text[pc-start:], pc, &in); err == nil && in.Len > 0 {
			if r, ok := c.layout.CodeRelocIn(pc, pc+uint64(in.Len)); ok {
				return c.noReturnSym(r.Sym, depth)
			}
		}
	}
	return c.noReturn(target, depth)
}

// stub gives the bytes at the link-time address target for the walk to
// follow as a linker-made stub (code.Options.Stub): 16 of them, where no
// CFI FDE covers target (a veneer has none) and it is not padding.
func (c *CodeAnalyzer) stub(target uint64) []byte {
	if _, ok := c.m.cfiFDEStart(target); ok || c.padding(target) {
		return nil
	}
	return c.m.codeBytes(target, 16)
}

// branchReloc gives the target of the branch of n bytes at pc of a
// relocatable object from the relocation in its bytes
// (code.Options.BranchReloc): S + A + (base - F), the field F's value
// being S + A - F relative to base, the end of the instruction on x86-64
// (R_X86_64_PLT32, PC32), its start on AArch64 (JUMP26, CONDBR19) and
// s390x (PC32DBL, PLT32DBL: the halving undone). A symbol the object does
// not define leaves the function: the all-ones address.
func (c *CodeAnalyzer) branchReloc(pc uint64, n int) (uint64, bool) {
	r, ok := c.layout.CodeRelocIn(pc, pc+uint64(n))
	if !ok {
		return 0, false
	}
	s := r.Sym
	if s.Section == elf.SHN_UNDEF || s.Section >= elf.SHN_LORESERVE {
		return ^uint64(0), true
	}
	base := pc
	if c.a.Machine == elf.EM_X86_64 {
		base = pc + uint64(n)
	}
	return c.layout.SymbolAddr(s.Value, s.Section) + uint64(r.Addend) + base - r.Addr, true
}

// noReturnSym reports whether the function a relocation's symbol names
// does not return: by its name, or, for a function the object defines, by
// its code (noReturn). A section symbol (a call to .text+k) is not
// decided.
func (c *CodeAnalyzer) noReturnSym(s elf.Symbol, depth int) bool {
	if code.NoReturn(s.Name) {
		return true
	}
	if s.Section == elf.SHN_UNDEF || s.Section >= elf.SHN_LORESERVE || elf.ST_TYPE(s.Info) == elf.STT_SECTION {
		return false
	}
	return c.noReturn(c.layout.SymbolAddr(s.Value, s.Section), depth)
}

// noReturn reports whether the function called at target is known not to
// return: by its symbol or PLT name (code.NoReturnNames), or because no
// path of its own code returns (code.Func.Returns, objtool's
// dead_end_function: glibc's malloc_printerr), for a function (its symbol's
// size, else the CFI FDE that starts at target: a stripped program) of at most
// maxNoReturnSize bytes, followed at most maxNoReturnDepth calls deep;
// each target is decided once.
func (c *CodeAnalyzer) noReturn(target uint64, depth int) bool {
	c.mu.Lock()
	v, ok := c.dead[target]
	c.mu.Unlock()
	if ok {
		return v
	}
	var size uint64
	if name, off, ok := c.m.FuncName(target + c.m.Bias); ok && off == 0 {
		if code.NoReturn(name) {
			c.setDead(target, true)
			return true
		}
		if i := strings.IndexByte(name, '@'); i >= 0 {
			name = name[:i]
		}
		if _, n, ok := c.m.LookupSymbol(name); ok {
			size = n
		}
	}
	if size == 0 {
		// No symbol sized there (a stripped program's static
		// function): the CFI FDE that starts there is the function.
		if s, e, ok := c.m.cfiFDERange(target); ok && s == target {
			size = e - s
		}
	}
	if size == 0 || size > maxNoReturnSize {
		c.setDead(target, false)
		return false
	}
	if depth >= maxNoReturnDepth {
		return false // not memoized: a shallower walk may decide it
	}
	c.setDead(target, false) // while it is walked: a recursive call returns
	text := c.m.codeBytes(target, int(size))
	if text == nil {
		return false
	}
	op := c.options(text, target, depth+1)
	op.UntilReturns = true // only Returns is asked
	fn := code.Analyze(c.a, text, target, op)
	c.setDead(target, !fn.Returns)
	return !fn.Returns
}

func (c *CodeAnalyzer) setDead(target uint64, v bool) {
	c.mu.Lock()
	if c.dead == nil {
		// One entry per call target: bounded by the module's code.
		c.dead = map[uint64]bool{}
	}
	c.dead[target] = v
	c.mu.Unlock()
}

// callSites returns the call-site table of the LSDA of the .eh_frame FDE
// that starts at the link-time address start (cfi.ParseLSDA), sorted by
// Start, with the entries that have a landing pad only, and the FDE's
// DW_CFA_GNU_args_size (cfi.FDE.ArgsSizes); nil when the FDE has no LSDA,
// or it cannot be read (a relocatable object's LSDA pointer is not
// relocated: its table is not read).
func (m *Module) callSites(start uint64) ([]cfi.CallSite, []cfi.ArgsSize) {
	t, err := m.cfiTableOf(start+m.Bias, true)
	if err != nil {
		return nil, nil
	}
	fd, err := t.lookup(start)
	if err != nil || fd.Start != start || fd.LSDA == 0 || fd.CIE == nil || fd.CIE.LSDAEncoding&cfi.DW_EH_PE_indirect != 0 {
		return nil, nil
	}
	l, err := m.Layout()
	if err != nil || l.Synthetic() {
		return nil, nil
	}
	s, off, ok := l.Locate(fd.LSDA)
	if !ok || s.Type == elf.SHT_NOBITS {
		return nil, nil
	}
	// An LSDA is small: its call-site table has an entry per call that
	// may throw. Read 512 bytes of the section, then up to 64 KiB for a
	// table longer than that.
	f := l.File()
	var sites []cfi.CallSite
	for _, n := range []uint64{512, 64 << 10} {
		b := make([]byte, min(s.Size-off, n))
		if _, err = s.ReadAt(b, int64(off)); err != nil {
			return nil, nil
		}
		if sites, err = cfi.ParseLSDA(b, fd.LSDA, int64(off), f.ByteOrder, ptrSize(f), start); err == nil || uint64(len(b)) < n {
			break
		}
	}
	if err != nil {
		return nil, nil // a table cut short may name pads wrongly
	}
	out := sites[:0]
	for _, cs := range sites {
		if cs.LandingPad != 0 && cs.End > cs.Start {
			out = append(out, cs)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Start < out[j].Start })
	args, err := fd.ArgsSizes()
	if err != nil {
		return nil, nil
	}
	return out, args
}

// ptrSize is the size of an address in f, in bytes.
func ptrSize(f *elf.File) int {
	if f.Class == elf.ELFCLASS32 {
		return 4
	}
	return 8
}
