package debugger

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// maxColumns is the width every line of help and info output fits in.
const maxColumns = 100

// TestHelpAndInfoLinesFitIn100Columns runs help for every command and
// subcommand, and every info command at every frame of the snapshots the
// transcript tests use, through the dispatcher, with "set width 100", and
// measures each line in characters (runes).
func TestHelpAndInfoLinesFitIn100Columns(t *testing.T) {
	cmds := []string{"help"}
	for _, c := range newCommandTable().cmds {
		cmds = append(cmds, "help "+c.name())
		for _, sc := range c.sub {
			cmds = append(cmds, "help "+c.name()+" "+sc.name())
		}
	}
	cmds = append(cmds, "info threads", "info sharedlibrary", "info signals", "info signals SIGSEGV", "info breakpoints", "info symbol $pc")
	for _, snap := range []string{"deep-spin", "deep-threads", "deep-signal"} {
		t.Run(snap, func(t *testing.T) {
			// A terminal of 100 columns (frame lines wrap at the
			// terminal's width, as gdb's; unlimited without one).
			all := append([]string{"set width 100"}, cmds...)
			for f := 0; f < 15; f++ {
				all = append(all, fmt.Sprintf("frame %d", f), "info frame", "info sframe", "info registers", "info line")
			}
			got, _ := transcript(t, snap, all)
			long := 0
			for i, l := range strings.Split(got, "\n") {
				if n := utf8.RuneCountInString(l); n > maxColumns {
					if long++; long <= 20 {
						t.Errorf("line %d has %d columns: %s", i+1, n, l)
					}
				}
			}
			if long > 20 {
				t.Errorf("%d lines are wider than %d columns", long, maxColumns)
			}
		})
	}
}

// TestHelpSummariesFitBesideTheirCommand: every summary fits in one line
// of help's list, beside the synopsis.
func TestHelpSummariesFitBesideTheirCommand(t *testing.T) {
	for _, c := range newCommandTable().cmds {
		for _, x := range append([]*command{c}, c.sub...) {
			if n := len(x.summary()); n > maxWidth-helpColumn {
				t.Errorf("%s: summary of %d characters (at most %d): %s", x.name(), n, maxWidth-helpColumn, x.summary())
			}
		}
	}
}

// TestFrameLinesWrapAtTheWidth prints a frame line of about 110 columns
// with gdb's width unlimited (the default without a terminal, as gdb's
// -batch), at 100 columns and at a terminal's 80: it is one line, then
// its " at FILE:LINE" goes to a line of its own, then the line breaks
// before its second argument, as gdb's pager wraps it.
func TestFrameLinesWrapAtTheWidth(t *testing.T) {
	cmds := []string{"frame 3", "set width 100", "frame 3", "show width", "set width unlimited", "frame 3"}
	got, _ := transcript(t, "deep-spin", cmds)
	one := regexp.MustCompile(`(?m)^#3  0x[0-9a-f]+ in \S+ \(.*\) at \S+:\d+$`)
	wrapped := regexp.MustCompile(`(?m)^#3  0x[0-9a-f]+ in \S+ \(.*\)\n    at \S+:\d+$`)
	if len(one.FindAllString(got, -1)) != 2 || len(wrapped.FindAllString(got, -1)) != 1 || !strings.Contains(got, "Number of characters a line holds is 100.") {
		t.Errorf("frame 3 unlimited, at 100 columns, unlimited:\n%s", got)
	}
	ui := &ScriptUI{}
	s := NewSession(loadSnap(t, "deep-spin"), ui)
	defer s.Close()
	s.TermWidth = func() int { return 80 }
	// At 80 columns gdb's pager breaks before the argument that reaches
	// the width (compare.WrapFrameLine), its ", " left on the first line.
	byArg := regexp.MustCompile(`(?m)^#3  0x[0-9a-f]+ in \S+ \(depth=\S+, \n    x=.*\) at \S+:\d+$`)
	if out := run(t, s, ui, "frame 3"); !byArg.MatchString(out) {
		t.Errorf("frame 3 on a terminal of 80 columns:\n%s", out)
	}
	if out := run(t, s, ui, "show width"); !strings.Contains(out, "is 80.") {
		t.Errorf("show width on a terminal of 80 columns: %s", out)
	}
}
