package debugger

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/sfdbg/sfdbg/compare"
	"github.com/sfdbg/sfdbg/frames"
)

// display is one "display EXPR": printed after every stop, as gdb's
// auto-display (printcmd.c do_one_display).
type display struct {
	id     int
	expr   string
	letter byte // the /FMT letter, 0 for none
}

// cmdDisplay implements "display [/FMT] EXPR" (and "display" alone: show
// them all now).
func cmdDisplay(s *Session, args string) error {
	args = strings.TrimSpace(args)
	if args == "" {
		s.doDisplays()
		return nil
	}
	var letter byte
	if rest, ok := strings.CutPrefix(args, "/"); ok {
		spec, a := splitWord(rest)
		if len(spec) != 1 || !strings.ContainsRune("xduotacf", rune(spec[0])) {
			return fmt.Errorf("Invalid format /%s: display takes one letter (x d u o t a c).", spec)
		}
		letter, args = spec[0], strings.TrimSpace(a)
	}
	s.nextDisp++
	d := display{id: s.nextDisp, expr: args, letter: letter}
	s.displays = append(s.displays, d)
	// gdb shows it at once when the command comes from a terminal
	// (from_tty), not from -batch -ex.
	if s.tgt != nil && !s.Batch {
		s.showDisplay(d)
	}
	return nil
}

// cmdUndisplay implements "undisplay [N...]" (all of them without N).
func cmdUndisplay(s *Session, args string) error {
	f := strings.Fields(args)
	if len(f) == 0 {
		if s.ui.IsTerminal() && !s.Batch && !s.confirmOff() {
			ans, err := s.ui.ReadLine("Delete all auto-display expressions? (y or n) ")
			if err != nil || !strings.HasPrefix(strings.ToLower(strings.TrimSpace(ans)), "y") {
				return errors.New("Not confirmed.")
			}
		}
		s.displays = nil
		return nil
	}
	for _, w := range f {
		n, err := strconv.Atoi(w)
		if err != nil {
			return fmt.Errorf("Arguments must be display numbers.")
		}
		found := false
		for i, d := range s.displays {
			if d.id == n {
				s.displays = append(s.displays[:i], s.displays[i+1:]...)
				found = true
				break
			}
		}
		if !found {
			s.printf("No display number %d.\n", n)
		}
	}
	return nil
}

// cmdInfoDisplay implements "info display".
func cmdInfoDisplay(s *Session, _ string) error {
	if len(s.displays) == 0 {
		s.printf("There are no auto-display expressions now.\n")
		return nil
	}
	s.printf("Auto-display expressions now in effect:\nNum Enb Expression\n")
	for _, d := range s.displays {
		e := d.expr
		if d.letter != 0 {
			e = "/" + string(d.letter) + " " + e
		}
		s.printf("%d:   y  %s\n", d.id, e)
	}
	return nil
}

// doDisplays prints every display, in the order they were made.
func (s *Session) doDisplays() {
	for _, d := range s.displays {
		s.showDisplay(d)
	}
}

// showDisplay prints one display as gdb does: "1: i = 3", "2: /x i = 0x3",
// or the error in place of the value.
func (s *Session) showDisplay(d display) {
	head := fmt.Sprintf("%d: %s", d.id, d.expr)
	if d.letter != 0 {
		head = fmt.Sprintf("%d: /%c %s", d.id, d.letter, d.expr)
	}
	text, err := s.exprText(d.expr, d.letter)
	if err != nil {
		s.printf("%s = <error: %v>\n", head, err)
		return
	}
	s.printf("%s = %s\n", head, text)
}

// exprText is what print prints for expr after "$N = ", without adding to
// the value history: a variable path with its type, else an expression.
func (s *Session) exprText(expr string, letter byte) (string, error) {
	if p, ok := parseVarPath(expr); ok {
		t, c, found, err := s.evalPath(p)
		if found {
			if errors.Is(err, frames.ErrOptimizedOut) {
				return "<optimized out>", nil
			}
			if err != nil {
				var me *frames.MemoryError
				if errors.As(err, &me) {
					return "", fmt.Errorf("Cannot access memory at address %#x", me.Addr)
				}
				return "", err
			}
			if letter != 0 {
				c.f.letter = letter
				return c.f.format(t.t, t.b, modeNested, 0), nil
			}
			return c.f.format(t.t, t.b, modeTop, 0), nil
		}
		if err != nil {
			return "", err
		}
	}
	v, err := s.evalExpr(expr)
	if err != nil {
		return "", err
	}
	sp, err := s.space()
	if err != nil {
		return "", err
	}
	return formatValue(sp, v, letter)
}

// cmdOutput implements "output [/FMT] EXPR": the value as print shows it,
// without "$N = ", the history or a newline, as gdb's output.
func cmdOutput(s *Session, args string) error {
	var letter byte
	args = strings.TrimSpace(args)
	if rest, ok := strings.CutPrefix(args, "/"); ok {
		spec, a := splitWord(rest)
		if len(spec) != 1 {
			return fmt.Errorf("Invalid format /%s.", spec)
		}
		letter, args = spec[0], strings.TrimSpace(a)
	}
	if args == "" {
		return errors.New("Argument required (expression to compute).")
	}
	text, err := s.exprText(args, letter)
	if err != nil {
		return err
	}
	s.printf("%s", text)
	return nil
}

