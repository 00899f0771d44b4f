package debugger

// Floating-point values in expressions, as gdb evaluates C: literals
// (1.5, .5, 1e10, 2.5f, 1.0L), variables of the float types, C's usual
// arithmetic conversions (an integer with a floating value becomes that
// type; the wider floating type wins), casts both ways, and gdb's %g
// printing with its digits per type (gdb/target-float.c,
// floatformat_printf_format: 9 for float, 17 for double, 21 for the x87
// 80-bit long double, 36 for IEEE binary128). Arithmetic on float and
// double is the host's IEEE arithmetic, as gdb's is (host_float_ops), so
// 0.0/0 gives the host's default NaN; long double arithmetic is done with
// its 64-bit (x87) or 113-bit (binary128) significand.

import (
	"debug/dwarf"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/sfdbg/sfdbg/debugger/proc"
	"github.com/sfdbg/sfdbg/frames"
)

// errIntegerOnly is gdb's error for %, &, |, ^, << and >> on a floating
// value.
var errIntegerOnly = errors.New("Integer-only operation on floating point number.")

// floatValue returns a kindFloat value of C type size n (4, 8 or 16).
func floatValue(f float64, n uint8) value {
	if n == 4 {
		f = float64(float32(f)) // a float's value is rounded to a float
	}
	return value{kind: kindFloat, f: f, fsize: n}
}

// longDoubleValue returns a long double value: x exact, f its nearest
// double.
func longDoubleValue(x *big.Float) value {
	f, _ := x.Float64()
	return value{kind: kindFloat, f: f, fsize: 16, x: x}
}

// float returns v as a floating value (C's conversion of an integer;
// v's integer is signed, as sfdbg's integers are long).
func (v value) float() float64 {
	if v.kind == kindFloat {
		return v.f
	}
	if v.unsigned {
		return float64(v.v) // unsigned long: ULONG_MAX is 1.8e+19, not -1
	}
	return float64(int64(v.v))
}

// bigFloat returns v exactly, with prec bits of significand.
func (v value) bigFloat(prec uint) *big.Float {
	if v.x != nil {
		return new(big.Float).SetPrec(prec).Set(v.x)
	}
	if v.kind == kindFloat {
		return new(big.Float).SetPrec(prec).SetFloat64(v.f) // finite: callers check
	}
	if v.unsigned {
		return new(big.Float).SetPrec(prec).SetUint64(v.v)
	}
	return new(big.Float).SetPrec(prec).SetInt64(int64(v.v))
}

// finite reports whether v is not a NaN or an infinity.
func (v value) finite() bool {
	if v.kind != kindFloat || v.x != nil {
		return true
	}
	return !math.IsNaN(v.f) && !math.IsInf(v.f, 0)
}

// truth is v as a condition: not zero.
func (v value) truth() bool {
	if v.kind == kindFloat {
		return v.f != 0
	}
	return v.v != 0
}

// floatArith applies +, -, * or / to l and r, one of them floating, in
// the wider of their floating types. prec is the long double's
// significand when the result is one.
func floatArith(op byte, l, r value, prec uint) value {
	n := max(l.fsize, r.fsize)
	a, b := l.float(), r.float()
	var f float64
	switch op {
	case '+':
		f = a + b
	case '-':
		f = a - b
	case '*':
		f = a * b
	case '/':
		f = a / b
	}
	if n != 16 || !l.finite() || !r.finite() {
		return floatValue(f, n)
	}
	x, y := l.bigFloat(prec), r.bigFloat(prec)
	z := new(big.Float).SetPrec(prec)
	switch op {
	case '+':
		z.Add(x, y)
	case '-':
		z.Sub(x, y)
	case '*':
		z.Mul(x, y)
	case '/':
		if y.Sign() == 0 {
			return floatValue(f, n)
		}
		z.Quo(x, y)
	}
	return longDoubleValue(z)
}

// floatCompare compares l and r, one of them floating: -1, 0, 1, or 2
// when either is a NaN (unordered: every comparison but != is false).
func floatCompare(l, r value) int {
	if (l.x != nil || r.x != nil) && l.finite() && r.finite() {
		return l.bigFloat(113).Cmp(r.bigFloat(113))
	}
	a, b := l.float(), r.float()
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	case a == b:
		return 0
	}
	return 2
}

