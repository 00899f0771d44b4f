package frames

// Reading variables: a variable's location expression is evaluated in its
// frame (the frame's unwound registers, its CFA from the unwinder's row,
// the function's DW_AT_frame_base) with the one DWARF expression evaluator
// (exprEnv.exec, Delve's pkg/dwarf/op). DW_OP_entry_value, which op does
// not know, is resolved first as gdb resolves it (gdb/dwarf2/loc.c,
// value_of_dwarf_reg_entry): the register's value at the function's entry
// is the DW_AT_call_value of the DW_TAG_call_site_parameter for that
// register at the caller's call site, evaluated in the caller's frame.

import (
	"bytes"
	"debug/dwarf"
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/sirupsen/logrus"

	"github.com/go-delve/delve/pkg/dwarf/op"

	"github.com/sfdbg/sfdbg/sframe/rule"
)

// MaxValueSize bounds the bytes read for one value (gdb's max-value-size
// default, 65536 bytes).
const MaxValueSize = 65536

// ErrOptimizedOut says a value is not available at the PC: DWARF gives
// no location there, or the location is a register the unwind did not
// recover in this frame, or an entry value whose call site says nothing of
// it. gdb prints such a value as <optimized out>.
var ErrOptimizedOut = errors.New("optimized out")

// ErrSyntheticPointer says a pointer's value does not exist: DWARF
// describes it with DW_OP_implicit_pointer (or GCC's
// DW_OP_GNU_implicit_pointer), a pointer to an object that lives only in
// registers or as a constant. gdb prints it as <synthetic pointer>.
var ErrSyntheticPointer = errors.New("synthetic pointer")

// Opcodes of the implicit pointer (DWARF 5 §2.6.1.1.4, and GCC's earlier
// GNU extension).
const (
	opImplicitPointer    = 0xa0
	opGNUImplicitPointer = 0xf2
)

// VarFrame is a frame as its variables are read: the unwound frame, its
// CFA (0 when unknown) and the frame that called it (nil when unknown),
// through whose call site DW_OP_entry_value is resolved.
type VarFrame struct {
	Frame  *Frame
	CFA    uint64
	Caller *VarFrame
	Space  *Space
}

// Value is the contents of a variable.
type Value struct {
	// Bytes are the value's bytes, in the target's byte order.
	Bytes []byte
	// Addr is where the value lives when InMemory; Reg when InReg (the
	// whole value in one register). Neither for a computed value.
	Addr     uint64
	InMemory bool
	Reg      rule.Reg
	InReg    bool
}

// typeSize returns t's size in bytes, or an error for a type without one
// or larger than MaxValueSize.
func typeSize(t dwarf.Type) (int, error) {
	if t == nil {
		return 0, errors.New("no type")
	}
	n := t.Size()
	if n < 0 {
		return 0, fmt.Errorf("type %s has no size", t)
	}
	if n > MaxValueSize {
		return 0, fmt.Errorf("value requires %d bytes, which is more than max-value-size (%d)", n, MaxValueSize)
	}
	return int(n), nil
}

// Read returns the value of v in frame f, of v.Type's size. Errors:
// ErrOptimizedOut (wrapped) when the value is not available, a
// *MemoryError, or one describing a location sfdbg does not evaluate.
func (sc *Scope) Read(v *Var, f *VarFrame) (Value, error) {
	if v.TypeErr != nil {
		return Value{}, v.TypeErr
	}
	size, err := typeSize(v.Type)
	if err != nil {
		return Value{}, err
	}
	return sc.readLoc(v.loc, size, f)
}

// Address returns the address of v in frame f when v lives in memory
// there (gdb's &v), without reading it. Errors: as Read's, and one for a
// variable that is not in memory (a register, a computed value).
func (sc *Scope) Address(v *Var, f *VarFrame) (uint64, error) {
	switch v.loc.kind {
	case locNone:
		return 0, ErrOptimizedOut
	case locError:
		return 0, v.loc.err
	case locConst:
		return 0, errors.New("Can't take address of a constant.")
	}
	x, err := sc.env(f)
	if err != nil {
		return 0, err
	}
	prog, err := sc.substEntryValues(v.loc.expr, f, 0)
	if err != nil {
		return 0, err
	}
	addr, pieces, err := x.exec(prog)
	if err != nil {
		return 0, exprError(err)
	}
	if pieces != nil {
		return 0, errors.New("Attempt to take address of value not located in memory.")
	}
	return uint64(addr), nil
}

