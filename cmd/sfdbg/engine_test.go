package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/sfdbg/sfdbg/compare"
	"github.com/sfdbg/sfdbg/frames/livetest"
)

// threadBlock returns the lines of thread 1's trace in the output of
// "sfdbg bt": from the line after "Thread 1 (" to the next blank line.
func threadBlock(t *testing.T, out string) []string {
	t.Helper()
	_, rest, ok := strings.Cut(out, "\nThread 1 (")
	if !ok {
		t.Fatalf("no thread 1 in:\n%s", out)
	}
	_, rest, _ = strings.Cut(rest, "\n")
	block, _, _ := strings.Cut(rest, "\n\n")
	return strings.Split(strings.TrimRight(block, "\n"), "\n")
}

// argListRE matches a frame line's argument list (strings quoted, which
// may hold parentheses).
var argListRE = regexp.MustCompile(`(\S) \((?:[^()"]|"(?:[^"\\]|\\.)*")+\)`)

// withoutArgs joins wrapped frame lines ("\n    at FILE:LINE") and empties
// their argument lists.
func withoutArgs(s string) string {
	s = strings.NewReplacer("\n    at ", " at ", "\n    from ", " from ").Replace(s)
	return argListRE.ReplaceAllString(s, "$1 ()")
}

// containsLines reports whether want appears in out as consecutive lines.
func containsLines(out string, want []string) bool {
	return strings.Contains("\n"+out, "\n"+strings.Join(want, "\n")+"\n")
}

// TestREPLAndCLIRenderTheSameTrace drives "sfdbg bt" and the debugger's
// "bt" on the same process, stopped in nanosleep, and checks that both
// show the same frames, verdicts and findings, from one engine, for every
// method; and that frame selection refers to the list "bt" printed last.
func TestREPLAndCLIRenderTheSameTrace(t *testing.T) {
	fx := startFixture(t, dumpFixture(t, "deep-v3-O2"), "sleep")
	pid := strconv.Itoa(fx.Process.Pid)
	requirePtrace(t, fx.Process.Pid)
	// Held in a group stop, the thread cannot move between the traces:
	// a thread resumed by one tool and not yet back in nanosleep when the
	// next one stops it shows another PC (the syscall instruction, the
	// kernel having moved the PC back to restart the call).
	thaw, err := livetest.Freeze(fx.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}

	for _, m := range []string{"all", "sframe", "cfi", "fp"} {
		t.Run("method "+m+": the REPL's bt prints the CLI's lines", func(t *testing.T) {
			code, cli, errOut := runSfdbg("bt", "--method", m, pid)
			if code != exitOK && code != exitFindings {
				t.Fatalf("bt: status %d: %s", code, errOut)
			}
			want := threadBlock(t, cli)
			if len(want) < 2 {
				t.Fatalf("bt printed only %d lines:\n%s", len(want), cli)
			}
			// One-shot bt shows the frames past main; the REPL does with
			// gdb's past-main on.
			code, repl, errOut := runSfdbg("attach", "-batch", "-ex", "set backtrace past-main on", "-ex", "bt "+m, pid)
			if code != exitOK {
				t.Fatalf("attach: status %d: %s", code, errOut)
			}
			// The REPL's frame lines carry the arguments, as gdb's do
			// (one-shot bt does not read them), so a line may wrap where
			// the CLI's does not: both are compared joined and without
			// the argument lists.
			want = strings.Split(withoutArgs(strings.Join(want, "\n")), "\n")
			if !containsLines(withoutArgs(repl), want) {
				t.Errorf("the REPL's bt differs from sfdbg bt.\nsfdbg bt:\n%s\nREPL:\n%s", strings.Join(want, "\n"), repl)
			}
		})
	}

	t.Run("the JSON verdicts and kinds are the text's", func(t *testing.T) {
		_, text, _ := runSfdbg("bt", pid)
		_, js, _ := runSfdbg("bt", "--json", pid)
		var doc compare.ProcessDocument
		if err := json.Unmarshal([]byte(js), &doc); err != nil {
			t.Fatal(err)
		}
		byLevel := map[string]string{} // a long line's " at FILE:LINE" goes on a line of its own
		for _, line := range threadBlock(t, text) {
			if lvl, _, ok := strings.Cut(line, " "); ok && strings.HasPrefix(lvl, "#") {
				byLevel[lvl[1:]] = line
			}
		}
		th := doc.Threads[0]
		for _, f := range th.Frames {
			line, ok := byLevel[strconv.Itoa(f.Level)]
			if !ok {
				t.Fatalf("text has no line for frame %d", f.Level)
			}
			if !strings.Contains(line, strings.ToUpper(f.Verdict.String())) && !strings.Contains(line, f.Verdict.String()) {
				t.Errorf("frame %d: JSON verdict %q, text line %q", f.Level, f.Verdict, line)
			}
		}
		// Messages are wrapped at 100 columns in the text.
		flat := strings.Join(strings.Fields(text), " ")
		for _, fd := range th.Findings {
			if !strings.Contains(text, fd.Kind.String()) || !strings.Contains(flat, strings.Join(strings.Fields(fd.Message), " ")) {
				t.Errorf("finding %v %q is not in the text", fd.Kind, fd.Message)
			}
		}
	})

	t.Run("frame N selects in the list bt printed last", func(t *testing.T) {
		// The SFrame trace stops in libc (no .sframe there); the
		// all-methods trace goes on to _start. "frame" after "bt sframe"
		// refers to the SFrame list, after "bt" to the full one.
		code, out, errOut := runSfdbg("attach", "-batch", "-ex", "set backtrace past-main on", "-ex", "bt", "-ex", "frame 13", "-ex", "bt sframe", "-ex", "frame 13", pid)
		if code != exitFindings && code != exitOK && code != exitError {
			t.Fatalf("status %d: %s", code, errOut)
		}
		if !strings.Contains(out, "#13 ") || !strings.Contains(out+errOut, "No frame at level 13.") {
			t.Errorf("want #13 after bt and no frame 13 after bt sframe:\n%s\n%s", out, errOut)
		}
	})
	if err := thaw(); err != nil {
		t.Fatal(err)
	}
	checkRunning(t, fx.Process.Pid)
}

