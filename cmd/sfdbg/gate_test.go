package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckGatesOnFindingsNotExcused(t *testing.T) {
	bin := dumpFixture(t, "deep-v3-O2") // GNU ld 2.47.50: the .plt.got fault
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	_, base, _ := runSfdbg("check", "--json", bin)
	baseline := write("base.json", base)
	empty := write("empty.json", `{"schema_version": 2, "files": [], "total": {}}`)
	tests := []struct {
		name string
		args []string
		want int
		out  string
	}{
		{"a GNU ld 2.47.50 build exits 1 and names the known fault", []string{bin}, exitFindings, "known fault: GNU ld 2.44-2.47.50"},
		{"with --ignore-known it exits 0 and lists the known fault", []string{"--ignore-known", bin}, exitOK, "[gnu-ld-plt-got-cfa]"},
		{"a suppression rule lets it pass and counts it", []string{"--suppressions", write("ok.supp", "plt .plt.got\n"), bin}, exitOK, "suppressed: 1 findings"},
		{"a baseline holding the finding lets it pass", []string{"--baseline", baseline, bin}, exitOK, "baseline: 3 findings"},
		{"an empty baseline does not", []string{"--baseline", empty, bin}, exitFindings, "result: 1 disagreements"},
		{"JSON says known, and failing 0 under --ignore-known", []string{"--json", "--ignore-known", bin}, exitOK, `"known_id":"gnu-ld-plt-got-cfa"`},
		{"a bad suppressions file exits 2 naming the line", []string{"--suppressions", write("bad.supp", "\nnokind x\n"), bin}, exitError, "bad.supp:2: unknown finding kind"},
		{"a missing baseline exits 2", []string{"--baseline", filepath.Join(dir, "none.json"), bin}, exitError, "none.json"},
		{"a baseline that is not a report exits 2", []string{"--baseline", write("junk.json", "not json"), bin}, exitError, "junk.json: at byte 0"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runSfdbg(append([]string{"check"}, tc.args...)...)
			if code != tc.want || !strings.Contains(out+errOut, tc.out) {
				t.Errorf("exit %d (want %d), output lacks %q:\n%s%s", code, tc.want, tc.out, out, errOut)
			}
		})
	}
}

func TestCheckMessagesNameThePathOnce(t *testing.T) {
	dir := t.TempDir()
	notELF := filepath.Join(dir, "notelf.txt")
	os.WriteFile(notELF, []byte("hi\n"), 0o644)
	code, out, errOut := runSfdbg("check", notELF)
	if code != exitError || strings.Count(out+errOut, notELF) != 1 || !strings.Contains(errOut, notELF+": error: ") {
		t.Errorf("status %d, the path not once:\n%s%s", code, out, errOut)
	}
	missing := filepath.Join(dir, "none")
	code, _, errOut = runSfdbg("check", missing)
	if want := "sfdbg check: " + missing + ": no such file or directory\n"; code != exitError || errOut != want {
		t.Errorf("status %d, stderr %q, want %q", code, errOut, want)
	}
}
