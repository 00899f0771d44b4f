package main

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sfdbg/sfdbg/compare"
)

// The objects of scripts/assembler-diff.sh --fixtures, and those of
// scripts/build-object-fixtures.sh.
const (
	diffFixtures = "../../testdata/diff"
	objFixtures  = "../../testdata/obj"
)

// sfdbg diff in check's three styles: text, --json and --junit, exit 1
// on a semantic difference and 0 on representation ones only.
func TestDiffStylesAndExitStatus(t *testing.T) {
	gas, clang := filepath.Join(diffFixtures, "diff-known-gas.o"), filepath.Join(diffFixtures, "diff-known-clang22.o")
	junit := filepath.Join(t.TempDir(), "diff.xml")
	code, out, errOut := runSfdbg("diff", "--junit", junit, gas, clang)
	if code != exitFindings {
		t.Fatalf("exit %d, want %d (a semantic difference); stderr %q", code, exitFindings, errOut)
	}
	for _, want := range []string{
		"  defreg_after_off:\n    semantic sframe cfa",
		"A cfa=rbp+16 ra=c-8 fp=c-16, B cfa=rbp+24 ra=c-8 fp=c-16; B's SFrame agrees with its own CFI",
		"representation sframe no-fde cfa_r12 has no SFrame FDE in B; A has one",
		"result: 1 semantic, 2 representation differences",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
	x, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Suites []struct {
			Tests    int `xml:"tests,attr"`
			Failures int `xml:"failures,attr"`
			Cases    []struct {
				Name    string `xml:"name,attr"`
				Failure *struct {
					Message string `xml:"message,attr"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(x, &doc); err != nil {
		t.Fatalf("JUnit report does not parse: %v\n%s", err, x)
	}
	if len(doc.Suites) != 1 || doc.Suites[0].Failures != 1 || doc.Suites[0].Tests != 4 {
		t.Fatalf("JUnit: want one suite of 4 cases, 1 failing:\n%s", x)
	}
	for _, c := range doc.Suites[0].Cases {
		if (c.Failure != nil) != (c.Name == "defreg_after_off") {
			t.Errorf("JUnit case %s: failure %v", c.Name, c.Failure)
		}
	}

	code, out, _ = runSfdbg("diff", "--json", gas, clang)
	var rep compare.DiffReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != exitFindings {
		t.Fatalf("--json: exit %d, %v\n%s", code, err, out)
	}
	if rep.Summary.Semantic != 1 || rep.Differences[2].Agrees != "b" {
		t.Errorf("--json: %+v", rep)
	}

	split := []string{filepath.Join(diffFixtures, "diff-split-gas.o"), filepath.Join(diffFixtures, "diff-split-clang22.o")}
	if code, out, _ := runSfdbg(append([]string{"diff"}, split...)...); code != exitOK || !strings.Contains(out, "representation sframe split") {
		t.Errorf("representation only: exit %d, want 0:\n%s", code, out)
	}
	if code, _, errOut := runSfdbg("diff", gas, filepath.Join(diffFixtures, "missing.o")); code != exitError || !strings.Contains(errOut, "missing.o") {
		t.Errorf("missing file: exit %d, stderr %q", code, errOut)
	}
}

// diff --link on the committed lld link of two clang objects: lld
// concatenates their sections and writes no PT_GNU_SFRAME, and keeps
// every function's rows.
func TestDiffLinkJudgesLLDsConcatenation(t *testing.T) {
	code, out, errOut := runSfdbg("diff", "--link", filepath.Join(objFixtures, "objsections-lld22"),
		filepath.Join(objFixtures, "objsections-clang22.o"), filepath.Join(objFixtures, "objlib-clang22.o"))
	if code != exitFindings {
		t.Fatalf("exit %d, want %d; stderr %q", code, exitFindings, errOut)
	}
	for _, want := range []string{
		"linker fault: the objects' sections are concatenated (2 SFrame headers), not merged",
		"linker fault: no PT_GNU_SFRAME",
		"verdict: concatenated (2 sections); no PT_GNU_SFRAME; rows 8/8 as in the objects; no linker disagreement\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("lacks %q:\n%s", want, out)
		}
	}
}
