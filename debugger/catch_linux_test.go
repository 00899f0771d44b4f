package debugger

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sfdbg/sfdbg/compare"
	"github.com/sfdbg/sfdbg/debugger/proc"
)

// catchFixture runs testdata/bin/sortcrash-v3 MODE under Catch, with the
// program's stdout in a file whose text is returned; it skips where the
// fixture is missing or ptrace is not permitted.
func catchFixture(t *testing.T, opts CatchOptions, mode string) (*CatchResult, string) {
	t.Helper()
	if runtime.GOARCH != "amd64" {
		t.Skip("sortcrash-v3 is an x86-64 program")
	}
	bin := fixture(t, "sortcrash-v3")
	out, err := os.Create(filepath.Join(t.TempDir(), "stdout"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	opts.Files = []*os.File{nil, out, os.Stderr}
	opts.Trace = compare.Options{Methods: compare.All}
	res, err := Catch([]string{bin, mode}, opts)
	if errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.ENOSYS) {
		t.Skipf("ptrace not permitted here: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	text, _ := os.ReadFile(out.Name())
	return res, string(text)
}

func TestCatchPassesHandledSignalsOn(t *testing.T) {
	t.Run("a SIGSEGV the program recovers from, and a SIGUSR1 it handles, reach it; it exits 0 and nothing is reported", func(t *testing.T) {
		var called int
		res, out := catchFixture(t, CatchOptions{OnCrash: func(*Crash) { called++ }}, "handled")
		if out != "recovered 1 usr1 1\n" || res.Status() != 0 || res.Signal != 0 || len(res.Crashes) != 0 || called != 0 {
			t.Errorf("program printed %q, status %d, signal %v, %d crashes (OnCrash called %d times)",
				out, res.Status(), res.Signal, len(res.Crashes), called)
		}
	})
}

func TestCatchStopsOnAFatalSignalThenDeliversIt(t *testing.T) {
	for _, tc := range []struct {
		mode   string
		sig    syscall.Signal
		leaf   string
		thread int
	}{
		{"crash", syscall.SIGSEGV, "check_leaf", 1},
		{"abort", syscall.SIGABRT, "__pthread_kill_implementation.constprop.0", 1},
		{"thread", syscall.SIGSEGV, "check_leaf", 2},
		{"exec", syscall.SIGSEGV, "check_leaf", 1},
	} {
		t.Run(tc.mode+": one crash is reported with its trace, then the program dies of "+signalName(tc.sig), func(t *testing.T) {
			var seen []string
			res, _ := catchFixture(t, CatchOptions{OnCrash: func(c *Crash) {
				// The process is still held: it has not died yet.
				if st := proc.ProcState(c.Pid); st != 't' {
					t.Errorf("process %d in state %q at OnCrash, want t (traced stop)", c.Pid, st)
				}
				seen = append(seen, c.ReceivedLine())
			}}, tc.mode)
			if res.Signal != tc.sig || res.Status() != 128+int(tc.sig) || len(res.Crashes) != 1 || len(seen) != 1 {
				t.Fatalf("signal %v, status %d, %d crashes (%q)", res.Signal, res.Status(), len(res.Crashes), seen)
			}
			c := res.Crashes[0]
			if c.Signal != tc.sig || !c.First || c.Thread != tc.thread || c.TraceErr != nil || len(c.Trace.Threads) != 1 {
				t.Fatalf("crash %+v", c)
			}
			tr := c.Trace.Threads[0]
			if tr.Tid != c.Tid || tr.Trace == nil || len(tr.Trace.Frames) < 8 {
				t.Fatalf("thread %d trace %+v (%v)", tr.Tid, tr.Trace, tr.Err)
			}
			if f := tr.Trace.Document(tr.Tid, tr.Name).Frames[0]; f.Function != tc.leaf {
				t.Errorf("frame 0 is %s, want %s", f.Function, tc.leaf)
			}
			if tc.sig == syscall.SIGSEGV && (!c.HasAddr || c.Addr != 0 || c.Code != 1) {
				t.Errorf("siginfo: address %#x (%v), si_code %d; want 0, SEGV_MAPERR", c.Addr, c.HasAddr, c.Code)
			}
		})
	}
}

func TestCatchFollowsForkedChildrenOnlyWhenAsked(t *testing.T) {
	for _, follow := range []bool{false, true} {
		name := "without --follow-fork the child's crash is not reported"
		if follow {
			name = "with --follow-fork the child's crash is reported, the child still dies of it"
		}
		t.Run(name, func(t *testing.T) {
			res, out := catchFixture(t, CatchOptions{FollowFork: follow}, "fork")
			// The parent sees its child killed by SIGSEGV, prints so and exits 7.
			if out != "child signal 11\n" || res.Status() != 7 {
				t.Fatalf("program printed %q, status %d", out, res.Status())
			}
			want := 0
			if follow {
				want = 1
			}
			if len(res.Crashes) != want {
				t.Fatalf("%d crashes, want %d", len(res.Crashes), want)
			}
			if follow {
				c := res.Crashes[0]
				if c.First || c.Pid == res.Pid || !strings.HasPrefix(c.ReceivedLine(), "Process ") {
					t.Errorf("crash of process %d (program %d): %q", c.Pid, res.Pid, c.ReceivedLine())
				}
			}
		})
	}
}

func TestCatchKeepsJobControl(t *testing.T) {
	t.Run("a program that stops itself with SIGSTOP stays stopped until SIGCONT, then goes on", func(t *testing.T) {
		sh, err := exec.LookPath("sh")
		if err != nil {
			t.Skipf("no sh: %v", err)
		}
		out, err := os.Create(filepath.Join(t.TempDir(), "stdout"))
		if err != nil {
			t.Fatal(err)
		}
		defer out.Close()
		pids := make(chan int, 1)
		type result struct {
			res *CatchResult
			err error
		}
		done := make(chan result, 1)
		go func() {
			res, err := Catch([]string{sh, "-c", "kill -STOP $$; echo resumed"}, CatchOptions{
				Files: []*os.File{nil, out, os.Stderr}, Started: func(pid int) { pids <- pid }})
			done <- result{res, err}
		}()
		var pid int
		select {
		case pid = <-pids:
		case r := <-done:
			if errors.Is(r.err, syscall.EPERM) {
				t.Skipf("ptrace not permitted here: %v", r.err)
			}
			t.Fatalf("Catch returned before the program ran: %+v, %v", r.res, r.err)
		}
		// It stops itself at once; it must still be stopped a while later.
		time.Sleep(300 * time.Millisecond)
		for i := 0; i < 3; i++ {
			if st := proc.ProcState(pid); st != 't' && st != 'T' {
				t.Fatalf("process %d in state %q after stopping itself, want stopped", pid, st)
			}
			select {
			case r := <-done:
				t.Fatalf("the program ended while stopped: %+v, %v", r.res, r.err)
			case <-time.After(100 * time.Millisecond):
			}
		}
		syscall.Kill(pid, syscall.SIGCONT)
		select {
		case r := <-done:
			text, _ := os.ReadFile(out.Name())
			if r.err != nil || r.res.Status() != 0 || string(text) != "resumed\n" {
				t.Errorf("after SIGCONT: status %v, error %v, output %q", r.res, r.err, text)
			}
		case <-time.After(10 * time.Second):
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatal("the program did not end within 10 s of SIGCONT")
		}
	})
}
