package main

import (
	"bufio"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"iter"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sfdbg/sfdbg/compare"
	"github.com/sfdbg/sfdbg/sframe/elfobj"
)

func init() {
	c := &command{
		name:    "check",
		usage:   "check [--json] [--junit FILE] [--recursive [--all]] [-j N] [--no-code] [--profile kernel] [--ignore-known] [--suppressions FILE] [--baseline REPORT.json] [--reproduce DIR [--assembler PATH]] FILE|DIR...",
		summary: "validate binaries' SFrame against their own DWARF CFI, instruction by instruction",
	}
	c.run = func(args []string, stdout, stderr io.Writer) int { return runCheck(c, args, stdout, stderr) }
	register(c)
}

func runCheck(c *command, args []string, stdout, stderr io.Writer) int {
	fset := newFlagSet(c, stderr)
	jsonOut := fset.Bool("json", false, "JSON Lines output, for one file as for many: one report per file as it is done (an archive: one per member), then the totals (a document with \"total\" and no \"files\")")
	junit := fset.String("junit", "", "also write a JUnit XML report to `FILE` (one test case per binary)")
	recursive := fset.Bool("recursive", false, "check every ELF file and ar archive with .sframe below the given directories (other files are skipped)")
	all := fset.Bool("all", false, "with --recursive, also judge the CFI of ELF files without SFrame against the code (a distribution's files); a file with no unwind tables at all, or for a machine sfdbg does not know, is counted as skipped, not an error")
	jobs := fset.Int("j", runtime.NumCPU(), "check `N` files in parallel")
	noCode := fset.Bool("no-code", false, "do not judge SFrame and CFI against the machine code (the code oracle: code-cfa, code-ra, code-fp, code-state findings and the judged share)")
	profile := fset.String("profile", "", "with `kernel`, every rule the Linux kernel's SFrame loader fails counts as a disagreement (exit 1)")
	ignoreKnown := fset.Bool("ignore-known", false, "disagreements that match a known producer fault (named in the report) do not fail the run")
	suppFile := fset.String("suppressions", "", "findings a rule of `FILE` matches do not fail the run; one rule per line: KIND PLACE [PRODUCER] (globs; PLACE matches the function or its section); they are counted, not listed")
	baseline := fset.String("baseline", "", "only findings not in `REPORT.json` (an earlier check --json) fail the run; matched by file, kind, function and offset in the function")
	reproduce := fset.String("reproduce", "", "write to `DIR`, for each function whose rows an assembler got wrong, FUNCTION.s (a standalone file of at most 30 lines that makes --assembler emit the same wrong SFrame) and FUNCTION.txt (command, expected and actual rows; x86-64); for each function with a code-oracle finding, FUNCTION.code.s (its instructions as bytes and its CFI, reduced, that --assembler turns into an object check finds the same fault in) and FUNCTION.code.txt (every machine)")
	assembler := fset.String("assembler", "as", "the assembler --reproduce runs (`PATH`; GNU as, or clang with its integrated assembler)")
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
	if os.Getenv("GOMEMLIMIT") == "" {
		// At 400 the heap grows to five times what the files in flight
		// hold: two 5 MB SQLite builds with DWARF took check --recursive
		// -j 2 to 295 MB. Collecting sooner near 256 MiB keeps a batch
		// under 300 MB; the limit is soft, so a file that needs more
		// gets it, with more collections. GOMEMLIMIT, when set, wins.
		debug.SetMemoryLimit(256 << 20)
	}
	if fset.NArg() == 0 {
		fset.Usage()
		return exitError
	}
	if *all && (!*recursive || *noCode) {
		fmt.Fprintf(stderr, "sfdbg check: --all goes with --recursive, and not with --no-code (it judges CFI against the code)\n")
		return exitError
	}
	named := map[string]bool{}
	for _, a := range fset.Args() {
		fi, err := os.Stat(a)
		if err != nil {
			fmt.Fprintf(stderr, "sfdbg check: %s\n", pathErrText(a, err))
			return exitError
		}
		if fi.IsDir() && !*recursive {
			fmt.Fprintf(stderr, "sfdbg check: %s is a directory (use --recursive)\n", a)
			return exitError
		}
		if !fi.IsDir() {
			named[a] = true
		}
	}
	var out checkSink
	switch {
	case *jsonOut:
		out = &jsonLinesSink{w: stdout}
	default:
		out = &textSink{w: bufio.NewWriter(stdout), st: compare.Style{Color: isTerminal(stdout)}, stderr: stderr}
	}
	if *junit != "" {
		js, err := newJUnitSink(*junit)
		if err != nil {
			fmt.Fprintf(stderr, "sfdbg check: writing JUnit report: %v\n", err)
			return exitError
		}
		defer js.discard()
		out = teeSink{out, js}
	}
	var repro *reproducer
	if *reproduce != "" {
		if repro, err = newReproducer(*reproduce, *assembler, stderr); err != nil {
			fmt.Fprintf(stderr, "sfdbg check: %v\n", err)
			return exitError
		}
		defer repro.close()
	}
	walked := &walkResult{skipped: map[string]int{}, stderr: stderr}
	total := compare.NewCheckDocument(nil)
	noSFrame, noTables, otherMachine := 0, 0, 0
	opts := compare.CheckOptions{Consumers: true, KernelProfile: *profile == "kernel", AllMembers: *all}
	if !*noCode {
		opts.Code = compare.FramesCode
	}
	// Each report is written as soon as it and those before it are done,
	// then dropped: only the totals stay (compare.CheckFiles).
	compare.CheckFiles(walked.files(fset.Args()), *jobs, opts, func(r *compare.FileReport) {
		switch skipped(r, named, *all) {
		case skipNoSFrame:
			noSFrame++
			return
		case skipNoTables:
			noTables++
			return
		case skipOtherMachine:
			otherMachine++
			return
		}
		gate.Classify(r)
		total.Add(r)
		out.file(r)
		if repro != nil {
			repro.file(r)
		}
	})
	walked.skipped[skipNoSFrame] += noSFrame
	walked.skipped[skipNoTables] += noTables
	walked.skipped[skipOtherMachine] += otherMachine
	var summary io.Writer // where --recursive's file counts go
	if *recursive {
		summary = stdout
		if *jsonOut {
			summary = stderr
		}
	}
	if err := out.end(total, walked, summary); err != nil {
		fmt.Fprintf(stderr, "sfdbg check: %v\n", err)
		return exitError
	}
	switch {
	case total.Errors > 0, walked.unreadable > 0:
		return exitError
	case total.Failing > 0:
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

// skipped returns why --recursive skips the report of a file it found
// (not one named on the command line), or "": a file without SFrame
// unless all is set (with all, its CFI was judged), and, with all, one
// with no unwind tables at all or for a machine sfdbg does not know.
func skipped(r *compare.FileReport, named map[string]bool, all bool) string {
	switch {
	case named[r.File]:
		return ""
	case all && r.OtherMachine:
		return skipOtherMachine
	case !r.NoSFrame:
		return ""
	case !all:
		return skipNoSFrame
	case r.NoUnwindTables:
		return skipNoTables
	}
	return ""
}

// A checkSink writes the reports of a check run: file is called with each
// report as soon as it is done, in the order of the files, and must not
// keep it; end is called once with the totals, and writes --recursive's
// summary of what was checked and skipped to summary when it is not nil.
type checkSink interface {
	file(r *compare.FileReport)
	end(total *compare.CheckDocument, walked *walkResult, summary io.Writer) error
}

// textSink writes one block of text per file, then the summary table when
// there were several.
type textSink struct {
	w      *bufio.Writer
	st     compare.Style
	stderr io.Writer // a file that cannot be checked is said here, as dump, diff and core say it
}

func (s *textSink) file(r *compare.FileReport) {
	if r.Err != "" && s.stderr != nil {
		s.w.Flush()
		r.WriteText(s.stderr, compare.Style{})
		return
	}
	r.WriteText(s.w, s.st)
	s.w.Flush()
}

func (s *textSink) end(total *compare.CheckDocument, walked *walkResult, summary io.Writer) error {
	if total.Checked > 1 {
		total.WriteSummaryTable(s.w, s.st)
	}
	if summary != nil {
		walked.writeSummary(s.w, total.Checked)
	}
	return s.w.Flush()
}

// jsonLinesSink writes JSON Lines: one FileReport per line, then the
// totals (a CheckDocument without "files").
type jsonLinesSink struct{ w io.Writer }

func (s *jsonLinesSink) file(r *compare.FileReport) {
	b, _ := json.Marshal(r)
	s.w.Write(append(b, '\n'))
}

func (s *jsonLinesSink) end(total *compare.CheckDocument, walked *walkResult, summary io.Writer) error {
	b, _ := json.Marshal(total)
	s.w.Write(append(b, '\n'))
	if summary != nil {
		walked.writeSummary(summary, total.Checked)
	}
	return nil
}

// teeSink writes to every sink in turn.
type teeSink []checkSink

func (t teeSink) file(r *compare.FileReport) {
	for _, s := range t {
		s.file(r)
	}
}

func (t teeSink) end(total *compare.CheckDocument, walked *walkResult, summary io.Writer) error {
	var first error
	for i, s := range t {
		if i > 0 {
			summary = nil // once
		}
		if err := s.end(total, walked, summary); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// Reasons --recursive skips a file, as the summary names them.
const (
	skipNotELF       = "not ELF"
	skipNoSFrame     = "ELF without SFrame"
	skipNoTables     = "ELF without SFrame or CFI"
	skipOtherMachine = "ELF for another machine"
	skipSymlink      = "symbolic link (not followed)"
	skipNotRegular   = "not a regular file"
)

// walkResult is what --recursive found below the directories it walked:
// the files other than those checked, by the reason they were skipped,
// and how many could not be read (a directory or file; each is named on
// stderr as it is found).
type walkResult struct {
	skipped    map[string]int
	unreadable int
	stderr     io.Writer
}

// files yields the operands in order, each directory replaced by the ELF
// files and ar archives below it, and records the rest; a directory is
// walked as the files are consumed.
func (w *walkResult) files(operands []string) iter.Seq[compare.Target] {
	return func(yield func(compare.Target) bool) {
		for _, a := range operands {
			if fi, err := os.Stat(a); err == nil && fi.IsDir() {
				if !w.walk(a, yield) {
					return
				}
				continue
			}
			if !yield(compare.Target{Path: a}) {
				return
			}
		}
	}
}

// walk yields the ELF files and ar archives below root, each opened and
// classified once (elfobj.Open) and handed to the check open, and records
// the rest; it returns false when yield did.
// Symbolic links below root are not followed; root itself may be one.
func (w *walkResult) walk(root string, yield func(compare.Target) bool) bool {
	if fi, err := os.Lstat(root); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		root += string(filepath.Separator) // walk the directory it leads to
	}
	more := true
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			w.cannotRead(p, err)
		case d.IsDir():
		case d.Type()&fs.ModeSymlink != 0:
			w.skipped[skipSymlink]++
		case !d.Type().IsRegular():
			w.skipped[skipNotRegular]++
		default:
			switch f, err := elfobj.Open(p); {
			case err != nil:
				w.cannotRead(p, err)
			case f.Kind == elfobj.KindELF, f.Kind == elfobj.KindArchive:
				if more = yield(compare.Target{Path: p, File: f}); !more {
					return filepath.SkipAll
				}
			default:
				f.Close()
				w.skipped[skipNotELF]++
			}
		}
		return nil
	})
	return more
}

