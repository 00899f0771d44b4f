package main

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// stepTranscript keeps what a stepping session prints from the first
// source line on, without sfdbg's verdict lines and the lines only one
// debugger prints ([Inferior ...], gdb's thread and source warnings, the
// program's own output), with every address written 0xADDR: gdb turns
// address randomization off, sfdbg leaves the program as it is.
func stepTranscript(out string) []string {
	addr := regexp.MustCompile(`0x[0-9a-f]+`)
	// sfdbg wraps a location line past 100 columns before "at FILE:LINE",
	// as gdb does at a terminal that wide; gdb in batch mode does not.
	out = strings.ReplaceAll(out, "\n    at ", " at ")
	var lines []string
	started := false
	for _, l := range strings.Split(out, "\n") {
		if !started {
			started = strings.HasPrefix(l, "70\t")
		}
		switch {
		case !started, l == "", l == "ready", strings.HasPrefix(l, "    sframe"), strings.HasPrefix(l, "["),
			strings.HasPrefix(l, "warning:"), strings.HasPrefix(l, "The program is not being run."):
			continue
		}
		lines = append(lines, addr.ReplaceAllString(l, "0xADDR"))
	}
	return lines
}

// TestNextAndStepAreGdbs stops the locals fixture (-O0 and -O2) at
// locals.c:70 in middle, then runs next, step (into leaf, past its
// prologue) and next until the program ends, in gdb and in sfdbg: every
// line printed (the lines stepped to, and the function with its arguments
// when the step entered or returned to another one) must be gdb's.
func TestNextAndStepAreGdbs(t *testing.T) {
	gdb, err := exec.LookPath("gdb")
	if err != nil {
		t.Skip("gdb not installed")
	}
	var cmds []string
	for _, c := range []string{"next", "step", "next", "next", "next", "next", "next", "next", "next", "next", "next", "next", "next", "next", "next"} {
		cmds = append(cmds, "-ex", c)
	}
	for _, bin := range []string{"locals-v3-O0", "locals-v3-O2"} {
		t.Run(bin, func(t *testing.T) {
			path, _ := filepath.Abs(dumpFixture(t, bin))
			g := exec.Command(gdb, append(append([]string{"-nx", "-batch", "-iex", "set debuginfod enabled off", "-ex", "break locals.c:70", "-ex", "run"}, cmds...), "--args", path, "exit")...)
			g.Dir = filepath.Join("..", "..")
			// gdb exits 1 when a command fails: the last ones do once the
			// program has exited, in both debuggers.
			gout, _ := g.CombinedOutput()
			args := append(append([]string{"run", "-batch", "-ex", "break locals.c:70", "-ex", "continue"}, cmds...), "--", path, "exit")
			_, out, errOut := runSfdbg(args...)
			ours, theirs := stepTranscript(out), stepTranscript(string(gout))
			if len(theirs) < 10 {
				t.Fatalf("gdb's transcript is short:\n%s", gout)
			}
			if strings.Join(ours, "\n") != strings.Join(theirs, "\n") {
				t.Errorf("sfdbg:\n%s\n\ngdb:\n%s\n\nsfdbg's whole output:\n%s%s", strings.Join(ours, "\n"), strings.Join(theirs, "\n"), out, errOut)
			}
		})
	}
}

// TestBreakFileLineIsGdbsStatement sets break FILE:LINE on lines of the
// -O2 locals fixture whose first instructions are not a statement (GCC's
// is_stmt 0 rows before the statement), runs to it in gdb and in sfdbg,
// and compares "info symbol $pc": both must stop at the statement gdb
// picks, not at the line's first instruction.
func TestBreakFileLineIsGdbsStatement(t *testing.T) {
	gdb, err := exec.LookPath("gdb")
	if err != nil {
		t.Skip("gdb not installed")
	}
	path, _ := filepath.Abs(dumpFixture(t, "locals-v3-O2"))
	for _, line := range []string{"59", "71", "73", "79"} {
		g := exec.Command(gdb, "-nx", "-batch", "-iex", "set debuginfod enabled off", "-ex", "break locals.c:"+line, "-ex", "run", "-ex", "info symbol $pc", "--args", path, "exit")
		g.Dir = filepath.Join("..", "..")
		gout, _ := g.CombinedOutput()
		_, out, errOut := runSfdbg("run", "-batch", "-ex", "break locals.c:"+line, "-ex", "continue", "-ex", "info symbol $pc", "--", path, "exit")
		sym := regexp.MustCompile(`(?m)^\w+ \+ \d+ in section \.text`)
		theirs, ours := sym.FindString(string(gout)), sym.FindString(out)
		if theirs == "" || ours != theirs {
			t.Errorf("break locals.c:%s: sfdbg stops at %q, gdb at %q\nsfdbg:\n%s%s\ngdb:\n%s", line, ours, theirs, out, errOut, gout)
		}
	}
}

