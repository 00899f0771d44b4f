package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
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
		usage: "verify [--function GLOB]... [--max-instructions N] [--json] [--junit FILE] (-p PID | [--] PROG [ARGS...])",
		summary: "single-step a program and check every executed instruction's SFrame, CFI, frame-pointer and code-oracle rule\n" +
			"against the true CFA and return address its calls fixed; exit 1 if SFrame, CFI or FP disagreed",
	}
	c.run = func(args []string, stdout, stderr io.Writer) int {
		fs := newFlagSet(c, stderr)
		var funcs funcPatterns
		fs.Var(&funcs, "function", "step and judge only the functions whose names match `GLOB` (repeatable): their calls into other functions run at full speed to their return")
		maxN := fs.Uint64("max-instructions", 0, "stop after `N` executed instructions (0: until the program exits)")
		asJSON := fs.Bool("json", false, "print the report as one JSON document")
		junit := fs.String("junit", "", "also write a JUnit XML report to `FILE` (one test case per function verified, failing where a table was wrong)")
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
		intr := make(chan struct{})
		sigs := make(chan os.Signal, 1)
		signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
		defer signal.Stop(sigs)
		go func() {
			if _, ok := <-sigs; ok {
				stop.Store(true)
				close(intr)
			}
		}()
		res, err := debugger.VerifyProcess(argv, pid, debugger.VerifyOptions{
			Functions: funcs, MaxInstructions: *maxN, Stop: stop.Load, Interrupt: intr})
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
		if *junit != "" {
			if jerr := writeVerifyJUnit(*junit, res.Report); jerr != nil {
				fmt.Fprintf(stderr, "sfdbg verify: %v\n", jerr)
				return exitError
			}
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

// writeVerifyJUnit writes one test case per function verify judged,
// failing when SFrame, CFI or the FP chain was wrong in it (a code-oracle
// finding is the oracle's bug: system-out, not a failure).
func writeVerifyJUnit(path string, r *compare.VerifyReport) error {
	suite := junitSuite{Name: "sfdbg verify"}
	var cases []junitCase
	index := map[string]int{}
	for _, f := range r.Functions {
		if f.Verified == 0 {
			continue
		}
		index[f.Module+"\x00"+f.Name] = len(cases)
		cases = append(cases, junitCase{Name: f.Name, Classname: "sfdbg.verify." + f.Module,
			SystemOut: fmt.Sprintf("%d instructions executed, %d verified", f.Executed, f.Verified)})
	}
	for _, fd := range r.Findings {
		i, ok := index[fd.Module+"\x00"+fd.Function]
		if !ok {
			i = len(cases)
			index[fd.Module+"\x00"+fd.Function] = i
			cases = append(cases, junitCase{Name: fd.Function, Classname: "sfdbg.verify." + fd.Module})
		}
		tc := &cases[i]
		line := fmt.Sprintf("%s %s wrong at %#x (frame %d): execution %#x, %s %#x, row %s\n", fd.Method, fd.What, fd.PC, fd.Level, fd.Truth, fd.Method, fd.Got, fd.Rule)
		if fd.Oracle {
			tc.SystemOut += "\noracle bug: " + line
			continue
		}
		if tc.Failure == nil {
			tc.Failure = &junitMessage{Type: "wrong"}
			suite.Failures++
		}
		tc.Failure.Body += line
	}
	for i := range cases {
		if f := cases[i].Failure; f != nil {
			f.Message = fmt.Sprintf("%d instruction(s) where a table is wrong", strings.Count(f.Body, "\n"))
		}
	}
	suite.Tests = len(cases)
	return writeJUnitCases(path, suite, cases)
}
