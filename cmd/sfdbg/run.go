package main

import (
	"fmt"
	"io"

	"github.com/sfdbg/sfdbg/debugger"
)

func init() {
	c := &command{
		name:    "run",
		usage:   "run [-batch] [-ex CMD]... [-x FILE] [--] PROG [ARGS...]",
		summary: "start a program under the debugger, stopped at its first instruction; quit and -batch kill it",
	}
	c.run = func(args []string, stdout, stderr io.Writer) int {
		fs := newFlagSet(c, stderr)
		sf := addSessionFlags(fs, true)
		// Flags end at the program: "sfdbg run -batch prog -x" passes -x to prog.
		if st, ok := parseFlags(fs, args); !ok {
			return st
		}
		argv, ok := programArgs(fs)
		if !ok {
			return exitError
		}
		t, err := debugger.Launch(argv, "")
		if err != nil {
			fmt.Fprintf(stderr, "sfdbg: %v\n", err)
			return exitError
		}
		return runSession(t, sf, func(s *debugger.Session) {
			s.SetProgram(argv)
			s.Intro(fmt.Sprintf("Started process %d, stopped at its first instruction", t.Pid()))
		}, stdout, stderr)
	}
	register(c)
}