// TestExpressionsAreGdbs stops the -O0 locals fixture with "break leaf"
// (past the prologue, as gdb breaks, so the arguments are in their slots)
// and prints C expressions with comparisons, logical, bitwise, shift and
// remainder operators over arguments, struct members through a pointer
// and array elements, in gdb and in sfdbg: the values must be gdb's.
func TestExpressionsAreGdbs(t *testing.T) {
	gdb, err := exec.LookPath("gdb")
	if err != nil {
		t.Skip("gdb not installed")
	}
	path, _ := filepath.Abs(dumpFixture(t, "locals-v3-O0"))
	exprs := []string{"n == 5", "n != 5 || 0", "r->key + 2", "r->at.x < r->at.y", "n % 4", "r->tags[1] + 10",
		"-n >> 1", "r->key & 5", "!n", "~n", "1 << 4", "n > 3 && r->key == 13", "r->at.y - r->at.x * 2", "(n + 1) * 3",
		"(long)n * 3", "(char)300", "(unsigned char)-1", "sizeof(n)", "sizeof(*r)", "sizeof(struct rec)", "sizeof(int)",
		"(char *)label", "sizeof(r->tags)/sizeof(r->tags[0])",
		"r->tags[1]@3", "*r->tags@2", "label[0]@5", "*r@1", "r->at.x@2", "*&n", "*&*r", "/x r->tags[0]@4", "(*r).key", "(*r).at.y + 1"}
	var cmds []string
	for _, e := range exprs {
		if strings.HasPrefix(e, "/") {
			cmds = append(cmds, "-ex", "p"+e)
			continue
		}
		cmds = append(cmds, "-ex", "p "+e)
	}
	// gdb's command name ends at the first character a name does not hold.
	exprs = append(exprs, "p*r->tags@2")
	cmds = append(cmds, "-ex", "p*r->tags@2")
	cmds = append(cmds, "-ex", "output n", "-ex", `printf "|n=%d key=%ld label=%s hex=%#x c=%c %%\n", n, r->key, label, n * 3, 65`)
	g := exec.Command(gdb, append(append([]string{"-nx", "-batch", "-iex", "set debuginfod enabled off", "-ex", "break leaf", "-ex", "run"}, cmds...), "--args", path, "exit")...)
	g.Dir = filepath.Join("..", "..")
	gout, _ := g.CombinedOutput()
	_, out, errOut := runSfdbg(append(append([]string{"run", "-batch", "-ex", "break leaf", "-ex", "run"}, cmds...), "--", path, "exit")...)
	vals := regexp.MustCompile(`(?m)^\$\d+ = .*$|\d+\|n=.*$`)
	addr := regexp.MustCompile(`0x[0-9a-f]{6,}`)
	ours, theirs := vals.FindAllString(addr.ReplaceAllString(out, "ADDR"), -1), vals.FindAllString(addr.ReplaceAllString(string(gout), "ADDR"), -1)
	if len(theirs) != len(exprs)+1 {
		t.Fatalf("gdb printed %d values for %d expressions:\n%s", len(theirs), len(exprs), gout)
	}
	if strings.Join(ours, "\n") != strings.Join(theirs, "\n") {
		t.Errorf("sfdbg:\n%s\ngdb:\n%s\n(expressions: %q)\nsfdbg's output:\n%s%s", strings.Join(ours, "\n"), strings.Join(theirs, "\n"), exprs, out, errOut)
	}
	// The errors of @ are gdb's.
	errCmds := []string{"-ex", "break leaf", "-ex", "run", "-ex", "p n@0", "-ex", "p 5@2", "-ex", "p n@100000", "-ex", "p $pc@2"}
	g = exec.Command(gdb, append(append([]string{"-nx", "-batch", "-iex", "set debuginfod enabled off"}, errCmds...), "--args", path, "exit")...)
	g.Dir = filepath.Join("..", "..")
	gout2, _ := g.CombinedOutput()
	_, out2, errOut2 := runSfdbg(append(append([]string{"run", "-batch"}, errCmds...), "--", path, "exit")...)
	errs := regexp.MustCompile(`(?m)^(Invalid number .*|Only values .*|value requires .*)$`)
	ourErrs, theirErrs := errs.FindAllString(out2+errOut2, -1), errs.FindAllString(string(gout2), -1)
	if len(theirErrs) != 4 || strings.Join(ourErrs, "\n") != strings.Join(theirErrs, "\n") {
		t.Errorf("errors of @: sfdbg %q, gdb %q", ourErrs, theirErrs)
	}
	// The stop line is gdb's too: past the prologue, with the arguments.
	stop := regexp.MustCompile(`(?m)^Breakpoint 1, leaf \(r=0x[0-9a-f]+, n=5, label=0x[0-9a-f]+ "thirteen"\)`)
	if !stop.MatchString(out) || !stop.MatchString(string(gout)) {
		t.Errorf("break leaf did not stop past the prologue with gdb's arguments:\nsfdbg:\n%s\ngdb:\n%s", out, gout)
	}
}

