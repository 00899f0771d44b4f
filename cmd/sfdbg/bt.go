package main

import (
	"fmt"
	"io"
	"strconv"

	"github.com/sfdbg/sfdbg/debugger"
)

func init() {
	c := &command{
		name:    "bt",
		usage:   "bt [--method sframe|cfi|fp|all] [--json] [--max-depth N] PID",
		summary: "print the backtrace of every thread of a running process, like eu-stack -p, and detach",
	}
	c.run = func(args []string, stdout, stderr io.Writer) int {
		fs := newFlagSet(c, stderr)
		method := fs.String("method", "all", "unwinding `method`: sframe, cfi, fp, or all (SFrame, with CFI and frame pointers compared at every frame)")
		asJSON := fs.Bool("json", false, "print JSON instead of text")
		maxDepth := fs.Int("max-depth", 0, "at most `N` frames per thread (0: 256)")
		pos, st, ok := parseInterspersed(fs, args)
		if !ok {
			return st
		}
		if len(pos) != 1 {
			fs.Usage()
			return exitError
		}
		mode, err := debugger.ParseMode(*method)
		if err != nil {
			fmt.Fprintf(stderr, "sfdbg: bt: %v\n", err)
			return exitError
		}
		pid, err := strconv.Atoi(pos[0])
		if err != nil || pid <= 0 {
			fmt.Fprintf(stderr, "sfdbg: bt: %q is not a process ID\n", pos[0])
			return exitError
		}
		// Stop, unwind every thread, resume: the process is stopped only
		// while the stacks are read; symbols are looked up afterwards.
		stop, err := debugger.Seize(pid)
		if err != nil {
			fmt.Fprintf(stderr, "sfdbg: %v\n", err)
			return exitError
		}
		pt, err := debugger.TraceProcess(stop, mode, *maxDepth)
		if derr := stop.Detach(); derr != nil && err == nil {
			err = derr
		}
		if err != nil {
			fmt.Fprintf(stderr, "sfdbg: bt: %v\n", err)
			return exitError
		}
		if *asJSON {
			if err := pt.WriteJSON(stdout); err != nil {
				fmt.Fprintf(stderr, "sfdbg: bt: %v\n", err)
				return exitError
			}
		} else {
			pt.WriteText(stdout)
		}
		if mode == debugger.ModeAll && pt.Disagreements() > 0 {
			return exitFindings
		}
		return exitOK
	}
	register(c)
}
