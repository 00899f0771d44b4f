package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"sync/atomic"
	"syscall"

	"github.com/sfdbg/sfdbg/compare"
	"github.com/sfdbg/sfdbg/debugger"
)

// funcPatterns is a repeatable --function flag.
type funcPatterns []string

func (p *funcPatterns) String() string     { return fmt.Sprint(*p) }
func (p *funcPatterns) Set(s string) error { *p = append(*p, s); return nil }

func init() {
	c := &command{
		name:  "verify",
		usage: "verify [--function GLOB]... [--max-instructions N] [--json] (-p PID | [--] PROG [ARGS...])",
		summary: "single-step a program and check every executed instruction's SFrame, CFI, frame-pointer and code-oracle rule\n" +
			"against the true CFA and return address its calls fixed; exit 1 if SFrame, CFI or FP disagreed",
	}
	c.run = func(args []string, stdout, stderr io.Writer) int {
		fs := newFlagSet(c, stderr)
		var funcs funcPatterns
		fs.Var(&funcs, "function", "judge only the functions whose names match `GLOB` (repeatable; every thread is still stepped)")
		maxN := fs.Uint64("max-instructions", 0, "stop after `N` executed instructions (0: until the program exits)")
		asJSON := fs.Bool("json", false, "print the report as one JSON document")
		pidFlag := fs.String("p", "", "verify the running process `PID` (attached, then detached and left running)")
		if st, ok := parseFlags(fs, args); !ok {
			return st
		}
		var argv []string
		pid := 0
		name := ""
		if *pidFlag != "" {
			n, err := strconv.Atoi(*pidFlag)
			if err != nil || n <= 0 || fs.NArg() > 0 {
				fmt.Fprintf(stderr, "sfdbg verify: -p takes one process ID and no program (got -p %q %v)\n", *pidFlag, fs.Args())
				return exitError
			}
			pid, name = n, "process "+*pidFlag
		} else {
			var ok bool
			if argv, ok = programArgs(fs); !ok {
				return exitError
			}
			name = argv[0]
		}
		var stop atomic.Bool
		sigs := make(chan os.Signal, 1)
		signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
		defer signal.Stop(sigs)
		go func() {
			if _, ok := <-sigs; ok {
				stop.Store(true)
			}
		}()
		res, err := debugger.VerifyProcess(argv, pid, debugger.VerifyOptions{
			Functions: funcs, MaxInstructions: *maxN, Stop: stop.Load})
		if err != nil && res == nil {
			fmt.Fprintf(stderr, "sfdbg verify: %v\n", err)
			return exitError
		}
		if *asJSON {
			enc := json.NewEncoder(stdout)
			enc.SetIndent("", "  ")
			enc.Encode(struct {
				Program string  `json:"program"`
				Seconds float64 `json:"seconds"`
				Exited  bool    `json:"exited"`
				Status  int     `json:"status,omitempty"`
				*compare.VerifyReport
			}{name, res.Elapsed.Seconds(), res.Exited, res.Status, res.Report})
		} else {
			debugger.WriteVerifyText(stdout, name, res)
		}
		if err != nil {
			fmt.Fprintf(stderr, "sfdbg verify: %v\n", err)
			return exitError
		}
		for _, fd := range res.Report.Findings {
			if !fd.Oracle {
				return exitFindings
			}
		}
		return exitOK
	}
	register(c)
}
