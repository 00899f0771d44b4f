package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestAttachBatchRunsCommandsInOrderAndDetaches(t *testing.T) {
	fx := startFixture(t, dumpFixture(t, "deep-v3-O2"), "threads")
	pid := fx.Process.Pid
	requirePtrace(t, pid)
	script := filepath.Join(t.TempDir(), "cmds")
	os.WriteFile(script, []byte("# a comment\ninfo threads\nthread 2\nbt sframe\n"), 0o644)
	code, out, errOut := runSfdbg("attach", "-batch", "-ex", "bt 2", "-ex", "info sharedlibrary", "-x", script, strconv.Itoa(pid))
	if code != exitOK {
		t.Fatalf("status %d, stderr:\n%s", code, errOut)
	}
	iBt, iShared, iThreads, iAlpha := strings.Index(out, "(More stack frames follow...)"), strings.Index(out, "Load bias"),
		strings.Index(out, "Target Id"), strings.Index(out, "in alpha_2 (x=")
	if iBt < 0 || iShared < iBt || iThreads < iShared || iAlpha < iThreads {
		t.Errorf("commands did not run in order (-ex, then -x):\n%s", out)
	}
	if !strings.Contains(out, "Attached to process "+strconv.Itoa(pid)) {
		t.Errorf("no attach message:\n%s", out)
	}
	checkRunning(t, pid)
}

func TestAttachBatchFailingCommandGivesStatus2AndStillDetaches(t *testing.T) {
	fx := startFixture(t, dumpFixture(t, "deep-v3-O2"), "spin")
	pid := fx.Process.Pid
	requirePtrace(t, pid)
	code, out, errOut := runSfdbg("attach", "-batch", "-ex", "frobnicate", "-ex", "bt 1", strconv.Itoa(pid))
	if code != exitError {
		t.Errorf("status %d, want %d", code, exitError)
	}
	if !strings.Contains(errOut, `Undefined command: "frobnicate"`) || !strings.Contains(out, "#0") {
		t.Errorf("want the error and the next command's output; stdout:\n%s\nstderr:\n%s", out, errOut)
	}
	checkRunning(t, pid)
}

func TestAttachExplainsWhyItCannotAttach(t *testing.T) {
	t.Run("no such process", func(t *testing.T) {
		code, out, errOut := runSfdbg("attach", "-batch", "999999999")
		if code != exitError || out != "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "no such process") {
			t.Errorf("status %d, stdout %q, stderr %q", code, out, errOut)
		}
	})
	t.Run("a PID that is not a number", func(t *testing.T) {
		code, _, errOut := runSfdbg("bt", "abc")
		if code != exitError || !strings.Contains(errOut, "not a process ID") {
			t.Errorf("status %d, stderr %q", code, errOut)
		}
	})
	t.Run("another user's process", func(t *testing.T) {
		if os.Geteuid() != 0 {
			t.Skip("needs root to run sfdbg as another user")
		}
		fx := startFixture(t, dumpFixture(t, "deep-v3-O2"), "spin")
		bin := sfdbgBinary(t)
		for _, sub := range []string{"attach", "bt"} {
			cmd := exec.Command(bin, sub, strconv.Itoa(fx.Process.Pid))
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
			out, err := cmd.CombinedOutput()
			ee, ok := err.(*exec.ExitError)
			if !ok || ee.ExitCode() != exitError {
				t.Fatalf("sfdbg %s as nobody: %v, output %q", sub, err, out)
			}
			msg := strings.TrimSpace(string(out))
			if strings.Count(msg, "\n") != 0 || !strings.Contains(msg, "belongs to user root") {
				t.Errorf("sfdbg %s as nobody: want one sentence about the owner, got %q", sub, msg)
			}
		}
		checkRunning(t, fx.Process.Pid)
	})
}

// TestSIGINTDuringBatchDetachesAndRemovesBreakpoints interrupts sfdbg while
// a batch waits in "continue", with a breakpoint on exit(): sfdbg must stop
// the target, remove the breakpoint, detach and exit; the target must run
// on and later exit normally (a breakpoint left behind would kill it with
// SIGTRAP).
func TestSIGINTDuringBatchDetachesAndRemovesBreakpoints(t *testing.T) {
	bin := sfdbgBinary(t) // built before the 1.5 s of the fixture start
	fx := startFixture(t, dumpFixture(t, "deep-v3-O2"), "exit", "1500")
	pid := fx.Process.Pid
	requirePtrace(t, pid)
	cmd := exec.Command(bin, "attach", "-batch", "-ex", "break exit", "-ex", "continue", "-ex", "bt", strconv.Itoa(pid))
	stdout, _ := cmd.StdoutPipe()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	sc := bufio.NewScanner(stdout)
	var out strings.Builder
	continuing := make(chan bool, 1)
	go func() {
		sent := false
		for sc.Scan() {
			out.WriteString(sc.Text() + "\n")
			if !sent && sc.Text() == "Continuing." {
				continuing <- true
				sent = true
			}
		}
		if !sent {
			continuing <- false
		}
	}()
	select {
	case ok := <-continuing:
		if !ok {
			t.Fatalf("sfdbg ended before continuing:\n%s%s", out.String(), stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no Continuing. within 10 s")
	}
	time.Sleep(100 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 128+int(syscall.SIGINT) {
		t.Errorf("sfdbg after SIGINT: %v, want exit status 130; stderr:\n%s", err, stderr.String())
	}
	checkRunning(t, pid)
	// The target finishes its 1.5 s spin and exits through exit(3).
	done := make(chan error, 1)
	go func() { done <- fx.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("target ended with %v, want a normal exit (breakpoint left in exit()?)", err)
		}
	case <-time.After(10 * time.Second):
		t.Error("target did not exit within 10 s")
	}
}
