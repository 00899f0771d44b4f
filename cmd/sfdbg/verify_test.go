package main

import (
	"bytes"
	"encoding/json"
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
	checkRunning(t, pid)
	for _, args := range [][]string{{"verify"}, {"verify", "-p", "x"}, {"verify", "-p", "1", "prog"}} {
		out.Reset()
		errb.Reset()
		if st := run(args, &out, &errb); st != exitError {
			t.Errorf("%v: exit status %d, want 2", args, st)
		}
	}
}