// cannotRead counts the file or directory at p as unreadable and says so
// on stderr.
func (w *walkResult) cannotRead(p string, err error) {
	w.unreadable++
	fmt.Fprintf(w.stderr, "sfdbg check: cannot read %s\n", pathErrText(p, err))
}

// writeSummary says how many files --recursive checked and how many it
// skipped, and why; it is printed even when nothing was checked.
func (w *walkResult) writeSummary(out io.Writer, checked int) {
	total := 0
	var why []string
	for _, r := range []string{skipNotELF, skipNoSFrame, skipNoTables, skipOtherMachine, skipSymlink, skipNotRegular} {
		if n := w.skipped[r]; n > 0 {
			total += n
			why = append(why, fmt.Sprintf("%s: %d", r, n))
		}
	}
	fmt.Fprintf(out, "\nFiles: %d checked, %d skipped", checked, total)
	if len(why) > 0 {
		fmt.Fprintf(out, " (%s)", strings.Join(why, "; "))
	}
	if n := w.unreadable; n > 0 {
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

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}

// JUnit XML, as read by CI systems: one <testsuite> with one <testcase>
// per binary, failing when SFrame disagrees with CFI, erroring when the
// file is unreadable.
type junitSuite struct {
	Name                    string
	Tests, Failures, Errors int
}

type junitCase struct {
	XMLName   xml.Name      `xml:"testcase"`
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

// junitSink writes the JUnit report: each test case as its file is done,
// to a temporary file, then at the end the report around them (the
// counts come first in it).
type junitSink struct {
	path  string
	start time.Time
	cases *os.File
	enc   *xml.Encoder
	suite junitSuite // the counts so far
}

func newJUnitSink(path string) (*junitSink, error) {
	f, err := os.CreateTemp("", "sfdbg-junit-*.xml")
	if err != nil {
		return nil, err
	}
	enc := xml.NewEncoder(f)
	enc.Indent("    ", "  ") // the depth of <testcase> in the report
	return &junitSink{path: path, start: time.Now(), cases: f, enc: enc, suite: junitSuite{Name: "sfdbg check"}}, nil
}

func (s *junitSink) file(r *compare.FileReport) {
	tc := junitCase{Name: r.File, Classname: "sfdbg.check"}
	var buf strings.Builder
	r.WriteText(&buf, compare.Style{})
	s.suite.Tests++
	switch {
	case r.Err != "":
		s.suite.Errors++
		tc.Error = &junitMessage{Message: r.Err, Type: "unreadable"}
	case r.Failing() > 0:
		s.suite.Failures++
		tc.Failure = &junitMessage{Message: fmt.Sprintf("%d disagreements between SFrame and CFI", r.Failing()), Type: "disagreement", Body: buf.String()}
	default:
		tc.SystemOut = buf.String()
	}
	s.enc.Encode(tc) // an error comes back from Flush at the end
}

func (s *junitSink) end(*compare.CheckDocument, *walkResult, io.Writer) error {
	if err := s.enc.Flush(); err != nil {
		return fmt.Errorf("writing JUnit report: %w", err)
	}
	if _, err := s.cases.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("writing JUnit report: %w", err)
	}
	out, err := os.Create(s.path)
	if err != nil {
		return fmt.Errorf("writing JUnit report: %w", err)
	}
	w := bufio.NewWriter(out)
	fmt.Fprintf(w, "%s<testsuites>\n  <testsuite name=\"%s\" tests=\"%d\" failures=\"%d\" errors=\"%d\" time=\"%.3f\">\n",
		xml.Header, s.suite.Name, s.suite.Tests, s.suite.Failures, s.suite.Errors, time.Since(s.start).Seconds())
	io.Copy(w, s.cases)
	if s.suite.Tests > 0 {
		w.WriteString("\n")
	}
	w.WriteString("  </testsuite>\n</testsuites>\n")
	err = w.Flush()
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("writing JUnit report: %w", err)
	}
	return nil
}

// discard removes the temporary file of the test cases.
func (s *junitSink) discard() {
	s.cases.Close()
	os.Remove(s.cases.Name())
}
