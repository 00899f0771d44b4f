package debugger

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// maxColumns is the width every line of help and info output fits in.
const maxColumns = 100

// TestHelpAndInfoLinesFitIn100Columns runs help for every command and
// subcommand, and every info command at every frame of the snapshots the
// transcript tests use, through the dispatcher, and measures each line in
// characters (runes).
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
			all := append([]string(nil), cmds...)
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
