package main

import (
	"fmt"
	"io"

	"github.com/sfdbg/sfdbg/debugger"
)

func init() {
	c := &command{
		name:    "attach",
		usage:   "attach [-batch] [-ex CMD]... [-x FILE] PID | -p PID [PROG] | PROG PID",
		summary: "debug a running process, gdb-style; quit and the end of -batch detach (it runs on)",
	}
	c.run = func(args []string, stdout, stderr io.Writer) int {
		fs := newFlagSet(c, stderr)
		sf := addSessionFlags(fs, false)
		pflag := fs.String("p", "", "attach to process `PID` (gdb's -p; PROG may follow)")
		fs.StringVar(pflag, "pid", "", "the same as -p")
		pos, st, ok := parseInterspersed(fs, args)
		if !ok {
			return st
		}
		pid, prog, err := attachTarget(pos, *pflag)
		if err != nil {
			fmt.Fprintf(stderr, "sfdbg: attach: %v\n", err)
			return exitError
		}
		if prog != "" {
			if w := sameProgram(prog, pid); w != "" {
				fmt.Fprintf(stderr, "sfdbg: attach: %s\n", w)
			}
		}
		// SIGINT or SIGTERM during the attach must not kill sfdbg with
		// the target's threads stopped and untraced: catch them from
		// before the first ptrace request; the session then detaches.
		debugger.CatchSignals()
		t, err := debugger.Attach(pid)
		if err != nil {
			fmt.Fprintf(stderr, "sfdbg: %v\n", err)
			if sig := debugger.PendingSignal(); sig != 0 {
				return 128 + int(sig)
			}
			return exitError
		}
		return runSession(t, sf, func(s *debugger.Session) { s.Intro(fmt.Sprintf("Attached to process %d", pid)) }, stdout, stderr)
	}
	register(c)
}