// leafValuesAreGdbs stops the -O0 locals fixture at leaf in gdb and in
// sfdbg, runs cmds in both, and compares what vals matches in each
// output (with addrs, addresses of 6 hex digits or more aside): one match
// per command.
func leafValuesAreGdbs(t *testing.T, cmds []string, vals *regexp.Regexp, addrs bool) {
	t.Helper()
	gdb, err := exec.LookPath("gdb")
	if err != nil {
		t.Skip("gdb not installed")
	}
	path, _ := filepath.Abs(dumpFixture(t, "locals-v3-O0"))
	var args []string
	for _, c := range cmds {
		args = append(args, "-ex", c)
	}
	g := exec.Command(gdb, append(append([]string{"-nx", "-batch", "-iex", "set debuginfod enabled off", "-ex", "break leaf", "-ex", "run"}, args...), "--args", path, "exit")...)
	g.Dir = filepath.Join("..", "..")
	gout, _ := g.CombinedOutput()
	_, out, errOut := runSfdbg(append(append([]string{"run", "-batch", "-ex", "break leaf", "-ex", "run"}, args...), "--", path, "exit")...)
	theirOut := string(gout)
	if addrs {
		addr := regexp.MustCompile(`0x[0-9a-f]{6,}`)
		out, theirOut = addr.ReplaceAllString(out, "ADDR"), addr.ReplaceAllString(theirOut, "ADDR")
	}
	ours, theirs := vals.FindAllString(out, -1), vals.FindAllString(theirOut, -1)
	if len(theirs) != len(cmds) {
		t.Fatalf("gdb printed %d values for %d commands:\n%s", len(theirs), len(cmds), gout)
	}
	if strings.Join(ours, "\n") != strings.Join(theirs, "\n") {
		t.Errorf("sfdbg:\n%s\ngdb:\n%s\nsfdbg's output:\n%s%s", strings.Join(ours, "\n"), strings.Join(theirs, "\n"), out, errOut)
	}
}

// leafErrorsAreGdbs prints each expression at leaf of the -O0 locals
// fixture in gdb and in sfdbg: sfdbg must say gdb's last line.
func leafErrorsAreGdbs(t *testing.T, exprs []string) {
	t.Helper()
	gdb, err := exec.LookPath("gdb")
	if err != nil {
		t.Skip("gdb not installed")
	}
	path, _ := filepath.Abs(dumpFixture(t, "locals-v3-O0"))
	for _, e := range exprs {
		args := []string{"-ex", "break leaf", "-ex", "run", "-ex", "p " + e}
		g := exec.Command(gdb, append(append([]string{"-nx", "-batch", "-iex", "set debuginfod enabled off"}, args...), "--args", path, "exit")...)
		gout, _ := g.CombinedOutput()
		_, out, errOut := runSfdbg(append(append([]string{"run", "-batch"}, args...), "--", path, "exit")...)
		lines := strings.Split(strings.TrimSpace(string(gout)), "\n")
		if want := lines[len(lines)-1]; !strings.Contains(out+errOut, want) {
			t.Errorf("p %s: gdb says %q; sfdbg:\n%s%s", e, want, out, errOut)
		}
	}
}

