package debugger

import (
	"bytes"
	"debug/dwarf"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/sfdbg/sfdbg/debugger/proc"
	"github.com/sfdbg/sfdbg/frames"
)

// valueKind is the type an expression's value has for printing and
// arithmetic, as far as sfdbg knows without DWARF types: an integer
// (long), a data pointer (void *: $sp, &var) or a code pointer
// (void (*)(): $pc, a function).
type valueKind uint8

const (
	kindInt valueKind = iota
	kindData
	kindCode
	kindFloat  // float, double, long double: f, fsize (cfloat.go)
	kindString // a string literal: str
	kindObject // a struct, union or array not in memory: obj only (v its address)
)

// value is the result of an expression.
type value struct {
	v    uint64
	kind valueKind
	// char is set for a value cast to a char type (print shows the
	// character too: 44 ','), or with kindData to char * (print shows
	// the string).
	char bool
	// isize and unsigned are a kindInt's C type (cint.go): its size in
	// bytes (0: long, a value of no known type) and signedness. v holds
	// the value sign- or zero-extended from that width.
	isize    uint8
	unsigned bool
	// f is a kindFloat's value and fsize its C type's size (4 float, 8
	// double, 16 long double); x, when not nil, is a long double's exact
	// value, f its nearest double.
	f     float64
	fsize uint8
	x     *big.Float
	// str is a kindString's characters (a literal, without its NUL).
	str string
	// obj is the C object the value is, when known (ctyped.go): a
	// variable, member or element, what a typed pointer points at, a
	// typed pointer made by arithmetic or a cast.
	obj *typed
}

// evalAddr evaluates an address expression (evalExpr) to a number.
func (s *Session) evalAddr(expr string) (uint64, error) {
	v, err := s.evalExpr(expr)
	return asInt(v), err
}

// evalExpr evaluates an expression as gdb's print and x read it, in the
// selected frame: numbers (0x hex, 0 octal, decimal), registers ($pc,
// $sp, $fp, $cfa, $rax, ...), value history ($, $N), function names (their
// address), data symbols (their value, read with the symbol's size), &sym,
// *EXPR (the 64-bit word at EXPR, gdb's *(long *)EXPR), unary -, + - * /
// and parentheses, with C's precedence. Pointer arithmetic is in bytes.
func (s *Session) evalExpr(expr string) (value, error) {
	toks, err := tokenize(derefMember().ReplaceAllString(expr, "$1->"))
	if err != nil {
		return value{}, err
	}
	if len(toks) == 0 {
		return value{}, errors.New("Argument required (expression to compute).")
	}
	p := &exprParser{s: s, toks: toks}
	v, err := p.logicalOr()
	if err != nil {
		return value{}, err
	}
	if p.i < len(p.toks) {
		return value{}, fmt.Errorf("A syntax error in expression, near `%s'.", p.rest())
	}
	return v, nil
}

type token struct {
	kind byte // 'n' number, 'i' identifier, '$' register or history, or the operator itself
	text string
	pos  int // byte offset in the expression
}

func tokenize(expr string) ([]token, error) {
	var toks []token
	isIdent := func(c byte, first bool) bool {
		return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || !first && (c >= '0' && c <= '9' || c == '.' || c == '@')
	}
	for i := 0; i < len(expr); {
		c := expr[i]
		switch {
		case c == ' ' || c == '\t':
			i++
		case i+1 < len(expr) && twoCharOp[expr[i:i+2]] != 0:
			toks = append(toks, token{twoCharOp[expr[i:i+2]], expr[i : i+2], i})
			i += 2
		case strings.IndexByte("+-*/()&%<>!~|^[]?:", c) >= 0:
			toks = append(toks, token{c, expr[i : i+1], i})
			i++
		case c == '.' && i+1 < len(expr) && isIdent(expr[i+1], true):
			toks = append(toks, token{'.', ".", i}) // (EXPR).MEMBER
			i++
		case c >= '0' && c <= '9' || c == '.' && i+1 < len(expr) && expr[i+1] >= '0' && expr[i+1] <= '9':
			j := numberEnd(expr, i)
			toks = append(toks, token{'n', expr[i:j], i})
			i = j
		case c == '\'':
			// A character constant: 'a', '\n', '\0', '\x41', '\101'.
			end := strings.IndexByte(expr[i+1:], '\'')
			if end > 0 && expr[i+1] == '\\' && expr[i+1+end-1] == '\\' {
				if e2 := strings.IndexByte(expr[i+1+end+1:], '\''); e2 >= 0 {
					end += 1 + e2 // '\''
				}
			}
			if end <= 0 {
				return nil, errors.New("Unmatched single quote.")
			}
			toks = append(toks, token{'\'', expr[i+1 : i+1+end], i})
			i += end + 2
		case c == '"':
			str, rest, err := cStringLiteral(expr[i:])
			if err != nil {
				return nil, err
			}
			toks = append(toks, token{'"', str, i})
			i = len(expr) - len(rest)
		case c == '$':
			j := i + 1
			if j < len(expr) && (expr[j] == '$' || expr[j] >= '0' && expr[j] <= '9' || !isIdent(expr[j], true)) {
				// The value history ($, $N, $$, $$N): what follows is
				// an operator ($3.key, $1->x, $[0]).
				for j < len(expr) && (expr[j] == '$' || expr[j] >= '0' && expr[j] <= '9') {
					j++
				}
				toks = append(toks, token{'$', expr[i:j], i})
				i = j
				break
			}
			for j < len(expr) && (isIdent(expr[j], false) || expr[j] == '$') {
				j++
			}
			toks = append(toks, token{'$', expr[i:j], i})
			i = j
		case isIdent(c, true):
			j := i
			for j < len(expr) && isIdent(expr[j], false) {
				j++
			}
			// A variable path: NAME then ->FIELD and [INDEX] steps (.FIELD
			// is in the identifier), evaluated as print evaluates it.
			for {
				if strings.HasPrefix(expr[j:], "->") {
					k := j + 2
					for k < len(expr) && isIdent(expr[k], k == j+2) {
						k++
					}
					if k == j+2 {
						break
					}
					j = k
					continue
				}
				if j < len(expr) && expr[j] == '[' {
					end := strings.IndexByte(expr[j:], ']')
					if end < 0 {
						break
					}
					j += end + 1
					for j < len(expr) && isIdent(expr[j], false) {
						j++
					}
					continue
				}
				break
			}
			toks = append(toks, token{'i', expr[i:j], i})
			i = j
		default:
			return nil, fmt.Errorf("Invalid character '%c' in expression.", c)
		}
	}
	return toks, nil
}

