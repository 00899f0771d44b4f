package debugger

// C's integer types in expressions, as gdb evaluates C: a literal is int,
// long or unsigned as C says (4294967295 is long, 0xffffffff unsigned
// int, 10UL unsigned long), a variable keeps its type's width and
// signedness, the integer promotions and usual arithmetic conversions
// choose each operation's type, and its result wraps at that width (n *
// 1000000000 is an int's 705032704 for n = 5, as in gdb; -1U is
// 4294967295; 10 > -1U is 0). A value of no known type (a register, a
// symbol read by its size) is a long.

import (
	"debug/dwarf"
	"strconv"
	"strings"
)

// intType is v's C integer type after the integer promotions: 4 (int)
// or 8 (long) bytes, and whether it is unsigned.
func (v value) intType() (size int, unsigned bool) {
	n := int(v.isize)
	if n == 0 {
		return 8, v.unsigned
	}
	if n < 4 {
		return 4, false // promoted to int
	}
	return n, v.unsigned
}

// intValue is x as a C integer of size bytes: wrapped to that width,
// held sign-extended (signed) or zero-extended (unsigned).
func intValue(x uint64, size int, unsigned bool) value {
	return value{v: truncate(x, size, !unsigned), kind: kindInt, isize: uint8(size), unsigned: unsigned}
}

// boolValue is C's int 0 or 1.
func boolValue(c bool) value {
	if c {
		return intValue(1, 4, false)
	}
	return intValue(0, 4, false)
}

// commonType is the type C's usual arithmetic conversions give two
// integers (C11 6.3.1.8): the larger, and unsigned when the unsigned one
// is at least as large as the signed one.
func commonType(l, r value) (size int, unsigned bool) {
	ls, lu := l.intType()
	rs, ru := r.intType()
	switch {
	case ls == rs:
		return ls, lu || ru
	case ls > rs:
		return ls, lu
	}
	return rs, ru
}

// intBinary applies an integer operator (+ - * / % | ^ & << >> and the
// comparisons) to l and r in their common type; ok is false for / or %
// by zero.
func intBinary(op byte, l, r value) (value, bool) {
	size, unsigned := commonType(l, r)
	a, b := truncate(l.v, size, !unsigned), truncate(r.v, size, !unsigned)
	less := int64(a) < int64(b)
	if unsigned {
		less = a < b
	}
	switch op {
	case '+':
		return intValue(a+b, size, unsigned), true
	case '-':
		return intValue(a-b, size, unsigned), true
	case '*':
		return intValue(a*b, size, unsigned), true
	case '/', '%':
		if b == 0 {
			return value{}, false
		}
		var q uint64
		switch {
		case unsigned && op == '/':
			q = a / b
		case unsigned:
			q = a % b
		case op == '/':
			q = uint64(int64(a) / int64(b))
		default:
			q = uint64(int64(a) % int64(b))
		}
		return intValue(q, size, unsigned), true
	case '|':
		return intValue(a|b, size, unsigned), true
	case '^':
		return intValue(a^b, size, unsigned), true
	case '&':
		return intValue(a&b, size, unsigned), true
	case 'l', 'r':
		// The type of the promoted left operand (C11 6.5.7); a count of
		// 64 or more shifts everything out, as in gdb.
		size, unsigned = l.intType()
		a = truncate(l.v, size, !unsigned)
		n := r.v
		if n >= 64 {
			if op == 'l' || unsigned || int64(a) >= 0 {
				return intValue(0, size, unsigned), true
			}
			return intValue(^uint64(0), size, unsigned), true
		}
		if op == 'l' {
			return intValue(a<<n, size, unsigned), true
		}
		if unsigned {
			return intValue(a>>n, size, unsigned), true
		}
		return intValue(uint64(int64(a)>>n), size, unsigned), true
	case 'E':
		return boolValue(a == b), true
	case 'N':
		return boolValue(a != b), true
	case '<':
		return boolValue(less), true
	case '>':
		return boolValue(!less && a != b), true
	case 'L':
		return boolValue(less || a == b), true
	case 'G':
		return boolValue(!less), true
	}
	return value{}, false
}

// intLiteral reads a C integer constant with its type: int if it fits,
// else long (a decimal one) or the first of unsigned int, long and
// unsigned long that holds it (octal, hex), as suffixes U and L allow
// (C11 6.4.4.1).
func intLiteral(text string) (value, error) {
	digits := strings.TrimRight(text, "uUlL")
	suffix := strings.ToLower(text[len(digits):])
	n, err := strconv.ParseUint(digits, 0, 64)
	if err != nil {
		return value{}, err
	}
	u := strings.Contains(suffix, "u")
	l := strings.Contains(suffix, "l")
	decimal := !(len(digits) > 1 && digits[0] == '0')
	type cand struct {
		size     int
		unsigned bool
	}
	var cands []cand
	for _, c := range []cand{{4, false}, {4, true}, {8, false}, {8, true}} {
		switch {
		case l && c.size == 4, u && !c.unsigned, !u && decimal && c.unsigned:
			continue
		}
		cands = append(cands, c)
	}
	for _, c := range cands {
		var max uint64
		switch {
		case c.size == 4 && c.unsigned:
			max = 1<<32 - 1
		case c.size == 4:
			max = 1<<31 - 1
		case c.unsigned:
			max = 1<<64 - 1
		default:
			max = 1<<63 - 1
		}
		if n <= max {
			return intValue(n, c.size, c.unsigned), nil
		}
	}
	return intValue(n, 8, true), nil
}

// intTypeOf is the width and signedness of a DWARF integer type (char,
// bool and enums included), ok false for another type.
func intTypeOf(t dwarf.Type) (size int, unsigned, ok bool) {
	switch tt := under(t).(type) {
	case *dwarf.IntType, *dwarf.CharType:
		return int(tt.Size()), false, true
	case *dwarf.UintType, *dwarf.UcharType, *dwarf.BoolType:
		return int(tt.Size()), true, true
	case *dwarf.EnumType:
		return int(tt.Size()), enumUnsigned(tt), true
	}
	return 0, false, false
}

// enumUnsigned reports whether an enum is unsigned, as gdb takes one with
// no negative enumerator (dwarf2/read.c process_enumeration_scope).
func enumUnsigned(t *dwarf.EnumType) bool {
	for _, e := range t.Val {
		if e.Val < 0 {
			return false
		}
	}
	return true
}

// intTypeName is gdb's name of a C integer type of size bytes.
func intTypeName(size int, unsigned bool) string {
	name := map[int]string{1: "char", 2: "short", 4: "int", 8: "long"}[size]
	if unsigned {
		return "unsigned " + name
	}
	return name
}

// cSize is an integer's size in bytes: its C type's (0 in isize: a long).
func (v value) cSize() int {
	if v.isize == 0 {
		return 8
	}
	return int(v.isize)
}

// intSize is the size letterText masks an integer to: its C type's, 0 (all
// 64 bits) for any other value.
func (v value) intSize() int {
	if v.kind != kindInt {
		return 0
	}
	return int(v.isize)
}

// boolTyped is a _Bool of value c, printed as gdb prints one: true or
// false.
func boolTyped(c bool) value {
	v := intValue(0, 1, true)
	if c {
		v.v = 1
	}
	v.obj = &typed{t: builtinType("_Bool", cType{bytes: 1}), b: []byte{byte(v.v)}}
	return v
}