// floatDigits is how many significant digits gdb prints for a floating
// type of n bytes.
func floatDigits(n uint8, m elf.Machine) int {
	switch n {
	case 4:
		return 9
	case 16:
		if x87(m) {
			return 21
		}
		return 36
	}
	return 17
}

// floatValueText prints a floating value as print does.
func floatValueText(v value, m elf.Machine) string {
	if v.fsize == 16 && v.x == nil && math.IsNaN(v.f) {
		// A long double NaN shows its own significand: x87's with the
		// integer bit (0xc000000000000000 for the default NaN), or
		// binary128's 112-bit fraction.
		bits := math.Float64bits(v.f)
		sign := ""
		if bits>>63 != 0 {
			sign = "-"
		}
		frac := bits & (1<<52 - 1)
		if x87(m) {
			return fmt.Sprintf("%snan(%#x)", sign, 1<<63|frac<<11)
		}
		return fmt.Sprintf("%snan(%#x)", sign, new(big.Int).Lsh(new(big.Int).SetUint64(frac), 60))
	}
	if v.x != nil && !v.x.IsInf() {
		return bigFloatText(v.x, floatDigits(16, m))
	}
	if v.fsize == 16 && !math.IsNaN(v.f) && !math.IsInf(v.f, 0) {
		return bigFloatText(new(big.Float).SetFloat64(v.f), floatDigits(16, m))
	}
	return floatText(v.f, floatDigits(v.fsize, m))
}

// bigFloatText prints x as C's %.{digits}Lg does.
func bigFloatText(x *big.Float, digits int) string {
	if x.Sign() == 0 {
		if x.Signbit() {
			return "-0"
		}
		return "0"
	}
	// %g: the exponent X of %e decides: %f when -4 <= X < digits.
	e := x.Text('e', digits-1)
	mant, exp, _ := strings.Cut(e, "e")
	x10, _ := strconv.Atoi(exp)
	if x10 < -4 || x10 >= digits {
		mant = trimFraction(mant)
		sign := "+"
		if x10 < 0 {
			sign, x10 = "-", -x10
		}
		return fmt.Sprintf("%se%s%02d", mant, sign, x10)
	}
	return trimFraction(x.Text('f', max(digits-1-x10, 0)))
}