// ReadEntry returns the value parameter v had at the function's entry,
// through the caller's call site (gdb's "v@entry"). ok is false when it
// is not known.
func (sc *Scope) ReadEntry(v *Var, f *VarFrame) (Value, bool) {
	if !v.param || v.entry.kind != locExpr || v.TypeErr != nil {
		return Value{}, false
	}
	size, err := typeSize(v.Type)
	if err != nil || size > 8 {
		return Value{}, false
	}
	reg, ok := singleReg(v.entry.expr)
	if !ok {
		return Value{}, false
	}
	x, err := sc.entryValue(reg, f, 0)
	if err != nil {
		logrus.Debugf("frames: %s@entry: %v", v.Name, err)
		return Value{}, false
	}
	return Value{Bytes: lowBytes(ByteOrder(f.Space.Mem), x, size)}, true
}

// lowBytes returns the n (at most 8) low-order bytes of v as the target
// stores them: the first n of its 8 bytes on a little-endian target, the
// last n on a big-endian one (s390x: an int in a 64-bit register is its
// low half, as gdb's value_from_register takes it).
func lowBytes(order binary.ByteOrder, v uint64, n int) []byte {
	n = min(n, 8)
	b := make([]byte, 8)
	order.PutUint64(b, v)
	if order == binary.BigEndian {
		return b[8-n:]
	}
	return b[:n]
}

// readLoc reads size bytes at location l in frame f.
func (sc *Scope) readLoc(l varLoc, size int, f *VarFrame) (Value, error) {
	order := ByteOrder(f.Space.Mem)
	switch l.kind {
	case locNone:
		return Value{}, ErrOptimizedOut
	case locError:
		return Value{}, l.err
	case locConst:
		if l.cnstNum {
			return Value{Bytes: lowBytes(order, uint64(l.cnst), size)}, nil
		}
		if len(l.expr) < size {
			return Value{}, fmt.Errorf("DW_AT_const_value of %d bytes for a %d-byte type", len(l.expr), size)
		}
		return Value{Bytes: l.expr[:size]}, nil
	}
	if len(l.expr) > 0 && (l.expr[0] == opImplicitPointer || l.expr[0] == opGNUImplicitPointer) {
		return Value{}, ErrSyntheticPointer
	}
	x, err := sc.env(f)
	if err != nil {
		return Value{}, err
	}
	prog, err := sc.substEntryValues(l.expr, f, 0)
	if err != nil {
		return Value{}, err
	}
	addr, pieces, err := x.exec(prog)
	if err != nil {
		return Value{}, exprError(err)
	}
	if pieces == nil {
		b := make([]byte, size)
		if n, err := f.Space.Mem.ReadAt(b, uint64(addr)); err != nil || n < size {
			if err == nil {
				err = fmt.Errorf("short read (%d of %d bytes)", n, size)
			}
			return Value{}, &MemoryError{Addr: uint64(addr), Err: err}
		}
		return Value{Bytes: b, Addr: uint64(addr), InMemory: true}, nil
	}
	// Pieces: a register, a computed value, or a composite.
	empty := emptyPieces(prog)
	var out []byte
	val := Value{}
	for i, p := range pieces {
		psize := p.Size
		if len(pieces) == 1 && psize == 0 {
			psize = size
		}
		switch p.Kind {
		case op.RegPiece:
			r := rule.Reg(p.Val)
			v, ok := f.Frame.Regs.Get(r)
			if p.Val >= MaxReg || !ok {
				if p.Val >= MaxReg || r != f.Frame.Regs.PCReg {
					if p.Val >= MaxReg {
						return Value{}, fmt.Errorf("the value is in register %s, which sfdbg does not read", f.Frame.Regs.arch().RegName(r))
					}
					return Value{}, ErrOptimizedOut
				}
				v = f.Frame.PC
			}
			if psize > 8 {
				return Value{}, fmt.Errorf("a %d-byte piece of register %s", psize, f.Frame.Regs.arch().RegName(r))
			}
			out = append(out, lowBytes(order, v, psize)...)
			if len(pieces) == 1 {
				val.Reg, val.InReg = r, true
			}
		case op.ImmPiece:
			switch {
			case p.Bytes != nil:
				out = append(out, p.Bytes...)
			case i < len(empty) && empty[i]:
				// Part of the value is optimized out: gdb shows that
				// part as <optimized out>; sfdbg the whole value.
				return Value{}, ErrOptimizedOut
			default:
				out = append(out, lowBytes(order, p.Val, psize)...)
			}
		case op.AddrPiece:
			if psize > MaxValueSize {
				return Value{}, fmt.Errorf("a piece of %d bytes", psize)
			}
			b := make([]byte, psize)
			if n, err := f.Space.Mem.ReadAt(b, p.Val); err != nil || n < psize {
				if err == nil {
					err = fmt.Errorf("short read (%d of %d bytes)", n, psize)
				}
				return Value{}, &MemoryError{Addr: p.Val, Err: err}
			}
			out = append(out, b...)
		}
	}
	if len(out) < size {
		return Value{}, fmt.Errorf("the location gives %d of the value's %d bytes", len(out), size)
	}
	val.Bytes = out[:size]
	return val, nil
}

