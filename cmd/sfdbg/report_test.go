package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sfdbg/sfdbg/compare"
)

// TestReportIsOneSelfContainedPage checks the real-world reproducers
// (check --recursive --all --json), makes the report, and reads it: one
// HTML file with no external resource, the summary's numbers, every class
// with its count, and each named class's first finding drawn instruction
// by instruction with the rows that differ marked. Where Chromium is
// installed, the page is also opened headless and its DOM read back
// (--dump-dom): the browser finds the same structure.
func TestReportIsOneSelfContainedPage(t *testing.T) {
	dir := t.TempDir()
	jsonl := filepath.Join(dir, "scan.jsonl")
	code, out, errOut := runSfdbg("check", "--recursive", "--all", "--json", filepath.Join("..", "..", "testdata", "codeoracle", "realworld"))
	if code == exitError {
		t.Fatalf("check: status %d\n%s", code, errOut)
	}
	if err := os.WriteFile(jsonl, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	html := filepath.Join(dir, "report.html")
	if code, _, errOut := runSfdbg("report", "-o", html, jsonl); code != exitOK {
		t.Fatalf("report: status %d: %s", code, errOut)
	}
	b, err := os.ReadFile(html)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	check := func(what, page string) {
		t.Helper()
		for _, want := range []string{`id="summary"`, `id="classes"`, `id="class-late-push-adjust"`, `id="class-ocaml-trap-frame"`,
			`id="class-unclassified"`, `<table class="insn">`, `class="differs`, "llvm/llvm-project#220720"} {
			if !strings.Contains(page, want) {
				t.Errorf("%s lacks %s", what, want)
			}
		}
		if m := regexp.MustCompile(`<b id="findings">(\d+)</b>`).FindStringSubmatch(page); m == nil || m[1] == "0" {
			t.Errorf("%s: no findings count in the summary", what)
		}
	}
	check("the page", page)
	if regexp.MustCompile(`(?i)(src|href)="(https?:)?//`).MatchString(page) {
		t.Errorf("the page loads something from elsewhere")
	}
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("chromium not installed: the DOM is not checked in a browser")
	}
	dom, err := exec.Command(chromium, "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", "file://"+html).Output()
	if err != nil {
		t.Skipf("chromium cannot run here: %v", err)
	}
	check("chromium's DOM", string(dom))
}

// TestLongFunctionsAreDrawnAroundTheirFindings draws a 100-instruction
// function whose rows differ at one instruction: the page keeps that one
// with drawContext instructions either side and counts the others as
// elided; a short function is drawn whole.
func TestLongFunctionsAreDrawnAroundTheirFindings(t *testing.T) {
	fr := &compare.FuncRows{}
	for i := 0; i < 100; i++ {
		fr.Insns = append(fr.Insns, compare.InsnRows{PC: uint64(i), Text: "nop", Differs: i == 50})
	}
	p := newDrawnPage(fr, 50)
	if len(p.Rows) != 2*drawContext+2 {
		t.Fatalf("%d rows, want %d: %+v", len(p.Rows), 2*drawContext+2, p.Rows)
	}
	if first := p.Rows[0]; first.PC != 50-drawContext || first.Elided != 50-drawContext {
		t.Errorf("first row %+v, want PC %d after %d elided", first, 50-drawContext, 50-drawContext)
	}
	if last := p.Rows[len(p.Rows)-1]; last.Text != "" || last.Elided != 100-51-drawContext {
		t.Errorf("last row %+v, want the %d elided at the end", last, 100-51-drawContext)
	}
	fr.Insns = fr.Insns[:drawWhole]
	if p := newDrawnPage(fr, 0); len(p.Rows) != drawWhole {
		t.Errorf("a %d-instruction function drawn in %d rows", drawWhole, len(p.Rows))
	}
}

// TestReportNamesTheProducersAClassWasSeenIn reads two files' reports
// whose .comment names their compilers: the class's section says which
// producers (and versions) its findings came from, with their counts.
func TestReportNamesTheProducersAClassWasSeenIn(t *testing.T) {
	dir := t.TempDir()
	jsonl := filepath.Join(dir, "scan.jsonl")
	line := func(file string, producers ...string) string {
		p, _ := json.Marshal(producers)
		return `{"file":"` + file + `","producers":` + string(p) + `,"findings":[{"kind":"code-cfa","class":"epilogue-hoist","function":"f","pc":4096,"func_start":4000}]}` + "\n"
	}
	body := line("/nonexistent/a", "rustc version 1.63.0", "GCC: (Debian 12.2.0-14) 12.2.0") +
		line("/nonexistent/b", "GCC: (Debian 12.2.0-14) 12.2.0", "GNU ld") + `{"schema_version":2,"total":{}}` + "\n"
	if err := os.WriteFile(jsonl, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	html := filepath.Join(dir, "report.html")
	if code, _, errOut := runSfdbg("report", "-o", html, jsonl); code != exitOK {
		t.Fatalf("report: status %d: %s", code, errOut)
	}
	b, _ := os.ReadFile(html)
	want := "<th>seen in</th><td><code>GCC: (Debian 12.2.0-14) 12.2.0</code> (2); <code>rustc version 1.63.0</code> (1)</td>"
	if !strings.Contains(string(b), want) {
		t.Errorf("the epilogue-hoist section lacks %q", want)
	}
}
