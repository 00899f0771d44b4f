package main

import (
	"bufio"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sfdbg/sfdbg/compare"
	"github.com/sfdbg/sfdbg/sframe/elfobj"
)

func init() {
	c := &command{
		name:    "check",
		usage:   "check [--json] [--junit FILE] [--recursive] [-j N] [--profile kernel] [--ignore-known] [--suppressions FILE] [--baseline REPORT.json] FILE|DIR...",
		summary: "validate binaries' SFrame against their own DWARF CFI, instruction by instruction",
	}
	c.run = func(args []string, stdout, stderr io.Writer) int { return runCheck(c, args, stdout, stderr) }
	register(c)
}

func runCheck(c *command, args []string, stdout, stderr io.Writer) int {
	fset := newFlagSet(c, stderr)
	jsonOut := fset.Bool("json", false, "JSON output: one document for one file, JSON Lines (one report per file, then the totals) for several")
	junit := fset.String("junit", "", "also write a JUnit XML report to `FILE` (one test case per binary)")
	recursive := fset.Bool("recursive", false, "check every ELF file and ar archive with .sframe below the given directories (other files are skipped)")
	jobs := fset.Int("j", runtime.NumCPU(), "check `N` files in parallel")
	profile := fset.String("profile", "", "with `kernel`, every rule the Linux kernel's SFrame loader fails counts as a disagreement (exit 1)")
	ignoreKnown := fset.Bool("ignore-known", false, "disagreements that match a known producer fault (named in the report) do not fail the run")
	suppFile := fset.String("suppressions", "", "findings a rule of `FILE` matches do not fail the run; one rule per line: KIND PLACE [PRODUCER] (globs; PLACE matches the function or its section); they are counted, not listed")
	baseline := fset.String("baseline", "", "only findings not in `REPORT.json` (an earlier check --json) fail the run; matched by file, kind, function and offset in the function")
	if st, ok := parseFlags(fset, args); !ok {
		return st
	}
	gate, err := newGate(*ignoreKnown, *suppFile, *baseline)
	if err != nil {
		fmt.Fprintf(stderr, "sfdbg check: %v\n", err)
		return exitError
	}
	if *profile != "" && *profile != "kernel" {
		fmt.Fprintf(stderr, "sfdbg check: unknown profile %q (want kernel)\n", *profile)
		return exitError
	}
	if os.Getenv("GOGC") == "" {
		// A check builds every CFI row of a file, all of them pointer-
		// holding, and keeps them until the file is done: collecting
		// less often is the cheapest speed-up. On SQLite v3 (hyperfine,
		// one run): 56 ms at 400 against 71 ms at Go's default 100, with
		// a peak RSS of 42 MB against 39 MB. GOGC, when set, wins.
		debug.SetGCPercent(400)
	}
	if fset.NArg() == 0 {
		fset.Usage()
		return exitError
	}
	var paths []string
	named := map[string]bool{}
	walked := &walkResult{skipped: map[string]int{}}
	for _, a := range fset.Args() {
		fi, err := os.Stat(a)
		if err != nil {
			fmt.Fprintf(stderr, "sfdbg check: %s\n", pathErrText(a, err))
			return exitError
		}
		if !fi.IsDir() {
			paths = append(paths, a)
			named[a] = true
			continue
		}
		if !*recursive {
			fmt.Fprintf(stderr, "sfdbg check: %s is a directory (use --recursive)\n", a)
			return exitError
		}
		paths = walked.walk(a, paths)
	}
	start := time.Now()
	reports := checkAll(paths, *jobs, *profile == "kernel", func(r *compare.FileReport) {
		if !skipped(r, named) {
			gate.Classify(r)
		}
		// Streamed in completion order under --json with several files.
		if *jsonOut && len(paths) > 1 && !skipped(r, named) {
			b, _ := json.Marshal(r)
			stdout.Write(append(b, '\n'))
		}
	})
	var kept []*compare.FileReport
	for _, r := range reports {
		if !skipped(r, named) {
			kept = append(kept, r)
		} else {
			walked.skipped[skipNoSFrame]++
		}
	}
	doc := compare.NewCheckDocument(kept)
	switch {
	case *jsonOut && len(paths) == 1:
		compare.WriteJSON(stdout, doc)
	case *jsonOut:
		doc.Files = nil
		b, _ := json.Marshal(doc)
		stdout.Write(append(b, '\n'))
	default:
		st := compare.Style{Color: isTerminal(stdout)}
		w := bufio.NewWriter(stdout)
		for _, r := range kept {
			r.WriteText(w, st)
		}
		if len(kept) > 1 {
			doc.WriteSummaryTable(w, st)
		}
		if *recursive {
			walked.writeSummary(w, len(kept))
		}
		w.Flush()
	}
	if *recursive {
		for _, u := range walked.unreadable {
			fmt.Fprintf(stderr, "sfdbg check: cannot read %s\n", u)
		}
		if *jsonOut {
			walked.writeSummary(stderr, len(kept))
		}
	}
	if *junit != "" {
		if err := writeJUnit(*junit, kept, time.Since(start)); err != nil {
			fmt.Fprintf(stderr, "sfdbg check: writing JUnit report: %v\n", err)
			return exitError
		}
	}
	switch {
	case doc.Errors > 0, len(walked.unreadable) > 0:
		return exitError
	case doc.Failing > 0:
		return exitFindings
	}
	return exitOK
}

