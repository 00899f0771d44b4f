package debugger

// C objects in expressions: a value that comes from a variable, a member,
// an element or a dereference keeps its DWARF type (value.obj), as gdb's
// values do, so that pointer arithmetic is scaled by the pointee's size
// (p + 1 is the next struct; q - p counts elements; an array decays to a
// pointer to its first element), * and the postfix operators work on any
// expression ((p + 1)->x, (*p).at, ($1)[2], ((struct rec *) q)->key), and
// print shows the object as print shows a variable: (struct pt *)
// 0x... <pts+32>, {x = 3, y = 4}.

import (
	"debug/dwarf"
	"encoding/binary"
	"errors"
	"fmt"
)

// typedValue is the expression value of the C object t.
func (s *Session) typedValue(t typed) value {
	obj := t
	switch tt := under(t.t).(type) {
	case *dwarf.PtrType:
		kind := kindData
		if isFunc(under(tt.Type)) {
			kind = kindCode
		}
		return value{v: uintOf(t.b), kind: kind, obj: &obj}
	case *dwarf.ArrayType:
		if t.inMem {
			return value{v: t.addr, kind: kindData, obj: &obj}
		}
		return value{kind: kindObject, obj: &obj}
	case *dwarf.StructType:
		return value{v: t.addr, kind: kindObject, obj: &obj}
	}
	hv, scalar := s.historyValue(t)
	if !scalar {
		return value{v: t.addr, kind: kindObject, obj: &obj}
	}
	hv.obj = &obj
	return hv
}

// elem returns the type and size of what v points at, for pointer
// arithmetic: a typed pointer's pointee (void: 1 byte, as in gdb) or an
// array's element (the array decays); ok is false for an untyped value.
func (v value) elem() (dwarf.Type, int64, bool) {
	if v.obj == nil || v.kind != kindData && v.kind != kindCode {
		return nil, 0, false
	}
	var et dwarf.Type
	switch tt := under(v.obj.t).(type) {
	case *dwarf.PtrType:
		et = tt.Type
	case *dwarf.ArrayType:
		et = tt.Type
	default:
		return nil, 0, false
	}
	if et == nil || isVoid(et) || isFunc(under(et)) {
		return et, 1, true
	}
	n := under(et).Size()
	if n <= 0 {
		return et, 1, true
	}
	return et, n, true
}

// pointerValue is a pointer to et holding addr, typed as t when t is
// already that pointer type (the type of the operand of p + 1).
func pointerValue(t, et dwarf.Type, addr uint64) value {
	if _, ok := under(t).(*dwarf.PtrType); !ok {
		t = &dwarf.PtrType{CommonType: dwarf.CommonType{ByteSize: 8}, Type: et}
	}
	b := make([]byte, 8)
	binary.NativeEndian.PutUint64(b, addr)
	kind := kindData
	if et != nil && isFunc(under(et)) {
		kind = kindCode
	}
	return value{v: addr, kind: kind, obj: &typed{t: t, b: b}}
}

// memContext is a context that reads the target's memory for
// dereferences and members (varContext.deref and step).
func (s *Session) memContext() (*varContext, error) {
	sp, err := s.space()
	if err != nil {
		return nil, err
	}
	return &varContext{sp: sp, f: &cFormatter{sp: sp}}, nil
}

// deref is *v for a typed pointer or array v.
func (p *exprParser) deref(v value, index int64) (value, error) {
	c, err := p.s.memContext()
	if err != nil {
		return value{}, err
	}
	t, err := c.deref(*v.obj, index)
	if err != nil {
		return value{}, err
	}
	return p.s.typedValue(t), nil
}

