package debugger

import (
	"fmt"
	"strings"
)

// helpText renders the command list of "help": one line per command (and
// subcommand) with its short forms and summary.
func helpText(t *commandTable) string {
	var b strings.Builder
	b.WriteString("Commands (short forms in parentheses; \"help COMMAND\" for details).\n")
	var rep []string
	for _, c := range t.cmds {
		if c.repeat != nil {
			rep = append(rep, c.name())
		}
	}
	// One sentence, broken before maxWidth columns.
	line := "An empty line repeats the last command if it was"
	for i, name := range rep {
		word := " " + name + ","
		if i == len(rep)-1 {
			word = " " + name + "."
		}
		if len(line)+len(word) > maxWidth {
			b.WriteString(line + "\n")
			line = strings.TrimPrefix(word, " ")
			continue
		}
		line += word
	}
	b.WriteString(line + "\n")
	for _, c := range t.cmds {
		writeHelpLine(&b, c, "")
		for _, sc := range c.sub {
			writeHelpLine(&b, sc, c.name()+" ")
		}
	}
	return b.String()
}

// helpColumn is where help's summaries start; maxWidth is the width
// help and info output fit in.
const (
	helpColumn = 39
	maxWidth   = 100
)

func writeHelpLine(b *strings.Builder, c *command, prefix string) {
	if c.run == nil {
		return
	}
	syn := prefix + c.name() + argSep(c) + c.args
	if len(c.aliases) > 1 {
		var al []string
		for _, a := range c.aliases[1:] {
			al = append(al, prefix+a)
		}
		syn += " (" + strings.Join(al, ", ") + ")"
	}
	lines := wrap(c.summary(), maxWidth-helpColumn)
	if len(syn) > helpColumn-4 {
		fmt.Fprintf(b, "  %s\n", syn)
	} else {
		fmt.Fprintf(b, "  %-*s %s\n", helpColumn-3, syn, lines[0])
		lines = lines[1:]
	}
	for _, l := range lines {
		fmt.Fprintf(b, "%*s%s\n", helpColumn, "", l)
	}
}

// wrap breaks text into lines of at most width characters at spaces (a
// longer word stays whole).
func wrap(text string, width int) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(text) {
		switch {
		case line == "":
			line = w
		case len(line)+1+len(w) <= width:
			line += " " + w
		default:
			lines = append(lines, line)
			line = w
		}
	}
	return append(lines, line)
}

// wrapLong wraps the lines of text longer than width, keeping their
// indentation; shorter lines are left as written.
func wrapLong(text string, width int) string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if len(l) <= width {
			out = append(out, l)
			continue
		}
		indent := l[:len(l)-len(strings.TrimLeft(l, " "))]
		for _, w := range wrap(l, width-len(indent)) {
			out = append(out, indent+w)
		}
	}
	return strings.Join(out, "\n")
}

// commandHelp is the long help of one command.
func commandHelp(t *commandTable, c *command, asked string) string {
	var b strings.Builder
	prefix := ""
	for _, top := range t.cmds {
		for _, sc := range top.sub {
			if sc == c {
				prefix = top.name() + " "
			}
		}
	}
	syn := prefix + c.name() + argSep(c) + c.args
	fmt.Fprintf(&b, "Usage: %s\n", syn)
	if len(c.aliases) > 1 {
		var al []string
		for _, a := range c.aliases[1:] {
			al = append(al, prefix+a)
		}
		fmt.Fprintf(&b, "Aliases: %s\n", strings.Join(al, ", "))
	}
	b.WriteString(c.help)
	if len(c.sub) > 0 {
		b.WriteString("\n\nSubcommands:\n")
		for _, sc := range c.sub {
			writeHelpLine(&b, sc, c.name()+" ")
		}
	}
	return strings.TrimSuffix(wrapLong(b.String(), maxWidth), "\n")
}

// CommandsMarkdown renders the debugger's command table as Markdown for the
// README (after Delve's scripts/gen-cli-docs.go and pkg/terminal/docgen.go):
// a table of commands, short forms and summaries, then each command's full
// help. "sfdbg help --markdown" prints it.
func CommandsMarkdown() string {
	t := newCommandTable()
	var b strings.Builder
	b.WriteString("## Debugger commands\n\n")
	b.WriteString("Commands of `sfdbg attach` and `sfdbg run` (also usable with `-batch -ex CMD`). ")
	b.WriteString("Short forms are gdb's; any unique prefix of a command name works too.\n\n")
	b.WriteString("| Command | Short forms | Summary |\n|---|---|---|\n")
	type entry struct {
		syn, prefix string
		c           *command
	}
	var all []entry
	for _, c := range t.cmds {
		if c.run != nil {
			all = append(all, entry{c.name(), "", c})
		}
		for _, sc := range c.sub {
			all = append(all, entry{c.name() + " " + sc.name(), c.name() + " ", sc})
		}
	}
	for _, e := range all {
		syn := e.syn + argSep(e.c) + e.c.args
		var short []string
		for _, a := range e.c.aliases[1:] {
			short = append(short, "`"+e.prefix+a+"`")
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", mdEscape(syn), strings.Join(short, " "), mdEscape(e.c.summary()))
	}
	b.WriteString("\n")
	for _, e := range all {
		_, rest, _ := strings.Cut(e.c.help, "\n")
		if strings.TrimSpace(rest) == "" {
			continue
		}
		fmt.Fprintf(&b, "### %s\n\n%s\n%s\n\n", e.syn, e.c.summary(), strings.TrimSpace(rest))
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}

func mdEscape(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// argSep separates a command from its argument synopsis: nothing before
// "/NFU" (x/4xg), a space otherwise.
func argSep(c *command) string {
	if c.args == "" || strings.HasPrefix(c.args, "/") {
		return ""
	}
	return " "
}

// CommandsHelp is the text "help" prints: every command with its short
// forms and summary.
func CommandsHelp() string { return helpText(newCommandTable()) }