// TestFloatExpressionsAreGdbs prints floating-point expressions on the
// -O0 locals fixture (r->weight is a double, 2.5) in gdb and in sfdbg:
// literals of every form, C's usual arithmetic conversions, casts both
// ways, comparisons, NaN and infinity, long double (x87 on x86-64: 21
// digits), print/x, /c and /f, sizeof, a string literal, printf's
// floating conversions and gdb's errors. Every value and message must be
// gdb's.
func TestFloatExpressionsAreGdbs(t *testing.T) {
	exprs := []string{"r->weight", "r->weight * 2", "r->weight + n", "n / 2.0", "1.5", ".5", "1.e3", "1e10", "2.5e-3", "1e-5",
		"1e17", "1.5f", "(float)1/3", "1.0/3", "100.0/3", "(int)r->weight", "(int)-2.7", "(unsigned)3.99", "(char)65.7",
		"r->weight > 2", "r->weight == 2.5", "r->weight < n && 1", "!0.0", "-r->weight", "-0.0", "0.0/0", "1e400", "1.0/0 > 5",
		"(long double)1/3", "(long double)0.1", "(long double)r->weight * 3", "5 + 1.5f", "0x10 + 0.5", "(double)7/2", "7/2",
		"/x r->weight", "/x 1.5f", "/c 65.0", "/f r->weight", "/f 3", "/d 2.5", "sizeof(1.5)", "sizeof(1.5f)", "sizeof(double)",
		`"hi"`, `sizeof("hi")`, "10UL + 1", "$1 * 2", "(long double)(0.0/0)", "1e300L * 1e300L", "(_Bool)0.5", "(_Bool)2",
		"(long)1e19", "/c 200", "'a'", "'a' + 1", `'\0'`, `'\n'`, "(unsigned long)-1 + 1.0"}
	var cmds []string
	for _, e := range exprs {
		if strings.HasPrefix(e, "/") {
			cmds = append(cmds, "p"+e)
			continue
		}
		cmds = append(cmds, "p "+e)
	}
	cmds = append(cmds, `printf "|%5.2f|%-8.3e|%g|%G|%10.4g|%d|%s|%+.1f|%05.1f|% g|%10f|%#g\n", r->weight, 0.5, 1234567.0, 1e-10, 1.25, 2.9, "str", 2.5, -1.5, 0.5, 1.0/0, 123456.0`)
	leafValuesAreGdbs(t, cmds, regexp.MustCompile(`(?m)^\$\d+ = .*$|^\|.*$`), false)
	leafErrorsAreGdbs(t, []string{"r->weight % 2", "1.5 & 1", "1.5 << 1", "~1.5", "*r->weight"})
}

// TestPointerExpressionsAreGdbs prints expressions that keep their C
// type on the -O0 locals fixture, in gdb and in sfdbg: pointer arithmetic
// in objects (r + 1, q - p, an array decaying to a pointer), * and the
// postfix operators on any expression ((r + 1)->key, (*r).at, $3.key,
// (zeros)[3]), & of an object, casts to pointer types
// (((struct rec *)r)->key, *(int *)r), @ on an expression, whatis and
// ptype of an expression, and gdb's errors. Values, types and messages
// must be gdb's, addresses aside.
func TestPointerExpressionsAreGdbs(t *testing.T) {
	leafValuesAreGdbs(t, []string{"p r + 1", "p (r + 1) - r", "p *r", "p (*r).at", "p (r)->at.y", "p zeros + 1", "p *(zeros + 1)", "p buf + 1",
		"p *label", "p label + 2", "p r->tags + 1", "p *(r->tags + 1)", "p ((struct rec *)r)->key", "p *(int *)r",
		"p (long)(r + 1) - (long)r", "p &zeros[2] - &zeros[0]", "p (r + 0)->name", "p (&r->at)->y", "p *&r->at", "p $1", "p $3.key",
		"p $3.at.x + 1", "p (zeros)[3]", "p (char)*label", "p sizeof(*r)", "p sizeof(r + 1)", "p (void *)r", "p (char *)r->name + 1",
		"p *(short *)r->tags@2", "p &r->at", "p (&r->at)[0]", "p r[0].at", "p (r)[0].at.x", "p 1 + r", "p r - 1", "p (r - 1) + 1 == r",
		"p zeros == &zeros[0]", "p *(zeros + 16 - 1)", "p &*r", "p &(*r).at.y", "p (&w)->u", "p (w).b[1]", "p/x (r)->key", "p/x *r",
		"whatis r + 1", "whatis (r)->weight * 2", "whatis zeros + 1", "whatis &r->at", "whatis *r", "output (r)->key"},
		regexp.MustCompile(`(?m)^(\$\d+ = .*|type = .*|\d+)$`), true)
	leafErrorsAreGdbs(t, []string{"*r + 1", "*r == *r", "-r", "r * 2", "r + r", "&5"})
}

