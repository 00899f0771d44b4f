package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/sfdbg/sfdbg/debugger"
)

// sessionFlags are the flags attach and run share: gdb's -batch, -ex and -x.
type sessionFlags struct {
	batch  bool
	ex     stringList
	script string
}

type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, "; ") }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }

// addSessionFlags adds -batch, -ex and -x; the end of a batch detaches
// from an attached process and kills one sfdbg started (launched).
func addSessionFlags(fs *flag.FlagSet, launched bool) *sessionFlags {
	f := &sessionFlags{}
	end := "then detach (the process runs on) and exit"
	if launched {
		end = "then kill the program (sfdbg started it) and exit"
	}
	fs.BoolVar(&f.batch, "batch", false, "run the -ex commands, then the -x file, "+end+", without a prompt; exit status 2 if a command failed")
	fs.Var(&f.ex, "ex", "execute debugger command `CMD` (repeatable, in order)")
	fs.StringVar(&f.script, "x", "", "execute the debugger commands in `FILE`, one per line, after the -ex commands; the first failing line ends the file (FILE:LINE: Error in sourced command file)")
	return f
}

// parseInterspersed parses flags that may come before or after the
// positional arguments, up to a "--". It returns the positional arguments
// (everything after "--" included).
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, int, bool) {
	var pos []string
	for {
		if st, ok := parseFlags(fs, args); !ok {
			return nil, st, false
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, 0, true
		}
		if consumed := args[:len(args)-len(rest)]; len(consumed) > 0 && consumed[len(consumed)-1] == "--" {
			return append(pos, rest...), 0, true
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// checkScript makes sure the -x file can be read before the session
// starts.
func (f *sessionFlags) checkScript() error {
	if f.script == "" {
		return nil
	}
	fh, err := os.Open(f.script)
	if err != nil {
		return err
	}
	return fh.Close()
}

// runSession drives a debugging session on t: the -ex/-x commands, then the
// REPL unless -batch. Whatever happens (quit, end of input, end of batch,
// SIGINT/SIGTERM, a panic), the target is detached (or, if sfdbg started
// it, killed) before sfdbg exits.
func runSession(t debugger.Target, f *sessionFlags, intro func(s *debugger.Session), stdout, stderr io.Writer) (status int) {
	if err := f.checkScript(); err != nil {
		fmt.Fprintf(stderr, "sfdbg: %v\n", err)
		closeTarget(t)
		return exitError
	}
	var in *os.File
	if !f.batch {
		in = os.Stdin
	}
	ui := debugger.NewTermUI(in, stdout, stderr)
	s := debugger.NewSession(t, ui)
	s.Batch = f.batch
	if out, ok := stdout.(*os.File); ok && !f.batch {
		s.TermWidth = debugger.TerminalWidth(out) // gdb wraps frame lines at it
	}
	stop := s.HandleSignals(func(code int) { os.Exit(code) })
	defer stop()
	defer s.Recover()
	defer func() {
		if err := s.Close(); err != nil {
			fmt.Fprintf(stderr, "sfdbg: %v\n", err)
			status = exitError
		}
		ui.Close()
	}()
	if intro != nil {
		intro(s)
	}
	ok := s.RunBatch(f.ex)
	if f.script != "" && !s.Quitting() {
		ok = s.Source(f.script) == nil && ok
	}
	if sig := s.Signaled(); sig != 0 {
		return 128 + int(sig)
	}
	if f.batch {
		if !ok {
			return exitError
		}
		return exitOK
	}
	if !ui.IsTerminal() && len(f.ex) == 0 && f.script == "" {
		// Commands from a pipe: the same failure rule as a batch.
		s.Failed = false
	}
	if err := s.Run(); err != nil {
		fmt.Fprintf(stderr, "sfdbg: %v\n", err)
		return exitError
	}
	if sig := s.Signaled(); sig != 0 {
		return 128 + int(sig)
	}
	return exitOK
}

func closeTarget(t debugger.Target) {
	if t.Launched() {
		t.Kill()
	} else {
		t.Detach()
	}
}

func init() {
	c := &command{
		name:    "commands",
		usage:   "commands [--markdown]",
		summary: "list the debugger commands of attach and run (--markdown: for the README)",
	}
	c.run = func(args []string, stdout, stderr io.Writer) int {
		fs := newFlagSet(c, stderr)
		md := fs.Bool("markdown", false, "print the command table and each command's help as Markdown")
		if st, ok := parseFlags(fs, args); !ok {
			return st
		}
		if fs.NArg() != 0 {
			fs.Usage()
			return exitError
		}
		if *md {
			fmt.Fprint(stdout, debugger.CommandsMarkdown())
		} else {
			fmt.Fprint(stdout, debugger.CommandsHelp())
		}
		return exitOK
	}
	register(c)
}
