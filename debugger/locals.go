package debugger

// Locals, arguments and values of C programs, as gdb prints them: info
// locals, info args, bt full and the arguments in frame lines, print VAR,
// ptype and set var. The variables are frames.Scope's (DWARF); the
// registers of each frame come from the listed trace, replayed once
// (compare.Trace.FramesTo).

import (
	"debug/dwarf"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/sirupsen/logrus"

	"github.com/sfdbg/sfdbg/compare"
	"github.com/sfdbg/sfdbg/debugger/proc"
	"github.com/sfdbg/sfdbg/frames"
	"github.com/sfdbg/sfdbg/sframe/rule"
)

// localsCommands are the command table's entries of this file: info
// locals, info args, ptype and set variable.
var localsCommands = []*command{
	{aliases: []string{"locals"}, needsTarget: true,
		help: `Print the selected frame's local variables, as gdb does.
Innermost block first, from the DWARF of C programs: base types,
pointers (char * with its string), structures, arrays, enums;
<optimized out> where DWARF gives no location at the PC.`,
		run: cmdInfoLocals},
	{aliases: []string{"args"}, needsTarget: true,
		help: "Print the selected frame's arguments, as gdb does.",
		run:  cmdInfoArgs},
	{aliases: []string{"ptype"}, args: "EXPR | struct|union|enum NAME | TYPE", needsTarget: true,
		help: `Print the type of a variable or a type name, as gdb does.
EXPR is a variable of the selected frame or a global, with .FIELD,
->FIELD, [N], * and &, or a function (its return and parameter types).`,
		run: func(s *Session, a string) error { return cmdPtypeOrWhatis(s, a, true) }},
	{aliases: []string{"whatis"}, args: "EXPR | TYPE", needsTarget: true,
		help: `Print the name of an expression's type, as gdb does.
As ptype, without expanding a structure, union or enum, or a typedef.`,
		run: func(s *Session, a string) error { return cmdPtypeOrWhatis(s, a, false) }},
	{aliases: []string{"variable", "var"}, args: "VAR = VALUE", needsTarget: true,
		help: `Assign VALUE to the variable VAR in the selected frame.
VAR is a local, an argument or a global, with .FIELD, ->FIELD, [N] and
*; VALUE a number or expression as print takes it, an enumerator or a
character ('a'). Integers, pointers, enums, characters and
floating-point values; in memory, or in a register of frame 0 (one of
an outer frame is refused).`,
		run: cmdSetVar},
}

// errNoSymtab is gdb's answer where a frame has no DWARF function.
var errNoSymtab = errors.New("No symbol table info available.")

// varContext reads the variables of a trace's frames.
type varContext struct {
	tr *compare.Trace
	sp *frames.Space
	f  *cFormatter
	fs []frames.Frame // physical frames 0..len-1, with their registers
	// chain holds the frames in call order, innermost first: physical
	// frames and, between two, the tail-call frames gdb shows; each one's
	// Caller is the next. phys[i] and tails[{i, pc}] index it.
	chain []frames.VarFrame
	tf    []frames.Frame // the tail-call frames' own frames
	phys  []int
	tails map[[2]uint64]int
	// scopes caches the scopes looked up, by module, lookup PC and inline
	// depth: a deep recursion shows the same few functions.
	scopes map[scopeKey]*frames.Scope
}

type scopeKey struct {
	m     *frames.Module
	pc    uint64
	depth int
}

func (s *Session) varContext(tr *compare.Trace) (*varContext, error) {
	sp, err := s.space()
	if err != nil {
		return nil, err
	}
	return &varContext{tr: tr, sp: sp, f: &cFormatter{sp: sp}}, nil
}

// entryValueFrames is how many callers of a frame are recovered with it
// for its entry values (frames' recursion bound, plus one).
const entryValueFrames = 9

// build recovers the registers of physical frames 0 to n and links them,
// with the tail-call frames between them, into the call chain.
func (c *varContext) build(n int) {
	c.fs = c.tr.FramesTo(n)
	// The tail-call frames of each physical frame, innermost first.
	byFrame := map[int][]compare.Shown{}
	for l := 0; ; l++ {
		sh, ok := c.tr.ShownAt(l)
		if !ok || sh.Frame >= len(c.fs) {
			break
		}
		if sh.TailCall {
			byFrame[sh.Frame] = append(byFrame[sh.Frame], sh)
		}
	}
	c.chain, c.tf, c.phys = nil, nil, make([]int, len(c.fs))
	c.tails = map[[2]uint64]int{}
	type pending struct {
		sh compare.Shown
		k  int
	}
	var tailsAt []pending
	for k := range c.fs {
		for _, sh := range byFrame[k] {
			// A function that left by a jump: the callee-saved registers
			// are its caller's (k's), the others unknown; its SP is not
			// kept.
			regs := frames.NewRegs(proc.HostArch)
			for _, r := range proc.HostArch.CalleeSaved {
				if v, ok := c.fs[k].Regs.Get(r); ok {
					regs.Set(r, v)
				}
			}
			regs.Set(regs.PCReg, sh.PC)
			f := frames.Frame{Level: c.fs[k].Level, PC: sh.PC, Regs: regs, Method: c.fs[k].Method, Module: c.tailModule(sh, c.tr.Frames[k].Module)}
			if k > 0 {
				f.CFA = c.fs[k-1].CFA
			}
			c.tf = append(c.tf, f)
			tailsAt = append(tailsAt, pending{sh, len(c.chain)})
			c.tails[[2]uint64{uint64(k), sh.PC}] = len(c.chain)
			c.chain = append(c.chain, frames.VarFrame{Space: c.sp})
		}
		c.phys[k] = len(c.chain)
		c.chain = append(c.chain, frames.VarFrame{Frame: &c.fs[k], CFA: c.fs[k].CFA, Space: c.sp})
	}
	for i, p := range tailsAt {
		c.chain[p.k].Frame = &c.tf[i]
		c.chain[p.k].CFA = c.tf[i].CFA
	}
	for i := range c.chain {
		if i+1 < len(c.chain) {
			c.chain[i].Caller = &c.chain[i+1]
		}
	}
}

