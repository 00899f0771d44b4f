package main

import (
	"fmt"
	"io"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/sfdbg/sfdbg/compare"
	"github.com/sfdbg/sfdbg/debugger"
)

func init() {
	c := &command{
		name:    "bt",
		usage:   "bt [--method " + compare.MethodNames("|") + "|all] [--json] [--max-depth N] [--independent] PID",
		summary: "print every thread's backtrace, past main too, like eu-stack -p; every other method checked against CFI at every frame",
	}
	c.run = func(args []string, stdout, stderr io.Writer) int {
		fs := newFlagSet(c, stderr)
		tf := addTraceFlags(fs)
		pos, st, ok := parseInterspersed(fs, args)
		if !ok {
			return st
		}
		if len(pos) > 1 {
			fmt.Fprintf(stderr, "sfdbg: bt: one process ID expected, got %d (%s); run sfdbg bt once per process\n", len(pos), strings.Join(pos, " "))
			return exitError
		}
		if len(pos) != 1 {
			fs.Usage()
			return exitError
		}
		opts, err := tf.options()
		if err != nil {
			fmt.Fprintf(stderr, "sfdbg: bt: %v\n", err)
			return exitError
		}
		pid, err := strconv.Atoi(pos[0])
		if err != nil || pid <= 0 {
			fmt.Fprintf(stderr, "sfdbg: bt: %q is not a process ID\n", pos[0])
			return exitError
		}
		// A one-shot run allocates a few MB (CFI tables) and exits: garbage
		// collection would only slow it down.
		debug.SetGCPercent(800)
		// Stop, unwind every thread, resume: the process is stopped only
		// while the stacks are read; symbols are looked up afterwards.
		t0 := time.Now()
		stop, err := debugger.Seize(pid)
		if err != nil {
			fmt.Fprintf(stderr, "sfdbg: %v\n", err)
			return exitError
		}
		t1 := time.Now()
		pt, err := debugger.TraceProcess(stop, opts)
		t2 := time.Now()
		if derr := stop.Detach(); derr != nil && err == nil {
			err = derr
		}
		t3 := time.Now()
		if err != nil {
			fmt.Fprintf(stderr, "sfdbg: bt: %v\n", err)
			return exitError
		}
		status := tf.print(pt, "bt", stdout, stderr)
		logrus.Debugf("bt: seize %v, unwind %v, detach %v, print %v (stopped for %v)",
			t1.Sub(t0), t2.Sub(t1), t3.Sub(t2), time.Since(t3), t3.Sub(t0))
		return status
	}
	register(c)
}
