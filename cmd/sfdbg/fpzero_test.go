package main

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

// TestFPOnlyTraceSaysWhyItStoppedAtAZeroFP: in deep-v3-O0's threads the
// frame-pointer chain reaches 0 in glibc's start_thread (built without
// frame pointers), one frame short of __clone3, which cleared it: the
// trace is incomplete and says so (it said "complete": true).
func TestFPOnlyTraceSaysWhyItStoppedAtAZeroFP(t *testing.T) {
	fx := startFixture(t, dumpFixture(t, "deep-v3-O0"), "threads")
	requirePtrace(t, fx.Process.Pid)
	pid := strconv.Itoa(fx.Process.Pid)
	_, out, errOut := runSfdbg("bt", "--method", "fp", "--json", pid)
	var doc struct {
		Threads []struct {
			Complete bool   `json:"complete"`
			Stop     string `json:"stop"`
			Frames   []struct {
				Function string `json:"function"`
			} `json:"frames"`
		} `json:"threads"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v\n%s%s", err, out, errOut)
	}
	n := 0
	for _, th := range doc.Threads {
		if len(th.Frames) == 0 || th.Frames[len(th.Frames)-1].Function != "start_thread" {
			continue
		}
		n++
		if th.Complete || !strings.Contains(th.Stop, "frame pointer is 0") || !strings.Contains(th.Stop, "not outermost") {
			t.Errorf("a trace ending in start_thread: complete %v, stop %q", th.Complete, th.Stop)
		}
	}
	if n == 0 {
		t.Skipf("no FP-only trace ends in start_thread here (glibc built with frame pointers?):\n%s", out)
	}
	_, text, _ := runSfdbg("bt", "--method", "fp", pid)
	if !strings.Contains(text, "Backtrace stopped: frame pointer is 0 at PC") {
		t.Errorf("text does not say why the trace stopped:\n%s", text)
	}
}
