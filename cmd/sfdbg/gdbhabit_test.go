package main

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// sigPending returns the SigPnd and ShdPnd lines of /proc/PID/status.
func sigPending(pid int) string {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "SigPnd:") || strings.HasPrefix(l, "ShdPnd:") {
			out = append(out, l)
		}
	}
	return strings.Join(out, " ")
}

// TestGdbHabitSessionAtATerminalLeavesTheProcessAsItWas types, at a
// terminal, what a gdb user types in the first minutes: attach, bt, frame,
// up, info frame 2, x/4i $pc, p $sp+8, an empty line (repeating p), si, c
// stopped with Ctrl-C, finish, detach. The fixture sleeps in nanosleep in
// a loop, so finish returns. Afterwards the process runs on, untraced,
// with no signal pending, in the same loop.
func TestGdbHabitSessionAtATerminalLeavesTheProcessAsItWas(t *testing.T) {
	fx := startFixture(t, dumpFixture(t, "deep-v3-O2"), "sleep")
	pid := fx.Process.Pid
	requirePtrace(t, pid)
	pendingBefore := sigPending(pid)
	s, master := startAtTerminal(t, pid)
	// A failing step ends the test with sfdbg still tracing the fixture:
	// end sfdbg first (cleanups run last in, first out), which releases it.
	t.Cleanup(func() { s.cmd.Process.Kill() })
	// step types line at the prompt and waits for the next prompt; it
	// returns what the command printed.
	step := func(line string, want ...string) string {
		t.Helper()
		s.waitPrompt(t)
		n := len(s.text())
		master.Write([]byte(line + "\r"))
		s.waitPromptAfter(t, n)
		out := s.text()[n:]
		for _, w := range want {
			if !regexp.MustCompile(w).MatchString(out) {
				t.Errorf("%q: output lacks %s:\n%s", line, w, out)
			}
		}
		return out
	}
	step("bt", `(?m)^#\d+\s+0x[0-9a-f]+\s+.*sleep_here \(\)`, `level4_recursive`)
	// gdb's frame 0: the address only when the PC is inside a line.
	step("frame", `(?m)^#0  (0x[0-9a-f]{16} in )?__GI___clock_nanosleep `)
	step("up", `(?m)^#1  0x`)
	step("info frame 2", `Stack level 2, frame at 0x[0-9a-f]+ \(CFA\):`, `Rules each method used`)
	step("x/4i $pc", `(?m)^=> 0x[0-9a-f]+ <[^>]+>:\t`, `(?m)^   0x[0-9a-f]+ <[^>]+>:\t`)
	p := step("p $sp+8", `\$1 = \(void \*\) 0x[0-9a-f]+`)
	again := step("", `\$2 = \(void \*\) 0x[0-9a-f]+`)
	hex := regexp.MustCompile(`= \(void \*\) (0x[0-9a-f]+)`)
	if v1, v2 := hex.FindStringSubmatch(p), hex.FindStringSubmatch(again); v1 == nil || v2 == nil || v1[1] != v2[1] {
		t.Errorf("the empty line printed %q, p $sp+8 printed %q", v2, v1)
	}
	// gdb's stepi in the same function: the source line, after the PC
	// in the middle of one.
	step("si", `(?m)^(0x[0-9a-f]{16}\t)?\d+\t`)

	s.waitPrompt(t)
	n := len(s.text())
	master.Write([]byte("c\r"))
	s.waitFor(t, "Continuing.")
	time.Sleep(300 * time.Millisecond)
	master.Write([]byte{3}) // Ctrl-C
	s.waitFor(t, "stopped (interrupted)")
	s.waitPrompt(t)
	if out := s.text()[n:]; !regexp.MustCompile(`(?m)^(0x[0-9a-f]{16} in )?__GI___clock_nanosleep `).MatchString(out) {
		t.Errorf("continue + Ctrl-C did not print the frame:\n%s", out)
	}
	fin := step("finish", `Run till exit from #0 `)
	if i := strings.Index(fin, "Run till exit"); i < 0 || !regexp.MustCompile(`(?m)^(0x[0-9a-f]{16} in )?__GI___nanosleep `).MatchString(fin[i:]) {
		t.Errorf("finish did not stop in the caller:\n%s", fin)
	}
	step("detach", `Detaching from process `+strconv.Itoa(pid)+`\.`, `\[Inferior 1 \(process \d+\) detached\]`)
	s.waitPrompt(t)
	quitAtTerminal(t, s, master)

	checkRunning(t, pid)
	if after := sigPending(pid); after != pendingBefore {
		t.Errorf("pending signals were %q before the session, %q after", pendingBefore, after)
	}
	time.Sleep(1500 * time.Millisecond) // at least one more turn of the nanosleep loop
	checkRunning(t, pid)
	code, out, errOut := runSfdbg("bt", strconv.Itoa(pid))
	if code == exitError || !strings.Contains(out, "sleep_here ()") || !strings.Contains(out, "main ()") {
		t.Errorf("after the session the process is not in its loop (status %d):\n%s%s", code, out, errOut)
	}
	if t.Failed() || testing.Verbose() {
		t.Logf("session:\n%s", s.text())
	}
}