// maxPrintfWidth bounds printf's widths and precisions, so that a typo
// does not ask for gigabytes of padding.
const maxPrintfWidth = 1 << 16

// cmdPrintf implements gdb's printf "FORMAT", ARG...: C's conversions
// (%d %i %u %x %X %o %c %s %p %f %e %g, with l/ll/h/hh/L and flags, width and
// precision, %%), each argument an expression; %s reads the string at
// its value.
func cmdPrintf(s *Session, args string) error {
	args = strings.TrimSpace(args)
	if !strings.HasPrefix(args, "\"") {
		return errors.New("Bad format string")
	}
	format, rest, err := cStringLiteral(args)
	if err != nil {
		return err
	}
	var exprs []string
	if rest = strings.TrimSpace(rest); rest != "" {
		if !strings.HasPrefix(rest, ",") {
			return errors.New("Invalid argument syntax")
		}
		exprs = splitTopLevel(rest[1:])
	}
	var out strings.Builder
	next := 0
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' {
			out.WriteByte(c)
			continue
		}
		j := i + 1
		for j < len(format) && strings.IndexByte("-+ #0123456789.", format[j]) >= 0 {
			j++
		}
		flags := format[i+1 : j]
		for _, part := range strings.Split(strings.TrimLeft(flags, "-+ #0"), ".") {
			if n, _ := strconv.Atoi(part); n > maxPrintfWidth {
				return fmt.Errorf("Bad format string: width or precision %d is over %d", n, maxPrintfWidth)
			}
		}
		k := j
		for j < len(format) && strings.IndexByte("hlLqjzt", format[j]) >= 0 {
			j++
		}
		// The argument's C type, as the length modifier says: int
		// without one (printf "%x", -1 prints ffffffff).
		size := map[string]int{"": 4, "h": 2, "hh": 1}[format[k:j]]
		if size == 0 {
			size = 8
		}
		if j >= len(format) {
			return errors.New("Bad format string")
		}
		conv := format[j]
		i = j
		if conv == '%' {
			out.WriteByte('%')
			continue
		}
		if next >= len(exprs) {
			return errors.New("Bad format string, missing '\"'")
		}
		v, err := s.evalExpr(exprs[next])
		next++
		if err != nil {
			return err
		}
		if v.kind == kindFloat && strings.IndexByte("diuxXoc", conv) >= 0 {
			v = value{v: floatToInt(v, 8, true), kind: kindInt}
		}
		switch conv {
		case 'f', 'F', 'e', 'E', 'g', 'G':
			if v.kind != kindFloat && v.kind != kindInt {
				return errNotNumber
			}
			out.WriteString(cFloatConv(conv, flags, v.float()))
		case 'd', 'i':
			fmt.Fprintf(&out, "%"+flags+"d", int64(truncate(v.v, size, true)))
		case 'u':
			fmt.Fprintf(&out, "%"+flags+"d", truncate(v.v, size, false))
		case 'x', 'X', 'o':
			fmt.Fprintf(&out, "%"+flags+string(conv), truncate(v.v, size, false))
		case 'c':
			fmt.Fprintf(&out, "%"+flags+"c", rune(byte(v.v)))
		case 'p':
			fmt.Fprintf(&out, "%#x", v.v)
		case 's':
			if v.kind == kindString {
				fmt.Fprintf(&out, "%"+flags+"s", v.str)
				break
			}
			sp, err := s.space()
			if err != nil {
				return err
			}
			str, err := readCString(sp, v.v)
			if err != nil {
				return err
			}
			fmt.Fprintf(&out, "%"+flags+"s", str)
		default:
			return fmt.Errorf("Unrecognized format specifier '%c' in printf", conv)
		}
	}
	if next < len(exprs) {
		return errors.New("Extra arguments at end of format string")
	}
	s.printf("%s", out.String())
	return nil
}

// cStringLiteral reads the C string literal at the start of s: its value
// (escapes decoded) and what follows it.
func cStringLiteral(s string) (string, string, error) {
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"':
			return b.String(), s[i+1:], nil
		case c == '\\' && i+1 < len(s):
			i++
			switch s[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case 'a':
				b.WriteByte('\a')
			case '\\', '"', '\'':
				b.WriteByte(s[i])
			case '0':
				b.WriteByte(0)
			default:
				b.WriteByte('\\')
				b.WriteByte(s[i])
			}
		default:
			b.WriteByte(c)
		}
	}
	return "", "", errors.New("Bad format string, non-terminated '\"'")
}

// splitTopLevel splits s at the commas outside parentheses, brackets and
// quotes.
func splitTopLevel(s string) []string {
	var out []string
	start := 0
	for _, i := range compare.TopLevel(s, ',') {
		out = append(out, strings.TrimSpace(s[start:i]))
		start = i + 1
	}
	return append(out, strings.TrimSpace(s[start:]))
}

// readCString reads the NUL-terminated string at a (at most 4096 bytes).
func readCString(sp *frames.Space, a uint64) (string, error) {
	var b []byte
	var buf [64]byte
	for len(b) < 4096 {
		n, _ := sp.Mem.ReadAt(buf[:], a+uint64(len(b)))
		if n == 0 {
			if len(b) == 0 {
				return "", fmt.Errorf("Cannot access memory at address %#x", a)
			}
			break
		}
		for _, c := range buf[:n] {
			if c == 0 {
				return string(b), nil
			}
			b = append(b, c)
		}
	}
	return string(b), nil
}