// numberEnd returns where the C number at expr[i] ends: hex digits after
// 0x, else digits, a fraction, an exponent with its sign (1e-5, 1.e3,
// .5), then suffix letters (2.5f, 10UL).
func numberEnd(expr string, i int) int {
	digits := func(j int, hex bool) int {
		for j < len(expr) && (expr[j] >= '0' && expr[j] <= '9' || hex && strings.IndexByte("abcdefABCDEF", expr[j]) >= 0) {
			j++
		}
		return j
	}
	j := i
	if strings.HasPrefix(expr[i:], "0x") || strings.HasPrefix(expr[i:], "0X") {
		j = digits(i+2, true)
	} else {
		j = digits(i, false)
		if j < len(expr) && expr[j] == '.' {
			j = digits(j+1, false)
		}
		if j < len(expr) && (expr[j] == 'e' || expr[j] == 'E') {
			k := j + 1
			if k < len(expr) && (expr[k] == '+' || expr[k] == '-') {
				k++
			}
			if e := digits(k, false); e > k {
				j = e
			}
		}
	}
	for j < len(expr) && strings.IndexByte("uUlLfF", expr[j]) >= 0 {
		j++
	}
	return j
}

// twoCharOp maps C's two-character operators to their token kinds.
var twoCharOp = map[string]byte{"==": 'E', "!=": 'N', "<=": 'L', ">=": 'G', "&&": 'A', "||": 'O', "<<": 'l', ">>": 'r', "->": 'R'}

type exprParser struct {
	s    *Session
	toks []token
	i    int
}

func (p *exprParser) peek() byte {
	if p.i < len(p.toks) {
		return p.toks[p.i].kind
	}
	return 0
}

func (p *exprParser) rest() string {
	var b []string
	for _, t := range p.toks[p.i:] {
		b = append(b, t.text)
	}
	return strings.Join(b, " ")
}

var errNotNumber = errors.New("Argument to arithmetic operation not a number or boolean.")

// binaryLevels are C's binary operators above + and -, loosest first:
// each level parses the next one's operands (logicalOr is the loosest).
var binaryLevels = [][]byte{{'O'}, {'A'}, {'|'}, {'^'}, {'&'}, {'E', 'N'}, {'<', '>', 'L', 'G'}, {'l', 'r'}}

// logicalOr parses an expression: C's conditional operator over the
// binary levels (COND ? A : B, right-associative, only the branch taken
// evaluated).
func (p *exprParser) logicalOr() (value, error) {
	c, err := p.level(0)
	if err != nil || p.peek() != '?' {
		return c, err
	}
	p.i++
	if c.kind == kindObject || c.kind == kindString {
		return value{}, errNotNumber
	}
	var v value
	if c.truth() {
		if v, err = p.logicalOr(); err != nil {
			return v, err
		}
		if p.peek() != ':' {
			return value{}, fmt.Errorf("A syntax error in expression, near `%s'.", p.rest())
		}
		p.i++
		p.skipBranch()
		return v, nil
	}
	p.skipBranch()
	if p.peek() != ':' {
		return value{}, fmt.Errorf("A syntax error in expression, near `%s'.", p.rest())
	}
	p.i++
	return p.logicalOr()
}

// skipBranch moves past one branch of a conditional without evaluating
// it: up to its ':' (nested conditionals skipped whole), or the end of
// the enclosing group.
func (p *exprParser) skipBranch() {
	nested := 0
	p.skipTo(func(k byte) bool {
		switch k {
		case '?':
			nested++
		case ':':
			if nested == 0 {
				return true
			}
			nested--
		}
		return false
	})
}

// skipTo moves past tokens without evaluating them, up to the first one
// outside parentheses and brackets for which stop is true, or the ')' or
// ']' that closes the enclosing group.
func (p *exprParser) skipTo(stop func(kind byte) bool) {
	depth := 0
	for ; p.i < len(p.toks); p.i++ {
		switch k := p.toks[p.i].kind; {
		case k == '(' || k == '[':
			depth++
		case k == ')' || k == ']':
			if depth == 0 {
				return
			}
			depth--
		case depth == 0 && stop(k):
			return
		}
	}
}