// TestIntegerExpressionsAreGdbs: integer expressions have C's types in
// gdb and in sfdbg on the -O0 locals fixture: literals (int, long,
// unsigned by value and suffix), variables' widths, the promotions and
// usual arithmetic conversions, wrapping at the type's width, signed and
// unsigned division, shifts, comparisons, print/x of negative ints,
// whatis and sizeof of expressions, and printf's length modifiers.
func TestIntegerExpressionsAreGdbs(t *testing.T) {
	leafValuesAreGdbs(t, []string{"p 2147483647 + 1", "p n * 1000000000", "p n * 1000000000L", "whatis n + 1", "whatis n * 2L", "p -1U", "p 1U - 2",
		"p 4294967295", "whatis 4294967295", "whatis 0xffffffff", "whatis 10UL", "p small * 2", "whatis small + 1", "p (unsigned char)300 + 1",
		"p -n / 2", "p n / -2", "p -7 % 3", "p 10 > -1U", "p r->key * 2", "p/x -1", "p/x n - 6", "p sizeof(n+1)", "p sizeof(1)", "p sizeof(1L)",
		"whatis sizeof(int)", "p 1 << 31", "p 1 << 32", "p ~0", "p/x ~0", "p/x (char)-1", "p/d 0xffffffff", "p/u -1", "p/o 8", "p/t 5",
		"p -5 >> 1", "p -1U >> 1", "p 0x7fffffff + 0x7fffffff", "p n == 5U", "p (short)-1 * 2", "whatis (short)1 + (short)1", "p 07777777777777",
		"p r->col < -1", "whatis r->col + 1", "p 1 << 64", "p -1 >> 70", "whatis $sp", "whatis $pc", "p 0 && *(int *)0", "p 1 || *(int *)0",
		"p r && r->key == 13", "p !r || r->key", "p n > 3 ? n * 2 : -1", "p 0 ? *(int *)0 : 7", "p 1 ? 0 ? 5 : 6 : 7", "p (n ? r : 0)->key",
		"p 0 && *(int *)0 ? 1 : 2", "p 1 || *(int *)0 ? 3 : 4",
		`printf "|%x %u %d %lx %hd\n", -1, -1, 4294967295, -1, 65537`},
		regexp.MustCompile(`(?m)^(\$\d+ = .*|type = .*|\|.*)$`), false)
}

// TestConditionsIgnoreAndDisplayAreGdbs runs a conditional breakpoint
// (break FILE:LINE if COND), info breakpoints (gdb's table, with the
// condition and the hit count), display and display/x after each stop,
// info display, undisplay, ignore and condition N (removing it) on the
// clones fixture, in gdb and in sfdbg: from the first stop on, the
// transcripts must be the same, addresses aside (gdb, in batch mode, does
// not say "Continuing.").
func TestConditionsIgnoreAndDisplayAreGdbs(t *testing.T) {
	gdb, err := exec.LookPath("gdb")
	if err != nil {
		t.Skip("gdb not installed")
	}
	path, _ := filepath.Abs(dumpFixture(t, "clones-v3-O2"))
	var cmds []string
	for _, c := range []string{"break clones.c:22 if i == 2", "run", "p i", "info breakpoints", "display i", "display/x s", "next",
		"info display", "undisplay 1", "next", "ignore 1 2", "continue", "p i", "condition 1", "info breakpoints"} {
		cmds = append(cmds, "-ex", c)
	}
	g := exec.Command(gdb, append(append([]string{"-nx", "-batch", "-iex", "set debuginfod enabled off"}, cmds...), path)...)
	g.Dir = filepath.Join("..", "..")
	gout, _ := g.CombinedOutput()
	_, out, errOut := runSfdbg(append(append([]string{"run", "-batch"}, cmds...), "--", path)...)
	ours, theirs := sessionFromFirstStop(out), sessionFromFirstStop(string(gout))
	if !strings.Contains(theirs, "stop only if i == 2") || !strings.Contains(theirs, "2: /x s = ") {
		t.Fatalf("gdb's transcript lacks what is compared:\n%s", gout)
	}
	if ours != theirs {
		t.Errorf("sfdbg:\n%s\n\ngdb:\n%s\n\nsfdbg's output:\n%s%s", ours, theirs, out, errOut)
	}
}

// sessionFromFirstStop keeps a session's transcript from its first
// "Breakpoint 1, " stop on, for comparing sfdbg's with gdb's: without
// sfdbg's verdict lines, "Continuing." (gdb in batch mode does not say
// it), gdb's "[...]" and warning lines and the program's "ready", with
// each address written ADDR (gdb turns address randomization off).
func sessionFromFirstStop(s string) string {
	addr := regexp.MustCompile(`0x[0-9a-f]{6,16}`)
	var keep []string
	on := false
	for _, l := range strings.Split(s, "\n") {
		on = on || strings.HasPrefix(l, "Breakpoint 1, ")
		if !on || l == "Continuing." || l == "ready" || strings.HasPrefix(l, "    sframe") || strings.HasPrefix(l, "[") || strings.HasPrefix(l, "warning:") {
			continue
		}
		keep = append(keep, addr.ReplaceAllString(l, "ADDR"))
	}
	return strings.Join(keep, "\n")
}