// tailModule is the module of tail-call frame sh: the one holding its
// jump, which need not be its caller's (def, the physical frame's).
func (c *varContext) tailModule(sh compare.Shown, def *frames.Module) *frames.Module {
	if c.sp != nil && c.sp.Modules != nil {
		if m := c.sp.Modules.Find(sh.PC - 1); m != nil {
			return m
		}
	}
	return def
}

// varFrame returns the frame shown as sh as its variables are read (a
// physical frame, or a tail-call frame), linked to its callers: an entry
// value's call site may pass on an entry value of the caller's, up to
// entryValueFrames frames up. Registers are recovered on first need.
func (c *varContext) varFrame(sh compare.Shown) (*frames.VarFrame, error) {
	i := sh.Frame
	if i+entryValueFrames >= len(c.fs) && len(c.fs) < len(c.tr.Frames) {
		c.build(max(i+entryValueFrames, len(c.fs)*2))
	}
	if i >= len(c.fs) {
		return nil, fmt.Errorf("cannot recompute the registers of frame %d", c.tr.Level(i))
	}
	if sh.TailCall {
		k, ok := c.tails[[2]uint64{uint64(i), sh.PC}]
		if !ok {
			return nil, errNoSymtab
		}
		return &c.chain[k], nil
	}
	return &c.chain[c.phys[i]], nil
}

// scope returns the variables of the frame shown as sh and the frame they
// are read in.
func (c *varContext) scope(sh compare.Shown) (*frames.Scope, *frames.VarFrame, error) {
	f := &c.tr.Frames[sh.Frame]
	if f.Module == nil || f.SignalTrampoline() {
		return nil, nil, errNoSymtab
	}
	pc, depth, m := f.LookupPC(), 0, f.Module
	switch {
	case sh.TailCall:
		// The function that made the jump: the innermost one at the
		// jump, as gdb names the frame, in the module that holds it
		// (qsort in libc above main: frames.TailCallsAcross).
		pc = sh.PC - 1
		m = c.tailModule(sh, f.Module)
		depth = len(m.InlinedAt(pc))
	case sh.Inline:
		depth = c.tr.Level(sh.Frame) - sh.Level
	}
	key := scopeKey{m, pc, depth}
	sc, ok := c.scopes[key]
	if !ok {
		var err error
		if sc, err = m.FrameScope(pc, depth); err != nil {
			sc = nil
		}
		if c.scopes == nil {
			c.scopes = map[scopeKey]*frames.Scope{}
		}
		c.scopes[key] = sc
	}
	if sc == nil {
		return nil, nil, errNoSymtab
	}
	vf, err := c.varFrame(sh)
	if err != nil {
		return nil, nil, err
	}
	return sc, vf, nil
}

// valueError is how a value that cannot be read is printed.
func valueError(err error) string {
	logrus.Debugf("value: %v", err)
	var me *frames.MemoryError
	switch {
	case errors.Is(err, frames.ErrOptimizedOut):
		return "<optimized out>"
	case errors.Is(err, frames.ErrSyntheticPointer):
		return "<synthetic pointer>"
	case errors.As(err, &me):
		return fmt.Sprintf("<error: Cannot access memory at address %#x>", me.Addr)
	}
	return "<error: " + err.Error() + ">"
}

// varText reads v and formats it.
func (c *varContext) varText(sc *frames.Scope, v *frames.Var, vf *frames.VarFrame, mode valueMode) (string, frames.Value, error) {
	val, err := sc.Read(v, vf)
	if err != nil {
		return valueError(err), val, err
	}
	return c.f.format(v.Type, val.Bytes, mode, 0), val, nil
}

// argsText is the argument list of a frame line, as gdb prints it with
// "print entry-values default": r=0x..., n=n@entry=5 where the value at
// entry (from the caller's call site) is known and the same, "v=6,
// v@entry=5" where it differs.
func (c *varContext) argsText(sh compare.Shown) (string, bool) {
	sc, vf, err := c.scope(sh)
	if err != nil {
		return "", false
	}
	var parts []string
	for i := range sc.Params {
		p := &sc.Params[i]
		text, val, err := c.varText(sc, p, vf, modeArg)
		ent, entOK := sc.ReadEntry(p, vf)
		switch {
		case !entOK:
			parts = append(parts, p.Name+"="+text)
		case err == nil && string(val.Bytes) == string(ent.Bytes):
			parts = append(parts, p.Name+"="+p.Name+"@entry="+text)
		default:
			parts = append(parts, p.Name+"="+text, p.Name+"@entry="+c.f.format(p.Type, ent.Bytes, modeArg, 0))
		}
	}
	return strings.Join(parts, ", "), true
}

