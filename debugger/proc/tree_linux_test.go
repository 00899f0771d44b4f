package proc

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// startTree starts sh -c script under a Tree whose policy holds every
// process at SIGABRT, or skips when sh or ptrace is missing.
func startTree(t *testing.T, script string, follow bool) (*Tree, string) {
	t.Helper()
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skipf("no sh: %v", err)
	}
	out := filepath.Join(t.TempDir(), "out")
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	tree, err := StartTree(sh, []string{sh, "-c", script}, TreeOptions{
		FollowFork: follow,
		Attr:       os.ProcAttr{Files: []*os.File{nil, f, f}},
		Policy: func(pid, tid int, sig syscall.Signal) (bool, bool) {
			return sig == syscall.SIGABRT, true
		},
	})
	if errors.Is(err, syscall.EPERM) {
		t.Skipf("ptrace not permitted here: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tree.Close)
	return tree, out
}

func TestTreeHoldsAtThePolicysSignalThenDeliversIt(t *testing.T) {
	tree, _ := startTree(t, "kill -ABRT $$", false)
	ev := tree.Next()
	if ev.Ended || ev.Stop == nil || ev.Signal != syscall.SIGABRT || !ev.First || ev.Tid != tree.Pid() {
		t.Fatalf("first event %+v, want the program held at SIGABRT", ev)
	}
	if err := ev.Stop.Interrupt(); err != nil {
		t.Fatal(err)
	}
	if ths := ev.Stop.Threads(); len(ths) != 1 || ths[0] != ev.Tid {
		t.Errorf("held threads %v, want [%d]", ths, ev.Tid)
	}
	if st := ProcState(ev.Tid); st != 't' {
		t.Errorf("held thread in state %q, want t (traced)", st)
	}
	si, err := ev.Stop.SigInfo(ev.Tid)
	if err != nil || si.Signo != int32(syscall.SIGABRT) || si.Code > 0 {
		t.Errorf("siginfo %+v, %v; want SIGABRT sent by kill", si, err)
	} else if pid, _ := si.Sender(); pid != tree.Pid() {
		t.Errorf("sender %d, want %d (sh killed itself)", pid, tree.Pid())
	}
	if err := ev.Stop.Resume(); err != nil {
		t.Fatal(err)
	}
	end := tree.Next()
	if !end.Ended || !end.Status.Signaled() || end.Status.Signal() != syscall.SIGABRT {
		t.Fatalf("after Resume: %+v, want the program killed by the SIGABRT it was held at", end)
	}
}

func TestTreeFollowsForksOnlyWhenAsked(t *testing.T) {
	// The child sh (forked, then exec'd) aborts; the parent prints its
	// status and exits 0.
	const script = `sh -c 'kill -ABRT $$'; echo status $?`
	for _, follow := range []bool{false, true} {
		tree, out := startTree(t, script, follow)
		ev := tree.Next()
		if follow {
			if ev.Ended || ev.First || ev.Stop == nil || ev.Stop.Pid() == tree.Pid() || ev.Signal != syscall.SIGABRT {
				t.Fatalf("follow: first event %+v, want the forked child held at SIGABRT", ev)
			}
			if err := ev.Stop.Resume(); err != nil {
				t.Fatal(err)
			}
			ev = tree.Next()
		}
		if !ev.Ended || !ev.Status.Exited() || ev.Status.ExitStatus() != 0 {
			t.Fatalf("follow %v: event %+v, want the program's exit 0", follow, ev)
		}
		text, _ := os.ReadFile(out)
		if got := strings.TrimSpace(string(text)); !strings.HasSuffix(got, "status 134") {
			t.Errorf("follow %v: output %q, want the child killed by SIGABRT (status 134)", follow, got)
		}
	}
}
