package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSampleOfAProcessThatExits samples the fixture's "exit" mode, which
// exits after 1.5 s (400 ms was too short for sfdbg's start and attach at
// load average 20): sample says the process exited and gives the partial
// report with status 0 (no disagreements), not an attach error.
func TestSampleOfAProcessThatExits(t *testing.T) {
	fx := startFixture(t, dumpFixture(t, "deep-v3-O2"), "exit", "1500")
	requirePtrace(t, fx.Process.Pid)
	pid := strconv.Itoa(fx.Process.Pid)
	code, out, errOut := runSfdbg("sample", "-n", "100000", "--interval", "1ms", pid)
	if code != exitOK && code != exitFindings {
		t.Errorf("status %d", code)
	}
	if !strings.Contains(out, "process "+pid+" exited after ") || !strings.Contains(out, "samples: ") {
		t.Errorf("no partial report saying the process exited:\n%s", out)
	}
	if strings.Contains(errOut, "attach") || strings.Contains(errOut, "not permitted") {
		t.Errorf("the exit reads as an attach failure: %s", errOut)
	}
}

// TestSampleReadsTheModulesAgainAfterExec samples a shell that execs the
// fixture: the report says where the exec happened, and after it the
// frames are found in the new program's modules (SFrame agrees), not
// reported as code in no module.
func TestSampleReadsTheModulesAgainAfterExec(t *testing.T) {
	bin := dumpFixture(t, "deep-v3-O2")
	sh := exec.Command("sh", "-c", "sleep 0.3; exec "+bin+" spin")
	if err := sh.Start(); err != nil {
		t.Skip(err)
	}
	t.Cleanup(func() { sh.Process.Kill(); sh.Wait() })
	requirePtrace(t, sh.Process.Pid)
	code, out, errOut := runSfdbg("sample", "-n", "400", "--interval", "2ms", strconv.Itoa(sh.Process.Pid))
	if code != exitOK {
		t.Fatalf("status %d: %s", code, errOut)
	}
	if !strings.Contains(out, "process "+strconv.Itoa(sh.Process.Pid)+" executed a new program, ") ||
		!strings.Contains(out, filepath.Base(bin)+", before sample ") {
		t.Errorf("the report does not say where the exec happened:\nstderr: %s\nstdout: %s", errOut, out)
	}
	// After the exec the deep chain is compared: SFrame agrees at frames
	// of the new program.
	if strings.Contains(out, "SFrame agrees 0,") {
		t.Errorf("nothing agreed after the exec:\n%s", out)
	}
}

// TestSampleExitsWith128PlusTheSignal sends SIGTERM to a running sample:
// it prints the partial report, detaches, and exits 128+15 as attach does.
func TestSampleExitsWith128PlusTheSignal(t *testing.T) {
	fx := startFixture(t, dumpFixture(t, "deep-v3-O2"), "spin")
	requirePtrace(t, fx.Process.Pid)
	cmd := exec.Command(sfdbgBinary(t), "sample", "-n", "1000000", "--interval", "1ms", strconv.Itoa(fx.Process.Pid))
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Signal sfdbg once it has sampled (it traced the target at least
	// once), not after a fixed delay that a loaded machine can outlast
	// before sfdbg's handler is even installed.
	tracer := fmt.Sprintf("TracerPid:\t%d\n", cmd.Process.Pid)
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", fx.Process.Pid)); strings.Contains(string(b), tracer) {
			break
		}
	}
	time.Sleep(100 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGTERM)
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 128+15 {
		t.Errorf("exit %v, want status 143", err)
	}
	if !strings.Contains(out.String(), "partial report") {
		t.Errorf("no partial report:\n%s", out.String())
	}
	checkRunning(t, fx.Process.Pid)
}

// TestProcessWhoseMainThreadExitedIsTraced builds a program whose main
// thread calls pthread_exit while another thread runs on (the process then
// shows as a zombie in /proc/PID/stat): bt and sample use its live thread
// instead of refusing it as "a zombie".
func TestProcessWhoseMainThreadExitedIsTraced(t *testing.T) {
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("no C compiler to build the test program")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "mainexit.c")
	os.WriteFile(src, []byte(`#include <pthread.h>
#include <stdio.h>
static volatile int stop;
static void *worker(void *arg) { printf("ready\n"); fflush(stdout); while (!stop) ; return arg; }
int main(void) { pthread_t t; pthread_create(&t, 0, worker, 0); pthread_exit(0); }
`), 0o644)
	bin := filepath.Join(dir, "mainexit")
	if out, err := exec.Command(cc, "-O1", "-pthread", "-o", bin, src).CombinedOutput(); err != nil {
		t.Skipf("cc: %v\n%s", err, out)
	}
	fx := startFixture(t, bin)
	time.Sleep(100 * time.Millisecond) // let the main thread exit
	pid := strconv.Itoa(fx.Process.Pid)
	code, out, errOut := runSfdbg("bt", "--method", "cfi", pid)
	if code != exitOK || !strings.Contains(out, "worker") {
		t.Errorf("bt: status %d, stderr %q:\n%s", code, errOut, out)
	}
	code, out, errOut = runSfdbg("sample", "-n", "20", "--interval", "1ms", pid)
	if code != exitOK && code != exitFindings || !strings.Contains(out, "samples: 20") {
		t.Errorf("sample: status %d, stderr %q:\n%s", code, errOut, out)
	}
}