// emptyPieces says, for each DW_OP_piece of prog in order, whether it
// describes nothing (no operation before it since the previous piece: a
// part that was optimized out, DWARF 5 section 2.6.1.3). op returns such a
// piece as an immediate zero, which must not be taken for a value.
func emptyPieces(prog []byte) []bool {
	var out []bool
	before := false
	for pc := 0; pc < len(prog); {
		n, err := opLen(prog, pc)
		if err != nil {
			return out
		}
		if prog[pc] == byte(op.DW_OP_piece) {
			out = append(out, !before)
			before = false
		} else {
			before = true
		}
		pc += n
	}
	return out
}

// exprError says what an expression error means for a value: a register
// the frame does not know is a value not available.
func exprError(err error) error {
	var me *MemoryError
	if errors.As(err, &me) {
		return err
	}
	if bytes.Contains([]byte(err.Error()), []byte("not available")) {
		return fmt.Errorf("%w (%v)", ErrOptimizedOut, err)
	}
	return err
}

// env returns the expression environment of frame f for this scope: its
// registers, CFA and frame base (DW_AT_frame_base of the physical
// function, evaluated at the frame's PC).
func (sc *Scope) env(f *VarFrame) (*exprEnv, error) {
	x := &exprEnv{regs: &f.Frame.Regs, pc: f.Frame.PC, cfa: f.CFA, staticBase: sc.m.Bias, mem: f.Space.Mem}
	if sc.frameBase.kind == locExpr {
		fb, pieces, err := x.exec(sc.frameBase.expr)
		switch {
		case err != nil:
			// Only an expression using DW_OP_fbreg needs it.
			x.frameBase = 0
		case len(pieces) == 1 && pieces[0].Kind == op.RegPiece:
			v, ok := f.Frame.Regs.Get(rule.Reg(pieces[0].Val))
			if ok {
				x.frameBase = int64(v)
			}
		case pieces == nil:
			x.frameBase = fb
		}
	}
	return x, nil
}

// singleReg returns the register of an expression that is DW_OP_regN or
// DW_OP_regx N alone.
func singleReg(expr []byte) (rule.Reg, bool) {
	if len(expr) == 1 && expr[0] >= byte(op.DW_OP_reg0) && expr[0] <= byte(op.DW_OP_reg31) {
		return rule.Reg(expr[0] - byte(op.DW_OP_reg0)), true
	}
	if len(expr) > 1 && expr[0] == byte(op.DW_OP_regx) {
		r := &locReader{b: expr, off: 1, ls: &locSections{}}
		v := r.uleb()
		if r.err == nil && r.off == len(expr) && v < MaxReg {
			return rule.Reg(v), true
		}
	}
	return 0, false
}

// DWARF expression operations sfdbg handles before op sees them.
const (
	opEntryValue    = 0xa3
	opGNUEntryValue = 0xf3
	// DW_OP_GNU_parameter_ref: the value a removed parameter had at the
	// call (a unit-relative DIE offset, 4 bytes).
	opGNUParameterRef = 0xfa
	opBra             = 0x28
	opSkip            = 0x2f
)