// writeLocals writes "name = value" for the frame's locals, each line
// prefixed by indent; "No locals." or why there are none, not indented,
// as gdb's bt full writes them.
func (c *varContext) writeLocals(w io.Writer, sh compare.Shown, indent string) {
	sc, vf, err := c.scope(sh)
	if err != nil {
		fmt.Fprintf(w, "%s\n", err)
		return
	}
	if len(sc.Locals) == 0 {
		fmt.Fprintf(w, "No locals.\n")
		return
	}
	for i := range sc.Locals {
		v := &sc.Locals[i]
		text, _, _ := c.varText(sc, v, vf, modeNested)
		fmt.Fprintf(w, "%s%s = %s\n", indent, v.Name, text)
	}
}

// cmdInfoLocals implements "info locals".
func cmdInfoLocals(s *Session, args string) error {
	sh, tr, err := s.selectedShown()
	if err != nil {
		return err
	}
	c, err := s.varContext(tr)
	if err != nil {
		return err
	}
	if _, _, err := c.scope(sh); err != nil {
		return err
	}
	c.writeLocals(s.ui, sh, "")
	return nil
}

// cmdInfoArgs implements "info args".
func cmdInfoArgs(s *Session, args string) error {
	sh, tr, err := s.selectedShown()
	if err != nil {
		return err
	}
	c, err := s.varContext(tr)
	if err != nil {
		return err
	}
	sc, vf, err := c.scope(sh)
	if err != nil {
		return err
	}
	if len(sc.Params) == 0 {
		s.printf("No arguments.\n")
		return nil
	}
	for i := range sc.Params {
		text, _, _ := c.varText(sc, &sc.Params[i], vf, modeNested)
		s.printf("%s = %s\n", sc.Params[i].Name, text)
	}
	return nil
}

// typed is a value of an expression on variables: its type, bytes and,
// for an lvalue, where it lives.
type typed struct {
	t     dwarf.Type
	b     []byte
	addr  uint64
	inMem bool
	// reg: the whole value is in register regNo, whose full value is
	// regVal, of frame 0 when frame0.
	reg    bool
	regNo  rule.Reg
	regVal uint64
	frame0 bool
}

// varPath is a C expression sfdbg evaluates on variables: [*...|&] NAME
// followed by .FIELD, ->FIELD and [N].
type varPath struct {
	derefs int
	addrOf bool
	name   string
	steps  []pathStep
}

type pathStep struct {
	kind  byte // '.', '>' (->) or '['
	field string
	index int64
}

