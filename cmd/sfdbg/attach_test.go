package main

import (
	"bufio"
	"debug/elf"
	"encoding/binary"
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
// on, and once the test lets it return from spin_here it exits normally
// (a breakpoint left behind would kill it with SIGTRAP).
func TestSIGINTDuringBatchDetachesAndRemovesBreakpoints(t *testing.T) {
	bin := sfdbgBinary(t)
	path := dumpFixture(t, "deep-v3-O2")
	fx := startFixture(t, path, "spin")
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
	// Let it return: it exits through exit(3).
	pokeInt32(t, pid, path, "spin_release", 1)
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

// pokeInt32 writes v to the 4-byte variable sym of the program at path,
// running as process pid, through /proc/PID/mem (the test is the
// process's parent, so it may). The load bias is the start of the
// program's first mapping less its first PT_LOAD's page.
func pokeInt32(t *testing.T, pid int, path, sym string, v int32) {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	var addr uint64
	for _, s := range syms {
		if s.Name == sym {
			addr = s.Value
		}
	}
	var first uint64
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD {
			first = p.Vaddr &^ 0xfff
			break
		}
	}
	if addr == 0 {
		t.Fatalf("%s has no symbol %s", path, sym)
	}
	maps, err := os.ReadFile(fmt.Sprintf("/proc/%d/maps", pid))
	if err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs(path)
	var bias uint64
	for _, l := range strings.Split(string(maps), "\n") {
		if fs := strings.Fields(l); len(fs) == 6 && fs[5] == abs && fs[2] == "00000000" {
			start, _ := strconv.ParseUint(strings.Split(fs[0], "-")[0], 16, 64)
			bias = start - first
			break
		}
	}
	mem, err := os.OpenFile(fmt.Sprintf("/proc/%d/mem", pid), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], uint32(v))
	if _, err := mem.WriteAt(b[:], int64(addr+bias)); err != nil {
		t.Fatalf("write %s at %#x: %v", sym, addr+bias, err)
	}
}
