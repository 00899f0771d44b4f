package debugger

import (
	"fmt"
	"strconv"
	"strings"
)

// gdbSetting is a setting gdb scripts carry ("set pagination off"):
// accepted, remembered and shown; help says what it changes in sfdbg,
// which for most is nothing (sfdbg never pages and prints no structures).
type gdbSetting struct {
	name  string // "pagination", "print pretty"
	count bool   // N|unlimited (else on|off)
	dflt  string
	help  string
	show  string // "State of pagination is %s."
}

var gdbSettings = []gdbSetting{
	{name: "pagination", dflt: "on", show: "State of pagination is %s.",
		help: "Accepted for gdb scripts: sfdbg never pages its output."},
	{name: "confirm", dflt: "on", show: "Whether to confirm potentially dangerous operations is %s.",
		help: "off: kill does not ask first at a terminal (it never asks in -batch)."},
	{name: "width", count: true, dflt: "unlimited", show: "Number of characters a line holds is %s.",
		help: "A frame line wider than N columns (stops, frame, up, down, gdb's bt) has its\n\" at FILE:LINE\" on a line of its own, as gdb wraps. Default, as gdb's: the\nterminal's width in the REPL, unlimited in -batch or when the output is not a\nterminal. sfdbg's own reports keep to 100 columns whatever it is."},
	{name: "height", count: true, dflt: "unlimited", show: "Number of lines a page holds is %s.",
		help: "Accepted for gdb scripts: sfdbg never pages its output."},
	{name: "print pretty", dflt: "off", show: "Pretty formatting of structures is %s.",
		help: "Accepted for gdb scripts: sfdbg prints no structures (no DWARF types)."},
}

// settingCommands returns the set and show subcommands of gdbSettings.
func settingCommands() (set, show []*command) {
	for i := range gdbSettings {
		g := &gdbSettings[i]
		word, sub, _ := strings.Cut(g.name, " ")
		vals := "on|off"
		if g.count {
			vals = "N|unlimited"
		}
		set = append(set, &command{aliases: []string{word}, args: strings.TrimSpace(sub + " " + vals),
			help: fmt.Sprintf("Set %s (%s; default %s).\n%s", g.name, vals, g.dflt, g.help),
			run:  func(s *Session, args string) error { return s.setSetting(g, sub, args) }})
		show = append(show, &command{aliases: []string{word}, args: sub,
			help: fmt.Sprintf("Show %s.", g.name),
			run: func(s *Session, args string) error {
				if err := wantWord(g.name, sub, args); err != nil {
					return err
				}
				s.printf(g.show+"\n", s.setting(g))
				return nil
			}})
	}
	return set, show
}

// wantWord checks that args is the setting's second word (sub, "pretty"
// in "print pretty") and nothing else.
func wantWord(name, sub, args string) error {
	if strings.TrimSpace(args) != sub {
		return fmt.Errorf("Usage: %s.", strings.TrimSpace("show "+name))
	}
	return nil
}

// setting returns the value of g ("on", "off", "unlimited", "80").
func (s *Session) setting(g *gdbSetting) string {
	if v, ok := s.settings[g.name]; ok {
		return v
	}
	if g.name == "width" && s.TermWidth != nil {
		if n := s.TermWidth(); n > 0 {
			return strconv.Itoa(n)
		}
	}
	return g.dflt
}

// width is the line width frame lines wrap at (set width; else the
// terminal's, TermWidth), 0 for unlimited.
func (s *Session) width() int {
	if v, ok := s.settings["width"]; ok {
		n, _ := strconv.Atoi(v) // "unlimited": 0
		return n
	}
	if s.TermWidth != nil {
		return s.TermWidth()
	}
	return 0
}

// setSetting implements "set NAME VALUE" for a gdb setting.
func (s *Session) setSetting(g *gdbSetting, sub, args string) error {
	f := strings.Fields(args)
	if sub != "" {
		if len(f) == 0 || f[0] != sub {
			return fmt.Errorf("Usage: set %s %s.", g.name, map[bool]string{false: "on|off", true: "N|unlimited"}[g.count])
		}
		f = f[1:]
	}
	if len(f) != 1 {
		return fmt.Errorf("set %s: want one value (%s), got %q.", g.name, map[bool]string{false: "on|off", true: "N|unlimited"}[g.count], strings.Join(f, " "))
	}
	v := f[0]
	switch {
	case g.count && (v == "unlimited" || v == "0"):
		v = "unlimited" // gdb: 0 is unlimited
	case g.count:
		if n, err := strconv.ParseUint(v, 10, 31); err != nil || n == 0 {
			return fmt.Errorf("set %s: %q is not a number of %s (N or unlimited).", g.name, v, map[string]string{"width": "columns", "height": "lines"}[g.name])
		}
	case v == "1" || v == "yes" || v == "enable":
		v = "on"
	case v == "0" || v == "no" || v == "disable":
		v = "off"
	case v != "on" && v != "off":
		return fmt.Errorf("set %s: %q is not on or off.", g.name, v)
	}
	if s.settings == nil {
		s.settings = map[string]string{}
	}
	s.settings[g.name] = v
	return nil
}

// confirmOff reports whether "set confirm off" is in effect.
func (s *Session) confirmOff() bool { return s.setting(&gdbSettings[1]) == "off" }

// errNoArgs is the error of a command that takes no arguments but got
// some: it never drops words it did not understand.
func errNoArgs(c *command, prefix, args string) error {
	return fmt.Errorf("%q takes no arguments (%q was given).", prefix+c.name(), args)
}

// commandPrefix is "info " for a subcommand of info, "" for a command.
func commandPrefix(t *commandTable, c *command) string {
	for _, p := range t.cmds {
		for _, sc := range p.sub {
			if sc == c {
				return p.name() + " "
			}
		}
	}
	return ""
}
