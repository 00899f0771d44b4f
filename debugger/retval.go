package debugger

import (
	"bytes"
	"debug/dwarf"
	"fmt"
	"strconv"

	"github.com/sfdbg/sfdbg/frames"
)

// returnValue formats the value a function of type t returned, as gdb's
// finish prints it after "Value returned is $N = ": rax holds integers,
// pointers, enums and booleans on AMD64 (System V psABI §3.2.3). val is
// the history value; ok is false, with why, for what sfdbg does not read
// (floating-point in xmm0, structures, unions).
func returnValue(sp *frames.Space, t dwarf.Type, rax uint64) (text string, val value, why string, ok bool) {
	for hops := 0; ; hops++ { // the type under typedefs and qualifiers
		if hops == 32 || t == nil {
			return "", value{}, "Value returned has a type sfdbg cannot read (a cycle of typedefs).", false
		}
		switch tt := t.(type) {
		case *dwarf.TypedefType:
			t = tt.Type
			continue
		case *dwarf.QualType:
			t = tt.Type
			continue
		}
		break
	}
	size := t.Size()
	bits := uint(8 * size)
	trunc := func(v uint64) uint64 {
		if bits > 0 && bits < 64 {
			return v & (1<<bits - 1)
		}
		return v
	}
	sext := func(v uint64) int64 {
		if bits > 0 && bits < 64 {
			return int64(v<<(64-bits)) >> (64 - bits)
		}
		return int64(v)
	}
	switch tt := t.(type) {
	case *dwarf.VoidType:
		return "", value{}, "", false // gdb prints nothing
	case *dwarf.BoolType:
		if trunc(rax) != 0 {
			return "true", value{v: 1, kind: kindInt}, "", true
		}
		return "false", value{v: 0, kind: kindInt}, "", true
	case *dwarf.CharType:
		v := sext(rax)
		return fmt.Sprintf("%d %s", v, strconv.QuoteRune(rune(byte(v)))), value{v: uint64(v), kind: kindInt}, "", true
	case *dwarf.UcharType:
		v := trunc(rax)
		return fmt.Sprintf("%d %s", v, strconv.QuoteRune(rune(byte(v)))), value{v: v, kind: kindInt}, "", true
	case *dwarf.IntType:
		v := sext(rax)
		return strconv.FormatInt(v, 10), value{v: uint64(v), kind: kindInt}, "", true
	case *dwarf.UintType:
		v := trunc(rax)
		return strconv.FormatUint(v, 10), value{v: v, kind: kindInt}, "", true
	case *dwarf.EnumType:
		v := sext(rax)
		for _, e := range tt.Val {
			if e.Val == v {
				return e.Name, value{v: uint64(v), kind: kindInt}, "", true
			}
		}
		return strconv.FormatInt(v, 10), value{v: uint64(v), kind: kindInt}, "", true
	case *dwarf.PtrType:
		kind := kindData
		if _, fn := tt.Type.(*dwarf.FuncType); fn {
			kind = kindCode
		}
		text, err := formatValue(sp, value{v: rax, kind: kind}, 0)
		if err != nil {
			text = fmt.Sprintf("%#x", rax)
		}
		if kind == kindData {
			text = dataPointerText(sp, tt, rax)
		}
		return text, value{v: rax, kind: kind}, "", true
	case *dwarf.FloatType:
		return "", value{}, fmt.Sprintf("Value returned has type: %s. sfdbg does not read the floating-point registers (xmm0).", tt.String()), false
	}
	return "", value{}, fmt.Sprintf("Value returned has type: %s. sfdbg does not print its value (not a scalar in rax).", t.String()), false
}

// dataPointerText prints a data pointer as gdb does: a pointer to a char
// as the string it points to (0x5555 "hi"; 0x0 when NULL), else its type
// in C and the symbol it points into ((struct rec *) 0x5555 <r>).
func dataPointerText(sp *frames.Space, t *dwarf.PtrType, v uint64) string {
	elem := t.Type
	for q, ok := elem.(*dwarf.QualType); ok; q, ok = elem.(*dwarf.QualType) {
		elem = q.Type
	}
	switch elem.(type) {
	case *dwarf.CharType, *dwarf.UcharType:
		if v == 0 || sp == nil {
			return fmt.Sprintf("%#x", v)
		}
		// gdb's "print elements" limit, 200 characters.
		b := make([]byte, 201)
		n, _ := sp.Mem.ReadAt(b, v)
		b = b[:n]
		if i := bytes.IndexByte(b, 0); i >= 0 {
			return fmt.Sprintf("%#x %s", v, cString(b[:i]))
		}
		if n == 0 {
			return fmt.Sprintf("%#x <error: Cannot access memory at address %#x>", v, v)
		}
		return fmt.Sprintf("%#x %s...", v, cString(b[:min(n, 200)]))
	}
	text := fmt.Sprintf("(%s) %#x", cTypeName(t), v)
	if sp != nil && v != 0 {
		text += symbolSuffix(sp, v)
	}
	return text
}
