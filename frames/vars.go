package frames

// Variables of a frame: the formal parameters and local variables of the
// function (or inlined function) at a PC, read from the DWARF debugging
// information (DWARF 5 section 3.3.8 and 4.1) the way gdb reads them for C:
// the parameters of the function, and the variables of every lexical block
// containing the PC, innermost block first (gdb's "info locals" order).
// Where each one is at the PC is its DW_AT_location (a single expression,
// or the entry of its location list covering the PC, varloc.go) or its
// DW_AT_const_value; a variable with neither has been optimized out.

import (
	"debug/dwarf"
	"errors"
	"fmt"

	"github.com/sirupsen/logrus"
)

// Bounds on what a scope lookup reads, against malformed DWARF.
const (
	maxScopeDepth = 256 // nested lexical blocks and inlined subroutines
	maxScopeVars  = 1 << 14
)

// attrGNUCallSiteValue is DW_AT_GNU_call_site_value, GCC's DW_AT_call_value
// before DWARF 5.
const (
	attrGNUCallSiteValue   dwarf.Attr = 0x2111
	tagGNUCallSiteParam    dwarf.Tag  = 0x410a
	attrGNULocviews        dwarf.Attr = 0x2137
	maxEntryValueRecursion            = 8
)

// Var is a formal parameter or local variable of a function at a PC.
type Var struct {
	// Name is its DW_AT_name (through DW_AT_abstract_origin).
	Name string
	// param is set for a formal parameter.
	param bool
	// Type is its DWARF type; nil with TypeErr when it cannot be read.
	Type    dwarf.Type
	TypeErr error
	// loc is where it is at the scope's PC; entry, for a parameter of a
	// physical function, where it was at the function's entry (gdb's
	// "@entry" values are read through it).
	loc   varLoc
	entry varLoc
}

// locKind says how a variable's value is found.
type locKind uint8

const (
	locNone  locKind = iota // no location at the PC: optimized out
	locExpr                 // a DWARF location expression
	locConst                // DW_AT_const_value
	locError                // the location cannot be read (err)
)

// varLoc is how a variable's value is found at one PC.
type varLoc struct {
	kind locKind
	expr []byte // locExpr: the expression; locConst: the value's bytes
	// cnst is locConst's value when DW_AT_const_value is a number.
	cnst    int64
	cnstNum bool
	err     error
}

// Scope is what a frame's variables are read with: the variables of the
// function (physical or inlined) at a lookup PC, its frame base and the
// module they come from.
type Scope struct {
	// Params are the formal parameters in declaration order; Locals the
	// local variables, innermost lexical block first, each block's in
	// declaration order.
	Params []Var
	Locals []Var

	m         *Module
	lt        *lineTable
	unit      *lineUnit
	frameBase varLoc // DW_AT_frame_base of the physical function at the PC
}

// scopeFunc is one function level of a scope walk: the subprogram, or an
// inlined subroutine containing the PC.
type scopeFunc struct {
	off    dwarf.Offset
	params []Var
	blocks [][]Var // outermost (the function's own variables) first
}

