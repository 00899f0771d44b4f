package debugger

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestLiveExpressionsLinesAndUntil drives print, x, info symbol, info
// line, list, tbreak, break FILE:LINE, until and advance on a live fixture
// ("exit 60000": spin_until counts spin_count up and calls clock_gettime
// in a loop for 60 s).
func TestLiveExpressionsLinesAndUntil(t *testing.T) {
	s, ui, _ := attachFixture(t, "deep-v3-O2", "exit", "60000")
	var t0 *testing.T // the running subtest
	expect := func(line string, want ...string) string {
		t := t0
		t.Helper()
		out := run(t, s, ui, line)
		for _, w := range want {
			if !regexp.MustCompile(w).MatchString(out) {
				t.Errorf("%s: output lacks %s:\n%s", line, w, out)
			}
		}
		return out
	}
	t.Run("print reads data symbols with their size", func(t *testing.T) {
		t0 = t
		out := expect("p spin_count", `^\$\d+ = \d+\n$`)
		if n, _ := strconv.Atoi(strings.TrimSpace(out[strings.Index(out, "=")+1:])); n <= 0 {
			t.Errorf("spin_count is %d; the fixture counts it up", n)
		}
		expect("p exit_after_ms", `= 60000\n`)
		expect("p spin_release", `= 0\n`)
		expect("p &spin_count", `= \(volatile unsigned long \*\) 0x[0-9a-f]+ <spin_count>\n`) // its DWARF type, as gdb prints it
		expect("p/x exit_after_ms * 2", `= 0x1d4c0\n`)
		expect("x/dg &exit_after_ms", `<exit_after_ms>:\t60000\n`)
		expect("info symbol &spin_count", `^spin_count in section \.bss of /\S+/deep-v3-O2\n`)
		expect("p $sp+8", `= \(void \*\) 0x7ff`)
	})
	t.Run("tbreak FILE:LINE stops once and is deleted", func(t *testing.T) {
		t0 = t
		expect("tbreak deep.c:88", `^Temporary breakpoint 1 at 0x[0-9a-f]+: file testdata/src/deep.c, line 88.\n`)
		expect("continue", `(?m)^Temporary breakpoint 1, spin_until \(ms=.*\) at testdata/src/deep.c:88\n88\t\t\tspin_count\+\+;$`)
		expect("info breakpoints", `No breakpoints.`)
		expect("info line", `^Line 88 of "testdata/src/deep.c" starts at address 0x[0-9a-f]+ <spin_until\+\d+>[ \n]and ends at 0x[0-9a-f]+ <spin_until\+\d+>\.\n`)
		expect("list", `(?m)^88\t\t\tspin_count\+\+;$`, `(?m)^83\t`, `(?m)^92\t`)
		expect("x/2i $pc", `^=> 0x[0-9a-f]+ <spin_until\+\d+>:\t`)
	})
	t.Run("break LINE uses the listed file", func(t *testing.T) {
		t0 = t
		expect("break 89", `^Breakpoint 2 at 0x[0-9a-f]+: file testdata/src/deep.c, line 89.\n`)
		expect("continue", `(?m)^Breakpoint 2, spin_until \(ms=.*\) at testdata/src/deep.c:89\n89\t`)
		expect("delete")
	})
	t.Run("until LINE stops in the selected frame", func(t *testing.T) {
		t0 = t
		expect("until 90", `(?m)^(0x[0-9a-f]+ in )?spin_until \(ms=.*\) at testdata/src/deep.c:9[01]\n9[01]\t`)
		expect("advance deep.c:88", `(?m)^(0x[0-9a-f]+ in )?spin_until \(ms=.*\) at testdata/src/deep.c:88\n88\t`)
	})
	t.Run("until stops where the selected frame returns", func(t *testing.T) {
		t0 = t
		expect("break clock_gettime")
		expect("continue", `(?m)^Breakpoint 3, `)
		expect("delete")
		// spin_here is never called in this mode: clock_gettime returns first.
		expect("until spin_here", `(?m)^(0x[0-9a-f]+ in )?spin_until \(ms=.*\) at testdata/src/deep.c:(89|90)\n(89|90)\t`)
		expect("info breakpoints", `No breakpoints.`)
	})
}