// substEntryValues returns expr with every DW_OP_entry_value(DW_OP_regN)
// replaced by DW_OP_const8u of the register's value at the function's
// entry (entryValue), and every DW_OP_GNU_parameter_ref by the value the
// call site gave the parameter (paramRefValue). An entry value of another form, or one in an
// expression with branches (whose offsets the substitution would break),
// is an error.
func (sc *Scope) substEntryValues(expr []byte, f *VarFrame, depth int) ([]byte, error) {
	if bytes.IndexByte(expr, opEntryValue) < 0 && bytes.IndexByte(expr, opGNUEntryValue) < 0 && bytes.IndexByte(expr, opGNUParameterRef) < 0 {
		return expr, nil // the common case, without decoding
	}
	var out []byte
	branches, subst := false, false
	for pc := 0; pc < len(expr); {
		o := expr[pc]
		n, err := opLen(expr, pc)
		if err != nil {
			return nil, err
		}
		switch o {
		case opBra, opSkip:
			branches = true
		case opGNUParameterRef:
			ref := uint64(ByteOrder(f.Space.Mem).Uint32(expr[pc+1:]))
			v, err := sc.paramRefValue(ref, f, depth)
			if err != nil {
				return nil, err
			}
			out, subst, pc = appendConst8(out, f, v), true, pc+n
			continue
		case opEntryValue, opGNUEntryValue:
			r := &locReader{b: expr, off: pc + 1, ls: &locSections{}}
			l := r.uleb()
			block := r.bytes(l)
			reg, ok := singleReg(block)
			if r.err != nil || !ok {
				return nil, fmt.Errorf("DW_OP_entry_value of %x: only a register's entry value is read", block)
			}
			v, err := sc.entryValue(reg, f, depth)
			if err != nil {
				return nil, err
			}
			out, subst, pc = appendConst8(out, f, v), true, pc+n
			continue
		}
		out = append(out, expr[pc:pc+n]...)
		pc += n
	}
	if branches && subst {
		return nil, errors.New("DW_OP_entry_value in an expression with branches")
	}
	return out, nil
}

// entryValue returns the value register reg had at the entry of the
// function of frame f: the DW_AT_call_value of the caller's call site
// parameter for reg, evaluated in the caller's frame. The call site is the
// one whose return address is the caller's PC, and it must call this
// function (a tail call in between would make it another's).
func (sc *Scope) entryValue(reg rule.Reg, f *VarFrame, depth int) (uint64, error) {
	return sc.callerValue(f, depth, f.Frame.Regs.arch().RegName(reg), func(e *dwarf.Entry) bool {
		loc, _ := e.Val(dwarf.AttrLocation).([]byte)
		r, ok := singleReg(loc)
		return ok && r == reg
	})
}

// paramRefValue returns the value of DW_OP_GNU_parameter_ref's parameter
// (the DIE at unit offset ref, a parameter GCC removed from a clone): the
// DW_AT_call_value of the caller's call site parameter whose
// DW_AT_call_parameter (GNU: DW_AT_abstract_origin) is that DIE.
func (sc *Scope) paramRefValue(ref uint64, f *VarFrame, depth int) (uint64, error) {
	start, err := sc.lt.unitStart(sc.unit.cu.Offset)
	if err != nil {
		return 0, err
	}
	target := dwarf.Offset(start + ref)
	return sc.callerValue(f, depth, fmt.Sprintf("the parameter at %#x", target), func(e *dwarf.Entry) bool {
		for _, a := range [...]dwarf.Attr{dwarf.AttrCallParameter, dwarf.AttrAbstractOrigin} {
			if off, ok := e.Val(a).(dwarf.Offset); ok && off == target {
				return true
			}
		}
		return false
	})
}

