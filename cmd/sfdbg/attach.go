package main

import (
	"fmt"
	"io"
	"strconv"

	"github.com/sfdbg/sfdbg/debugger"
)

func init() {
	c := &command{
		name:    "attach",
		usage:   "attach [-batch] [-ex CMD]... [-x FILE] PID",
		summary: "debug a running process, gdb-style; quit and the end of -batch detach (it runs on)",
	}
	c.run = func(args []string, stdout, stderr io.Writer) int {
		fs := newFlagSet(c, stderr)
		sf := addSessionFlags(fs, false)
		pos, st, ok := parseInterspersed(fs, args)
		if !ok {
			return st
		}
		if len(pos) != 1 {
			fs.Usage()
			return exitError
		}
		pid, err := strconv.Atoi(pos[0])
		if err != nil || pid <= 0 {
			fmt.Fprintf(stderr, "sfdbg: attach: %q is not a process ID\n", pos[0])
			return exitError
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