// trimFraction drops a fraction's trailing zeros, and its point when
// nothing is left after it (%g without #).
func trimFraction(s string) string {
	if !strings.Contains(s, ".") {
		return s
	}
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

// longDouble decodes a 16-byte long double of machine m, in byte order
// bo: the x87 80-bit format in the low 10 bytes on x86-64, IEEE binary128
// elsewhere (AArch64, s390x). It returns the value as a *big.Float with
// the format's significand, or a NaN or infinity as a float64 (x nil).
func longDouble(b []byte, m elf.Machine, bo binary.ByteOrder) (x *big.Float, f float64) {
	if x87(m) {
		mant := binary.LittleEndian.Uint64(b[0:8])
		se := binary.LittleEndian.Uint16(b[8:10])
		neg, exp := se>>15 != 0, int(se&0x7fff)
		if exp == 0x7fff {
			if mant<<1 == 0 {
				return nil, math.Inf(sign(neg))
			}
			return nil, nanWithSign(neg)
		}
		if exp == 0 {
			exp = 1 // denormal: no integer bit
		}
		x = new(big.Float).SetPrec(64).SetUint64(mant)
		x.SetMantExp(x, exp-16383-63)
		if neg {
			x.Neg(x)
		}
		return x, 0
	}
	var hi, lo uint64
	if bo == binary.BigEndian {
		hi, lo = bo.Uint64(b[0:8]), bo.Uint64(b[8:16])
	} else {
		lo, hi = bo.Uint64(b[0:8]), bo.Uint64(b[8:16])
	}
	neg, exp := hi>>63 != 0, int(hi>>48&0x7fff)
	frac := new(big.Int).SetUint64(hi & (1<<48 - 1))
	frac.Lsh(frac, 64).Or(frac, new(big.Int).SetUint64(lo))
	if exp == 0x7fff {
		if frac.Sign() == 0 {
			return nil, math.Inf(sign(neg))
		}
		return nil, nanWithSign(neg)
	}
	if exp == 0 {
		exp = 1
	} else {
		frac.SetBit(frac, 112, 1) // the implicit integer bit
	}
	x = new(big.Float).SetPrec(113).SetInt(frac)
	x.SetMantExp(x, exp-16383-112)
	if neg {
		x.Neg(x)
	}
	return x, 0
}

func sign(neg bool) int {
	if neg {
		return -1
	}
	return 1
}

// nanWithSign is a quiet NaN with the given sign.
func nanWithSign(neg bool) float64 {
	bits := uint64(0x7ff8000000000000)
	if neg {
		bits |= 1 << 63
	}
	return math.Float64frombits(bits)
}

// longDoublePrec is the significand of machine m's long double.
func longDoublePrec(m elf.Machine) uint {
	if x87(m) {
		return 64
	}
	return 113
}

// parseFloatLiteral reads a C floating constant (1.5, .5, 1e10, 1.e3,
// 2.5f, 1.0L): the value with its type's size, ok false when text is no
// floating constant.
func parseFloatLiteral(text string, m elf.Machine) (value, bool, error) {
	if strings.HasPrefix(text, "0x") || strings.HasPrefix(text, "0X") {
		return value{}, false, nil
	}
	body, size := text, uint8(8)
	switch {
	case strings.HasSuffix(text, "f") || strings.HasSuffix(text, "F"):
		body, size = text[:len(text)-1], 4
	case strings.HasSuffix(text, "l") || strings.HasSuffix(text, "L"):
		body, size = text[:len(text)-1], 16
	}
	if !strings.ContainsAny(body, ".eE") {
		return value{}, false, nil
	}
	if size == 16 {
		x, _, err := big.ParseFloat(body, 10, longDoublePrec(m), big.ToNearestEven)
		if err != nil {
			return value{}, true, fmt.Errorf("Invalid number \"%s\".", text)
		}
		return longDoubleValue(x), true, nil
	}
	f, err := strconv.ParseFloat(body, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return value{}, true, fmt.Errorf("Invalid number \"%s\".", text)
	}
	return floatValue(f, size), true, nil
}

// floatBits returns the bits of floating value v in its type's size (for
// print/x, which gdb 13 applies to the representation).
func floatBits(v value) (uint64, int) {
	if v.fsize == 4 {
		return uint64(math.Float32bits(float32(v.f))), 32
	}
	return math.Float64bits(v.f), 64
}

// floatToInt converts a floating value to a C integer type of n bytes,
// truncating toward zero as C does.
func floatToInt(v value, n int, signed bool) uint64 {
	f := math.Trunc(v.f)
	var u uint64
	switch {
	case math.IsNaN(f):
		u = 1 << 63 // x86's "integer indefinite"
	case f >= 1<<64 && !signed:
		u = math.MaxUint64
	case f >= 1<<63 && signed:
		u = math.MaxInt64 // saturated, as gdb converts
	case f < -(1 << 63):
		u = 1 << 63 // MinInt64
	case signed || f < 0:
		u = uint64(int64(f))
	default:
		u = uint64(f)
	}
	return truncate(u, n, signed)
}

// floatLevel applies a comparison or a logical operator of
// binaryLevels (E N < > L G, A O) to l and r, one of them floating;
// the bitwise and shift operators are gdb's integer-only error.
func floatLevel(op byte, l, r value) (value, error) {
	if l.kind != kindFloat && l.kind != kindInt || r.kind != kindFloat && r.kind != kindInt {
		return value{}, errNotNumber
	}
	b := boolValue
	c := floatCompare(l, r)
	switch op {
	case 'O':
		return b(l.truth() || r.truth()), nil
	case 'A':
		return b(l.truth() && r.truth()), nil
	case 'E':
		return b(c == 0), nil
	case 'N':
		return b(c != 0), nil
	case '<':
		return b(c == -1), nil
	case '>':
		return b(c == 1), nil
	case 'L':
		return b(c == -1 || c == 0), nil
	case 'G':
		return b(c == 1 || c == 0), nil
	}
	return value{}, errIntegerOnly
}

// machine is the machine of the program being debugged (its first module
// with a known one), or the host's: long double's format depends on it.
func (s *Session) machine() elf.Machine {
	var sp *frames.Space
	if s.tgt != nil {
		sp, _ = s.tgt.Space()
	}
	return spaceMachine(sp)
}

// spaceMachine is the machine of the first module of sp with a known one,
// or the host's.
func spaceMachine(sp *frames.Space) elf.Machine {
	if sp != nil && sp.Modules != nil {
		for _, m := range sp.Modules.List() {
			if a, err := m.Arch(); err == nil {
				return a.Machine
			}
		}
	}
	return proc.HostArch.Machine
}

// cFloatConv formats f as C's printf conversion conv (f F e E g G) with
// flags (the text between % and the length modifier: -, +, space, #, 0,
// width, .precision) does.
func cFloatConv(conv byte, flags string, f float64) string {
	spec, prec := flags, -1
	if i := strings.IndexByte(flags, '.'); i >= 0 {
		spec = flags[:i]
		prec, _ = strconv.Atoi(flags[i+1:])
	}
	if prec < 0 {
		prec = 6
	}
	if math.IsInf(f, 0) || math.IsNaN(f) {
		text := "inf"
		if math.IsNaN(f) {
			text = "nan"
		}
		if conv >= 'A' && conv <= 'Z' {
			text = strings.ToUpper(text)
		}
		if math.Signbit(f) {
			text = "-" + text
		} else if strings.Contains(spec, "+") {
			text = "+" + text
		}
		return padTo(text, spec, false) // no zeros before inf
	}
	if conv != 'g' && conv != 'G' {
		return fmt.Sprintf("%"+spec+"."+strconv.Itoa(prec)+string(conv), f)
	}
	// %g: %e's exponent X decides; %f with precision P-1-X when
	// P > X >= -4, else %e with P-1; trailing zeros dropped without #.
	p := prec
	if p == 0 {
		p = 1
	}
	x := 0
	if f != 0 {
		e := strconv.FormatFloat(f, 'e', p-1, 64)
		x, _ = strconv.Atoi(e[strings.IndexByte(e, 'e')+1:])
	}
	var body string
	if p > x && x >= -4 {
		body = strconv.FormatFloat(math.Abs(f), 'f', p-1-x, 64)
		if !strings.Contains(spec, "#") {
			body = trimFraction(body)
		} else if !strings.Contains(body, ".") {
			body += "." // %#g keeps the point
		}
	} else {
		e := strconv.FormatFloat(math.Abs(f), 'e', p-1, 64)
		mant, exp, _ := strings.Cut(e, "e")
		if !strings.Contains(spec, "#") {
			mant = trimFraction(mant)
		}
		body = mant + "e" + exp
	}
	if conv == 'G' {
		body = strings.ToUpper(body)
	}
	switch {
	case math.Signbit(f):
		body = "-" + body
	case strings.Contains(spec, "+"):
		body = "+" + body
	case strings.Contains(spec, " "):
		body = " " + body
	}
	return padTo(body, spec, true)
}

// padTo pads text to the width of printf flags spec (the text between %
// and the precision): left-justified with -, with zeros after the sign
// when zeros is set and the flags hold 0, else with spaces before.
func padTo(text, spec string, zeros bool) string {
	flags := spec[:len(spec)-len(strings.TrimLeft(spec, "-+ #0"))]
	width, _ := strconv.Atoi(spec[len(flags):])
	switch {
	case len(text) >= width:
		return text
	case strings.Contains(flags, "-"):
		return text + strings.Repeat(" ", width-len(text))
	case zeros && strings.Contains(flags, "0"):
		sign := ""
		if text[0] == '-' || text[0] == '+' || text[0] == ' ' {
			sign, text = text[:1], text[1:]
		}
		return sign + strings.Repeat("0", width-len(text)-len(sign)) + text
	}
	return strings.Repeat(" ", width-len(text)) + text
}

// asInt is v as an integer: a floating value truncated toward zero.
func asInt(v value) uint64 {
	if v.kind == kindFloat {
		return floatToInt(v, 8, true)
	}
	return v.v
}

// floatOfType is the floating value of type t in b: a float, a double,
// or machine m's long double (longDouble).
func floatOfType(t *dwarf.FloatType, b []byte, m elf.Machine) (value, bool) {
	switch n := t.Size(); {
	case n == 4 && len(b) >= 4:
		return floatValue(float64(math.Float32frombits(uint32(uintOf(b[:4])))), 4), true
	case n == 8 && len(b) >= 8:
		return floatValue(math.Float64frombits(uintOf(b[:8])), 8), true
	case n == 16 && len(b) >= 16:
		if x, f := longDouble(b[:16], m, binary.NativeEndian); x != nil {
			return longDoubleValue(x), true
		} else {
			return floatValue(f, 16), true
		}
	}
	return value{}, false
}

// x87 reports whether machine m's long double is the x87 80-bit format
// (x86), not IEEE binary128 (AArch64, s390x).
func x87(m elf.Machine) bool { return m == elf.EM_X86_64 || m == elf.EM_386 }