// newGate builds the gate of check's exit status from its flags: known
// faults ignored or not, the rules of the suppressions file, the
// baseline report (empty names: none).
func newGate(ignoreKnown bool, suppressions, baseline string) (*compare.Gate, error) {
	g := &compare.Gate{IgnoreKnown: ignoreKnown}
	if suppressions != "" {
		f, err := os.Open(suppressions)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		if g.Suppressions, err = compare.ParseSuppressions(suppressions, f); err != nil {
			return nil, err
		}
	}
	if baseline != "" {
		f, err := os.Open(baseline)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		if g.Baseline, err = compare.ReadBaseline(baseline, f); err != nil {
			return nil, err
		}
	}
	return g, nil
}

// skipped reports whether a report is for a file found by --recursive that
// carries no SFrame section: such files are skipped, not failed.
func skipped(r *compare.FileReport, named map[string]bool) bool {
	return !named[r.File] && r.NoSFrame
}

// checkAll checks paths with up to jobs workers and returns the reports in
// the order of paths (an ar archive's members in archive order, one report
// each, compare.CheckArchive); done is called (serially) as each report
// completes. Each checked file also gets the kernel's and libsframe's
// verdicts on its section (AddConsumerVerdicts), as disagreements when
// kernel is set.
func checkAll(paths []string, jobs int, kernel bool, done func(*compare.FileReport)) []*compare.FileReport {
	if jobs < 1 {
		jobs = 1
	}
	out := make([][]*compare.FileReport, len(paths))
	idx := make(chan int)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := 0; w < jobs; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range idx {
				var rs []*compare.FileReport
				if isArchive(paths[i]) {
					rs, _ = compare.CheckArchive(paths[i], compare.CheckOptions{})
				} else {
					r, _ := compare.CheckFile(paths[i], compare.CheckOptions{})
					rs = []*compare.FileReport{r}
				}
				for _, r := range rs {
					if r.Err == "" {
						r.AddConsumerVerdicts(kernel) // an error here was CheckFile's too
					}
				}
				out[i] = rs
				mu.Lock()
				for _, r := range rs {
					done(r)
				}
				mu.Unlock()
			}
		}()
	}
	for i := range paths {
		idx <- i
	}
	close(idx)
	wg.Wait()
	var all []*compare.FileReport
	for _, rs := range out {
		all = append(all, rs...)
	}
	return all
}

// isArchive reports whether the file at path starts with the ar magic; a
// file that cannot be read is not (CheckFile says why).
func isArchive(path string) bool {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	var magic [8]byte
	n, _ := io.ReadFull(f, magic[:])
	return elfobj.IsArchive(magic[:n])
}

// Reasons --recursive skips a file, as the summary names them.
const (
	skipNotELF     = "not ELF"
	skipNoSFrame   = "ELF without SFrame"
	skipSymlink    = "symbolic link (not followed)"
	skipNotRegular = "not a regular file"
)

