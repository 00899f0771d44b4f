package debugger

import (
	"regexp"
	"strings"
	"testing"
)

// TestGdbUsersEverydayInfoCommands runs what a gdb user types in the first
// hour and sfdbg called "Undefined command": info proc, info proc
// mappings, info inferiors, shell and !, and a sub-register ($eax is the
// low half of $rax, as a signed int).
func TestGdbUsersEverydayInfoCommands(t *testing.T) {
	s, ui, _ := attachFixture(t, "deep-v3-O2", "exit", "60000")
	out := run(t, s, ui, "info proc")
	if !strings.Contains(out, "process ") || !strings.Contains(out, "exe = '") || !strings.Contains(out, "deep-v3-O2") {
		t.Errorf("info proc:\n%s", out)
	}
	out = run(t, s, ui, "info proc mappings")
	if !regexp.MustCompile(`(?m)^\s+0x[0-9a-f]+\s+0x[0-9a-f]+\s+0x[0-9a-f]+\s+0x[0-9a-f]+\s+r-xp\s+\S*deep-v3-O2$`).MatchString(out) {
		t.Errorf("info proc mappings lacks the executable's text mapping:\n%s", out)
	}
	out = run(t, s, ui, "info inferiors")
	if !regexp.MustCompile(`(?m)^\* 1\s+process \d+\s+1 \(native\)\s+\S*deep-v3-O2$`).MatchString(out) {
		t.Errorf("info inferiors:\n%s", out)
	}
	if out := run(t, s, ui, "shell echo hello from the shell"); out != "hello from the shell\n" {
		t.Errorf("shell echo: %q", out)
	}
	if out := run(t, s, ui, "!echo bang"); out != "bang\n" {
		t.Errorf("!echo: %q", out)
	}
	// x/s: deep.c's static "ready\n" (msg.0), as gdb prints it.
	if out := run(t, s, ui, "x/s &msg.0"); !regexp.MustCompile(`^0x[0-9a-f]+ <msg\.0>:\t"ready\\n"\n$`).MatchString(out) {
		t.Errorf("x/s &msg.0: %q", out)
	}
	rax := run(t, s, ui, "p/x $rax")
	eax := run(t, s, ui, "p/x $eax")
	mr := regexp.MustCompile(`= 0x([0-9a-f]+)`).FindStringSubmatch(rax)
	me := regexp.MustCompile(`= 0x([0-9a-f]+)`).FindStringSubmatch(eax)
	if mr == nil || me == nil {
		t.Fatalf("p/x $rax: %q, p/x $eax: %q", rax, eax)
	}
	low := func(h string) string {
		h = strings.Repeat("0", 8) + h
		return h[len(h)-8:]
	}
	if low(mr[1]) != low(me[1]) {
		t.Errorf("$eax = 0x%s is not the low half of $rax = 0x%s", me[1], mr[1])
	}
}