// sideBySide runs the debugger commands cmds on the program path with
// arguments args in gdb (batch, from the repository's root, as the
// fixtures' relative source paths need) and in "sfdbg run -batch", and
// returns both outputs; sfdbg's verdict lines (indented by four spaces)
// are left out, gdb has none.
func sideBySide(t *testing.T, gdb, path string, cmds []string, args ...string) (ours, theirs string) {
	t.Helper()
	var ex []string
	for _, c := range cmds {
		ex = append(ex, "-ex", c)
	}
	g := exec.Command(gdb, append(append(append([]string{"-nx", "-batch", "-iex", "set debuginfod enabled off"}, ex...), "--args", path), args...)...)
	g.Dir = filepath.Join("..", "..")
	gout, _ := g.CombinedOutput()
	_, out, errOut := runSfdbg(append(append(append([]string{"run", "-batch"}, ex...), "--", path), args...)...)
	return verdictLines.ReplaceAllString(out+errOut, ""), string(gout)
}

// verdictLines are sfdbg's lines after a frame (its verdict on the
// frame's unwinding), which gdb does not print.
var verdictLines = regexp.MustCompile(`(?m)^    .*\n`)

// TestWatchOnALocalIsGdbs watches a member of a local struct (p.x in
// middle) in gdb and in sfdbg: the write is reported with the old and new
// values, and when middle returns the watchpoint is deleted with gdb's
// words and the stop shown in the caller.
func TestWatchOnALocalIsGdbs(t *testing.T) {
	gdb, err := exec.LookPath("gdb")
	if err != nil {
		t.Skip("gdb not installed")
	}
	path, _ := filepath.Abs(dumpFixture(t, "locals-v3-O0"))
	var cmds []string
	for _, c := range []string{"break middle", "run", "watch p.x", "continue", "continue", "info watchpoints"} {
		cmds = append(cmds, "-ex", c)
	}
	g := exec.Command(gdb, append(append([]string{"-nx", "-batch", "-iex", "set debuginfod enabled off"}, cmds...), "--args", path, "exit")...)
	g.Dir = filepath.Join("..", "..")
	gout, _ := g.CombinedOutput()
	_, out, errOut := runSfdbg(append(append([]string{"run", "-batch"}, cmds...), "--", path, "exit")...)
	ours, theirs := sessionFromFirstStop(out), sessionFromFirstStop(string(gout))
	if !strings.Contains(theirs, "Watchpoint 2 deleted because the program has left the block in") {
		t.Fatalf("gdb's transcript lacks the end of the watch:\n%s", gout)
	}
	if ours != theirs {
		t.Errorf("sfdbg:\n%s\n\ngdb:\n%s\n\nsfdbg's output:\n%s%s", ours, theirs, out, errOut)
	}
}

// TestConvenienceVariablesAreGdbs prints $_siginfo's fields at the fatal
// SIGSEGV of the sortcrash fixture and $_exitcode after the locals
// fixture exits, in gdb and in sfdbg, and $_siginfo from the crash-v3
// core in sfdbg's core session: the values must be gdb's.
func TestConvenienceVariablesAreGdbs(t *testing.T) {
	gdb, err := exec.LookPath("gdb")
	if err != nil {
		t.Skip("gdb not installed")
	}
	vals := regexp.MustCompile(`(?m)^\$\d+ = .*$`)
	for _, tc := range []struct {
		bin  string
		args []string
		cmds []string
	}{
		{"sortcrash-v3", []string{"crash"}, []string{"p $_siginfo.si_signo", "p $_siginfo.si_code", "p $_siginfo._sifields._sigfault.si_addr"}},
		{"locals-v3-O0", []string{"exit"}, []string{"p $_exitcode", "p $_exitcode + 1"}},
	} {
		path, _ := filepath.Abs(dumpFixture(t, tc.bin))
		cmds := []string{"-ex", "run"}
		for _, c := range tc.cmds {
			cmds = append(cmds, "-ex", c)
		}
		gout, _ := exec.Command(gdb, append(append([]string{"-nx", "-batch", "-iex", "set debuginfod enabled off"}, cmds...), append([]string{"--args", path}, tc.args...)...)...).CombinedOutput()
		_, out, errOut := runSfdbg(append(append([]string{"run", "-batch"}, cmds...), append([]string{"--", path}, tc.args...)...)...)
		ours, theirs := vals.FindAllString(out, -1), vals.FindAllString(string(gout), -1)
		if len(theirs) != len(tc.cmds) || strings.Join(ours, "\n") != strings.Join(theirs, "\n") {
			t.Errorf("%s: sfdbg:\n%s\ngdb:\n%s\nsfdbg's output:\n%s%s", tc.bin, strings.Join(ours, "\n"), strings.Join(theirs, "\n"), out, errOut)
		}
	}
	core := dumpFixture(t, filepath.Join("..", "cores", "crash-v3.core"))
	_, out, _ := runSfdbg("core", "-batch", "-ex", "p $_siginfo.si_signo", "-ex", "p $_siginfo._sifields._sigfault.si_addr", dumpFixture(t, filepath.Join("..", "cores", "crash-v3")), core)
	if !strings.Contains(out, "$1 = 11\n$2 = (void *) 0x0\n") {
		t.Errorf("core session's $_siginfo:\n%s", out)
	}
}