// walkResult is what --recursive found below the directories it walked:
// the files to check, the others by the reason they were skipped, and
// what could not be read (a directory or file: its path and the error).
type walkResult struct {
	skipped    map[string]int
	unreadable []string
}

// walk appends the ELF files and ar archives below root to paths and
// records the rest.
// Symbolic links below root are not followed; root itself may be one.
func (w *walkResult) walk(root string, paths []string) []string {
	if fi, err := os.Lstat(root); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		root += string(filepath.Separator) // walk the directory it leads to
	}
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			w.unreadable = append(w.unreadable, pathErrText(p, err))
		case d.IsDir():
		case d.Type()&fs.ModeSymlink != 0:
			w.skipped[skipSymlink]++
		case !d.Type().IsRegular():
			w.skipped[skipNotRegular]++
		default:
			switch elf, err := isELF(p); {
			case err != nil:
				w.unreadable = append(w.unreadable, pathErrText(p, err))
			case elf, isArchive(p):
				paths = append(paths, p)
			default:
				w.skipped[skipNotELF]++
			}
		}
		return nil
	})
	return paths
}

// writeSummary says how many files --recursive checked and how many it
// skipped, and why; it is printed even when nothing was checked.
func (w *walkResult) writeSummary(out io.Writer, checked int) {
	total := 0
	var why []string
	for _, r := range []string{skipNotELF, skipNoSFrame, skipSymlink, skipNotRegular} {
		if n := w.skipped[r]; n > 0 {
			total += n
			why = append(why, fmt.Sprintf("%s: %d", r, n))
		}
	}
	fmt.Fprintf(out, "\nFiles: %d checked, %d skipped", checked, total)
	if len(why) > 0 {
		fmt.Fprintf(out, " (%s)", strings.Join(why, "; "))
	}
	if n := len(w.unreadable); n > 0 {
		fmt.Fprintf(out, ", %d unreadable (listed on stderr)", n)
	}
	fmt.Fprintln(out)
}

// pathErrText formats an error about the file at p as "p: what".
func pathErrText(p string, err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Path + ": " + pe.Err.Error()
	}
	return p + ": " + err.Error()
}

// isELF reports whether the file at path starts with the ELF magic; the
// error is that of opening or reading it (a file shorter than the magic
// is not ELF).
func isELF(path string) (bool, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return false, err
	}
	defer f.Close()
	var magic [4]byte
	n, err := io.ReadFull(f, magic[:])
	if err == io.ErrUnexpectedEOF || err == io.EOF {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return n == 4 && string(magic[:]) == "\x7fELF", nil
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}

// JUnit XML, as read by CI systems: one <testcase> per binary, failing
// when SFrame disagrees with CFI, erroring when the file is unreadable.
type junitSuites struct {
	XMLName xml.Name     `xml:"testsuites"`
	Suites  []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Time     string      `xml:"time,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	Error     *junitMessage `xml:"error,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Body    string `xml:",chardata"`
}

func writeJUnit(path string, reports []*compare.FileReport, elapsed time.Duration) error {
	s := junitSuite{Name: "sfdbg check", Tests: len(reports), Time: fmt.Sprintf("%.3f", elapsed.Seconds())}
	for _, r := range reports {
		tc := junitCase{Name: r.File, Classname: "sfdbg.check"}
		var buf strings.Builder
		r.WriteText(&buf, compare.Style{})
		switch {
		case r.Err != "":
			s.Errors++
			tc.Error = &junitMessage{Message: r.Err, Type: "unreadable"}
		case r.Failing() > 0:
			s.Failures++
			tc.Failure = &junitMessage{Message: fmt.Sprintf("%d disagreements between SFrame and CFI", r.Failing()), Type: "disagreement", Body: buf.String()}
		default:
			tc.SystemOut = buf.String()
		}
		s.Cases = append(s.Cases, tc)
	}
	b, err := xml.MarshalIndent(junitSuites{Suites: []junitSuite{s}}, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append([]byte(xml.Header), append(b, '\n')...), 0o644)
}