// level parses the operators of binaryLevels[n], left to right, with C's
// semantics on 64-bit values: comparisons are signed between numbers and
// unsigned between pointers, and give 0 or 1 as && and || do.
func (p *exprParser) level(n int) (value, error) {
	next := func() (value, error) {
		if n+1 < len(binaryLevels) {
			return p.level(n + 1)
		}
		return p.sum()
	}
	l, err := next()
	if err != nil {
		return l, err
	}
	for {
		op := p.peek()
		if bytes.IndexByte(binaryLevels[n], op) < 0 {
			return l, nil
		}
		p.i++
		if op == 'A' && !l.truth() || op == 'O' && l.truth() {
			// C's short circuit: the right operand is not evaluated
			// (p && p->x == 5 with p null is 0, not a memory error).
			p.skipOperand(n)
			l = boolValue(op == 'O')
			continue
		}
		r, err := next()
		if err != nil {
			return r, err
		}
		if l.kind == kindObject || r.kind == kindObject {
			return value{}, objectOperandError(op, l, r)
		}
		if l.kind == kindString || r.kind == kindString {
			return value{}, errNotNumber
		}
		if l.kind == kindFloat || r.kind == kindFloat {
			if l, err = floatLevel(op, l, r); err != nil {
				return value{}, err
			}
			continue
		}
		ptr := l.kind != kindInt || r.kind != kindInt
		if !ptr && op != 'O' && op != 'A' {
			l, _ = intBinary(op, l, r)
			continue
		}
		lt := l.v < r.v // pointers: integers went to intBinary
		b := boolValue
		switch op {
		case 'O':
			l = b(l.v != 0 || r.v != 0)
		case 'A':
			l = b(l.v != 0 && r.v != 0)
		case '|':
			l = value{v: l.v | r.v, kind: kindInt}
		case '^':
			l = value{v: l.v ^ r.v, kind: kindInt}
		case '&':
			l = value{v: l.v & r.v, kind: kindInt}
		case 'E':
			l = b(l.v == r.v)
		case 'N':
			l = b(l.v != r.v)
		case '<':
			l = b(lt)
		case '>':
			l = b(!lt && l.v != r.v)
		case 'L':
			l = b(lt || l.v == r.v)
		case 'G':
			l = b(!lt)
		case 'l':
			l = value{v: l.v << (r.v & 63), kind: kindInt}
		case 'r':
			l = value{v: uint64(int64(l.v) >> (r.v & 63)), kind: kindInt}
		}
	}
}

// skipOperand moves past the right operand of an operator of
// binaryLevels[n] without evaluating it: up to the next operator of that
// level or a looser one (a conditional's ? and : included), or the end
// of the enclosing group.
func (p *exprParser) skipOperand(n int) {
	p.skipTo(func(k byte) bool {
		if k == '?' || k == ':' {
			return true
		}
		for lv := 0; lv <= n; lv++ {
			if bytes.IndexByte(binaryLevels[lv], k) >= 0 {
				return true
			}
		}
		return false
	})
}

// sum parses term (('+'|'-') term)*.
func (p *exprParser) sum() (value, error) {
	l, err := p.product()
	if err != nil {
		return l, err
	}
	for op := p.peek(); op == '+' || op == '-'; op = p.peek() {
		p.i++
		r, err := p.product()
		if err != nil {
			return r, err
		}
		if l.kind == kindFloat || r.kind == kindFloat {
			if l.kind != kindFloat && l.kind != kindInt || r.kind != kindFloat && r.kind != kindInt {
				return value{}, errNotNumber
			}
			l = floatArith(op, l, r, longDoublePrec(p.s.machine()))
			continue
		}
		if _, _, ok := l.elem(); ok && r.kind == kindInt {
			l = ptrOffset(l, int64(r.v), op == '-') // p + 1: the next object
			continue
		}
		if _, _, ok := r.elem(); ok && l.kind == kindInt && op == '+' {
			l = ptrOffset(r, int64(l.v), false)
			continue
		}
		if op == '-' {
			if d, ok, err := ptrDiff(l, r); ok {
				if err != nil {
					return value{}, err
				}
				l = d
				continue
			}
		}
		switch {
		case l.kind == kindObject || r.kind == kindObject:
			return value{}, objectOperandError(op, l, r)
		case l.kind == kindString || r.kind == kindString:
			return value{}, errNotNumber
		case op == '+' && l.kind != kindInt && r.kind != kindInt,
			op == '-' && l.kind == kindInt && r.kind != kindInt:
			return value{}, errNotNumber
		case l.kind == kindInt && r.kind == kindInt:
			l, _ = intBinary(op, l, r)
		case op == '+':
			l = value{v: l.v + r.v, kind: max(l.kind, r.kind)}
		case l.kind != kindInt && r.kind != kindInt:
			l = value{v: l.v - r.v, kind: kindInt} // pointer difference in bytes
		default:
			l = value{v: l.v - r.v, kind: l.kind}
		}
	}
	return l, nil
}

