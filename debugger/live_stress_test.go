package debugger

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sfdbg/sfdbg/debugger/proc"
)

// The live scenarios of scripts/live-stress.sh, once each, as tests: the
// targets (testdata/src/live-*.c) are built with the host's gcc; without
// gcc or ptrace the tests skip.

// buildLive compiles testdata/src/live-NAME.c into a temporary directory.
func buildLive(t *testing.T, name string) string {
	t.Helper()
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		t.Skipf("no gcc to build testdata/src/live-%s.c: %v", name, err)
	}
	bin := filepath.Join(t.TempDir(), "live-"+name)
	out, err := exec.Command(gcc, "-O2", "-g", "-pthread", "-o", bin, filepath.Join("..", "testdata", "src", "live-"+name+".c")).CombinedOutput()
	if err != nil {
		t.Skipf("gcc cannot build live-%s.c: %v\n%s", name, err, out)
	}
	return bin
}

// startLive starts bin, gives it 100 ms to start its threads, and kills
// it when the test ends.
func startLive(t *testing.T, bin string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(bin, args...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	time.Sleep(100 * time.Millisecond)
	return cmd
}

// requirePtraceHere skips the test unless sfdbg may trace its children.
func requirePtraceHere(t *testing.T) {
	t.Helper()
	cmd := exec.Command("sleep", "10")
	if err := cmd.Start(); err != nil {
		t.Skip(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	st, err := proc.Seize(cmd.Process.Pid)
	skipIfNoPtrace(t, err)
	if err != nil {
		t.Fatal(err)
	}
	st.Detach()
}

// checkAlive fails the test if the process was killed (it is our child: a
// zombie once dead).
func checkAlive(t *testing.T, pid int) {
	t.Helper()
	time.Sleep(300 * time.Millisecond) // a thread let go at the wrong PC dies within this
	if st := proc.ProcState(pid); st == 'Z' || st == 0 {
		var ws syscall.WaitStatus
		syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
		t.Fatalf("process %d was killed (wait status %#x)", pid, uint32(ws))
	}
}

// TestLiveBreakpointInShortLivedThreads: threads that each call f and exit
// within a millisecond hit a breakpoint at f; the threads that hit it exit
// while sfdbg continues; after detach the process runs on, untraced. With
// Delve's native backend this killed the target (SIGTRAP or SIGILL) in 6
// of 6 runs: Delve reads and writes memory through the thread of the last
// stop, and once that thread has exited it can no longer remove the int3.
func TestLiveBreakpointInShortLivedThreads(t *testing.T) {
	bin := buildLive(t, "shortthreads")
	cmd := startLive(t, bin, "100000")
	s, ui := attachBatch(t, cmd.Process.Pid)
	defer s.Close()
	if out := run(t, s, ui, "break f"); !strings.Contains(out, "Breakpoint 1 at") {
		t.Fatalf("break f: %s", out)
	}
	seen := map[string]bool{}
	for i := 0; i < 3; i++ {
		out := run(t, s, ui, "continue")
		if !strings.Contains(out, "hit Breakpoint 1, f (n=") {
			t.Fatalf("continue %d did not stop at f:\n%s", i+1, out)
		}
		// The event names the thread that hit it, and it is selected.
		th := out[strings.Index(out, "\nThread ")+1:]
		th = th[:strings.Index(th, " hit")]
		seen[th] = true
		if sel := run(t, s, ui, "thread"); !strings.Contains(sel, "Current thread is "+strings.Fields(th)[1]) {
			t.Errorf("the thread that hit the breakpoint (%s) is not the selected one: %s", th, sel)
		}
	}
	run(t, s, ui, "info threads")
	// Still in f: gdb's stepi prints the source line alone (after the
	// PC in the middle of a line), the location only in another function.
	if out := run(t, s, ui, "stepi"); !regexp.MustCompile(`(?m)^(0x[0-9a-f]{16}\t)?1[0-9]\t`).MatchString(out) || strings.Contains(out, " at ") {
		t.Errorf("stepi left f:\n%s", out)
	}
	run(t, s, ui, "detach")
	checkRunning(t, cmd.Process.Pid)
	checkAlive(t, cmd.Process.Pid)
}

// TestLiveAttachToAZombieLeader: the main thread called pthread_exit while
// three threads run. Delve's attach was refused (PTRACE_ATTACH of the
// leader: EPERM); sfdbg attaches to the live threads and says what state
// the leader is in.
func TestLiveAttachToAZombieLeader(t *testing.T) {
	requirePtraceHere(t)
	bin := buildLive(t, "zombie")
	cmd := startLive(t, bin)
	pid := cmd.Process.Pid
	for i := 0; proc.ProcState(pid) != 'Z'; i++ {
		if i > 200 {
			t.Fatalf("the leader of %d did not exit", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
	tg, err := Attach(pid)
	if err != nil {
		t.Fatalf("attach to a process whose leader called pthread_exit: %v", err)
	}
	ui := &ScriptUI{Echo: true}
	s := NewSession(tg, ui)
	s.Batch = true
	defer s.Close()
	s.Intro("Attached to process " + strconv.Itoa(pid))
	intro := ui.Out.String()
	if !strings.Contains(intro, "3 threads") || !strings.Contains(intro, "The main thread ("+strconv.Itoa(pid)+") has exited (pthread_exit)") {
		t.Errorf("intro:\n%s", intro)
	}
	if out := run(t, s, ui, "thread apply all bt"); strings.Count(out, "worker (arg=") != 3 {
		t.Errorf("thread apply all bt does not show the three workers:\n%s", out)
	}
	run(t, s, ui, "break g")
	if out := run(t, s, ui, "continue"); !strings.Contains(out, "hit Breakpoint 1, ") {
		t.Errorf("continue did not stop at g:\n%s", out)
	}
	run(t, s, ui, "detach")
	tids, _ := proc.ListTasks(pid)
	for _, tid := range tids {
		if tid == pid {
			continue
		}
		if st := proc.ProcState(tid); st == 't' || st == 'T' {
			t.Errorf("thread %d left in state %c", tid, st)
		}
		if tr := proc.StatusFile("/proc/" + strconv.Itoa(pid) + "/task/" + strconv.Itoa(tid) + "/status")["TracerPid"]; tr != "0" {
			t.Errorf("thread %d still traced by %s", tid, tr)
		}
	}
}

// TestSeizeAcrossAMultiThreadedExec: a second thread calls execve while
// the process is sampled (stopped and resumed every millisecond). The
// exec is reported, the threads it ended are reaped at once (the exec
// takes well under a second; it was held 2-4 s by timeouts before), and
// the new image is stopped as a single thread.
func TestSeizeAcrossAMultiThreadedExec(t *testing.T) {
	bin := buildLive(t, "exec")
	out := filepath.Join(t.TempDir(), "exec-time")
	cmd := startLive(t, bin, "300", out)
	st, err := proc.Seize(cmd.Process.Pid)
	skipIfNoPtrace(t, err)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Detach()
	var execs []proc.ExecEvent
	deadline := time.Now().Add(10 * time.Second)
	for len(execs) == 0 && time.Now().Before(deadline) {
		if err := st.Resume(); err != nil {
			t.Fatal(err)
		}
		st.Wait(time.Millisecond, nil)
		if err := st.Interrupt(); err != nil {
			t.Fatalf("interrupt: %v", err)
		}
		execs = st.Execs()
	}
	if len(execs) != 1 || execs[0].Thread == cmd.Process.Pid || execs[0].Path == "" {
		t.Fatalf("execs %+v, want one by a thread other than the leader", execs)
	}
	if tids := st.Threads(); len(tids) != 1 || tids[0] != cmd.Process.Pid {
		t.Errorf("threads after the exec %v, want the process ID alone", tids)
	}
	if err := st.Detach(); err != nil {
		t.Fatal(err)
	}
	checkRunning(t, cmd.Process.Pid)
	for i := 0; i < 100; i++ {
		if b, err := os.ReadFile(out); err == nil && len(b) > 0 {
			us, _ := strconv.Atoi(strings.TrimSpace(string(b)))
			t.Logf("exec took %d us", us)
			if us > 1000000 {
				t.Errorf("the exec took %d ms under sfdbg, want well under a second", us/1000)
			}
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Errorf("the new image did not start")
}

// TestSeizeUnderThreadChurn: three threads create and join short-lived
// threads without pause. Seizing, sampling and attaching never fail on a
// thread that vanished between the listing and its seize, nor on one
// that ptrace refuses while it exits ("could not attach to new thread",
// "seize thread N: operation not permitted" in 2-4 of 10 runs before).
func TestSeizeUnderThreadChurn(t *testing.T) {
	bin := buildLive(t, "churn")
	cmd := startLive(t, bin)
	pid := cmd.Process.Pid
	for i := 0; i < 10; i++ {
		st, err := proc.Seize(pid)
		skipIfNoPtrace(t, err)
		if err != nil {
			t.Fatalf("seize %d: %v", i, err)
		}
		for j := 0; j < 20; j++ {
			if err := st.Resume(); err != nil {
				t.Fatalf("resume: %v", err)
			}
			st.Wait(time.Millisecond, nil)
			if err := st.Interrupt(); err != nil {
				t.Fatalf("seize %d, sample %d: %v", i, j, err)
			}
			if len(st.Threads()) == 0 {
				t.Fatalf("seize %d, sample %d: no thread stopped", i, j)
			}
		}
		if err := st.Detach(); err != nil {
			t.Fatal(err)
		}
		tg, err := Attach(pid)
		if err != nil {
			t.Fatalf("attach %d: %v", i, err)
		}
		if tids, err := tg.Threads(); err != nil || len(tids) == 0 {
			t.Fatalf("attach %d: threads %v, %v", i, tids, err)
		}
		if err := tg.Detach(); err != nil {
			t.Fatal(err)
		}
	}
	checkRunning(t, pid)
	checkAlive(t, pid)
}