// TestSyntheticPointerAndEntryValuesAreGdbs stops in the inlined sum of
// the synthptr fixture, whose pointer s GCC describes with
// DW_OP_implicit_pointer: print s, *s and s->a, and info args, must be
// gdb's (s=<synthetic pointer>, *s read from the object it points to);
// the caller use shows its arguments with gdb's x=x@entry=0 (the entry
// value from main's call site, through the registers use's unwind row
// leaves unspecified, as gdb takes them).
func TestSyntheticPointerAndEntryValuesAreGdbs(t *testing.T) {
	gdb, err := exec.LookPath("gdb")
	if err != nil {
		t.Skip("gdb not installed")
	}
	path, _ := filepath.Abs(dumpFixture(t, "synthptr-v3-O2"))
	var cmds []string
	for _, c := range []string{"break synthptr.c:17", "run", "p s", "p *s", "p s->a", "info args"} {
		cmds = append(cmds, "-ex", c)
	}
	gout, _ := exec.Command(gdb, append(append([]string{"-nx", "-batch", "-iex", "set debuginfod enabled off"}, cmds...), path)...).CombinedOutput()
	_, out, errOut := runSfdbg(append(append([]string{"run", "-batch"}, cmds...), "--", path)...)
	vals := regexp.MustCompile(`(?m)^(\$\d+ = .*|s = .*)$`)
	ours, theirs := vals.FindAllString(out, -1), vals.FindAllString(string(gout), -1)
	if len(theirs) != 4 || strings.Join(ours, "\n") != strings.Join(theirs, "\n") {
		t.Errorf("sfdbg:\n%s\ngdb:\n%s\nsfdbg's output:\n%s%s", strings.Join(ours, "\n"), strings.Join(theirs, "\n"), out, errOut)
	}
	_, out, _ = runSfdbg("run", "-batch", "-ex", "break synthptr.c:17", "-ex", "run", "-ex", "bt", "--", path)
	if !strings.Contains(out, "use (x=x@entry=0, y=y@entry=1)") {
		t.Errorf("bt lacks gdb's entry values of use's arguments:\n%s", out)
	}
}

// TestInlineFramesStepAsGdbs steps through the -O2 synthptr fixture,
// where sum is inlined into use at use's first instruction, in gdb and in
// sfdbg: a breakpoint on use stops showing use at the inlined call's line
// (gdb's skip_inline_frames), step enters the hidden inline frame without
// running, next steps over it, a next whose call reaches a breakpoint
// stops there, stepi shows the inline frame, a stepi onto a breakpoint
// reports it, and info breakpoints names the function the breakpoint was
// set on.
func TestInlineFramesStepAsGdbs(t *testing.T) {
	gdb, err := exec.LookPath("gdb")
	if err != nil {
		t.Skip("gdb not installed")
	}
	path, _ := filepath.Abs(dumpFixture(t, "synthptr-v3-O2"))
	for _, session := range [][]string{
		{"break use", "run", "next", "next", "next", "next", "next", "step", "step", "next", "info breakpoints"},
		{"break use", "run", "step", "step", "next", "next"},
		{"break *main+30", "run", "stepi", "stepi", "continue", "break use", "stepi", "info breakpoints"},
	} {
		t.Run(strings.Join(session, ";"), func(t *testing.T) {
			out, gout := sideBySide(t, gdb, path, session)
			ours, theirs := sessionFromFirstStop(out), sessionFromFirstStop(gout)
			if strings.Count(theirs, "\n") < 5 {
				t.Fatalf("gdb's transcript is short:\n%s", gout)
			}
			if ours != theirs {
				t.Errorf("sfdbg:\n%s\n\ngdb:\n%s\n\nsfdbg's output:\n%s", ours, theirs, out)
			}
		})
	}
}

