package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestVerifyCommand runs "sfdbg verify -p PID" on the verify-faults
// fixture: exit status 1 for its CFI faults, the text report and one JSON
// document; the process runs on untraced; bad operands exit 2.
func TestVerifyCommand(t *testing.T) {
	cmd := startFixture(t, filepath.Join("..", "..", "testdata", "bin", "verify-faults-v3"))
	pid := cmd.Process.Pid
	requirePtrace(t, pid)
	var out, errb bytes.Buffer
	if st := run([]string{"verify", "-p", strconv.Itoa(pid), "--max-instructions", "3000"}, &out, &errb); st != exitFindings {
		t.Errorf("exit status %d, want 1 (faults found)\n%s%s", st, out.String(), errb.String())
	}
	if !strings.Contains(out.String(), "cfi CFA at") || !strings.Contains(out.String(), "<vf_late_pop>") {
		t.Errorf("the report lacks the fixture's CFI fault:\n%s", out.String())
	}
	out.Reset()
	if st := run([]string{"verify", "--json", "-p", strconv.Itoa(pid), "--max-instructions", "3000"}, &out, &errb); st != exitFindings {
		t.Errorf("--json: exit status %d, want 1", st)
	}
	var doc struct {
		Executed uint64 `json:"executed"`
		Findings []struct {
			Method string `json:"method"`
		} `json:"findings"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil || doc.Executed != 3000 || len(doc.Findings) != 18 {
		t.Errorf("--json: %v, %d executed, %d findings (want 3000, 18: 8 PCs by SFrame and by CFI, and one caller frame each):\n%s", err, doc.Executed, len(doc.Findings), out.String())
	}
	junit := filepath.Join(t.TempDir(), "verify.xml")
	if st := run([]string{"verify", "--junit", junit, "-p", strconv.Itoa(pid), "--max-instructions", "3000"}, &out, &errb); st != exitFindings {
		t.Errorf("--junit: exit status %d, want 1", st)
	}
	var suites struct {
		Suite struct {
			Failures int `xml:"failures,attr"`
			Cases    []struct {
				Name    string    `xml:"name,attr"`
				Failure *struct{} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if b, err := os.ReadFile(junit); err != nil || xml.Unmarshal(b, &suites) != nil {
		t.Errorf("--junit wrote no JUnit XML: %v", err)
	} else {
		failing := map[string]bool{}
		for _, c := range suites.Suite.Cases {
			failing[c.Name] = c.Failure != nil
		}
		if !failing["vf_late_pop"] || failing["clean_leaf"] || suites.Suite.Failures != 4 {
			t.Errorf("--junit: failures %v (%d), want vf_late_pop failing and clean_leaf passing, 4 in all", failing, suites.Suite.Failures)
		}
	}
	checkRunning(t, pid)
	for _, args := range [][]string{{"verify"}, {"verify", "-p", "x"}, {"verify", "-p", "1", "prog"}} {
		out.Reset()
		errb.Reset()
		if st := run(args, &out, &errb); st != exitError {
			t.Errorf("%v: exit status %d, want 2", args, st)
		}
	}
}