// postfix applies the postfix operators after a primary expression:
// [INDEX], .MEMBER and ->MEMBER, on a value with a C type.
func (p *exprParser) postfix(v value) (value, error) {
	for {
		switch p.peek() {
		case '[':
			p.i++
			ix, err := p.logicalOr()
			if err != nil {
				return value{}, err
			}
			if p.peek() != ']' {
				return value{}, fmt.Errorf("A syntax error in expression, near `%s'.", p.rest())
			}
			p.i++
			if ix.kind == kindFloat {
				return value{}, errors.New("Argument to arithmetic operation not a number or boolean.")
			}
			if _, _, ok := v.elem(); !ok {
				if v.obj == nil {
					return value{}, errors.New("cannot subscript something of type `long'")
				}
				return value{}, fmt.Errorf("cannot subscript something of type `%s'", cTypeName(v.obj.t))
			}
			if v, err = p.deref(v, int64(ix.v)); err != nil {
				return value{}, err
			}
		case '.', 'R':
			arrow := p.peek() == 'R'
			p.i++
			if p.peek() != 'i' {
				return value{}, fmt.Errorf("A syntax error in expression, near `%s'.", p.rest())
			}
			field := p.toks[p.i].text
			p.i++
			if v.obj == nil {
				return value{}, errors.New("Attempt to extract a component of a value that is not a structure.")
			}
			c, err := p.s.memContext()
			if err != nil {
				return value{}, err
			}
			// The member, and the path after it that the token holds
			// (at.y, tags[1]).
			vp, ok := parseVarPath(field)
			if !ok || vp.derefs > 0 || vp.addrOf {
				return value{}, fmt.Errorf("A syntax error in expression, near `%s'.", field)
			}
			st := pathStep{kind: '.', field: vp.name}
			if arrow {
				st.kind = '>'
			}
			t, _, _, err := p.s.applyPath(c, *v.obj, varPath{steps: append([]pathStep{st}, vp.steps...)})
			if err != nil {
				return value{}, err
			}
			v = p.s.typedValue(t)
		default:
			return v, nil
		}
	}
}

// castType is the C type a cast names: a base type's DWARF form (made up
// for C's own names, as gdb's builtin types), DWARF's type of a typedef or
// struct name, with stars pointers around it.
func castType(base dwarf.Type, stars int) dwarf.Type {
	t := base
	for range stars {
		t = &dwarf.PtrType{CommonType: dwarf.CommonType{ByteSize: 8}, Type: t}
	}
	return t
}

// builtinType is the DWARF form of one of C's base type names.
func builtinType(name string, ct cType) dwarf.Type {
	common := dwarf.CommonType{ByteSize: int64(ct.bytes), Name: name}
	basic := dwarf.BasicType{CommonType: common}
	switch {
	case name == "void":
		return &dwarf.VoidType{CommonType: dwarf.CommonType{Name: "void"}}
	case ct.float:
		return &dwarf.FloatType{BasicType: basic}
	case name == "_Bool" || name == "bool":
		return &dwarf.BoolType{BasicType: basic}
	case ct.char && ct.signed:
		return &dwarf.CharType{BasicType: basic}
	case ct.char:
		return &dwarf.UcharType{BasicType: basic}
	case ct.signed:
		return &dwarf.IntType{BasicType: basic}
	}
	return &dwarf.UintType{BasicType: basic}
}

// ptrDiff is l - r for two pointers to objects of the same size, in
// objects; ok is false when they are not both typed.
func ptrDiff(l, r value) (value, bool, error) {
	_, ln, lok := l.elem()
	_, rn, rok := r.elem()
	if !lok || !rok {
		return value{}, false, nil
	}
	if ln != rn {
		return value{}, true, fmt.Errorf("First argument of `-' is a pointer and second argument is neither\nan integer nor a pointer of the same type.")
	}
	return value{v: uint64((int64(l.v) - int64(r.v)) / ln), kind: kindInt}, true, nil
}

// ptrOffset is p + k (sub: p - k) for a typed pointer p, in objects of
// its pointee's size.
func ptrOffset(pv value, k int64, sub bool) value {
	et, n, _ := pv.elem()
	if sub {
		k = -k
	}
	return pointerValue(pv.obj.t, et, pv.v+uint64(k*n))
}

// formatObject prints a value that has a C type as print prints a
// variable of that type, in format letter (0 for none).
func formatObject(f *cFormatter, v value, letter byte) string {
	if letter == 0 {
		return f.format(v.obj.t, v.obj.b, modeTop, 0)
	}
	f.letter = letter
	defer func() { f.letter = 0 }()
	return f.format(v.obj.t, v.obj.b, modeNested, 0)
}

// opText is a binary operator token's C spelling.
func opText(op byte) string {
	for k, v := range twoCharOp {
		if v == op {
			return k
		}
	}
	return string(op)
}

// objectOperandError is gdb's error for a binary operator with a
// structure operand (which C++ would look up as a member operator), or
// errNotNumber for another object.
func objectOperandError(op byte, l, r value) error {
	for _, v := range []value{l, r} {
		if v.kind != kindObject || v.obj == nil {
			continue
		}
		if _, ok := under(v.obj.t).(*dwarf.StructType); ok {
			return fmt.Errorf("Structure has no component named operator%s.", opText(op))
		}
	}
	return errNotNumber
}