// gdbFrameRE matches a frame line of gdb's backtrace: level, then either
// "[0x... in ]NAME (ARGS) at FILE:LINE" (frame 0 at a statement's start
// has no address) or "<signal handler called>".
var gdbFrameRE = regexp.MustCompile(`^#(\d+)\s+(?:(?:0x[0-9a-f]+ in )?(\S+) \(.*\) at (\S+)|(<signal handler called>))$`)

// TestFramesArePrintedAsGdbPrintsThem compares "sfdbg bt --method cfi" on
// the signal fixture with gdb's backtrace of it (testdata/golden,
// recorded by scripts/gdb-golden.sh): the same function, source file and
// line at every frame gdb prints, and the signal trampoline as "<signal
// handler called>".
func TestFramesArePrintedAsGdbPrintsThem(t *testing.T) {
	golden, err := os.ReadFile(filepath.Join("..", "..", "testdata", "golden", "gdb-deep-v3-O2-signal.txt"))
	if err != nil {
		t.Skip(err)
	}
	fx := startFixture(t, dumpFixture(t, "deep-v3-O2"), "signal")
	pid := strconv.Itoa(fx.Process.Pid)
	requirePtrace(t, fx.Process.Pid)
	code, out, errOut := runSfdbg("bt", "--method", "cfi", pid)
	if code != exitOK {
		t.Fatalf("status %d: %s", code, errOut)
	}
	ours := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		if m := gdbFrameRE.FindStringSubmatch(line); m != nil {
			ours[m[1]] = m[2] + " " + m[3] + m[4]
		}
	}
	// Frame 0 and the frame the signal interrupted stop anywhere in their
	// spin loops: their lines vary from run to run, so only their function
	// and file are compared.
	noLine := func(s string) string {
		if i := strings.LastIndexByte(s, ':'); i > 0 {
			return s[:i]
		}
		return s
	}
	n, interrupted := 0, "0"
	for _, line := range strings.Split(string(golden), "\n") {
		m := gdbFrameRE.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		n++
		want, got := m[2]+" "+m[3]+m[4], ours[m[1]]
		if m[1] == interrupted {
			want, got = noLine(want), noLine(got)
		}
		if m[4] != "" {
			level, _ := strconv.Atoi(m[1])
			interrupted = strconv.Itoa(level + 1)
		}
		if got != want {
			t.Errorf("frame #%s: sfdbg %q, gdb %q", m[1], got, want)
		}
	}
	if n < 10 {
		t.Fatalf("only %d frames in gdb's golden backtrace", n)
	}
	// The debugger's frame line and info frame name it the same way.
	code, out, errOut = runSfdbg("attach", "-batch", "-ex", "frame 4", "-ex", "info frame", pid)
	if code != exitOK || !strings.Contains(out, "#4  <signal handler called>\n") ||
		!strings.Contains(out, " in <signal handler called>\n") || strings.Contains(out, "<unknown CFA>") {
		t.Errorf("frame 4 / info frame at the signal trampoline (status %d, %s):\n%s", code, errOut, out)
	}
	checkRunning(t, fx.Process.Pid)
}

// TestBacktraceLinesFitIn100Columns runs sfdbg bt on the fixture's four
// threads (frame numbers, long libc paths with libc's debug file, the
// findings and the FP summary) and checks that every line fits in 100
// columns, as issue 13 asks.
func TestBacktraceLinesFitIn100Columns(t *testing.T) {
	fx := startFixture(t, dumpFixture(t, "deep-v3-O2"), "threads")
	requirePtrace(t, fx.Process.Pid)
	for _, m := range []string{"all", "cfi"} {
		code, out, errOut := runSfdbg("bt", "--method", m, strconv.Itoa(fx.Process.Pid))
		if code != exitOK && code != exitFindings {
			t.Fatalf("status %d: %s", code, errOut)
		}
		for _, line := range strings.Split(out, "\n") {
			if len(line) > 100 {
				t.Errorf("bt --method %s: %d columns: %q", m, len(line), line)
			}
		}
	}
}