// callerValue returns the DW_AT_call_value of the parameter match selects
// at the caller's call site (entryValue), evaluated in the caller's frame.
func (sc *Scope) callerValue(f *VarFrame, depth int, what string, match func(*dwarf.Entry) bool) (uint64, error) {
	if depth >= maxEntryValueRecursion {
		return 0, fmt.Errorf("%w (entry values nested more than %d deep)", ErrOptimizedOut, maxEntryValueRecursion)
	}
	c := f.Caller
	if c == nil || c.Frame == nil || c.Frame.Module == nil || f.Frame.Interrupted && f.Frame.Level > 0 || c.Frame.Interrupted {
		return 0, fmt.Errorf("%w (no caller frame to read the entry value in)", ErrOptimizedOut)
	}
	cm := c.Frame.Module
	d, err := cm.load()
	if err != nil {
		return 0, err
	}
	clt := cm.lineData(d)
	if clt == nil {
		return 0, fmt.Errorf("%w (the caller has no DWARF)", ErrOptimizedOut)
	}
	ret := c.Frame.PC - cm.Bias
	var site *callSite
	for _, cs := range clt.callSites(c.Frame.LookupPC() - cm.Bias) {
		if cs.ret == ret {
			site = &cs
			break
		}
	}
	if site == nil {
		return 0, fmt.Errorf("%w (no DW_TAG_call_site at the caller's PC %#x)", ErrOptimizedOut, c.Frame.PC)
	}
	if cm == sc.m && site.hasOrigin {
		if _, off, ok := sc.m.FuncName(f.Frame.LookupPC()); ok {
			entry := f.Frame.LookupPC() - off - cm.Bias
			targets := entries(cm, site.d, site.origin)
			if len(targets) > 0 && !containsAddr(targets, entry) {
				return 0, fmt.Errorf("%w (the call site at %#x calls another function: a tail call in between)", ErrOptimizedOut, c.Frame.PC)
			}
		}
	}
	value, err := callSiteValue(site.d, site.off, what, match)
	if err != nil {
		return 0, err
	}
	csc, err := cm.FrameScope(c.Frame.LookupPC(), 0)
	if err != nil {
		return 0, fmt.Errorf("%w (%v)", ErrOptimizedOut, err)
	}
	// A register the caller's unwind row leaves unspecified has the
	// callee's value, as gdb takes it (dwarf2/frame.c,
	// DWARF2_FRAME_REG_UNSPECIFIED: "same value"): a call value
	// "DW_OP_breg5 (rdi): 0" is then the callee's rdi, which at the
	// callee's entry is the argument.
	c = withUnspecified(c, f)
	x, err := csc.env(c)
	if err != nil {
		return 0, err
	}
	if !site.hasOrigin {
		// A call through a function pointer (qsort's comparison): its
		// DW_AT_call_target, evaluated in the caller's frame, must be
		// this function's entry, as gdb checks (call_site_to_target_addr);
		// else a tail call came in between.
		if err := csc.checkCallTarget(site, x, c, f, depth); err != nil {
			return 0, err
		}
	}
	prog, err := csc.substEntryValues(value, c, depth+1)
	if err != nil {
		return 0, err
	}
	v, pieces, err := x.exec(prog)
	if err != nil {
		return 0, exprError(err)
	}
	switch {
	case pieces == nil:
		return uint64(v), nil
	case len(pieces) == 1 && pieces[0].Kind == op.RegPiece:
		if v, ok := c.Frame.Regs.Get(rule.Reg(pieces[0].Val)); ok && pieces[0].Val < MaxReg {
			return v, nil
		}
		return 0, ErrOptimizedOut
	case len(pieces) == 1 && pieces[0].Kind == op.ImmPiece && pieces[0].Bytes == nil:
		return pieces[0].Val, nil
	}
	return 0, fmt.Errorf("DW_AT_call_value %x is not a single value", value)
}

// checkCallTarget evaluates the DW_AT_call_target of the indirect call
// site in the caller's frame c (environment x) and checks that it is the
// entry of callee frame f's function.
func (sc *Scope) checkCallTarget(site *callSite, x *exprEnv, c, f *VarFrame, depth int) error {
	if len(site.target) == 0 {
		return fmt.Errorf("%w (the call site at %#x names no target)", ErrOptimizedOut, site.ret)
	}
	_, off, ok := f.Frame.Module.FuncName(f.Frame.LookupPC())
	if !ok {
		return fmt.Errorf("%w (the callee has no symbol)", ErrOptimizedOut)
	}
	entry := f.Frame.LookupPC() - off
	prog, err := sc.substEntryValues(site.target, c, depth+1)
	if err != nil {
		return err
	}
	v, pieces, err := x.exec(prog)
	switch {
	case err != nil:
		return fmt.Errorf("%w (the call target: %v)", ErrOptimizedOut, exprError(err))
	case pieces != nil:
		return fmt.Errorf("%w (the call target is not an address)", ErrOptimizedOut)
	case uint64(v) != entry:
		return fmt.Errorf("%w (the call site called %#x, not this function at %#x: a tail call in between)", ErrOptimizedOut, uint64(v), entry)
	}
	return nil
}

