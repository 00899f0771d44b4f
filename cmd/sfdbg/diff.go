package main

import (
	"bufio"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/sfdbg/sfdbg/compare"
)

func init() {
	c := &command{
		name:    "diff",
		usage:   "diff [--json] [--junit FILE] [--only-a] [--table sframe|cfi] A B | diff --link [--json] OUTPUT OBJECT...",
		summary: "compare the SFrame and CFI of two builds of the same source function by function, instruction by instruction; --link: judge a linker's output against its input objects",
	}
	c.run = func(args []string, stdout, stderr io.Writer) int { return runDiff(c, args, stdout, stderr) }
	register(c)
}

func runDiff(c *command, args []string, stdout, stderr io.Writer) int {
	fset := newFlagSet(c, stderr)
	jsonOut := fset.Bool("json", false, "JSON output: one document")
	junit := fset.String("junit", "", "also write a JUnit XML report to `FILE` (one test case per function paired, failing on a semantic difference)")
	onlyA := fset.Bool("only-a", false, "compare only the functions A defines (B may hold more)")
	table := fset.String("table", "", "compare only one table: `sframe` or cfi")
	link := fset.Bool("link", false, "OUTPUT OBJECT...: say what the linker did with the objects' .sframe sections, compare each object's SFrame rows with the output's for the same function, and check the output; findings the objects did not cause are the linker's")
	if st, ok := parseFlags(fset, args); !ok {
		return st
	}
	if *link {
		return runLinkDiff(fset.Args(), *jsonOut, stdout, stderr)
	}
	if fset.NArg() != 2 {
		fset.Usage()
		return exitError
	}
	opts := compare.DiffOptions{OnlyA: *onlyA}
	switch *table {
	case "":
	case compare.TableSFrame, compare.TableCFI:
		opts.Tables = []string{*table}
	default:
		fmt.Fprintf(stderr, "sfdbg diff: unknown table %q (want sframe or cfi)\n", *table)
		return exitError
	}
	rep, err := compare.Diff(fset.Arg(0), fset.Arg(1), opts)
	if err != nil {
		fmt.Fprintf(stderr, "sfdbg diff: %v\n", err)
		return exitError
	}
	if *jsonOut {
		if err := compare.WriteJSON(stdout, rep); err != nil {
			fmt.Fprintf(stderr, "sfdbg diff: %v\n", err)
			return exitError
		}
	} else {
		w := bufio.NewWriter(stdout)
		rep.WriteText(w, compare.Style{Color: isTerminal(stdout)})
		w.Flush()
	}
	if *junit != "" {
		if err := writeDiffJUnit(*junit, rep); err != nil {
			fmt.Fprintf(stderr, "sfdbg diff: writing JUnit report: %v\n", err)
			return exitError
		}
	}
	// Two unrelated files share few or no function names: diff compares
	// builds of one source, and says when these are not.
	if sm := rep.Summary; sm.Paired == 0 {
		fmt.Fprintf(stderr, "sfdbg diff: %s and %s have no function in common (%d and %d functions): nothing was compared; diff compares two builds of the same source\n",
			fset.Arg(0), fset.Arg(1), sm.FunctionsA, sm.FunctionsB)
		return exitError
	} else if smaller := min(sm.FunctionsA, sm.FunctionsB); sm.Paired*2 < smaller {
		fmt.Fprintf(stderr, "sfdbg diff: warning: %s and %s share only %d of their functions (%d and %d): they do not look like two builds of the same source\n",
			fset.Arg(0), fset.Arg(1), sm.Paired, sm.FunctionsA, sm.FunctionsB)
	}
	if rep.Summary.Semantic > 0 {
		return exitFindings
	}
	return exitOK
}

// writeDiffJUnit writes one test case per function with a difference,
// failing when one is semantic, and one passing case for the functions
// that agree.
func writeDiffJUnit(path string, rep *compare.DiffReport) error {
	var cases []junitCase
	byFunc := map[string]int{}
	suite := junitSuite{Name: "sfdbg diff"}
	for _, d := range rep.Differences {
		i, ok := byFunc[d.Function]
		if !ok {
			i = len(cases)
			byFunc[d.Function] = i
			cases = append(cases, junitCase{Name: d.Function, Classname: "sfdbg.diff"})
		}
		tc := &cases[i]
		if d.Class == compare.DiffSemantic {
			if tc.Failure == nil {
				tc.Failure = &junitMessage{Type: "semantic"}
			}
			tc.Failure.Body += d.Message + "\n"
		} else {
			tc.SystemOut += d.Message + "\n"
		}
	}
	for i := range cases {
		if f := cases[i].Failure; f != nil {
			suite.Failures++
			f.Message = fmt.Sprintf("%d semantic difference(s)", strings.Count(f.Body, "\n"))
		}
	}
	cases = append(cases, junitCase{Name: fmt.Sprintf("the other %d functions paired", max(0, rep.Summary.Paired-len(byFunc))), Classname: "sfdbg.diff"})
	suite.Tests = len(cases)
	return writeJUnitCases(path, suite, cases)
}

// writeJUnitCases writes one JUnit test suite of cases to path.
func writeJUnitCases(path string, suite junitSuite, cases []junitCase) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	fmt.Fprintf(w, "%s<testsuites>\n  <testsuite name=\"%s\" tests=\"%d\" failures=\"%d\" errors=\"0\">\n", xml.Header, suite.Name, suite.Tests, suite.Failures)
	enc := xml.NewEncoder(w)
	enc.Indent("    ", "  ")
	for _, tc := range cases {
		if err := enc.Encode(tc); err != nil {
			f.Close()
			return err
		}
	}
	enc.Flush()
	w.WriteString("\n  </testsuite>\n</testsuites>\n")
	err = w.Flush()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// runLinkDiff is diff --link OUTPUT OBJECT...: compare.JudgeLink, as text
// (ending with the one-line verdict scripts/linker-matrix.sh tabulates) or
// JSON. Exit 1 when the linker changed rows, dropped FDEs or sections,
// concatenated sections, caused a disagreement, or wrote no PT_GNU_SFRAME
// or one that does not match .sframe.
func runLinkDiff(args []string, jsonOut bool, stdout, stderr io.Writer) int {
	if len(args) < 2 {
		fmt.Fprintln(stderr, "sfdbg diff --link: want OUTPUT OBJECT...")
		return exitError
	}
	rep, err := compare.JudgeLink(args[0], args[1:])
	if err != nil {
		fmt.Fprintf(stderr, "sfdbg diff --link: %v\n", err)
		return exitError
	}
	if jsonOut {
		if err := compare.WriteJSON(stdout, rep); err != nil {
			fmt.Fprintf(stderr, "sfdbg diff --link: %v\n", err)
			return exitError
		}
	} else {
		rep.WriteText(stdout)
	}
	if len(rep.Faults)+len(rep.Missing)+len(rep.Linker)+len(rep.Problems) > 0 {
		return exitFindings
	}
	return exitOK
}