// FrameScope returns the variables visible at runtime lookup address pc
// (Frame.LookupPC) in the function at inline depth depth: 0 for the
// physical function (the DW_TAG_subprogram containing pc), k for the k-th
// inlined subroutine containing pc counted from the physical function
// outwards in (gdb's inline frames: depth 1 is the frame just below the
// physical one). Errors: the module has no DWARF subprogram at pc, depth
// is deeper than the inline chain, or the DWARF cannot be read.
func (m *Module) FrameScope(pc uint64, depth int) (sc *Scope, err error) {
	d, err := m.load()
	if err != nil {
		return nil, err
	}
	lt := m.lineData(d)
	if lt == nil {
		return nil, errors.New("no DWARF debugging information")
	}
	defer func() {
		if r := recover(); r != nil { // debug/dwarf on hostile input
			sc, err = nil, fmt.Errorf("DWARF at %#x: %v", pc, r)
		}
	}()
	link := pc - m.Bias
	for u := range lt.units(link) {
		f, ok := u.subprogramAt(link)
		if !ok {
			continue
		}
		w := scopeWalk{lt: lt, d: u.d, r: u.d.Reader(), pc: link}
		w.r.Seek(f.off)
		sub, err := w.r.Next()
		if err != nil || sub == nil {
			return nil, fmt.Errorf("DWARF subprogram at %#x: %v", f.off, err)
		}
		w.funcs = []*scopeFunc{{off: f.off, blocks: [][]Var{nil}}}
		if sub.Children {
			origin, _ := sub.Val(dwarf.AttrAbstractOrigin).(dwarf.Offset)
			if err := w.children(w.funcs[0], 0, 0, origin); err != nil {
				logrus.Debugf("frames: variables at %#x: %v", pc, err)
				return nil, err
			}
		}
		if depth < 0 || depth >= len(w.funcs) {
			return nil, fmt.Errorf("no inlined function at depth %d at %#x (%d)", depth, pc, len(w.funcs)-1)
		}
		fn := w.funcs[depth]
		sc := &Scope{m: m, lt: lt, unit: u, Params: fn.params}
		for i := len(fn.blocks) - 1; i >= 0; i-- {
			sc.Locals = append(sc.Locals, fn.blocks[i]...)
		}
		w.r.Seek(f.off)
		if sub, err := w.r.Next(); err == nil && sub != nil {
			sc.frameBase = w.location(sub, dwarf.AttrFrameBase, link, u)
		}
		// The parameters at the entry of the physical function, for gdb's
		// entry values: an inlined function's too (gdb's get_frame_func
		// of an inline frame is its linkage function's entry, so a
		// parameter of a copy inlined later in the function has no
		// location there, and no entry value).
		physEntry, havePhys := functionEntry(u.d, sub)
		w.r.Seek(fn.off)
		if fe, err := w.r.Next(); err == nil && fe != nil && fe.Children && havePhys {
			w.entryLocs(sc.Params, physEntry, u)
		}
		for i := range sc.Params {
			sc.Params[i].loc = w.resolve(sc.Params[i].loc, u)
		}
		for i := range sc.Locals {
			sc.Locals[i].loc = w.resolve(sc.Locals[i].loc, u)
		}
		return sc, nil
	}
	return nil, errors.New("no DWARF function here")
}

// functionEntry returns the link-time entry address of a subprogram:
// DW_AT_entry_pc, else DW_AT_low_pc, else the start of its first range.
func functionEntry(d *dwarf.Data, e *dwarf.Entry) (uint64, bool) {
	if v, ok := e.Val(dwarf.AttrLowpc).(uint64); ok {
		if ep, ok := e.Val(dwarf.AttrEntrypc).(uint64); ok {
			return ep, true
		}
		return v, true
	}
	if rs, err := d.Ranges(e); err == nil && len(rs) > 0 {
		return rs[0][0], true
	}
	return 0, false
}

// scopeWalk walks one subprogram's entries for the variables at pc.
type scopeWalk struct {
	lt      *lineTable
	d       *dwarf.Data
	r       *dwarf.Reader
	pc      uint64 // link-time
	funcs   []*scopeFunc
	entries int
	nvars   int
}

