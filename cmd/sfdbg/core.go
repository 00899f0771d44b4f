package main

import (
	"fmt"
	"io"
	"runtime/debug"

	"github.com/sfdbg/sfdbg/compare"
	"github.com/sfdbg/sfdbg/debugger"
	"github.com/sfdbg/sfdbg/frames/corefile"
)

func init() {
	c := &command{
		name:    "core",
		usage:   "core [--sysroot DIR] [--method sframe|cfi|fp|all] [--json] [--max-depth N] CORE [EXE]",
		summary: "print every thread's backtrace from an x86-64 core file, compared as sfdbg bt does",
	}
	c.run = func(args []string, stdout, stderr io.Writer) int {
		fs := newFlagSet(c, stderr)
		sysroot := fs.String("sysroot", "", "find the mapped files under `DIR` (as gdb's set sysroot)")
		method := fs.String("method", "all", "unwinding `method`: sframe, cfi, fp, or all (SFrame, with CFI and frame pointers compared at every frame)")
		asJSON := fs.Bool("json", false, "print JSON instead of text")
		maxDepth := fs.Int("max-depth", 0, "at most `N` frames per thread (0: 256; at most 1000000)")
		independent := fs.Bool("independent", false, "with --method all, also run each method's own trace and match its frames with CFI's")
		pos, st, ok := parseInterspersed(fs, args)
		if !ok {
			return st
		}
		if len(pos) < 1 || len(pos) > 2 {
			fs.Usage()
			return exitError
		}
		methods, err := compare.ParseMethods(*method)
		if err != nil {
			fmt.Fprintf(stderr, "sfdbg: core: %v\n", err)
			return exitError
		}
		if err := compare.CheckMaxDepth(*maxDepth); err != nil {
			fmt.Fprintf(stderr, "sfdbg: core: --max-depth: %v\n", err)
			return exitError
		}
		opts := corefile.Options{Sysroot: *sysroot}
		if len(pos) == 2 {
			opts.Exe = pos[1]
		}
		debug.SetGCPercent(800)
		pt, closeCore, err := traceCore(pos[0], opts, compare.Options{Methods: methods, MaxDepth: *maxDepth, Independent: *independent, Prefetch: true})
		if err != nil {
			fmt.Fprintf(stderr, "sfdbg: core: %v\n", err)
			return exitError
		}
		defer closeCore()
		if *asJSON {
			err = compare.WriteJSON(stdout, pt.Document())
		} else {
			pt.WriteText(stdout, compare.TextOptions{Style: compare.Style{Color: isTerminal(stdout)}})
		}
		if err != nil {
			fmt.Fprintf(stderr, "sfdbg: core: %v\n", err)
			return exitError
		}
		if pt.Disagreements() > 0 {
			return exitFindings
		}
		return exitOK
	}
	register(c)
}

// traceCore opens a core file and unwinds each of its threads with the
// engine of sfdbg bt. The returned function closes the core and its files.
func traceCore(path string, opts corefile.Options, copts compare.Options) (*debugger.ProcessTrace, func(), error) {
	c, err := corefile.Open(path)
	if err != nil {
		return nil, nil, err
	}
	sp, err := c.Space(opts)
	if err != nil {
		c.Close()
		return nil, nil, err
	}
	pt := &debugger.ProcessTrace{Pid: c.Pid, Name: c.Name, Methods: copts.Methods, Space: sp}
	for _, t := range c.Threads {
		tr := compare.Unwind(sp, t.Regs, copts)
		tr.Thread = t.Tid
		pt.Threads = append(pt.Threads, debugger.ThreadTrace{Tid: t.Tid, Name: c.Name, Trace: tr})
	}
	return pt, func() { sp.Modules.Close(); c.Close() }, nil
}
