package debugger

import (
	"fmt"
	"io"
	"strings"
)

// ScriptUI is a UI that reads its command lines from a list and writes
// everything, prompt and echoed command included, into one transcript, the
// way the session looks on a terminal. Tests compare transcripts with
// golden files.
type ScriptUI struct {
	Lines []string
	// Out receives output and errors, interleaved as on a terminal.
	Out strings.Builder
	// Echo, when set, writes the prompt and each command to Out.
	Echo      bool
	Completer func(string) []string
	Terminal  bool // what IsTerminal reports
}

// ReadLine implements UI.
func (u *ScriptUI) ReadLine(prompt string) (string, error) {
	if len(u.Lines) == 0 {
		return "", io.EOF
	}
	l := u.Lines[0]
	u.Lines = u.Lines[1:]
	if u.Echo {
		fmt.Fprintf(&u.Out, "%s%s\n", prompt, l)
	}
	return l, nil
}

// Write implements UI.
func (u *ScriptUI) Write(p []byte) (int, error) { return u.Out.Write(p) }

// PrintErr implements UI.
func (u *ScriptUI) PrintErr(msg string) { fmt.Fprintln(&u.Out, strings.TrimRight(msg, "\n")) }

// IsTerminal implements UI.
func (u *ScriptUI) IsTerminal() bool { return u.Terminal }

// SetCompleter implements UI.
func (u *ScriptUI) SetCompleter(f func(string) []string) { u.Completer = f }

// Close implements UI.
func (u *ScriptUI) Close() error { return nil }
