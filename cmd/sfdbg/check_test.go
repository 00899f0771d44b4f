package main

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckExitStatuses(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want int
	}{
		{"a clean v1 build exits 0", []string{"check", dumpFixture(t, "deep-v1-O2")}, exitOK},
		{"a build whose linker gave .plt.got the wrong CFA exits 1", []string{"check", dumpFixture(t, "deep-v3-O2")}, exitFindings},
		{"a missing file exits 2", []string{"check", "/nonexistent/sfdbg-test"}, exitError},
		{"a file without .sframe exits 2", []string{"check", "/proc/self/exe"}, exitError},
		{"a directory without --recursive exits 2", []string{"check", t.TempDir()}, exitError},
		{"no arguments exit 2", []string{"check"}, exitError},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runSfdbg(tc.args...)
			if code != tc.want {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.want, out, errOut)
			}
		})
	}
}

func TestCheckJSONIsOneVersionedDocument(t *testing.T) {
	code, out, _ := runSfdbg("check", "--json", dumpFixture(t, "deep-v3-O2"))
	if code != exitFindings {
		t.Fatalf("exit %d", code)
	}
	var doc struct {
		SchemaVersion int `json:"schema_version"`
		Files         []struct {
			File     string `json:"file"`
			Findings []struct {
				Kind string `json:"kind"`
				PC   uint64 `json:"pc"`
			} `json:"findings"`
			Summary struct {
				Instructions int `json:"instructions_compared"`
			} `json:"summary"`
		} `json:"files"`
		Disagreements int `json:"disagreements"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if doc.SchemaVersion != 2 || len(doc.Files) != 1 || doc.Disagreements != 1 || doc.Files[0].Summary.Instructions == 0 {
		t.Errorf("unexpected document: %+v", doc)
	}
	if f := doc.Files[0].Findings; len(f) == 0 || f[0].Kind == "" || f[0].PC == 0 {
		t.Errorf("findings lack kind or numeric pc: %+v", f)
	}
}

func TestCheckRecursiveWritesJSONLinesAndJUnit(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"deep-v1-O2", "deep-v3-O2"} {
		b, err := os.ReadFile(dumpFixture(t, name))
		if err != nil {
			t.Fatal(err)
		}
		os.MkdirAll(filepath.Join(dir, "sub"), 0o755)
		os.WriteFile(filepath.Join(dir, "sub", name), b, 0o755)
	}
	os.WriteFile(filepath.Join(dir, "README"), []byte("not an ELF file\n"), 0o644)
	junit := filepath.Join(t.TempDir(), "report.xml")
	code, out, errOut := runSfdbg("check", "--recursive", "--json", "--junit", junit, dir)
	if code != exitFindings {
		t.Fatalf("exit %d, stderr %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 {
		t.Fatalf("want 2 file lines and a total line, got %d:\n%s", len(lines), out)
	}
	for _, l := range lines {
		var v map[string]any
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Errorf("line is not JSON: %v: %s", err, l)
		}
	}
	b, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	var suites struct {
		Suites []struct {
			Tests    int `xml:"tests,attr"`
			Failures int `xml:"failures,attr"`
			Cases    []struct {
				Name    string    `xml:"name,attr"`
				Failure *struct{} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(b, &suites); err != nil {
		t.Fatalf("JUnit report is not XML: %v", err)
	}
	if len(suites.Suites) != 1 || suites.Suites[0].Tests != 2 || suites.Suites[0].Failures != 1 {
		t.Errorf("unexpected JUnit report:\n%s", b)
	}
}