// product parses unary (('*'|'/') unary)*.
func (p *exprParser) product() (value, error) {
	l, err := p.unary()
	if err != nil {
		return l, err
	}
	for op := p.peek(); op == '*' || op == '/' || op == '%'; op = p.peek() {
		p.i++
		r, err := p.unary()
		if err != nil {
			return r, err
		}
		if (l.kind == kindFloat || r.kind == kindFloat) && (l.kind == kindFloat || l.kind == kindInt) && (r.kind == kindFloat || r.kind == kindInt) {
			if op == '%' {
				return value{}, errIntegerOnly
			}
			l = floatArith(op, l, r, longDoublePrec(p.s.machine()))
			continue
		}
		if l.kind == kindObject || r.kind == kindObject {
			return value{}, objectOperandError(op, l, r)
		}
		if l.kind != kindInt || r.kind != kindInt {
			return value{}, errNotNumber
		}
		v, ok := intBinary(op, l, r)
		if !ok {
			return value{}, errors.New("Division by zero")
		}
		l = v
	}
	return l, nil
}

// unary parses '-' unary | '*' unary | '&' symbol | '(' sum ')' | primary.
func (p *exprParser) unary() (value, error) {
	if p.i >= len(p.toks) {
		return value{}, errors.New("A syntax error in expression, near `'.")
	}
	t := p.toks[p.i]
	switch t.kind {
	case '-':
		p.i++
		v, err := p.unary()
		if err != nil {
			return v, err
		}
		if v.kind == kindFloat {
			// gdb's value_neg is 0 - v (a NaN keeps its sign).
			return floatArith('-', floatValue(0, v.fsize), v, longDoublePrec(p.s.machine())), nil
		}
		if v.kind != kindInt {
			return value{}, errors.New("Argument to negate operation not a number.")
		}
		size, unsigned := v.intType()
		return intValue(-v.v, size, unsigned), nil
	case '!', '~':
		p.i++
		v, err := p.unary()
		if err != nil {
			return v, err
		}
		if v.kind == kindString || v.kind == kindObject {
			return value{}, errNotNumber
		}
		if t.kind == '~' {
			if v.kind == kindFloat {
				return value{}, errors.New("Argument to complement operation not an integer, boolean.")
			}
			size, unsigned := v.intType()
			return intValue(^v.v, size, unsigned), nil
		}
		return boolValue(!v.truth()), nil
	case '*':
		p.i++
		v, err := p.unary()
		if err != nil {
			return v, err
		}
		if v.kind == kindFloat || v.kind == kindString || v.kind == kindObject {
			return value{}, errors.New("Attempt to take contents of a non-pointer value.")
		}
		if _, _, ok := v.elem(); ok {
			return p.deref(v, 0) // *p: the object, with its type
		}
		sp, err := p.s.space()
		if err != nil {
			return value{}, err
		}
		w, err := frames.ReadUint64(sp.Mem, v.v)
		if err != nil {
			return value{}, fmt.Errorf("Cannot access memory at address %#x", v.v)
		}
		return value{v: w, kind: kindInt}, nil
	case '&':
		p.i++
		if p.peek() != 'i' {
			// &EXPR of an object in memory (&*r, &(r->at)).
			v, err := p.unary()
			if err != nil {
				return v, err
			}
			if v.obj == nil || !v.obj.inMem {
				return value{}, errors.New("Attempt to take address of value not located in memory.")
			}
			return pointerValue(nil, v.obj.t, v.obj.addr), nil
		}
		name := p.toks[p.i].text
		p.i++
		if vp, ok := parseVarPath("&" + name); ok && strings.ContainsAny(name, ".[>") {
			if v, found, err := p.s.pathNumber(vp); found {
				return v, err
			}
		}
		return p.s.symbolValue(name, true)
	case '(':
		if size, ptr, ct, n, ok := p.s.typeAt(p.toks[p.i+1:]); ok {
			// A cast: (long)x, (unsigned char)x, (char *)p,
			// (struct rec *)q.
			p.i += 1 + n + 1
			v, err := p.unary()
			if err != nil {
				return v, err
			}
			if v.kind == kindString || v.kind == kindObject {
				return value{}, errors.New("Invalid cast.")
			}
			if ptr && v.kind != kindFloat {
				pt := under(ct).(*dwarf.PtrType)
				pv := pointerValue(ct, pt.Type, v.v)
				pv.char = size.bytes == 1 && size.char
				return pv, nil
			}
			switch {
			case size.float && !ptr:
				if size.bytes == 16 && v.finite() {
					return longDoubleValue(v.bigFloat(longDoublePrec(p.s.machine()))), nil
				}
				return floatValue(v.float(), uint8(size.bytes)), nil
			case v.kind == kindFloat && ptr:
				return value{}, errors.New("Invalid cast.")
			case size.boolean && !ptr:
				return boolTyped(asInt(v) != 0), nil // (_Bool)2 is true; (_Bool)0.5 false, as gdb converts
			case v.kind == kindFloat:
				return value{v: floatToInt(v, size.bytes, size.signed), kind: kindInt, char: size.char, isize: uint8(size.bytes), unsigned: !size.signed}, nil
			case ptr:
				return value{v: v.v, kind: kindData, char: size.bytes == 1 && size.char}, nil
			}
			return value{v: truncate(v.v, size.bytes, size.signed), kind: kindInt, char: size.char, isize: uint8(size.bytes), unsigned: !size.signed}, nil
		}
		p.i++
		v, err := p.logicalOr()
		if err != nil {
			return v, err
		}
		if p.peek() != ')' {
			return value{}, fmt.Errorf("A syntax error in expression, near `%s'.", p.rest())
		}
		p.i++
		return p.postfix(v)
	case 'n':
		p.i++
		if v, ok, err := parseFloatLiteral(t.text, p.s.machine()); ok {
			return v, err
		}
		v, err := intLiteral(t.text)
		if err != nil {
			return value{}, fmt.Errorf("Invalid number \"%s\".", t.text)
		}
		return v, nil
	case '$':
		p.i++
		v, err := p.s.dollarValue(t.text[1:])
		if err != nil {
			return v, err
		}
		return p.postfix(v)
	case '"':
		p.i++
		return value{kind: kindString, str: t.text}, nil
	case '\'':
		p.i++
		c, _, tail, err := strconv.UnquoteChar(t.text, '\'')
		if oct := strings.TrimPrefix(t.text, "\\"); err != nil && len(oct) >= 1 && len(oct) <= 3 && len(oct) < len(t.text) {
			// C's short octal escapes ('\0', '\12'), which Go's need 3 digits for.
			if n, perr := strconv.ParseUint(oct, 8, 8); perr == nil {
				c, tail, err = rune(n), "", nil
			}
		}
		if err != nil || tail != "" || c > 0xff {
			return value{}, fmt.Errorf("Invalid character constant '%s'.", t.text)
		}
		return value{v: truncate(uint64(c), 1, true), kind: kindInt, char: true, isize: 1}, nil
	case 'i':
		if t.text == "sizeof" {
			return p.sizeof()
		}
		p.i++
		if strings.ContainsAny(t.text, ".[>") {
			if vp, ok := parseVarPath(t.text); ok {
				if v, found, err := p.s.pathNumber(vp); found {
					if err != nil {
						return v, err
					}
					return p.postfix(v)
				}
			}
		}
		v, err := p.s.symbolValue(t.text, false)
		if err != nil {
			return v, err
		}
		return p.postfix(v)
	}
	return value{}, fmt.Errorf("A syntax error in expression, near `%s'.", p.rest())
}

