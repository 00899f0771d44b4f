package debugger

import (
	"regexp"
	"strings"
	"testing"
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
	out := run(t, s, ui, "break weigh")
	if !regexp.MustCompile(`(?m)^Breakpoint 1 at 0x[0-9a-f]+: weigh \(\) at testdata/src/clones.c:\d+$`).MatchString(out) {
		t.Fatalf("break weigh:\n%s", out)
	}
	if out := run(t, s, ui, "info breakpoints"); !strings.Contains(out, "weigh () at testdata/src/clones.c") {
		t.Errorf("info breakpoints:\n%s", out)
	}
	if out := run(t, s, ui, "list check"); !strings.Contains(out, "static long check(long v)") {
		t.Errorf("list check did not list check.part.0's source:\n%s", out)
	}
	out = run(t, s, ui, "continue")
	if !strings.Contains(out, "hit Breakpoint 1") || !regexp.MustCompile(`in weigh \(r=0x[0-9a-f]+\) at testdata/src/clones.c`).MatchString(out) {
		t.Fatalf("continue did not stop at weigh:\n%s", out)
	}
	bt := run(t, s, ui, "bt")
	wantPrefix(t, "bt in weigh.isra.0", functions(bt), []string{"weigh", "main"})
	// weigh(&r[0]) returns r[0].key*3+1, and key is argc (1): gdb's
	// "Value returned is $1 = 4", kept in the value history.
	out = run(t, s, ui, "finish")
	if !strings.Contains(out, "Run till exit from #0 ") || !strings.Contains(out, "\nValue returned is $1 = 4\n") {
		t.Errorf("finish out of weigh:\n%s", out)
	}
	if out := run(t, s, ui, "print $"); out != "$2 = 4\n" {
		t.Errorf("print $ after finish: %q", out)
	}
	run(t, s, ui, "kill")
}