// withUnspecified returns caller frame c with every register it does not
// know set to callee f's value (the stack pointer and PC excepted).
func withUnspecified(c, f *VarFrame) *VarFrame {
	regs := c.Frame.Regs
	for r := rule.Reg(0); r < MaxReg; r++ {
		if regs.Known(r) || r == regs.SPReg || r == regs.PCReg {
			continue
		}
		if v, ok := f.Frame.Regs.Get(r); ok {
			regs.Set(r, v)
		}
	}
	fr := *c.Frame
	fr.Regs = regs
	cc := *c
	cc.Frame = &fr
	return &cc
}

func containsAddr(s []uint64, a uint64) bool {
	for _, x := range s {
		if x == a {
			return true
		}
	}
	return false
}

// callSiteValue returns the DW_AT_call_value of the parameter of the call
// site at off that match selects (what names it in errors).
func callSiteValue(d *dwarf.Data, off dwarf.Offset, what string, match func(*dwarf.Entry) bool) (v []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			v, err = nil, fmt.Errorf("DWARF call site at %#x: %v", off, r)
		}
	}()
	r := d.Reader()
	r.Seek(off)
	cs, err := r.Next()
	if err != nil || cs == nil || !cs.Children {
		return nil, fmt.Errorf("%w (the call site has no parameters)", ErrOptimizedOut)
	}
	for range maxScopeVars {
		e, err := r.Next()
		if err != nil || e == nil || e.Tag == 0 {
			break
		}
		if e.Tag == dwarf.TagCallSiteParameter || e.Tag == tagGNUCallSiteParam {
			if match(e) {
				val, ok := e.Val(dwarf.AttrCallValue).([]byte)
				if !ok {
					val, ok = e.Val(attrGNUCallSiteValue).([]byte)
				}
				if ok {
					return val, nil
				}
			}
		}
		if e.Children {
			r.SkipChildren()
		}
	}
	return nil, fmt.Errorf("%w (the call site does not give the value of %s)", ErrOptimizedOut, what)
}

// opLen returns the length of the DWARF expression operation at pc of
// expr, operands included (DWARF 5 section 7.7.1, table 7.9, and the GNU
// extensions GCC emits). An operation it does not know is an error.
func opLen(expr []byte, pc int) (int, error) {
	r := &locReader{b: expr, off: pc + 1, ls: &locSections{}}
	o := expr[pc]
	switch {
	case o == 0x03: // addr
		r.bytes(8)
	case o == 0x08 || o == 0x09 || o == 0x15 || o == 0x94 || o == 0x95: // const1u/s, pick, deref_size, xderef_size
		r.bytes(1)
	case o == 0x0a || o == 0x0b || o == 0x28 || o == 0x2f || o == 0x98: // const2u/s, bra, skip, call2
		r.bytes(2)
	case o == 0x0c || o == 0x0d || o == 0x99 || o == 0x9a || o == 0xfa || o == 0xfd: // const4u/s, call4, call_ref, GNU_parameter_ref, GNU_variable_value
		r.bytes(4)
	case o == 0x0e || o == 0x0f: // const8u/s
		r.bytes(8)
	case o == 0x10 || o == 0x11 || o == 0x23 || o >= 0x70 && o <= 0x91 || o == 0x93 || o == 0xa1 || o == 0xa2 || o == 0xa8 || o == 0xa9 ||
		o == 0xf7 || o == 0xf9 || o == 0xfb || o == 0xfc: // one LEB128
		r.uleb()
	case o == 0x92 || o == 0x9d || o == 0xa5 || o == 0xf5: // bregx, bit_piece, regval_type: two LEB128
		r.uleb()
		r.uleb()
	case o == 0x9e || o == 0xa3 || o == 0xf3: // implicit_value, entry_value: a counted block
		r.bytes(r.uleb())
	case o == 0xa0 || o == 0xf2: // implicit_pointer
		r.bytes(4)
		r.uleb()
	case o == 0xa4 || o == 0xf4: // const_type
		r.uleb()
		r.bytes(uint64(r.u8()))
	case o == 0xa6 || o == 0xa7 || o == 0xf6: // deref_type
		r.bytes(1)
		r.uleb()
	case o == 0x06 || o >= 0x12 && o <= 0x27 && o != 0x15 && o != 0x23 || o >= 0x29 && o <= 0x2e ||
		o >= 0x30 && o <= 0x6f || o == 0x96 || o == 0x97 || o == 0x9b || o == 0x9c || o == 0x9f || o == 0xe0 || o == 0xf0:
	default:
		return 0, fmt.Errorf("DWARF expression %x: unknown operation %#x", expr, o)
	}
	if r.err != nil {
		return 0, fmt.Errorf("DWARF expression %x: truncated operation %#x", expr, o)
	}
	return r.off - pc, nil
}