// dollarValue is $NAME: the value history ($, $N, $$, $$N) or a register
// of the selected frame.
func (s *Session) dollarValue(name string) (value, error) {
	hist := func(back bool, n int) (value, error) {
		i := n - 1
		if back {
			i = len(s.history) - 1 - n
		}
		if len(s.history) == 0 {
			return value{}, errors.New("History is empty.")
		}
		if i < 0 || i >= len(s.history) {
			return value{}, fmt.Errorf("History has not yet reached $%s.", name)
		}
		return s.history[i], nil
	}
	switch {
	case name == "":
		return hist(true, 0)
	case name == "$":
		return hist(true, 1)
	case strings.HasPrefix(name, "$"):
		if n, err := strconv.Atoi(name[1:]); err == nil {
			return hist(true, n)
		}
	case name[0] >= '0' && name[0] <= '9':
		if n, err := strconv.Atoi(name); err == nil {
			return hist(false, n)
		}
	case name[0] == '_':
		if v, ok, err := s.convenienceValue(name); ok {
			return v, err
		}
	}
	r, err := s.register(name)
	if err != nil {
		return value{}, err
	}
	kind := kindInt
	switch strings.ToLower(name) {
	case "pc", "rip":
		kind = kindCode
	case "sp", "rsp", "fp", "rbp", "cfa":
		kind = kindData
	}
	if _, _, bits, ok := subRegister(name); ok && kind == kindInt && bits < 64 {
		// A register's part is an int of its width ($eax, $ax, $al),
		// as gdb's int32_t/int16_t/int8_t.
		return intValue(r, int(bits/8), false), nil
	}
	return value{v: r, kind: kind}, nil
}

// symbolValue is a function's address (a code pointer), a data symbol's
// value (read from memory with its size), or with addr set, either's
// address.
func (s *Session) symbolValue(name string, addr bool) (value, error) {
	sp, err := s.space()
	if err != nil {
		return value{}, err
	}
	// A C variable of the selected frame (or a global with DWARF) first,
	// as gdb looks names up (locals.go).
	if v, ok, err := s.varNumber(name, addr); ok {
		return v, err
	}
	if a, _, ok := lookupFunction(sp, name); ok {
		return value{v: a, kind: kindCode}, nil
	}
	a, size, ok := lookupData(sp, name)
	if !ok {
		return value{}, fmt.Errorf("No symbol \"%s\" in current context.", name)
	}
	if addr {
		return value{v: a, kind: kindData}, nil
	}
	if size != 1 && size != 2 && size != 4 && size != 8 {
		return value{}, fmt.Errorf("'%s' is %d bytes, not a number; use &%s, or x/%dxb &%s.", name, size, name, size, name)
	}
	b := make([]byte, size)
	if n, err := sp.Mem.ReadAt(b, a); n < int(size) {
		_ = err
		return value{}, fmt.Errorf("Cannot access memory at address %#x", a)
	}
	v := uintOf(b)
	shift := 64 - 8*size
	return value{v: uint64(int64(v<<shift) >> shift), kind: kindInt}, nil
}

