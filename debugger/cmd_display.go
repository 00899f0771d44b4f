package debugger

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

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
		if len(spec) != 1 || !strings.ContainsRune("xduotac", rune(spec[0])) {
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
