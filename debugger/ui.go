package debugger

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/peterh/liner"
	"golang.org/x/sys/unix"
)

// UI is where a Session reads command lines and writes its output, after
// google/pprof's internal/plugin.UI: the terminal implementation uses liner
// (line editing, history, completion); tests use a UI that reads a script
// and records a transcript, so that the REPL runs without a terminal.
type UI interface {
	// ReadLine returns the next command line without its newline. It
	// returns io.EOF at the end of input and ErrInterrupted when the user
	// pressed Ctrl-C at the prompt.
	ReadLine(prompt string) (string, error)
	// Write writes command output.
	Write(p []byte) (int, error)
	// PrintErr writes an error message (one line, no newline needed).
	PrintErr(msg string)
	// IsTerminal reports whether the user is at a terminal: then prompts
	// are shown and Ctrl-C interrupts rather than ends sfdbg.
	IsTerminal() bool
	// SetCompleter installs tab completion: f returns the candidate
	// completions of the whole line.
	SetCompleter(f func(line string) []string)
	// Close saves history and restores the terminal.
	Close() error
}

// ErrInterrupted is returned by UI.ReadLine for Ctrl-C at the prompt.
var ErrInterrupted = errors.New("interrupted")

// HistoryPath returns the file that keeps command history across sessions:
// $XDG_STATE_HOME/sfdbg/history if XDG_STATE_HOME is set, else
// ~/.sfdbg_history.
func HistoryPath() string {
	if d := os.Getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "sfdbg", "history")
	}
	if h, err := os.UserHomeDir(); err == nil {
		return filepath.Join(h, ".sfdbg_history")
	}
	return ""
}

// TermUI is the UI on sfdbg's standard streams. When standard input is a
// terminal it edits lines with liner and keeps history in HistoryPath;
// otherwise it reads lines from standard input without prompting.
type TermUI struct {
	out, errw io.Writer
	// mu guards line against Close from a signal handler's goroutine
	// while the session's goroutine closes the UI too.
	mu       sync.Mutex
	line     *liner.State // nil once closed
	terminal bool         // line editing on a terminal (fixed at creation)
	in       *bufio.Scanner
	history  string
}

// NewTermUI returns the UI for in, out and errw (os.Stdin, os.Stdout,
// os.Stderr in sfdbg). in may be nil for a UI that only writes (batch
// mode): ReadLine then returns io.EOF.
func NewTermUI(in *os.File, out, errw io.Writer) *TermUI {
	u := &TermUI{out: out, errw: errw}
	if in == nil {
		return u
	}
	if in == os.Stdin && isTerminal(in) && liner.TerminalSupported() {
		u.line, u.terminal = liner.NewLiner(), true
		u.line.SetCtrlCAborts(true)
		u.line.SetTabCompletionStyle(liner.TabPrints)
		u.history = HistoryPath()
		if f, err := os.Open(u.history); err == nil {
			u.line.ReadHistory(f)
			f.Close()
		}
	} else {
		u.in = bufio.NewScanner(in)
		u.in.Buffer(make([]byte, 0, 4096), 1<<20)
	}
	return u
}

// ReadLine implements UI.
func (u *TermUI) ReadLine(prompt string) (string, error) {
	u.mu.Lock()
	l := u.line
	u.mu.Unlock()
	if !u.terminal {
		if u.in == nil {
			return "", io.EOF
		}
		if !u.in.Scan() {
			if err := u.in.Err(); err != nil {
				return "", err
			}
			return "", io.EOF
		}
		return u.in.Text(), nil
	}
	if l == nil {
		return "", io.EOF // closed (sfdbg is ending on a signal)
	}
	s, err := l.Prompt(prompt)
	if errors.Is(err, liner.ErrPromptAborted) {
		return "", ErrInterrupted
	}
	if err != nil {
		return "", err
	}
	if strings.TrimSpace(s) != "" {
		l.AppendHistory(s)
	}
	return s, nil
}

// Write implements UI.
func (u *TermUI) Write(p []byte) (int, error) { return u.out.Write(p) }

// PrintErr implements UI.
func (u *TermUI) PrintErr(msg string) { fmt.Fprintln(u.errw, strings.TrimRight(msg, "\n")) }

// IsTerminal implements UI.
func (u *TermUI) IsTerminal() bool { return u.terminal }

// SetCompleter implements UI.
func (u *TermUI) SetCompleter(f func(string) []string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.line != nil {
		u.line.SetCompleter(f)
	}
}

// Close implements UI: it writes the history file and restores the
// terminal mode.
func (u *TermUI) Close() error {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.line == nil {
		return nil
	}
	var err error
	if u.history != "" {
		if err = os.MkdirAll(filepath.Dir(u.history), 0o700); err == nil {
			var f *os.File
			if f, err = os.Create(u.history); err == nil {
				u.line.WriteHistory(f)
				err = f.Close()
			}
		}
	}
	u.line.Close()
	u.line = nil
	return err
}

// isTerminal reports whether f is a terminal.
func isTerminal(f *os.File) bool {
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}

// TerminalWidth returns a function that reads f's terminal width in
// columns (TIOCGWINSZ, at each call: a resized window counts), or nil when
// f is not a terminal (gdb's width is unlimited then).
func TerminalWidth(f *os.File) func() int {
	if !isTerminal(f) {
		return nil
	}
	return func() int {
		ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ)
		if err != nil {
			return 0
		}
		return int(ws.Col)
	}
}