// parseVarPath parses expr as a varPath; ok is false when it is not one
// derefMember matches "(*NAME)." (group 1: NAME), C's other spelling of
// "NAME->".
var derefMember = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\(\s*\*\s*([A-Za-z_][A-Za-z0-9_]*)\s*\)\s*\.\s*`)
})

// (it is then left to the integer expression evaluator).
func parseVarPath(expr string) (varPath, bool) {
	var p varPath
	e := strings.TrimSpace(expr)
	e = derefMember().ReplaceAllString(e, "$1->") // (*p).x is p->x
prefix:
	for {
		switch {
		case strings.HasPrefix(e, "*"):
			p.derefs++
		case strings.HasPrefix(e, "&") && p.derefs > 0:
			p.derefs-- // *&x is x
		default:
			break prefix
		}
		e = strings.TrimSpace(e[1:])
	}
	if p.derefs == 0 && strings.HasPrefix(e, "&") {
		p.addrOf = true
		e = strings.TrimSpace(e[1:])
	}
	ident := func(s string) (string, string) {
		i := 0
		for i < len(s) && (s[i] == '_' || s[i] >= 'a' && s[i] <= 'z' || s[i] >= 'A' && s[i] <= 'Z' || i > 0 && s[i] >= '0' && s[i] <= '9') {
			i++
		}
		return s[:i], s[i:]
	}
	p.name, e = ident(e)
	if p.name == "" {
		return p, false
	}
	for e = strings.TrimSpace(e); e != ""; e = strings.TrimSpace(e) {
		var st pathStep
		switch {
		case strings.HasPrefix(e, "."):
			st.kind = '.'
			st.field, e = ident(strings.TrimSpace(e[1:]))
		case strings.HasPrefix(e, "->"):
			st.kind = '>'
			st.field, e = ident(strings.TrimSpace(e[2:]))
		case strings.HasPrefix(e, "["):
			end := strings.IndexByte(e, ']')
			if end < 0 {
				return p, false
			}
			idx := strings.TrimSpace(e[1:end])
			n, err := strconv.ParseInt(idx, 0, 64)
			if err != nil {
				// An index expression (zeros[n - 4]), evaluated with
				// the path.
				if idx == "" || strings.ContainsAny(idx, "[]") {
					return p, false
				}
				st.field = idx
			}
			st.kind, st.index, e = '[', n, e[end+1:]
		default:
			return p, false
		}
		if st.kind != '[' && st.field == "" {
			return p, false
		}
		p.steps = append(p.steps, st)
	}
	return p, true
}

// lookupVar finds a variable by name as gdb does in the selected frame:
// its locals (innermost block first) and arguments, then the DWARF
// globals of the frame's module, then of every module (the main
// executable first). ok is false when there is none.
func (s *Session) lookupVar(name string) (c *varContext, sc *frames.Scope, v *frames.Var, vf *frames.VarFrame, ok bool, err error) {
	sh, tr, err := s.selectedShown()
	if err != nil {
		return nil, nil, nil, nil, false, err
	}
	c, err = s.varContext(tr)
	if err != nil {
		return nil, nil, nil, nil, false, err
	}
	var frameMod *frames.Module
	if sc, vf, err := c.scope(sh); err == nil {
		for i := range sc.Locals {
			if sc.Locals[i].Name == name {
				return c, sc, &sc.Locals[i], vf, true, nil
			}
		}
		for i := range sc.Params {
			if sc.Params[i].Name == name {
				return c, sc, &sc.Params[i], vf, true, nil
			}
		}
		frameMod = tr.Frames[sh.Frame].Module
	}
	vf, _ = c.varFrame(sh)
	if vf == nil {
		vf = &frames.VarFrame{Frame: &frames.Frame{}, Space: c.sp}
	}
	// A global or file-static variable has a data symbol: its module's
	// DWARF is searched for it only then (the frame's module first).
	mods := mainFirst(c.sp)
	if frameMod != nil {
		mods = append([]*frames.Module{frameMod}, mods...)
	}
	for _, m := range mods {
		if _, found := moduleDataSyms(m).byName[name]; !found {
			continue
		}
		if gsc, gv, ok := m.LookupGlobal(name); ok {
			return c, gsc, gv, vf, true, nil
		}
	}
	return c, nil, nil, nil, false, nil
}

// varNumber is a variable's value as the integer expression evaluator
// takes it (print n + 1, x &buf, set var go = n): a scalar's value, an
// array's address (C's decay to a pointer), with addr its address. ok is
// false when name is no variable of the selected frame or global.
func (s *Session) varNumber(name string, addr bool) (v value, ok bool, err error) {
	return s.pathNumber(varPath{name: name, addrOf: addr})
}

// pathNumber is varNumber for a variable path (r->at.x, zeros[1]).
func (s *Session) pathNumber(p varPath) (v value, ok bool, err error) {
	t, _, found, err := s.evalPath(p)
	switch {
	case !found:
		return value{}, false, err
	case errors.Is(err, frames.ErrOptimizedOut):
		return value{}, true, errors.New("value has been optimized out")
	case err != nil:
		return value{}, true, err
	}
	return s.typedValue(t), true, nil
}

// evalPath evaluates p on variables; ok is false when p's name is no
// variable (the caller then tries symbols and registers).
func (s *Session) evalPath(p varPath) (t typed, c *varContext, ok bool, err error) {
	c, sc, v, vf, found, err := s.lookupVar(p.name)
	if err != nil || !found {
		return typed{}, c, false, err
	}
	if p.addrOf && len(p.steps) == 0 {
		// &NAME: its address, without reading it.
		if v.TypeErr != nil {
			return typed{}, c, true, v.TypeErr
		}
		a, err := sc.Address(v, vf)
		if err != nil {
			return typed{}, c, true, err
		}
		b := make([]byte, 8)
		binary.NativeEndian.PutUint64(b, a)
		return typed{t: &dwarf.PtrType{CommonType: dwarf.CommonType{ByteSize: 8}, Type: v.Type}, b: b}, c, true, nil
	}
	val, err := sc.Read(v, vf)
	if errors.Is(err, frames.ErrSyntheticPointer) {
		// A pointer with no value of its own (DW_OP_implicit_pointer):
		// *s and s->f read the object it points to, as gdb does.
		first := len(p.steps) > 0 && (p.steps[0].kind == '>' || p.steps[0].kind == '[' && p.steps[0].field == "" && p.steps[0].index == 0)
		if p.derefs == 0 && !first {
			return typed{t: v.Type}, c, true, err
		}
		obj, ot, err := sc.ReadImplicit(v, vf)
		if err != nil {
			return typed{}, c, true, err
		}
		switch {
		case p.derefs > 0:
			p.derefs--
		case p.steps[0].kind == '>':
			p.steps = append([]pathStep{{kind: '.', field: p.steps[0].field}}, p.steps[1:]...)
		default: // s[0]
			p.steps = p.steps[1:]
		}
		t = typed{t: ot, b: obj.Bytes, addr: obj.Addr, inMem: obj.InMemory}
		return s.applyPath(c, t, p)
	}
	if err != nil {
		if v.TypeErr != nil {
			return typed{}, c, true, v.TypeErr
		}
		return typed{}, c, true, err
	}
	t = typed{t: v.Type, b: val.Bytes, addr: val.Addr, inMem: val.InMemory, reg: val.InReg, regNo: val.Reg, frame0: vf.Frame.Level == 0}
	if t.reg {
		t.regVal, _ = vf.Frame.Regs.Get(val.Reg)
	}
	return s.applyPath(c, t, p)
}

// applyPath applies p's steps, dereferences and & to the value t of its
// variable.
func (s *Session) applyPath(c *varContext, t typed, p varPath) (typed, *varContext, bool, error) {
	var err error
	for _, st := range p.steps {
		if st.kind == '[' && st.field != "" {
			iv, err := s.evalExpr(st.field)
			if err != nil {
				return typed{}, c, true, err
			}
			st.index = int64(asInt(iv))
		}
		if t, err = c.step(t, st); err != nil {
			return typed{}, c, true, err
		}
	}
	for range p.derefs {
		if t, err = c.deref(t, 0); err != nil {
			return typed{}, c, true, err
		}
	}
	if p.addrOf {
		if !t.inMem {
			return typed{}, c, true, errors.New("Attempt to take address of value not located in memory.")
		}
		b := make([]byte, 8)
		binary.NativeEndian.PutUint64(b, t.addr)
		t = typed{t: &dwarf.PtrType{CommonType: dwarf.CommonType{ByteSize: 8}, Type: t.t}, b: b}
	}
	return t, c, true, nil
}

// read reads a value of type t at addr.
func (c *varContext) read(t dwarf.Type, addr uint64) (typed, error) {
	n := under(t).Size()
	if n < 0 || n > frames.MaxValueSize {
		return typed{}, fmt.Errorf("cannot read a value of type %s (%d bytes)", cTypeName(t), n)
	}
	b := make([]byte, n)
	if k, err := c.sp.Mem.ReadAt(b, addr); k < int(n) {
		_ = err
		return typed{}, fmt.Errorf("Cannot access memory at address %#x", addr)
	}
	return typed{t: t, b: b, addr: addr, inMem: true}, nil
}

// deref follows a pointer (element index of it) or takes an array's
// element index.
func (c *varContext) deref(v typed, index int64) (typed, error) {
	switch tt := under(v.t).(type) {
	case *dwarf.PtrType:
		et := tt.Type
		if et == nil || isVoid(et) {
			return typed{}, errors.New("Attempt to take contents of a non-pointer value.")
		}
		size := under(et).Size()
		return c.read(et, uintOf(v.b)+uint64(index*size))
	case *dwarf.ArrayType:
		size := under(tt.Type).Size()
		if size <= 0 {
			return typed{}, errors.New("array elements without a size")
		}
		off := index * size
		if v.inMem {
			return c.read(tt.Type, v.addr+uint64(off))
		}
		if off < 0 || off+size > int64(len(v.b)) {
			return typed{}, fmt.Errorf("no element %d in a value not in memory", index)
		}
		return typed{t: tt.Type, b: v.b[off : off+size]}, nil
	}
	return typed{}, errors.New("Attempt to take contents of a non-pointer value.")
}

func isVoid(t dwarf.Type) bool {
	_, ok := under(t).(*dwarf.VoidType)
	return ok
}

// step applies one path step to v.
func (c *varContext) step(v typed, st pathStep) (typed, error) {
	switch st.kind {
	case '[':
		return c.deref(v, st.index)
	case '>':
		if _, ok := under(v.t).(*dwarf.PtrType); !ok {
			return typed{}, fmt.Errorf("The -> operator needs a pointer; %s is %s.", st.field, cTypeName(v.t))
		}
		p, err := c.deref(v, 0)
		if err != nil {
			return typed{}, err
		}
		v = p
	}
	st2, ok := under(v.t).(*dwarf.StructType)
	if !ok {
		return typed{}, fmt.Errorf("Attempt to extract a component of a value that is not a structure.")
	}
	for _, f := range st2.Field {
		if f.Name != st.field {
			continue
		}
		if f.BitSize != 0 {
			return typed{}, fmt.Errorf("sfdbg does not select bit-fields (%s); print the structure", f.Name)
		}
		size := under(f.Type).Size()
		if f.ByteOffset < 0 || size < 0 || f.ByteOffset+size > int64(len(v.b)) {
			return typed{}, fmt.Errorf("member %s lies outside its structure", f.Name)
		}
		return typed{t: f.Type, b: v.b[f.ByteOffset : f.ByteOffset+size], addr: v.addr + uint64(f.ByteOffset), inMem: v.inMem}, nil
	}
	return typed{}, fmt.Errorf("There is no member named %s.", st.field)
}

// printVar prints expr when it is an expression on variables, as gdb's
// print does; handled is false otherwise.
func (s *Session) printVar(expr string, letter byte) (handled bool, err error) {
	left, count, repeat := splitRepeat(expr)
	if repeat {
		expr = left
	}
	var t typed
	var f *cFormatter
	if p, ok := parseVarPath(expr); ok {
		var c *varContext
		var found bool
		t, c, found, err = s.evalPath(p)
		if !found {
			if repeat && err == nil {
				return true, fmt.Errorf("No symbol \"%s\" in current context.", p.name)
			}
			return false, err
		}
		if err == nil && repeat {
			t, err = s.repeated(t, count)
		}
		if err != nil {
			if errors.Is(err, frames.ErrOptimizedOut) || errors.Is(err, frames.ErrSyntheticPointer) {
				text := valueError(err)
				if errors.Is(err, frames.ErrSyntheticPointer) && t.t != nil {
					text = "(" + cTypeName(t.t) + ") " + text // gdb's (const struct pair *) <synthetic pointer>
				}
				s.printf("$%d = %s\n", len(s.history)+1, text)
				s.history = append(s.history, value{})
				return true, nil
			}
			var me *frames.MemoryError
			if errors.As(err, &me) {
				return true, fmt.Errorf("Cannot access memory at address %#x", me.Addr)
			}
			return true, err
		}
		f = c.f
	} else {
		if !repeat {
			return false, nil
		}
		// An object an expression reaches (*(short *)p@2).
		v, err := s.evalExpr(left)
		if err != nil {
			return true, err
		}
		if v.obj == nil || !v.obj.inMem {
			// A number, a register, an address: no object in memory.
			return true, errors.New("Only values in memory can be extended with '@'.")
		}
		if t, err = s.repeated(*v.obj, count); err != nil {
			return true, err
		}
		sp, _ := s.space()
		f = &cFormatter{sp: sp}
	}
	if letter != 0 && !strings.ContainsRune("xduotacf", rune(letter)) {
		return true, fmt.Errorf("Undefined output format \"%c\".", letter)
	}
	hv := s.typedValue(t)
	text := formatObject(f, hv, letter)
	s.history = append(s.history, hv)
	s.printf("$%d = %s\n", len(s.history), text)
	return true, nil
}

// splitRepeat splits gdb's binary "LEFT@COUNT" (an artificial array of
// COUNT objects from LEFT's address, of LEFT's type) at its last @ outside
// parentheses, brackets and quotes; ok is false without one.
func splitRepeat(expr string) (left, count string, ok bool) {
	ats := compare.TopLevel(expr, '@')
	if len(ats) == 0 {
		return expr, "", false
	}
	at := ats[len(ats)-1]
	return expr[:at], expr[at+1:], true
}

// maxValueSize is gdb's default max-value-size: the largest value print
// reads, in bytes.
const maxValueSize = 65536

// repeated is gdb's value_repeat: count (an expression) objects of t's
// type from t's address, as an array. Errors are gdb's: a value not in
// memory, a count below 1, more than maxValueSize bytes, unreadable
// memory.
func (s *Session) repeated(t typed, count string) (typed, error) {
	if !t.inMem {
		return t, errors.New("Only values in memory can be extended with '@'.")
	}
	cv, err := s.evalExpr(count)
	if err != nil {
		return t, err
	}
	n := int64(asInt(cv))
	if n < 1 {
		return t, fmt.Errorf("Invalid number %d of repetitions.", n)
	}
	elem := t.t.Size()
	if elem <= 0 {
		return t, fmt.Errorf("Cannot repeat a value of type %s: its size is not known.", cTypeName(t.t))
	}
	if n > maxValueSize/elem {
		return t, fmt.Errorf("value requires %d bytes, which is more than max-value-size", uint64(n)*uint64(elem))
	}
	sp, err := s.space()
	if err != nil {
		return t, err
	}
	b := make([]byte, n*elem)
	if k, _ := sp.Mem.ReadAt(b, t.addr); k < len(b) {
		return t, fmt.Errorf("Cannot access memory at address %#x", t.addr+uint64(k))
	}
	arr := &dwarf.ArrayType{CommonType: dwarf.CommonType{ByteSize: n * elem}, Type: t.t, Count: n}
	return typed{t: arr, b: b, addr: t.addr, inMem: true}, nil
}

// historyValue is what the value history keeps of a typed value: a
// scalar's value, an aggregate's address (sfdbg's history holds numbers).
func (s *Session) historyValue(t typed) (value, bool) {
	switch tt := under(t.t).(type) {
	case *dwarf.FloatType:
		if v, ok := floatOfType(tt, t.b, s.machine()); ok {
			return v, true
		}
	case *dwarf.PtrType:
		kind := kindData
		if isFunc(under(tt.Type)) {
			kind = kindCode
		}
		return value{v: uintOf(t.b), kind: kind}, true
	}
	if size, unsigned, ok := intTypeOf(t.t); ok {
		v := uint64(intOf(t.b))
		if unsigned {
			v = uintOf(t.b)
		}
		return value{v: v, kind: kindInt, isize: uint8(size), unsigned: unsigned}, true
	}
	return value{v: t.addr, kind: kindData}, false
}

// cmdPtypeOrWhatis implements "ptype EXPR", "ptype struct|union|enum
// NAME" and "ptype TYPENAME" (expand), and whatis with the same
// arguments: the type's name only.
func cmdPtypeOrWhatis(s *Session, args string, expand bool) error {
	typeText := ptypeText
	if !expand {
		typeText = whatisText
	}
	expr := strings.TrimSpace(args)
	if expr == "" {
		return errors.New("Argument required (one or more choice items).")
	}
	if p, ok := parseVarPath(expr); ok {
		t, _, found, err := s.evalPath(p)
		if found && err == nil {
			s.printf("type = %s\n", typeText(t.t))
			return nil
		}
		if found && !errors.Is(err, frames.ErrOptimizedOut) {
			return err
		}
		if found {
			// The type of a value that is not available is known.
			_, _, v, _, _, _ := s.lookupVar(p.name)
			if v != nil && len(p.steps) == 0 && p.derefs == 0 && !p.addrOf && v.Type != nil {
				s.printf("type = %s\n", typeText(v.Type))
				return nil
			}
			return err
		}
	}
	sp, err := s.space()
	if err != nil {
		return err
	}
	name := strings.Join(strings.Fields(expr), " ")
	for _, m := range mainFirst(sp) {
		if t, ok := m.LookupType(name); ok {
			if td, ok := t.(*dwarf.TypedefType); ok && !expand {
				t = td.Type // whatis of a typedef's name: one level unrolled
			}
			s.printf("type = %s\n", typeText(t))
			return nil
		}
		for long, short := range cBaseNames {
			if short == name {
				if t, ok := m.LookupType(long); ok {
					s.printf("type = %s\n", typeText(t))
					return nil
				}
			}
		}
	}
	// A function: its return type and its parameters' types (DWARF),
	// "long (struct rec *, int, const char *)" as gdb prints it.
	if addrs, m := lookupFunctions(sp, name); len(addrs) > 0 && m != nil {
		if ret, ok := m.ReturnType(addrs[0]); ok {
			if sc, err := m.FrameScope(addrs[0], 0); err == nil {
				ft := &dwarf.FuncType{ReturnType: ret}
				if _, void := ret.(*dwarf.VoidType); void {
					ft.ReturnType = nil
				}
				for _, p := range sc.Params {
					if p.Type == nil {
						ft = nil
						break
					}
					ft.ParamType = append(ft.ParamType, p.Type)
				}
				if ft != nil {
					s.printf("type = %s\n", cTypeName(ft))
					return nil
				}
			}
		}
	}
	if kind, tag, ok := strings.Cut(name, " "); ok && (kind == "struct" || kind == "union" || kind == "enum") {
		return fmt.Errorf("No %s type named %s.", kind, tag)
	}
	// An expression: the type of its value, where sfdbg knows it (an
	// object, a typed pointer, a floating value, a string literal).
	if e := strings.TrimSpace(expr); strings.ContainsAny(e, "+-*/()[].&\"") || e != "" && (e[0] >= '0' && e[0] <= '9' || e[0] == '$') {
		v, err := s.evalExpr(expr)
		if err != nil {
			return err
		}
		switch {
		case v.obj != nil && v.obj.t != nil:
			s.printf("type = %s\n", typeText(v.obj.t))
			return nil
		case v.kind == kindFloat:
			s.printf("type = %s\n", map[uint8]string{4: "float", 8: "double", 16: "long double"}[v.fsize])
			return nil
		case v.kind == kindString:
			s.printf("type = char [%d]\n", len(v.str)+1)
			return nil
		case v.kind == kindInt:
			s.printf("type = %s\n", intTypeName(v.cSize(), v.unsigned))
			return nil
		case v.kind == kindData:
			s.printf("type = void *\n") // $sp, as gdb types it
			return nil
		case v.kind == kindCode:
			s.printf("type = void (*)()\n") // $pc
			return nil
		}
		return fmt.Errorf("sfdbg does not know the C type of %s", strings.TrimSpace(expr))
	}
	return fmt.Errorf("No symbol \"%s\" in current context.", expr)
}

// registerWriter is a target whose threads' registers sfdbg can write
// (set var on a variable held in a register of frame 0).
type registerWriter interface {
	SetRegister(tid int, reg rule.Reg, v uint64) error
}

// memoryWriter is a target whose memory sfdbg can write (set var).
type memoryWriter interface {
	WriteMemory(addr uint64, b []byte) error
}

// cmdSetVar implements "set var VAR = VALUE": VAR an expression on
// variables (set var r->key = 3), VALUE an expression print takes, an
// enumerator of VAR's enum, a character literal or, for a floating-point
// VAR, a number.
func cmdSetVar(s *Session, args string) error {
	lhs, rhs, ok := strings.Cut(args, "=")
	if !ok || strings.TrimSpace(lhs) == "" || strings.TrimSpace(rhs) == "" {
		return errors.New("set var: usage: set var VARIABLE = VALUE")
	}
	p, ok := parseVarPath(lhs)
	if !ok || p.addrOf {
		return fmt.Errorf("set var: %q is not a variable sfdbg can assign (NAME, NAME.FIELD, NAME->FIELD, NAME[N], *NAME)", strings.TrimSpace(lhs))
	}
	t, _, found, err := s.evalPath(p)
	if !found && err == nil {
		return fmt.Errorf("No symbol \"%s\" in current context.", p.name)
	}
	if err != nil {
		return err
	}
	if !t.inMem && !t.reg {
		return errors.New("Left operand of assignment is not an lvalue.")
	}
	b, err := s.assignBytes(t.t, strings.TrimSpace(rhs))
	if err != nil {
		return err
	}
	if t.reg {
		// gdb writes the register's low bytes and keeps the others.
		name := proc.HostArch.RegName(t.regNo)
		if !t.frame0 {
			return fmt.Errorf("set var: %s is in register %s of an outer frame; sfdbg assigns registers in frame 0 only", p.name, name)
		}
		w, ok := s.tgt.(registerWriter)
		if !ok || len(b) > 8 {
			return fmt.Errorf("set var: this target's register %s cannot be written", name)
		}
		full := make([]byte, 8)
		binary.NativeEndian.PutUint64(full, t.regVal)
		if proc.HostBigEndian {
			copy(full[8-len(b):], b) // the register's low-order bytes
		} else {
			copy(full, b)
		}
		if err := w.SetRegister(s.thread, t.regNo, binary.NativeEndian.Uint64(full)); err != nil {
			return fmt.Errorf("set var: %v", err)
		}
		s.invalidate()
		return nil
	}
	w, ok := s.tgt.(memoryWriter)
	if !ok {
		return errors.New("set var: this target's memory cannot be written (a process kept stopped, a snapshot or a core)")
	}
	if err := w.WriteMemory(t.addr, b); err != nil {
		return fmt.Errorf("Cannot access memory at address %#x: %v", t.addr, err)
	}
	s.invalidate()
	return nil
}

// assignBytes encodes the value text rhs for a variable of type t.
func (s *Session) assignBytes(t dwarf.Type, rhs string) ([]byte, error) {
	u := under(t)
	size := u.Size()
	b := make([]byte, 8)
	switch tt := u.(type) {
	case *dwarf.FloatType:
		v, err := s.evalExpr(rhs)
		if err != nil {
			return nil, err
		}
		if v.kind != kindFloat && v.kind != kindInt {
			return nil, errNotNumber
		}
		x := v.float()
		switch size {
		case 4:
			binary.NativeEndian.PutUint32(b, math.Float32bits(float32(x)))
		case 8:
			binary.NativeEndian.PutUint64(b, math.Float64bits(x))
		default:
			return nil, fmt.Errorf("set var: sfdbg does not write %d-byte floating-point values", size)
		}
		return b[:size], nil
	case *dwarf.EnumType:
		for _, e := range tt.Val {
			if e.Name == rhs {
				return nativeLow(uint64(e.Val), int(size)), nil
			}
		}
	case *dwarf.StructType, *dwarf.ArrayType:
		return nil, fmt.Errorf("set var: sfdbg assigns scalars only; %s is %s", rhs, cTypeName(t))
	}
	if size < 1 || size > 8 {
		return nil, fmt.Errorf("set var: sfdbg does not write values of type %s", cTypeName(t))
	}
	var x uint64
	if len(rhs) >= 3 && rhs[0] == '\'' && rhs[len(rhs)-1] == '\'' {
		c, _, tail, err := strconv.UnquoteChar(rhs[1:len(rhs)-1], '\'')
		if err != nil || tail != "" || c > 0xff {
			return nil, fmt.Errorf("Invalid character constant %s.", rhs)
		}
		x = uint64(c)
	} else if rp, ok := parseVarPath(rhs); ok && !strings.HasPrefix(rhs, "$") {
		if v, _, found, err := s.evalPath(rp); found {
			if err != nil {
				return nil, err
			}
			hv, scalar := s.historyValue(v)
			if !scalar {
				return nil, fmt.Errorf("set var: %s is not a scalar", rhs)
			}
			x = asInt(hv)
		} else {
			v, err := s.evalExpr(rhs)
			if err != nil {
				return nil, err
			}
			x = asInt(v)
		}
	} else {
		v, err := s.evalExpr(rhs)
		if err != nil {
			return nil, err
		}
		x = asInt(v)
	}
	return nativeLow(x, int(size)), nil
}

// btVarOptions returns the text options that print arguments in frame
// lines and, with full, each frame's locals after its line (bt full).
func (s *Session) btVarOptions(tr *compare.Trace, full bool) (func(compare.Shown) (string, bool), func(io.Writer, compare.Shown)) {
	c, err := s.varContext(tr)
	if err != nil {
		return nil, nil
	}
	var after func(io.Writer, compare.Shown)
	if full {
		after = func(w io.Writer, sh compare.Shown) { c.writeLocals(w, sh, "        ") }
	}
	return c.argsText, after
}

// innermostArgs puts the arguments of thread tid's frame 0 (as gdb
// numbers frames: an inline function's when one is inlined at the PC)
// into its location loc, as gdb's "info threads" prints them.
func (s *Session) innermostArgs(tid int, loc string) string {
	tr, err := s.trace(tid, compare.All)
	if err != nil {
		return loc
	}
	sh, ok := tr.ShownAt(0)
	if !ok {
		return loc
	}
	c, err := s.varContext(tr)
	if err != nil {
		return loc
	}
	if args, ok := c.argsText(sh); ok {
		loc = strings.Replace(loc, " ()", " ("+args+")", 1)
	}
	return loc
}

// locationWithArgs is the location of the frame shown as sh with its
// arguments, as gdb's frame line has them: "leaf (r=0x..., n=5) at
// locals.c:59".
func (s *Session) locationWithArgs(tr *compare.Trace, sh compare.Shown) string {
	loc := tr.ShownLocation(sh)
	if c, err := s.varContext(tr); err == nil {
		if args, ok := c.argsText(sh); ok {
			loc = strings.Replace(loc, " ()", " ("+args+")", 1)
		}
	}
	return loc
}