// children reads the children of the entry just read, which belong to
// function fn and its block number block (0: the function's own), at
// nesting level level. origin is the entry's DW_AT_abstract_origin (0:
// none): the parameters and variables of the abstract instance that no
// child refers to are the concrete instance's too, with no location (DWARF
// 5 section 3.3.8.2; gdb's inherit_abstract_dies), such as a parameter
// GCC removed from a clone.
func (w *scopeWalk) children(fn *scopeFunc, block, level int, origin dwarf.Offset) error {
	if level > maxScopeDepth {
		return fmt.Errorf("more than %d nested scopes", maxScopeDepth)
	}
	var referenced map[dwarf.Offset]bool
	if origin != 0 {
		referenced = map[dwarf.Offset]bool{}
	}
	for {
		e, err := w.r.Next()
		if err != nil {
			return err
		}
		if e == nil {
			return errors.New("unterminated children")
		}
		if w.entries++; w.entries > maxInlineEntries {
			return fmt.Errorf("more than %d entries under one subprogram", maxInlineEntries)
		}
		if referenced != nil {
			if o, ok := e.Val(dwarf.AttrAbstractOrigin).(dwarf.Offset); ok {
				referenced[o] = true
			}
		}
		switch e.Tag {
		case 0:
			if origin != 0 {
				return w.inherit(origin, referenced, fn, block)
			}
			return nil
		case dwarf.TagFormalParameter, dwarf.TagVariable:
			if w.nvars++; w.nvars > maxScopeVars {
				return fmt.Errorf("more than %d variables", maxScopeVars)
			}
			if _, decl := e.Val(dwarf.AttrDeclaration).(bool); decl && e.Tag == dwarf.TagVariable {
				break // an extern declaration inside a block
			}
			v := w.variable(e)
			if e.Tag == dwarf.TagFormalParameter && block == 0 {
				fn.params = append(fn.params, v)
			} else if e.Tag == dwarf.TagVariable {
				fn.blocks[block] = append(fn.blocks[block], v)
			}
		case dwarf.TagLexDwarfBlock:
			if e.Children && w.contains(e) {
				fn.blocks = append(fn.blocks, nil)
				o, _ := e.Val(dwarf.AttrAbstractOrigin).(dwarf.Offset)
				if err := w.children(fn, len(fn.blocks)-1, level+1, o); err != nil {
					return err
				}
				continue
			}
		case dwarf.TagInlinedSubroutine:
			if w.contains(e) {
				nf := &scopeFunc{off: e.Offset, blocks: [][]Var{nil}}
				w.funcs = append(w.funcs, nf)
				o, _ := e.Val(dwarf.AttrAbstractOrigin).(dwarf.Offset)
				if e.Children {
					if err := w.children(nf, 0, level+1, o); err != nil {
						return err
					}
				} else if o != 0 {
					if err := w.inherit(o, nil, nf, 0); err != nil {
						return err
					}
				}
				continue
			}
		}
		if e.Children {
			w.r.SkipChildren()
		}
	}
}

// inherit adds to function fn's block the parameters (block 0 only) and
// variables of the abstract instance at origin that referenced does not
// hold, without a location (optimized out).
func (w *scopeWalk) inherit(origin dwarf.Offset, referenced map[dwarf.Offset]bool, fn *scopeFunc, block int) error {
	r := w.d.Reader()
	r.Seek(origin)
	e, err := r.Next()
	if err != nil || e == nil || !e.Children {
		return err
	}
	for {
		c, err := r.Next()
		if err != nil {
			return err
		}
		if c == nil || c.Tag == 0 {
			return nil
		}
		if w.entries++; w.entries > maxInlineEntries {
			return fmt.Errorf("more than %d entries under one subprogram", maxInlineEntries)
		}
		if !referenced[c.Offset] && (c.Tag == dwarf.TagVariable || c.Tag == dwarf.TagFormalParameter && block == 0) {
			if w.nvars++; w.nvars > maxScopeVars {
				return fmt.Errorf("more than %d variables", maxScopeVars)
			}
			if _, decl := c.Val(dwarf.AttrDeclaration).(bool); !decl || c.Tag == dwarf.TagFormalParameter {
				v := w.variable(c)
				if v.loc.kind != locConst {
					v.loc = varLoc{kind: locNone}
				}
				if v.param {
					fn.params = append(fn.params, v)
				} else {
					fn.blocks[block] = append(fn.blocks[block], v)
				}
			}
		}
		if c.Children {
			r.SkipChildren()
		}
	}
}

// contains reports whether entry e's ranges contain the walk's PC. An
// entry without ranges (a lexical block of an abstract instance) does not.
func (w *scopeWalk) contains(e *dwarf.Entry) bool {
	rs, err := w.d.Ranges(e)
	if err != nil {
		return false
	}
	for _, r := range rs {
		if w.pc >= r[0] && w.pc < r[1] {
			return true
		}
	}
	return false
}

// variable reads a parameter or variable entry: its name and type through
// DW_AT_abstract_origin, its location attribute as it stands (resolved to
// the PC by resolve).
func (w *scopeWalk) variable(e *dwarf.Entry) Var {
	v := Var{param: e.Tag == dwarf.TagFormalParameter}
	v.loc = rawLocation(e, dwarf.AttrLocation)
	if cv := e.AttrField(dwarf.AttrConstValue); cv != nil {
		v.loc = constLocation(cv)
	}
	r := w.d.Reader()
	cur := e
	for range maxOriginHops {
		if v.Name == "" {
			v.Name, _ = cur.Val(dwarf.AttrName).(string)
		}
		if v.Type == nil && v.TypeErr == nil {
			if off, ok := cur.Val(dwarf.AttrType).(dwarf.Offset); ok {
				v.Type, v.TypeErr = readType(w.d, off)
			}
		}
		if v.Name != "" && (v.Type != nil || v.TypeErr != nil) {
			break
		}
		off, ok := cur.Val(dwarf.AttrAbstractOrigin).(dwarf.Offset)
		if !ok {
			break
		}
		r.Seek(off)
		next, err := r.Next()
		if err != nil || next == nil {
			break
		}
		cur = next
	}
	if v.Type == nil && v.TypeErr == nil {
		v.TypeErr = errors.New("no DW_AT_type")
	}
	return v
}

