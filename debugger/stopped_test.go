package debugger

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sfdbg/sfdbg/debugger/proc"
	"github.com/sfdbg/sfdbg/frames"
	"github.com/sfdbg/sfdbg/frames/livetest"
)

// stoppedSnapshot is what a stopped process must keep while sfdbg works on
// it: state, PC and pending signals. Whether it ran is spinCount's to say,
// not the CPU time: /proc/PID/stat's utime is the kernel's runtime scaled by
// the user/system tick ratio (cputime_adjust), so the kernel work a stopped
// thread does to enter and leave the ptrace stop can raise it by a tick
// without one user instruction running (seen in CI: 8 to 9 for the
// threads fixture, whose spinners have no system ticks).
type stoppedSnapshot struct {
	state   byte
	pc      string // /proc/PID/syscall: "-1 SP PC" for a stopped task
	pending string // SigPnd and ShdPnd
}

func snapshotStopped(pid int) stoppedSnapshot {
	st := proc.ProcStatus(pid)
	return stoppedSnapshot{state: proc.ProcState(pid),
		pc:      strings.TrimSpace(proc.ReadFile(fmt.Sprintf("/proc/%d/syscall", pid))),
		pending: st["SigPnd"] + " " + st["ShdPnd"]}
}

// spinCount reads the fixture's spin_count, which its spinning threads
// increment in user mode: if it changed, the process ran.
func spinCount(t *testing.T, pid int) uint64 {
	t.Helper()
	mem := proc.NewProcMemory(pid)
	mods, err := loadModules(pid, mem)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range mods.List() {
		if strings.HasSuffix(m.Path, "/deep-v3-O2") {
			f, err := m.File()
			if err != nil {
				t.Fatal(err)
			}
			syms, _ := f.Symbols()
			for _, sy := range syms {
				if sy.Name == "spin_count" {
					v, err := frames.ReadUint64(mem, sy.Value+m.Bias)
					if err != nil {
						t.Fatal(err)
					}
					return v
				}
			}
		}
	}
	t.Fatal("no spin_count in the fixture")
	return 0
}

func TestLiveAttachToAStoppedProcessKeepsItStopped(t *testing.T) {
	for _, tc := range []struct {
		mode string
		end  string // the command that ends the session
	}{{"spin", "detach"}, {"threads", "quit"}, {"spin", "continue"}} {
		t.Run(tc.mode+" process stays stopped through "+tc.end, func(t *testing.T) {
			cmd := startFixture(t, "deep-v3-O2", tc.mode)
			pid := cmd.Process.Pid
			// Every thread in its group stop, not only the leader: a
			// spinning thread still on its way there adds CPU time to
			// the process's utime after the snapshot (seen under load).
			if _, err := livetest.Freeze(pid); err != nil {
				t.Fatal(err)
			}
			before, count := snapshotStopped(pid), spinCount(t, pid)
			if before.state != 'T' {
				t.Fatalf("fixture not stopped: %+v", before)
			}
			s, ui := attachBatch(t, pid)
			s.RunBatch([]string{"bt", "info frame", "x/2xg $sp", "info registers rip", "thread apply all bt 1", tc.end})
			s.Close()
			// A tracee detached in group stop is woken to re-enter the
			// stop (the kernel's __ptrace_unlink), so it may read R until
			// it is scheduled: wait for T, then give a SIGCONT sent late
			// time to show. A process really resumed stays R and spins.
			for i := 0; proc.ProcState(pid) != 'T' && i < 400; i++ {
				time.Sleep(5 * time.Millisecond)
			}
			time.Sleep(100 * time.Millisecond)
			after := snapshotStopped(pid)
			if before != after {
				t.Errorf("the stopped process changed: before %+v, after %+v\n%s", before, after, ui.Out.String())
			}
			if c := spinCount(t, pid); c != count {
				t.Errorf("the stopped process ran during the session: spin_count went from %d to %d\n%s", count, c, ui.Out.String())
			}
			out := ui.Out.String()
			if !strings.Contains(out, "#0  0x") || !strings.Contains(out, "Stack level 0") || !strings.Contains(out, "rip") {
				t.Errorf("commands did not inspect the stopped process:\n%s", out)
			}
			if tc.end == "continue" && !strings.Contains(out, "keeps it stopped") {
				t.Errorf("continue on a stopped process did not say why it refuses:\n%s", out)
			}
			if st := proc.ProcStatus(pid)["TracerPid"]; st != "0" {
				t.Errorf("TracerPid %s after the session", st)
			}
		})
	}
	t.Run("kill kills a stopped process", func(t *testing.T) {
		cmd := startFixture(t, "deep-v3-O2", "spin")
		pid := cmd.Process.Pid
		if _, err := livetest.Freeze(pid); err != nil {
			t.Fatal(err)
		}
		s, ui := attachBatch(t, pid)
		s.RunBatch([]string{"kill"})
		s.Close()
		if !waitExited(pid) {
			t.Errorf("stopped process %d not killed (state %q):\n%s", pid, proc.ProcState(pid), ui.Out.String())
		}
	})
}