// register returns a register of the selected frame by name: the
// registers the unwind knows there (frame 0: all of them), pc, sp, fp
// (rip, rsp, rbp) and cfa.
func (s *Session) register(name string) (uint64, error) {
	n, tr, err := s.selected()
	if err != nil {
		return 0, err
	}
	tf := &tr.Frames[n]
	name = strings.ToLower(name)
	switch name {
	case "cfa":
		if tf.CFA != 0 {
			return tf.CFA, nil
		}
		return 0, errors.New("The CFA of the selected frame is not known.")
	case "pc":
		return tf.PC, nil
	case "sp":
		name = proc.HostArch.RegName(proc.HostArch.SP)
	case "fp":
		name = proc.HostArch.RegName(proc.HostArch.FP)
	}
	if reg, ok := proc.HostArch.RegNamed(name); ok {
		f, ok := tr.FrameAt(n)
		if !ok {
			return 0, fmt.Errorf("cannot recompute the registers of frame %d", n)
		}
		if v, ok := f.Regs.Get(reg); ok {
			return v, nil
		}
		return 0, fmt.Errorf("$%s is not known in frame %d (not saved).", name, tf.Level)
	}
	if tf.Level == 0 {
		list, err := s.tgt.RegList(s.thread)
		if err == nil {
			for _, r := range list {
				if r.Name == name {
					return r.Value, nil
				}
			}
		}
	}
	if full, shift, bits, ok := subRegister(name); ok {
		v, err := s.register(full)
		if err != nil {
			return 0, err
		}
		// gdb's types: $eax int32, $ax int16, $al and $ah int8, $w0 int32.
		v = v >> shift << (64 - bits)
		return uint64(int64(v) >> (64 - bits)), nil
	}
	return 0, fmt.Errorf("Invalid register $%s.", name)
}

// subRegister maps the name of a part of a register, as gdb names the
// pseudo-registers (amd64: eax ax al ah, r8d r8w r8l; aarch64: w0-w30),
// to the full register, the part's shift and its width in bits.
func subRegister(name string) (full string, shift, bits uint, ok bool) {
	legacy := map[string]string{"a": "rax", "b": "rbx", "c": "rcx", "d": "rdx"}
	idx := map[string]string{"si": "rsi", "di": "rdi", "bp": "rbp", "sp": "rsp"}
	switch {
	case len(name) == 3 && name[0] == 'e' && name[2] == 'x' && legacy[name[1:2]] != "":
		return legacy[name[1:2]], 0, 32, true // eax
	case len(name) == 2 && name[1] == 'x' && legacy[name[:1]] != "":
		return legacy[name[:1]], 0, 16, true // ax
	case len(name) == 2 && name[1] == 'l' && legacy[name[:1]] != "":
		return legacy[name[:1]], 0, 8, true // al
	case len(name) == 2 && name[1] == 'h' && legacy[name[:1]] != "":
		return legacy[name[:1]], 8, 8, true // ah
	case len(name) == 3 && name[0] == 'e' && idx[name[1:]] != "":
		return idx[name[1:]], 0, 32, true // esi
	case idx[name] != "":
		return idx[name], 0, 16, true // si
	case len(name) == 3 && name[2] == 'l' && idx[name[:2]] != "":
		return idx[name[:2]], 0, 8, true // sil
	case strings.HasPrefix(name, "r") && len(name) >= 3:
		n, err := strconv.Atoi(strings.TrimRight(name[1:], "dwl"))
		if err != nil || n < 8 || n > 15 || len(name) != len(strconv.Itoa(n))+2 {
			return "", 0, 0, false
		}
		full = "r" + strconv.Itoa(n)
		switch name[len(name)-1] {
		case 'd':
			return full, 0, 32, true // r8d
		case 'w':
			return full, 0, 16, true // r8w
		case 'l':
			return full, 0, 8, true // r8l
		}
	case strings.HasPrefix(name, "w"):
		if n, err := strconv.Atoi(name[1:]); err == nil && n >= 0 && n <= 30 && name[1:] == strconv.Itoa(n) {
			return "x" + strconv.Itoa(n), 0, 32, true // w0
		}
	}
	return "", 0, 0, false
}

// formatValue prints v as print does: an integer in decimal, a data
// pointer as (void *) 0x..., a code pointer with its symbol; fmtLetter
// (x, d, u, o, t, a, c) overrides.
func formatValue(sp *frames.Space, v value, fmtLetter byte) (string, error) {
	if v.obj != nil && v.obj.t != nil && (fmtLetter == 0 || strings.IndexByte("xduotacf", fmtLetter) >= 0) {
		return formatObject(&cFormatter{sp: sp}, v, fmtLetter), nil
	}
	switch v.kind {
	case kindString:
		if fmtLetter != 0 {
			return "", fmt.Errorf("sfdbg does not print a string literal in format /%c", fmtLetter)
		}
		return stringText([]byte(v.str), false), nil
	case kindFloat:
		switch fmtLetter {
		case 0, 'f':
			return floatValueText(v, spaceMachine(sp)), nil
		case 'c':
			v = value{v: floatToInt(v, 1, true), kind: kindInt}
		default:
			// gdb 13's print/x of a floating value shows its
			// representation.
			bits, _ := floatBits(v)
			v = value{v: bits, kind: kindInt}
		}
	}
	switch fmtLetter {
	case 0:
	case 'x', 'd', 'u', 'o', 't', 'c':
		// An int in its own size (print/x of an int -1: 0xffffffff).
		return (&cFormatter{sp: sp, letter: fmtLetter}).letterText(v.v, 8*int(v.intSize())), nil
	case 'a':
		return fmt.Sprintf("%#x%s", v.v, symbolSuffix(sp, v.v)), nil
	case 'f':
		// An integer's bits as a float (an int's 4 bytes) or a double.
		if int64(v.v) == int64(int32(v.v)) {
			return floatText(float64(math.Float32frombits(uint32(v.v))), 9), nil
		}
		return floatText(math.Float64frombits(v.v), 17), nil
	default:
		return "", fmt.Errorf("Undefined output format \"%c\".", fmtLetter)
	}
	switch {
	case v.kind == kindData && v.char:
		// gdb's char *: the address and the string.
		f := &cFormatter{sp: sp}
		return fmt.Sprintf("%#x %s", v.v, f.cStringAt(v.v)), nil
	case v.kind == kindInt && v.char:
		return fmt.Sprintf("%d %s", int64(v.v), charLiteral(byte(v.v))), nil
	}
	switch v.kind {
	case kindData:
		return fmt.Sprintf("(void *) %#x%s", v.v, symbolSuffix(sp, v.v)), nil
	case kindCode:
		return fmt.Sprintf("(void (*)()) %#x%s", v.v, symbolSuffix(sp, v.v)), nil
	}
	if v.unsigned {
		return strconv.FormatUint(v.v, 10), nil
	}
	return strconv.FormatInt(int64(v.v), 10), nil
}