// TestReadAndAccessWatchpointsAreGdbs sets rwatch on a global the program
// writes, then reads (the write that changes it passes: x86 has no
// load-only watchpoint, and gdb tells a read by the unchanged value), and
// awatch on one it reads, then writes: the stops, their "Value =" and
// "Old value/New value" lines, and info watchpoints' types and hit counts
// are gdb's.
func TestReadAndAccessWatchpointsAreGdbs(t *testing.T) {
	gdb, err := exec.LookPath("gdb")
	if err != nil {
		t.Skip("gdb not installed")
	}
	path, _ := filepath.Abs(dumpFixture(t, "locals-v3-O0"))
	out, gout := sideBySide(t, gdb, path, []string{"break main", "run", "rwatch go", "continue", "awatch sink", "delete 2", "continue", "continue", "info watchpoints"}, "exit")
	ours, theirs := sessionFromFirstStop(out), sessionFromFirstStop(gout)
	if !strings.Contains(theirs, "Hardware read watchpoint 2: go\n\nValue = 1") || !strings.Contains(theirs, "acc watchpoint") {
		t.Fatalf("gdb's transcript lacks the watchpoint stops:\n%s", gout)
	}
	if ours != theirs {
		t.Errorf("sfdbg:\n%s\n\ngdb:\n%s\n\nsfdbg's output:\n%s", ours, theirs, out)
	}
}

// TestQsortCallbackCrashIsGdbs runs the qsortcb fixture, whose qsort
// callback faults, in gdb and in sfdbg: the stop line shows the PC (the
// fault is at a line-table row that is not a statement: gdb's
// frame_show_address), and bt has gdb's frames, glibc's qsort included
// as the tail-call frame between qsort_r and main (it jumped to qsort_r;
// gdb finds it with libc6-dbg's call sites, and so must sfdbg: a tail
// call across modules). The frames' lines are gdb's, arguments and
// @entry values included (the callback's through glibc's indirect call
// site, none in an inline frame), but for qsort_r's and qsort's: gdb
// takes their entry values through the tail call, sfdbg not yet.
func TestQsortCallbackCrashIsGdbs(t *testing.T) {
	gdb, err := exec.LookPath("gdb")
	if err != nil {
		t.Skip("gdb not installed")
	}
	path, _ := filepath.Abs(dumpFixture(t, "qsortcb-v3-O2"))
	g := exec.Command(gdb, "-nx", "-batch", "-iex", "set debuginfod enabled off", "-ex", "run", "-ex", "bt", path)
	g.Dir = filepath.Join("..", "..")
	gout, _ := g.CombinedOutput()
	_, out, errOut := runSfdbg("run", "-batch", "-ex", "continue", "-ex", "bt cfi", "--", path)
	stop := regexp.MustCompile(`(?m)^0x[0-9a-f]{16} in cmp \(`)
	if !stop.Match(gout) {
		t.Fatalf("gdb's stop line is not the PC's:\n%s", gout)
	}
	if !stop.MatchString(out) {
		t.Errorf("sfdbg's stop line lacks the PC (not a statement):\n%s%s", out, errOut)
	}
	frame := regexp.MustCompile(`(?m)^#(\d+) +(?:0x[0-9a-f]+ in )?(\S+) \(`)
	names := func(s string) []string {
		_, s, _ = strings.Cut(s, "Program received signal")
		var out []string
		for _, m := range frame.FindAllStringSubmatch(s, -1) {
			out = append(out, m[1]+" "+m[2])
		}
		return out
	}
	theirs := names(string(gout))
	if !strings.Contains(string(gout), "__GI_qsort (") {
		t.Skipf("gdb shows no qsort tail-call frame (libc6-dbg not installed?):\n%s", gout)
	}
	if ours := names(out); strings.Join(ours, "\n") != strings.Join(theirs, "\n") {
		t.Errorf("frames:\nsfdbg: %q\ngdb:   %q\nsfdbg's output:\n%s%s", ours, theirs, out, errOut)
	}
	// The whole lines, arguments and their @entry values included:
	// qsort_r's through the tail call from qsort in libc, and the
	// tail-call frame's own (qsort's, read in libc's DWARF).
	addr := regexp.MustCompile(`0x[0-9a-f]+`)
	lines := func(s string) map[string]string {
		_, s, _ = strings.Cut(s, "Program received signal")
		out := map[string]string{}
		for _, l := range strings.Split(s, "\n") {
			if m := frame.FindStringSubmatch(l); m != nil {
				out[m[1]] = addr.ReplaceAllString(l, "ADDR")
			}
		}
		return out
	}
	ourLines := lines(out)
	for level, want := range lines(string(gout)) {
		if ourLines[level] != want {
			t.Errorf("frame #%s:\nsfdbg: %s\ngdb:   %s", level, ourLines[level], want)
		}
	}
}
