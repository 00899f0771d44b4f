package debugger

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sfdbg/sfdbg/debugger/proc"
	"github.com/sfdbg/sfdbg/frames/livetest"
)

// fixture returns the path of a committed test binary, skipping the test
// when it is missing.
func fixture(t testing.TB, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "testdata", "bin", name))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		t.Skipf("fixture %s not built (scripts/build-fixtures.sh): %v", name, err)
	}
	return p
}

// startFixture starts a fixture and waits for its "ready" line. The process
// is killed and reaped when the test ends.
func startFixture(t testing.TB, name string, args ...string) *exec.Cmd {
	t.Helper()
	return startReady(t, name, exec.Command(fixture(t, name), args...))
}

// startFixtureIgnoringSIGINT starts a fixture the way a shell starts a
// background job: with SIGINT ignored (sh's trap "" INT survives exec).
func startFixtureIgnoringSIGINT(t testing.TB, name string, args ...string) *exec.Cmd {
	t.Helper()
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skipf("no sh to start %s with SIGINT ignored: %v", name, err)
	}
	argv := append([]string{"-c", `trap "" INT; exec "$0" "$@"`, fixture(t, name)}, args...)
	return startReady(t, name, exec.Command(sh, argv...))
}

// startReady starts cmd and waits for its "ready" line; see startFixture.
func startReady(t testing.TB, name string, cmd *exec.Cmd) *exec.Cmd {
	t.Helper()
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		// A process still traced by a Stop the test failed to detach is
		// reaped only once its tracer lets it go: do not hang on it.
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Errorf("fixture %d not reaped 5 s after SIGKILL", cmd.Process.Pid)
		}
	})
	ready := make(chan error, 1)
	go func() {
		line, err := bufio.NewReader(out).ReadString('\n')
		if err == nil && strings.TrimSpace(line) != "ready" {
			err = errors.New("unexpected first line " + line)
		}
		ready <- err
	}()
	select {
	case err := <-ready:
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("%s did not print ready", name)
	}
	// "ready" is written just before the last call: wait for the thread
	// to get from write(2) into its deepest function.
	if err := livetest.Settle(cmd.Process.Pid); err != nil {
		t.Fatal(err)
	}
	return cmd
}

// skipIfNoPtrace skips the test when err says ptrace is not permitted.
func skipIfNoPtrace(t testing.TB, err error) {
	t.Helper()
	if errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.EACCES) {
		t.Skipf("ptrace not permitted here: %v", err)
	}
}

// checkRunning fails the test unless every thread of pid is in a running
// or sleeping state: not stopped ('T') or traced ('t').
func checkRunning(t testing.TB, pid int) {
	t.Helper()
	// Give a thread that was just resumed a moment to be scheduled.
	deadline := time.Now().Add(30 * time.Second)
	for {
		bad := ""
		tids, _ := proc.ListTasks(pid)
		for _, tid := range tids {
			if st := proc.ProcState(tid); st == 't' || st == 'T' {
				bad = string(st)
			}
		}
		st := proc.ProcStatus(pid)
		if bad == "" && st["TracerPid"] == "0" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("process %d left in state %q with TracerPid %s", pid, bad, st["TracerPid"])
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func syscallKill(pid int) error { return syscall.Kill(pid, syscall.SIGKILL) }