// cmdPrint implements "print[/F] EXPR".
func cmdPrint(s *Session, args string) error {
	var letter byte
	if rest, ok := strings.CutPrefix(args, "/"); ok {
		spec, a := splitWord(rest)
		if len(spec) != 1 {
			return fmt.Errorf("Invalid format /%s: print takes one letter (x d u o t a c).", spec)
		}
		letter, args = spec[0], a
	}
	if strings.TrimSpace(args) == "" {
		if len(s.history) == 0 {
			return errors.New("Argument required (expression to compute).")
		}
		args = "$"
	}
	if handled, err := s.printVar(args, letter); handled || err != nil {
		return err
	}
	v, err := s.evalExpr(args)
	if err != nil {
		return err
	}
	sp, _ := s.space() // nil without a process: numbers, history, $_exitcode
	text, err := formatValue(sp, v, letter)
	if err != nil {
		return err
	}
	if letter == 0 && strings.TrimSpace(args) == "$eflags" {
		text = eflagsText(v.v) // gdb's i386_eflags type: "[ PF ZF IF ]"
	}
	s.history = append(s.history, v)
	s.printf("$%d = %s\n", len(s.history), text)
	return nil
}

// cmdInfoSymbol implements "info symbol ADDR": the symbol and section
// holding ADDR, as gdb prints them ("spin_here + 19 in section .text of
// /path/prog").
func cmdInfoSymbol(s *Session, args string) error {
	if strings.TrimSpace(args) == "" {
		return errors.New("Argument required (address).")
	}
	a, err := s.evalAddr(args)
	if err != nil {
		return err
	}
	sp, err := s.space()
	if err != nil {
		return err
	}
	name, off, m := symbolAt(sp, a)
	if name == "" {
		s.printf("No symbol matches %s.\n", strings.TrimSpace(args))
		return nil
	}
	loc := name
	if off != 0 {
		loc = fmt.Sprintf("%s + %d", name, off)
	}
	sec := sectionOf(m, a)
	if sec == "" {
		sec = "?"
	}
	if len(sp.Modules.List()) > 1 {
		s.printf("%s in section %s of %s\n", loc, sec, m.Path)
	} else {
		s.printf("%s in section %s\n", loc, sec)
	}
	return nil
}

// cType is a C scalar type's size and signedness, as casts and sizeof
// use them.
type cType struct {
	bytes  int
	signed bool
	char   bool // char, signed char, unsigned char
	float  bool // float, double, long double
	// boolean is _Bool: a cast tests for non-zero.
	boolean bool
}

// baseTypes are C's integer type names (GCC's sizes on LP64).
var baseTypes = map[string]cType{
	"char": {1, true, true, false, false}, "signed char": {1, true, true, false, false}, "unsigned char": {1, false, true, false, false}, "_Bool": {1, false, false, false, true}, "bool": {1, false, false, false, true},
	"short": {2, true, false, false, false}, "short int": {2, true, false, false, false}, "unsigned short": {2, false, false, false, false}, "unsigned short int": {2, false, false, false, false},
	"int": {4, true, false, false, false}, "signed": {4, true, false, false, false}, "signed int": {4, true, false, false, false}, "unsigned": {4, false, false, false, false}, "unsigned int": {4, false, false, false, false},
	"long": {8, true, false, false, false}, "long int": {8, true, false, false, false}, "unsigned long": {8, false, false, false, false}, "unsigned long int": {8, false, false, false, false},
	"long long": {8, true, false, false, false}, "long long int": {8, true, false, false, false}, "unsigned long long": {8, false, false, false, false},
	"int8_t": {1, true, false, false, false}, "uint8_t": {1, false, false, false, false}, "int16_t": {2, true, false, false, false}, "uint16_t": {2, false, false, false, false},
	"int32_t": {4, true, false, false, false}, "uint32_t": {4, false, false, false, false}, "int64_t": {8, true, false, false, false}, "uint64_t": {8, false, false, false, false},
	"size_t": {8, false, false, false, false}, "ssize_t": {8, true, false, false, false}, "uintptr_t": {8, false, false, false, false}, "intptr_t": {8, true, false, false, false},
	"float": {4, true, false, true, false}, "double": {8, true, false, true, false}, "long double": {16, true, false, true, false},
}