// appendConst8 appends DW_OP_const8u v, in the target's byte order: a value
// found outside the expression (an entry value, a parameter reference)
// put in its place.
func appendConst8(out []byte, f *VarFrame, v uint64) []byte {
	var b [9]byte
	b[0] = byte(op.DW_OP_const8u)
	ByteOrder(f.Space.Mem).PutUint64(b[1:], v)
	return append(out, b[:]...)
}

// ReadImplicit returns the object a synthetic pointer v points to in frame
// f (ErrSyntheticPointer from Read): DW_OP_implicit_pointer names the
// object's DIE and a byte offset into it (DWARF 5 §2.6.1.1.4), and the
// object's own location gives its value, as gdb's "print *s" reads it.
// The value's bytes start at the offset; typ is the object's type.
// Errors: v is no synthetic pointer, the DIE cannot be read, or the
// object's value is not available (ErrOptimizedOut, ...).
func (sc *Scope) ReadImplicit(v *Var, f *VarFrame) (val Value, typ dwarf.Type, err error) {
	l := v.loc
	if l.kind != locExpr || len(l.expr) < 6 || (l.expr[0] != opImplicitPointer && l.expr[0] != opGNUImplicitPointer) {
		return Value{}, nil, errors.New("not a synthetic pointer")
	}
	defer func() {
		if r := recover(); r != nil { // debug/dwarf on hostile input
			val, typ, err = Value{}, nil, fmt.Errorf("DW_OP_implicit_pointer: %v", r)
		}
	}()
	// The DIE reference is a section offset of the unit's offset size:
	// 4 bytes in 32-bit DWARF, the only form GCC and LLVM emit here.
	order := ByteOrder(f.Space.Mem)
	die := dwarf.Offset(order.Uint32(l.expr[1:5]))
	off, _ := sleb128(l.expr[5:])
	d := sc.unit.d
	r := d.Reader()
	r.Seek(die)
	e, err := r.Next()
	if err != nil || e == nil {
		return Value{}, nil, fmt.Errorf("DW_OP_implicit_pointer to DIE %#x: %v", die, err)
	}
	w := scopeWalk{lt: sc.lt, d: d, r: d.Reader(), pc: f.Frame.LookupPC() - sc.m.Bias}
	obj := w.variable(e)
	obj.loc = w.resolve(obj.loc, sc.unit)
	val, err = sc.Read(&obj, f)
	if err != nil {
		return Value{}, nil, err
	}
	if off < 0 || off > int64(len(val.Bytes)) {
		return Value{}, nil, fmt.Errorf("DW_OP_implicit_pointer offset %d past its object's %d bytes", off, len(val.Bytes))
	}
	val.Bytes = val.Bytes[off:]
	if val.InMemory {
		val.Addr += uint64(off)
	}
	return val, obj.Type, nil
}

// sleb128 decodes a signed LEB128 number at the start of b.
func sleb128(b []byte) (int64, int) {
	var v int64
	var shift uint
	for i, c := range b {
		v |= int64(c&0x7f) << shift
		shift += 7
		if c&0x80 == 0 {
			if shift < 64 && c&0x40 != 0 {
				v |= -1 << shift
			}
			return v, i + 1
		}
		if shift >= 64 {
			break
		}
	}
	return v, len(b)
}
