package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"

	"github.com/sfdbg/sfdbg/compare"
	"github.com/sfdbg/sfdbg/debugger"
)

// traceFlags are the flags of the commands that print compared traces of
// every thread (bt, core).
type traceFlags struct {
	method      *string
	asJSON      *bool
	maxDepth    *int
	independent *bool
}

// addTraceFlags defines the trace flags on fs.
func addTraceFlags(fs *flag.FlagSet) *traceFlags {
	return &traceFlags{
		method:      fs.String("method", "all", "unwinding `method`: "+compare.MethodNames(", ")+", or all (every other method that applies to the machine checked against CFI at every frame)"),
		asJSON:      fs.Bool("json", false, "print JSON instead of text"),
		maxDepth:    fs.Int("max-depth", 0, "at most `N` frames per thread (0: 256; at most 1000000)"),
		independent: fs.Bool("independent", false, "with --method all, also run each method's own trace and match its frames with CFI's"),
	}
}

// options validates the flags into the engine's options; errors name the
// flag.
func (f *traceFlags) options() (compare.Options, error) {
	methods, err := compare.ParseMethods(*f.method)
	if err != nil {
		return compare.Options{}, err
	}
	if err := compare.CheckMaxDepth(*f.maxDepth); err != nil {
		return compare.Options{}, fmt.Errorf("--max-depth: %w", err)
	}
	return compare.Options{Methods: methods, MaxDepth: *f.maxDepth, Independent: *f.independent, Prefetch: true}, nil
}

// print writes the traces as text or JSON and returns the exit status: 0,
// 1 when SFrame disagrees with CFI somewhere, 2 when writing failed.
func (f *traceFlags) print(pt *debugger.ProcessTrace, name string, stdout, stderr io.Writer) int {
	// bt and core unwind with the collector at 800% (a one-shot run that
	// allocates CFI tables). Printing makes garbage in proportion to the
	// frames (JSON about 2 KB a frame, built and dropped one at a time),
	// and at 800% the heap would grow to nine times the traces before a
	// collection: Go's default keeps it near twice.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(100)
	}
	var err error
	if *f.asJSON {
		err = pt.WriteJSON(stdout)
	} else {
		pt.WriteText(stdout, compare.TextOptions{Style: compare.Style{Color: isTerminal(stdout)}})
	}
	if err != nil {
		fmt.Fprintf(stderr, "sfdbg: %s: %v\n", name, err)
		return exitError
	}
	if pt.Disagreements() > 0 {
		return exitFindings
	}
	return exitOK
}
