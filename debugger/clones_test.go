package debugger

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/sfdbg/sfdbg/compare"
)

// TestBreakOnAFunctionGCCCloned checks what a gdb user does first on -O2
// code (testdata/bin/clones-v3-O2): "break weigh" when GCC emitted only
// weigh.isra.0 sets a breakpoint there (it said `Function "weigh" not
// defined.`), "list check" finds check.part.0's source, the stop and the
// backtrace name the frame "weigh" as gdb does (its DWARF name), and
// "info breakpoints" lists the location; finish prints the value it
// returned.
func TestBreakOnAFunctionGCCCloned(t *testing.T) {
	tg, err := Launch([]string{fixture(t, "clones-v3-O2")}, "")
	skipIfNoPtrace(t, err)
	if err != nil {
		t.Fatal(err)
	}
	ui := &ScriptUI{Echo: true}
	s := NewSession(tg, ui)
	s.Batch = true
	defer s.Close()
	// check was inlined twice into main besides its part check.part.0:
	// gdb's "Breakpoint 1 at 0x1122: check. (3 locations)", each listed
	// in check, and "info line check" gives a line for each.
	out := run(t, s, ui, "break check")
	if !regexp.MustCompile(`(?m)^Breakpoint 1 at 0x[0-9a-f]+: check\. \(3 locations\)$`).MatchString(out) {
		t.Fatalf("break check:\n%s", out)
	}
	if out := run(t, s, ui, "info breakpoints"); len(regexp.MustCompile(`(?m)^1\.[123] +y +0x[0-9a-f]{16} in check at testdata/src/clones\.c:3[02]$`).FindAllString(out, -1)) != 3 {
		t.Errorf("info breakpoints:\n%s", out)
	}
	// gdb: Line 30 ... <main+130> and ends at ... <main+135>., Line 30
	// ... <main+135> ... <main+140>., Line 32 ... <check> ... <check+7>.
	if out := run(t, s, ui, "info line check"); len(regexp.MustCompile(`(?m)^Line (30|32) of "testdata/src/clones.c" starts at address`).FindAllString(out, -1)) != 3 ||
		!strings.Contains(out, " <main+130>\nand ends at ") || !strings.Contains(out, " <main+135>.\nLine 30") || !strings.Contains(out, " <check+7>.\n") {
		t.Errorf("info line check:\n%s", out)
	}
	run(t, s, ui, "delete 1")
	// Addresses in a clone are printed with the DWARF name, as gdb
	// prints them (x/2i weigh: "<weigh>:", "<weigh+5>:"; p/a weigh+4:
	// "<weigh+4>"); info symbol keeps the ELF symbol, as gdb's does.
	if out := run(t, s, ui, "x/2i weigh"); !regexp.MustCompile(`^0x[0-9a-f]+ <weigh>:\t.*\n +0x[0-9a-f]+ <weigh\+5>:\tret`).MatchString(strings.TrimLeft(out, " ")) {
		t.Errorf("x/2i weigh:\n%s", out)
	}
	// disassemble START,END writes the offset even when 0, as gdb.
	if out := run(t, s, ui, "disassemble weigh,+4"); !regexp.MustCompile(`(?m)^   0x[0-9a-f]{16} <weigh\+0>:\tlea `).MatchString(out) {
		t.Errorf("disassemble weigh,+4:\n%s", out)
	}
	if out := run(t, s, ui, "p/a weigh+4"); !strings.HasSuffix(out, " <weigh+4>\n") {
		t.Errorf("p/a weigh+4: %q", out)
	}
	if out := run(t, s, ui, "info line weigh"); !strings.Contains(out, "<weigh>") || !strings.Contains(out, "<weigh+5>.") {
		t.Errorf("info line weigh: %q", out)
	}
	if out := run(t, s, ui, "info symbol weigh+4"); !strings.HasPrefix(out, "weigh.isra.0 + 4 in section .text") {
		t.Errorf("info symbol weigh+4: %q", out)
	}
	out = run(t, s, ui, "break weigh")
	if !regexp.MustCompile(`(?m)^Breakpoint 2 at 0x[0-9a-f]+: file testdata/src/clones.c, line \d+\.$`).MatchString(out) {
		t.Fatalf("break weigh:\n%s", out)
	}
	if out := run(t, s, ui, "info breakpoints"); !strings.Contains(out, "in weigh at testdata/src/clones.c") {
		t.Errorf("info breakpoints:\n%s", out)
	}
	if out := run(t, s, ui, "list check"); !strings.Contains(out, "static long check(long v)") {
		t.Errorf("list check did not list check.part.0's source:\n%s", out)
	}
	out = run(t, s, ui, "continue")
	if !regexp.MustCompile(`(?m)^Breakpoint 2, weigh \(r=0x[0-9a-f]+\) at testdata/src/clones.c:14\n14\t`).MatchString(out) {
		t.Fatalf("continue did not stop at weigh:\n%s", out)
	}
	bt := run(t, s, ui, "bt")
	wantPrefix(t, "bt in weigh.isra.0", functions(bt), []string{"weigh", "main"})
	// JSON (sfdbg bt --json's document) names the frame as gdb does and
	// keeps the ELF symbol as a second field.
	tr, err := s.trace(s.thread, compare.All)
	if err != nil {
		t.Fatal(err)
	}
	doc := tr.Document(s.thread, "clones")
	js, err := json.Marshal(doc.Frames[0])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(js), `"function":"weigh","symbol":"weigh.isra.0"`) {
		t.Errorf("frame 0 in JSON: %s", js)
	}
	// weigh(&r[0]) returns r[0].key*3+1, and key is argc (1): gdb's
	// "Value returned is $2 = 4" (p/a made $1), kept in the value history.
	out = run(t, s, ui, "finish")
	// In batch mode, as gdb -batch, without "Run till exit from" (a
	// terminal's message).
	if strings.Contains(out, "Run till exit from") || !strings.Contains(out, "\nValue returned is $2 = 4\n") {
		t.Errorf("finish out of weigh:\n%s", out)
	}
	if out := run(t, s, ui, "print $"); out != "$3 = 4\n" {
		t.Errorf("print $ after finish: %q", out)
	}
	run(t, s, ui, "kill")
}
