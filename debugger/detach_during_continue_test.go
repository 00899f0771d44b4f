package debugger

import (
	"testing"
	"time"

	"github.com/sfdbg/sfdbg/debugger/proc"
)

// TestDetachWhileContinueWaitsEndsBoth checks that a Detach from another
// goroutine (the session closing the target at a signal to sfdbg, in
// batch mode) ends a continue that is waiting for an event: continue
// blocks in the tracer's Wait with the Stop's lock held, and once waited
// for up to an hour (seen as "attach -batch -ex continue" hanging at a
// SIGINT sent before the continue began).
func TestDetachWhileContinueWaitsEndsBoth(t *testing.T) {
	cmd := startFixture(t, "deep-v3-O2", "spin")
	pid := cmd.Process.Pid
	tg, err := Attach(pid)
	skipIfNoPtrace(t, err)
	if err != nil {
		t.Fatal(err)
	}
	continued := make(chan error, 1)
	go func() {
		_, err := tg.Continue()
		continued <- err
	}()
	// Continue has resumed the process once its thread is out of its
	// ptrace stop (state t).
	for deadline := time.Now().Add(30 * time.Second); proc.ProcState(pid) == 't'; {
		if time.Now().After(deadline) {
			t.Fatal("continue did not resume the process within 30 s")
		}
		time.Sleep(time.Millisecond)
	}
	detached := make(chan error, 1)
	go func() { detached <- tg.Detach() }()
	const bound = 30 * time.Second // a failure deadline: both end at once
	select {
	case err := <-detached:
		if err != nil {
			t.Errorf("detach: %v", err)
		}
	case <-time.After(bound):
		t.Fatalf("detach did not return within %v while continue waited", bound)
	}
	select {
	case <-continued:
	case <-time.After(bound):
		t.Fatalf("continue did not return within %v of the detach", bound)
	}
	checkRunning(t, pid)
}
