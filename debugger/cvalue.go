package debugger

// C values and types as gdb prints them (gdb/c-valprint.c, valprint.c,
// c-typeprint.c) with its default settings: print elements 200, repeats
// 10, frame-arguments scalars, print symbol on.

import (
	"debug/dwarf"
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/sfdbg/sfdbg/debugger/proc"
	"github.com/sfdbg/sfdbg/frames"
)

// gdb's defaults: "set print elements" and "set print repeats".
const (
	printElements  = 200
	repeatsMinimum = 10 // a run longer than this is printed as <repeats N times>
	maxValueDepth  = 20 // nested aggregates ("set print max-depth")
)

// valueMode says where a value is printed.
type valueMode uint8

const (
	modeTop    valueMode = iota // print's value: pointers with their type, "(int *) 0x..."
	modeNested                  // info locals, a member, an element
	modeArg                     // a frame line's argument: aggregates are "..."
)

// cFormatter prints C values read from a target.
type cFormatter struct {
	sp *frames.Space
	// letter is print's /F format (x d u o t a c), 0 for none: scalars,
	// members and elements are printed in it, as gdb does.
	letter byte
}

// letterText formats the bits-wide raw value v in format letter, as gdb's
// print/F: x hex, d signed, u unsigned, o octal, t binary, c a character,
// a an address with its symbol.
func (f *cFormatter) letterText(v uint64, bits int) string {
	if bits > 0 && bits < 64 {
		v &= 1<<uint(bits) - 1
	}
	signed := int64(v)
	if bits > 0 && bits < 64 {
		signed = int64(v<<uint(64-bits)) >> uint(64-bits)
	}
	switch f.letter {
	case 'x':
		return fmt.Sprintf("%#x", v)
	case 'd':
		return strconv.FormatInt(signed, 10)
	case 'u':
		return strconv.FormatUint(v, 10)
	case 'o':
		if v == 0 {
			return "0"
		}
		return "0" + strconv.FormatUint(v, 8)
	case 't':
		return strconv.FormatUint(v, 2)
	case 'c':
		return fmt.Sprintf("%d %s", int8(v), charLiteral(byte(v)))
	case 'a':
		text := fmt.Sprintf("%#x", v)
		if f.sp != nil && v != 0 {
			text += symbolSuffix(f.sp, v)
		}
		return text
	case 'f':
		// An integer's bits as the floating type of its size, as gdb's
		// print/f; other sizes in decimal.
		switch bits {
		case 32:
			return floatText(float64(math.Float32frombits(uint32(v))), 9)
		case 64:
			return floatText(math.Float64frombits(v), 17)
		}
		return strconv.FormatInt(signed, 10)
	}
	return fmt.Sprintf("<error: undefined output format %q>", f.letter)
}

// under returns t without its typedefs and qualifiers (gdb's
// check_typedef), at most 32 links.
func under(t dwarf.Type) dwarf.Type {
	for range 32 {
		switch tt := t.(type) {
		case *dwarf.TypedefType:
			t = tt.Type
		case *dwarf.QualType:
			t = tt.Type
		default:
			return t
		}
	}
	return t
}

// isChar reports whether t is a one-byte character type (char, signed
// char, unsigned char), which gdb prints as characters and strings.
func isChar(t dwarf.Type) bool {
	switch tt := under(t).(type) {
	case *dwarf.CharType, *dwarf.UcharType:
		return tt.Size() == 1
	case *dwarf.IntType:
		return tt.Size() == 1 && strings.Contains(tt.Name, "char")
	case *dwarf.UintType:
		return tt.Size() == 1 && strings.Contains(tt.Name, "char")
	}
	return false
}

// isScalar reports whether gdb's "print frame-arguments scalars" prints a
// value of type t (not a structure, union or array).
func isScalar(t dwarf.Type) bool {
	switch under(t).(type) {
	case *dwarf.StructType, *dwarf.ArrayType:
		return false
	}
	return true
}

