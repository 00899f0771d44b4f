package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestDemoExplainsSFrameFirstAndEndsWithAHintThatWorks: demo opens with
// what SFrame, the CFA, the columns and the verdicts are, before any
// stack; its own lines fit in 100 columns; the closing hint names a
// command that works: sfdbg when it is installed, else go run ./cmd/sfdbg.
func TestDemoExplainsSFrameFirstAndEndsWithAHintThatWorks(t *testing.T) {
	for _, tc := range []struct {
		name      string
		installed bool
		hint      string
	}{
		{"without sfdbg on PATH the hint is go run", false, "go run ./cmd/sfdbg bt PID"},
		{"with sfdbg on PATH the hint is sfdbg", true, "Try it on a process of your own: sfdbg bt PID"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if tc.installed {
				os.WriteFile(filepath.Join(dir, "sfdbg"), []byte("#!/bin/sh\n"), 0o755)
			}
			t.Setenv("PATH", dir)
			code, out, errOut := runSfdbg("demo", "--mode", "spin")
			if code != exitOK {
				if strings.Contains(errOut, "not permitted") {
					t.Skipf("ptrace not permitted: %s", errOut)
				}
				t.Fatalf("status %d, stderr:\n%s", code, errOut)
			}
			first := strings.Index(out, "=== mode")
			if first < 0 {
				t.Fatalf("no mode section:\n%s", out)
			}
			intro := out[:first]
			for _, want := range []string{"SFrame is", "CFA", "agree", "DISAGREE", "not covered", "How to read it"} {
				if !strings.Contains(intro, want) {
					t.Errorf("the opening lacks %q:\n%s", want, intro)
				}
			}
			if !strings.Contains(out, tc.hint) {
				t.Errorf("the closing hint lacks %q:\n%s", tc.hint, out[strings.LastIndex(out, "\n\n"):])
			}
			if !tc.installed && strings.Contains(out, "own: sfdbg bt") {
				t.Errorf("the hint names sfdbg, which is not installed")
			}
			// demo's own lines: all but the compared trace between
			// "Process N (" and "No SFrame disagreements.".
			body := out[:strings.Index(out, "\nProcess ")] + "\n" + out[strings.LastIndex(out, "disagreements."):]
			for _, l := range strings.Split(body, "\n") {
				if n := utf8.RuneCountInString(l); n > 100 {
					t.Errorf("demo line of %d columns: %s", n, l)
				}
			}
		})
	}
}