// readType reads the type at off, refusing typedef cycles (typeChainEnds)
// and recovering from debug/dwarf's panics.
func readType(d *dwarf.Data, off dwarf.Offset) (t dwarf.Type, err error) {
	defer func() {
		if r := recover(); r != nil {
			t, err = nil, fmt.Errorf("DWARF type at %#x: %v", off, r)
		}
	}()
	if !typeChainEnds(d, off) {
		return nil, fmt.Errorf("DWARF type at %#x: a cycle of typedefs or qualifiers", off)
	}
	return d.Type(off)
}

// rawLocation returns attribute a of e as found: an expression, or a
// location list offset (kept in cnst, with kind locError until resolve
// reads the list), or locNone.
func rawLocation(e *dwarf.Entry, a dwarf.Attr) varLoc {
	f := e.AttrField(a)
	if f == nil {
		return varLoc{kind: locNone}
	}
	switch f.Class {
	case dwarf.ClassExprLoc, dwarf.ClassBlock:
		b, _ := f.Val.([]byte)
		return varLoc{kind: locExpr, expr: b}
	case dwarf.ClassLocListPtr, dwarf.ClassLocList:
		off, _ := f.Val.(int64)
		return varLoc{kind: locError, cnst: off, cnstNum: f.Class == dwarf.ClassLocList, err: errLocListPending}
	}
	return varLoc{kind: locError, err: fmt.Errorf("DW_AT_location of class %v", f.Class)}
}

// errLocListPending marks a location list not yet looked up.
var errLocListPending = errors.New("location list not read")

// constLocation returns the location of a DW_AT_const_value.
func constLocation(f *dwarf.Field) varLoc {
	switch v := f.Val.(type) {
	case int64:
		return varLoc{kind: locConst, cnst: v, cnstNum: true}
	case uint64:
		return varLoc{kind: locConst, cnst: int64(v), cnstNum: true}
	case []byte:
		return varLoc{kind: locConst, expr: v}
	case string:
		return varLoc{kind: locConst, expr: append([]byte(v), 0)}
	}
	return varLoc{kind: locError, err: fmt.Errorf("DW_AT_const_value of class %v", f.Class)}
}

// location returns attribute a of e resolved at link-time pc.
func (w *scopeWalk) location(e *dwarf.Entry, a dwarf.Attr, pc uint64, u *lineUnit) varLoc {
	return w.resolveAt(rawLocation(e, a), pc, u)
}

// resolve resolves a location at the walk's PC.
func (w *scopeWalk) resolve(l varLoc, u *lineUnit) varLoc { return w.resolveAt(l, w.pc, u) }

// resolveAt reads the location list of l, if it is one, for the entry
// covering link-time pc.
func (w *scopeWalk) resolveAt(l varLoc, pc uint64, u *lineUnit) varLoc {
	if l.err != errLocListPending {
		return l
	}
	expr, found, err := w.lt.locList(u, l.cnst, l.cnstNum, pc)
	switch {
	case err != nil:
		return varLoc{kind: locError, err: err}
	case !found:
		return varLoc{kind: locNone}
	}
	return varLoc{kind: locExpr, expr: expr}
}

// entryLocs sets the entry location of the parameters params (in the
// order the subprogram just read lists them) to their location at
// link-time address entry.
func (w *scopeWalk) entryLocs(params []Var, entry uint64, u *lineUnit) {
	i := 0
	for i < len(params) {
		e, err := w.r.Next()
		if err != nil || e == nil || e.Tag == 0 {
			return
		}
		if e.Tag == dwarf.TagFormalParameter {
			params[i].entry = w.resolveAt(rawLocation(e, dwarf.AttrLocation), entry, u)
			i++
		}
		if e.Children {
			w.r.SkipChildren()
		}
	}
}