// uintOf reads an unsigned integer of len(b) <= 8 bytes in the host's
// byte order (the traced process's).
func uintOf(b []byte) uint64 {
	var x [8]byte
	if proc.HostBigEndian {
		copy(x[8-len(b):], b)
	} else {
		copy(x[:], b)
	}
	return binary.NativeEndian.Uint64(x[:])
}

// nativeLow returns the n (at most 8) low-order bytes of v in the host's
// byte order: how an n-byte integer of value v is stored.
func nativeLow(v uint64, n int) []byte {
	n = min(n, 8)
	b := make([]byte, 8)
	binary.NativeEndian.PutUint64(b, v)
	if proc.HostBigEndian {
		return b[8-n:]
	}
	return b[:n]
}

// intOf reads a signed integer of len(b) bytes.
func intOf(b []byte) int64 {
	n := len(b)
	if n == 0 || n > 8 {
		return int64(uintOf(b))
	}
	sh := uint(64 - 8*n)
	return int64(uintOf(b)<<sh) >> sh
}

// format returns value b of type t as gdb prints it.
func (f *cFormatter) format(t dwarf.Type, b []byte, mode valueMode, depth int) string {
	if t == nil {
		return "<error: no type>"
	}
	if mode == modeArg && !isScalar(t) {
		return "..."
	}
	if depth > maxValueDepth {
		return "{...}"
	}
	u := under(t)
	if int64(len(b)) < u.Size() {
		return fmt.Sprintf("<error: %d bytes of a %d-byte value>", len(b), u.Size())
	}
	if fl, ok := u.(*dwarf.FloatType); ok && (f.letter == 'f' || f.letter == 'c') {
		// print/f shows a floating value as it is; print/c converts it
		// to an integer first (gdb 13).
		letter := f.letter
		f.letter = 0
		text := f.format(t, b, mode, depth)
		f.letter = letter
		if letter == 'c' {
			if v, ok := floatOfType(fl, b, spaceMachine(f.sp)); ok {
				return f.letterText(floatToInt(v, 1, true), 8)
			}
		}
		return text
	}
	if fl, ok := u.(*dwarf.FloatType); ok && f.letter != 0 && fl.Size() == 16 && len(b) >= 16 {
		// print/x of a long double shows its bits: the x87 format's 10
		// bytes on x86-64, binary128's 16 elsewhere.
		bits := b[:16] // binary128, most significant byte first on a big-endian machine
		if x87(spaceMachine(f.sp)) {
			bits = b[:10]
		}
		digits := make([]byte, 0, 2*len(bits))
		for i := range bits {
			k := i // big-endian
			if !proc.HostBigEndian {
				k = len(bits) - 1 - i
			}
			digits = fmt.Appendf(digits, "%02x", bits[k])
		}
		trimmed := strings.TrimLeft(string(digits), "0")
		if trimmed == "" {
			trimmed = "0"
		}
		return "0x" + trimmed
	}
	if f.letter != 0 {
		switch u.(type) {
		case *dwarf.BoolType, *dwarf.CharType, *dwarf.UcharType, *dwarf.IntType, *dwarf.UintType,
			*dwarf.EnumType, *dwarf.FloatType, *dwarf.PtrType:
			if n := u.Size(); n >= 1 && n <= 8 {
				return f.letterText(uintOf(b[:n]), int(8*n))
			}
		}
	}
	switch tt := u.(type) {
	case *dwarf.BoolType:
		switch v := uintOf(b[:tt.Size()]); v {
		case 0:
			return "false"
		case 1:
			return "true"
		default:
			return strconv.FormatUint(v, 10)
		}
	case *dwarf.CharType, *dwarf.UcharType, *dwarf.IntType, *dwarf.UintType:
		n := u.Size()
		if n > 8 {
			return fmt.Sprintf("<error: sfdbg does not print %d-byte integers (%s)>", n, cTypeName(t))
		}
		signed := false
		switch u.(type) {
		case *dwarf.CharType, *dwarf.IntType:
			signed = true
		}
		var text string
		if signed {
			text = strconv.FormatInt(intOf(b[:n]), 10)
		} else {
			text = strconv.FormatUint(uintOf(b[:n]), 10)
		}
		if isChar(u) {
			text += " " + charLiteral(b[0])
		}
		return text
	case *dwarf.EnumType:
		v := intOf(b[:tt.Size()])
		for _, e := range tt.Val {
			if e.Val == v {
				return e.Name
			}
		}
		return strconv.FormatInt(v, 10)
	case *dwarf.FloatType:
		m := spaceMachine(f.sp)
		if v, ok := floatOfType(tt, b, m); ok {
			return floatValueText(v, m)
		}
		return fmt.Sprintf("<error: sfdbg does not print %d-byte floating-point values (%s)>", tt.Size(), cTypeName(t))
	case *dwarf.PtrType:
		return f.pointer(t, tt, uintOf(b[:tt.Size()]), mode)
	case *dwarf.StructType:
		if tt.Incomplete {
			return "<incomplete type>"
		}
		var parts []string
		for _, fl := range tt.Field {
			parts = append(parts, fl.Name+" = "+f.field(fl, b, depth))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case *dwarf.ArrayType:
		return f.array(tt, b, depth)
	}
	return fmt.Sprintf("<error: sfdbg does not print values of type %s>", cTypeName(t))
}

// field returns the value of a structure member in b, a bit-field's
// extracted from its storage unit (DW_AT_data_bit_offset, or DWARF 2-4's
// DW_AT_bit_offset from the most significant bit).
func (f *cFormatter) field(fl *dwarf.StructField, b []byte, depth int) string {
	size := under(fl.Type).Size()
	if fl.BitSize == 0 {
		if fl.ByteOffset < 0 || size < 0 || fl.ByteOffset+size > int64(len(b)) {
			return "<error: member outside its structure>"
		}
		return f.format(fl.Type, b[fl.ByteOffset:fl.ByteOffset+size], modeNested, depth+1)
	}
	bit := fl.DataBitOffset
	if fl.ByteSize != 0 {
		// DWARF 2-4: DW_AT_byte_size, and DW_AT_bit_offset counted from
		// the most significant bit of that storage unit (little-endian).
		bit = fl.ByteOffset*8 + fl.ByteSize*8 - fl.BitOffset - fl.BitSize
	}
	if bit < 0 || fl.BitSize > 64 || (bit+fl.BitSize+7)/8 > int64(len(b)) {
		return "<error: bit-field outside its structure>"
	}
	var v uint64
	for i := int64(0); i < fl.BitSize; i++ {
		p := bit + i
		if b[p/8]>>(p%8)&1 != 0 {
			v |= 1 << i
		}
	}
	if f.letter != 0 {
		return f.letterText(v, int(fl.BitSize))
	}
	switch ut := under(fl.Type).(type) {
	case *dwarf.IntType, *dwarf.CharType:
		sh := uint(64 - fl.BitSize)
		return strconv.FormatInt(int64(v<<sh)>>sh, 10)
	case *dwarf.EnumType:
		for _, e := range ut.Val {
			if uint64(e.Val) == v {
				return e.Name
			}
		}
	case *dwarf.BoolType:
		if v <= 1 {
			return strconv.FormatBool(v == 1)
		}
	}
	return strconv.FormatUint(v, 10)
}

// pointer prints a pointer: 0x... with the string a char * points to, the
// symbol a function pointer points to, and at the top level (print) the
// pointer's type first, as gdb does.
func (f *cFormatter) pointer(t dwarf.Type, pt *dwarf.PtrType, a uint64, mode valueMode) string {
	text := fmt.Sprintf("%#x", a)
	elem := under(pt.Type)
	switch {
	case isChar(pt.Type) && pt.Type != nil:
		if a != 0 {
			text += " " + f.cStringAt(a)
		}
		if _, named := t.(*dwarf.TypedefType); named && mode == modeTop {
			// gdb drops "(char *)" before a string, but not a
			// typedef's name: (str_t) 0x... "hello".
			return "(" + cTypeName(t) + ") " + text
		}
		return text
	case isFunc(elem):
		if a != 0 && f.sp != nil {
			text += symbolSuffix(f.sp, a)
		}
	default:
		if a != 0 && f.sp != nil {
			text += dataSymbolSuffix(f.sp, a)
		}
	}
	if mode == modeTop {
		return "(" + cTypeName(t) + ") " + text
	}
	return text
}

func isFunc(t dwarf.Type) bool {
	_, ok := t.(*dwarf.FuncType)
	return ok
}

// dataSymbolSuffix is " <sym+off>" for an address in a data or function
// symbol, as gdb's "print symbol on" shows it; "" for other addresses (the
// stack, the heap).
func dataSymbolSuffix(sp *frames.Space, a uint64) string {
	return symbolSuffix(sp, a)
}

// cStringAt reads the NUL-terminated string at a, at most printElements
// characters, and quotes it as gdb does: "text", "text"... when longer,
// <error: Cannot access memory at address 0x...> when unreadable.
func (f *cFormatter) cStringAt(a uint64) string {
	if f.sp == nil {
		return ""
	}
	var s []byte
	var buf [64]byte
	for len(s) < printElements {
		n, _ := f.sp.Mem.ReadAt(buf[:], a+uint64(len(s)))
		if n == 0 {
			// Byte by byte up to the unreadable one.
			var one [1]byte
			if k, _ := f.sp.Mem.ReadAt(one[:], a+uint64(len(s))); k == 0 {
				if len(s) == 0 {
					return fmt.Sprintf("<error: Cannot access memory at address %#x>", a)
				}
				return stringText(s, false) + fmt.Sprintf("<error: Cannot access memory at address %#x>", a+uint64(len(s)))
			}
			n = 1
			buf[0] = one[0]
		}
		for _, c := range buf[:n] {
			if c == 0 {
				return stringText(s, false)
			}
			s = append(s, c)
			if len(s) == printElements {
				break
			}
		}
	}
	// As gdb's val_print_string: a NUL just after the limit ends the
	// string there, without "...".
	var next [1]byte
	if k, _ := f.sp.Mem.ReadAt(next[:], a+uint64(len(s))); k == 1 && next[0] == 0 {
		return stringText(s, false)
	}
	return stringText(s, true)
}

// array prints an array: a character array as a string (its last NUL
// dropped, as gdb's "print null-stop off" does), others as {a, b, c},
// runs of more than repeatsMinimum equal elements as "v <repeats N
// times>", at most printElements elements then "...".
func (f *cFormatter) array(at *dwarf.ArrayType, b []byte, depth int) string {
	n := at.Count
	esize := under(at.Type).Size()
	if n < 0 || esize <= 0 {
		if n <= 0 {
			return "{}"
		}
		return fmt.Sprintf("<error: elements of type %s have no size>", cTypeName(at.Type))
	}
	if n > int64(len(b))/esize {
		return "<error: array larger than its value>"
	}
	if isChar(at.Type) && f.letter == 0 {
		s := b[:n]
		if len(s) > 0 && s[len(s)-1] == 0 {
			s = s[:len(s)-1]
		}
		return stringText(s, false)
	}
	var parts []string
	printed := 0
	for i := int64(0); i < n; {
		if printed >= printElements {
			parts[len(parts)-1] += "..."
			break
		}
		e := b[i*esize : (i+1)*esize]
		reps := int64(1)
		for i+reps < n && string(b[(i+reps)*esize:(i+reps+1)*esize]) == string(e) {
			reps++
		}
		text := f.format(at.Type, e, modeNested, depth+1)
		if reps > repeatsMinimum {
			parts = append(parts, fmt.Sprintf("%s <repeats %d times>", text, reps))
			printed += repeatsMinimum
			i += reps
			continue
		}
		parts = append(parts, text)
		printed++
		i++
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// stringText quotes s as gdb prints a string (valprint.c,
// generic_printstr): runs of more than repeatsMinimum equal characters as
// 'c' <repeats N times>, the rest in double quotes, joined by ", ". Whole
// runs are taken until they hold printElements characters; "..." follows
// when s goes on after them, or when trunc says it went on in memory.
func stringText(s []byte, trunc bool) string {
	if len(s) == 0 {
		if trunc {
			return `""...`
		}
		return `""`
	}
	var parts []string
	var cur []byte
	flush := func() {
		if cur != nil {
			parts = append(parts, `"`+string(cur)+`"`)
			cur = nil
		}
	}
	i := 0
	for i < len(s) && i < printElements {
		reps := 1
		for i+reps < len(s) && s[i+reps] == s[i] {
			reps++
		}
		if reps > repeatsMinimum {
			flush()
			parts = append(parts, fmt.Sprintf("%s <repeats %d times>", charLiteral(s[i]), reps))
			i += reps
			continue
		}
		for k := 0; k < reps; k++ {
			cur = appendEscaped(cur, s[i], '"')
		}
		i += reps
	}
	flush()
	out := strings.Join(parts, ", ")
	if trunc || i < len(s) {
		out += "..."
	}
	return out
}

// charLiteral quotes c as gdb prints a char: 'a', '\n', '\310'.
func charLiteral(c byte) string {
	return "'" + string(appendEscaped(nil, c, '\'')) + "'"
}

// appendEscaped appends c as it appears between quote characters q:
// gdb's escapes (\a \b \f \n \r \t \v, \\ and the quote), other
// unprintable bytes in three octal digits.
func appendEscaped(b []byte, c, q byte) []byte {
	switch c {
	case '\a':
		return append(b, `\a`...)
	case '\b':
		return append(b, `\b`...)
	case '\f':
		return append(b, `\f`...)
	case '\n':
		return append(b, `\n`...)
	case '\r':
		return append(b, `\r`...)
	case '\t':
		return append(b, `\t`...)
	case '\v':
		return append(b, `\v`...)
	case '\\', q:
		return append(b, '\\', c)
	}
	if c < 0x20 || c >= 0x7f {
		return append(b, fmt.Sprintf(`\%03o`, c)...)
	}
	return append(b, c)
}

// floatText prints a floating-point value as gdb does (%g with 9
// significant digits for float, 17 for double): 2.5, 3.1400000000000001,
// inf, -nan(0x8000000000000).
func floatText(v float64, digits int) string {
	switch {
	case math.IsInf(v, 1):
		return "inf"
	case math.IsInf(v, -1):
		return "-inf"
	case math.IsNaN(v):
		bits := math.Float64bits(v)
		sign := ""
		if bits>>63 != 0 {
			sign = "-"
		}
		if digits == 9 {
			return fmt.Sprintf("%snan(%#x)", sign, math.Float32bits(float32(v))&(1<<23-1))
		}
		return fmt.Sprintf("%snan(%#x)", sign, bits&(1<<52-1))
	}
	return strconv.FormatFloat(v, 'g', digits, 64)
}

// cBaseNames maps GCC's DWARF names of the integer types to gdb's.
var cBaseNames = map[string]string{
	"short int":              "short",
	"short unsigned int":     "unsigned short",
	"long int":               "long",
	"long unsigned int":      "unsigned long",
	"long long int":          "long long",
	"long long unsigned int": "unsigned long long",
}

// cTypeName names t as gdb's whatis does: "struct rec *", "char [32]",
// "int (*)(int)", "const char *".
func cTypeName(t dwarf.Type) string { return cDecl(t, "", false) }

// maxTypeNesting bounds the types named inside a type's name (function
// parameters, qualifiers), against cyclic types in hostile DWARF.
const maxTypeNesting = 16

// baseName is the name of a type that is not a pointer, array or function.
func baseName(t dwarf.Type, expand bool, depth int) string {
	if depth > maxTypeNesting {
		return "<type nested too deep>"
	}
	switch tt := t.(type) {
	case nil:
		return "void"
	case *dwarf.VoidType:
		return "void"
	case *dwarf.StructType:
		if expand {
			return structBody(tt, depth)
		}
		if tt.StructName == "" {
			return tt.Kind + " {...}"
		}
		return tt.Kind + " " + tt.StructName
	case *dwarf.EnumType:
		if expand {
			return enumBody(tt)
		}
		if tt.EnumName == "" {
			return "enum {...}"
		}
		return "enum " + tt.EnumName
	case *dwarf.TypedefType:
		return tt.Name
	case *dwarf.QualType:
		return tt.Qual + " " + baseName(tt.Type, expand, depth+1)
	}
	name := t.String()
	if n, ok := cBaseNames[name]; ok {
		return n
	}
	return name
}

// cDecl returns the C declaration of name with type t ("char buf[32]",
// "int (*fn)(int)"), name "" for the type alone; expand prints the body
// of the structure, union or enum at its base (ptype).
func cDecl(t dwarf.Type, name string, expand bool) string { return cDeclAt(t, name, expand, 0) }

// cDeclAt is cDecl for a type named inside another, depth levels down.
func cDeclAt(t dwarf.Type, name string, expand bool, depth int) string {
	if depth > maxTypeNesting {
		return "<type nested too deep>"
	}
	inner := name
	for range 64 {
		switch tt := t.(type) {
		case *dwarf.PtrType:
			inner = "*" + inner
			t = tt.Type
			if _, ok := t.(*dwarf.ArrayType); ok {
				inner = "(" + inner + ")"
			} else if _, ok := t.(*dwarf.FuncType); ok {
				inner = "(" + inner + ")"
			}
			continue
		case *dwarf.QualType:
			if _, ok := tt.Type.(*dwarf.PtrType); ok {
				if inner != "" {
					inner = " " + inner
				}
				inner = " " + tt.Qual + inner
				t = tt.Type
				continue
			}
		case *dwarf.ArrayType:
			n := ""
			if tt.Count >= 0 {
				n = strconv.FormatInt(tt.Count, 10)
			}
			inner += "[" + n + "]"
			t = tt.Type
			continue
		case *dwarf.FuncType:
			var ps []string
			for _, p := range tt.ParamType {
				ps = append(ps, cDeclAt(p, "", false, depth+1))
			}
			if len(ps) == 0 {
				ps = []string{"void"}
			}
			inner += "(" + strings.Join(ps, ", ") + ")"
			t = tt.ReturnType
			continue
		}
		break
	}
	base := baseName(t, expand, depth)
	switch {
	case inner == "":
		return base
	case strings.HasPrefix(inner, "*") || strings.HasPrefix(inner, "(") || strings.HasPrefix(inner, "["):
		return base + " " + inner
	case strings.HasPrefix(inner, " "):
		return base + inner
	}
	return base + " " + inner
}

// structBody is a structure or union with its members, as ptype prints
// it.
func structBody(st *dwarf.StructType, depth int) string {
	var b strings.Builder
	b.WriteString(st.Kind)
	if st.StructName != "" {
		b.WriteString(" " + st.StructName)
	}
	if st.Incomplete {
		b.WriteString(" {\n    <incomplete type>\n}")
		return b.String()
	}
	b.WriteString(" {\n")
	for _, f := range st.Field {
		b.WriteString("    " + cDeclAt(f.Type, f.Name, false, depth+1))
		if f.BitSize != 0 {
			fmt.Fprintf(&b, " : %d", f.BitSize)
		}
		b.WriteString(";\n")
	}
	b.WriteString("}")
	return b.String()
}

// enumBody is an enum with its values, as ptype prints it: "enum color
// {RED, GREEN = 2, BLUE}", a value given where it is not the one after
// the previous.
func enumBody(et *dwarf.EnumType) string {
	var parts []string
	next := int64(0)
	for _, v := range et.Val {
		if v.Val == next {
			parts = append(parts, v.Name)
		} else {
			parts = append(parts, fmt.Sprintf("%s = %d", v.Name, v.Val))
		}
		next = v.Val + 1
	}
	name := "enum "
	if et.EnumName != "" {
		name += et.EnumName + " "
	}
	return name + "{" + strings.Join(parts, ", ") + "}"
}

// whatisText is whatis's "type = ..." text of an expression's type t: its
// name, as gdb's whatis prints it.
func whatisText(t dwarf.Type) string { return cTypeName(t) }

// ptypeText is ptype's "type = ..." text of t: typedefs at the top level
// resolved, the structure, union or enum at its base with its body.
func ptypeText(t dwarf.Type) string {
	for range 32 {
		td, ok := t.(*dwarf.TypedefType)
		if !ok {
			break
		}
		t = td.Type
	}
	return cDecl(t, "", true)
}
