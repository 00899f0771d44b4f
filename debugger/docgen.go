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
	fmt.Fprintf(&b, "An empty line repeats the last command if it was %s.\n", strings.Join(rep, ", "))
	for _, c := range t.cmds {
		writeHelpLine(&b, c, "")
		for _, sc := range c.sub {
			writeHelpLine(&b, sc, c.name()+" ")
		}
	}
	return b.String()
}

func writeHelpLine(b *strings.Builder, c *command, prefix string) {
	if c.run == nil {
		return
	}
	syn := prefix + c.name() + argSep(c) + c.args
	short := ""
	if len(c.aliases) > 1 {
		var al []string
		for _, a := range c.aliases[1:] {
			al = append(al, prefix+a)
		}
		short = " (" + strings.Join(al, ", ") + ")"
	}
	fmt.Fprintf(b, "  %-36s %s%s\n", syn, c.summary(), short)
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
	for _, sc := range c.sub {
		fmt.Fprintf(&b, "\n  %s %-14s %s", c.name(), sc.name(), sc.summary())
	}
	return b.String()
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
