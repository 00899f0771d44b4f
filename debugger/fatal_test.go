package debugger

import (
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sfdbg/sfdbg/debugger/proc"
)

// TestAttachContinueStopsAtAFatalSignal checks that an attached process
// stops where a fatal signal arrives, as gdb's default "handle SIGSEGV stop
// print pass" does: continue reports `Thread 1 "deep-v3-O2" received signal
// SIGSEGV, Segmentation fault.` with the frame, the process stays stopped
// for bt, and detach delivers the signal, so the program dies of it as it
// would have without sfdbg.
func TestAttachContinueStopsAtAFatalSignal(t *testing.T) {
	cmd := startFixture(t, "deep-v3-O2", "exit", "60000")
	pid := cmd.Process.Pid
	s, ui := attachBatch(t, pid)
	defer s.Close()
	if out := run(t, s, ui, "info signals SIGSEGV"); !strings.Contains(out, "SIGSEGV       Yes\tYes\tYes\t") {
		t.Errorf("info signals SIGSEGV in an attached process:\n%s", out)
	}
	go func() {
		// Sent once continue has resumed it (no longer traced-stopped).
		for proc.ProcState(pid) == 't' {
			time.Sleep(time.Millisecond)
		}
		syscall.Kill(pid, syscall.SIGSEGV)
	}()
	out := run(t, s, ui, "continue")
	// The frame line: "0x... in f (...) at ..." in the middle of a line,
	// "f (...) at ..." when the signal came at a line's first instruction,
	// "... from [vdso]" in a module without lines.
	if !regexp.MustCompile(`(?m)^Program received signal SIGSEGV, Segmentation fault\.$`).MatchString(out) ||
		!regexp.MustCompile(`(?m)^(0x[0-9a-f]{16} in )?\S+ \(.*\) (at|from) `).MatchString(out) {
		t.Fatalf("continue did not stop at the SIGSEGV:\n%s", out)
	}
	if st := proc.ProcState(pid); st != 't' {
		t.Errorf("process in state %q at the signal, want traced-stopped 't'", st)
	}
	if bt := run(t, s, ui, "bt cfi"); !strings.Contains(bt, "main (argc=") {
		t.Errorf("bt at the signal does not reach main:\n%s", bt)
	}
	run(t, s, ui, "detach")
	err := cmd.Wait()
	ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() || ws.Signal() != syscall.SIGSEGV {
		t.Errorf("after detach the program ended with %v (%v), want killed by SIGSEGV", cmd.ProcessState, err)
	}
}