// typeAt reads a type name at the start of toks, up to and not including
// a ')': C's integer types, a name DWARF knows (a typedef, "struct X"),
// with '*'s for a pointer. n is how many tokens it took.
func (s *Session) typeAt(toks []token) (t cType, ptr bool, ct dwarf.Type, n int, ok bool) {
	var words []string
	for n < len(toks) && toks[n].kind == 'i' {
		words = append(words, toks[n].text)
		n++
	}
	if len(words) == 0 {
		return t, false, nil, 0, false
	}
	stars := 0
	for n < len(toks) && toks[n].kind == '*' {
		stars++
		n++
	}
	if n >= len(toks) || toks[n].kind != ')' {
		return t, false, nil, 0, false
	}
	name := strings.Join(words, " ")
	if name == "void" && stars > 0 {
		return cType{bytes: 8}, true, castType(builtinType(name, cType{}), stars), n, true
	}
	if bt, known := baseTypes[name]; known {
		return bt, stars > 0, castType(builtinType(name, bt), stars), n, true
	}
	if dt, known := s.lookupTypeName(name); known {
		if _, isPtr := under(dt).(*dwarf.PtrType); stars > 0 || isPtr {
			return cType{bytes: 8, signed: false}, true, castType(dt, stars), n, true // (str_t)p: a pointer typedef
		}
		size := int(dt.Size())
		if _, fl := under(dt).(*dwarf.FloatType); fl && (size == 4 || size == 8 || size == 16) {
			return cType{bytes: size, signed: true, float: true}, false, dt, n, true
		}
		if size != 1 && size != 2 && size != 4 && size != 8 {
			return t, false, nil, 0, false
		}
		_, unsigned := under(dt).(*dwarf.UintType)
		return cType{bytes: size, signed: !unsigned}, false, dt, n, true
	}
	return t, false, nil, 0, false
}

// lookupTypeName finds a type by name in the DWARF of the modules.
func (s *Session) lookupTypeName(name string) (dwarf.Type, bool) {
	sp, err := s.space()
	if err != nil {
		return nil, false
	}
	for _, m := range mainFirst(sp) {
		if t, ok := m.LookupType(name); ok {
			return t, true
		}
	}
	return nil, false
}

// truncate keeps the low n bytes of v, sign-extended when signed.
func truncate(v uint64, n int, signed bool) uint64 {
	if n >= 8 {
		return v
	}
	shift := uint(64 - 8*n)
	if signed {
		return uint64(int64(v<<shift) >> shift)
	}
	return v << shift >> shift
}

// sizeof parses "sizeof (TYPE)", "sizeof (EXPR)" and "sizeof NAME": the
// size in bytes, from the type's or the variable's DWARF type.
func (p *exprParser) sizeof() (value, error) {
	p.i++ // sizeof
	if p.peek() == '(' {
		if t, ptr, _, n, ok := p.s.typeAt(p.toks[p.i+1:]); ok {
			p.i += 1 + n + 1
			if ptr {
				return intValue(8, 4, false), nil
			}
			return intValue(uint64(t.bytes), 4, false), nil
		}
		// sizeof (TYPE) of a struct or array type DWARF knows.
		j := p.i + 1
		var words []string
		for j < len(p.toks) && p.toks[j].kind == 'i' {
			words = append(words, p.toks[j].text)
			j++
		}
		if j < len(p.toks) && p.toks[j].kind == ')' && len(words) > 0 {
			if dt, ok := p.s.lookupTypeName(strings.Join(words, " ")); ok {
				p.i = j + 1
				return intValue(uint64(dt.Size()), 4, false), nil
			}
		}
	}
	// sizeof of a floating expression or a string literal: its type's
	// size (sizeof(1.5) 8, sizeof(1.5f) 4, sizeof("hi") 3).
	if at := p.i; p.peek() == '(' {
		p.i++
		v, err := p.logicalOr()
		if err == nil && p.peek() == ')' {
			p.i++
			switch {
			case v.kind == kindString:
				return intValue(uint64(len(v.str)+1), 4, false), nil
			case v.obj != nil:
				return intValue(uint64(under(v.obj.t).Size()), 4, false), nil
			case v.kind == kindFloat:
				return intValue(uint64(v.fsize), 4, false), nil
			case v.kind == kindInt:
				return intValue(uint64(v.cSize()), 4, false), nil
			}
			return intValue(8, 4, false), nil // a pointer
		}
		p.i = at
	}
	// sizeof of a variable path, with or without parentheses.
	paren := p.peek() == '('
	if paren {
		p.i++
	}
	stars := ""
	for p.peek() == '*' {
		stars += "*"
		p.i++
	}
	if p.peek() != 'i' {
		return value{}, fmt.Errorf("A syntax error in expression, near `%s'.", p.rest())
	}
	name := stars + p.toks[p.i].text
	p.i++
	if paren {
		if p.peek() != ')' {
			return value{}, fmt.Errorf("A syntax error in expression, near `%s'.", p.rest())
		}
		p.i++
	}
	vp, ok := parseVarPath(name)
	if !ok {
		return value{}, fmt.Errorf("No symbol \"%s\" in current context.", name)
	}
	t, _, found, err := p.s.evalPath(vp)
	if !found {
		if err != nil {
			return value{}, err
		}
		return value{}, fmt.Errorf("No symbol \"%s\" in current context.", name)
	}
	if t.t == nil {
		return value{}, err
	}
	return intValue(uint64(t.t.Size()), 4, false), nil
}
