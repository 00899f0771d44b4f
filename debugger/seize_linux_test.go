package debugger

import (
	"errors"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/sfdbg/sfdbg/compare"
	"github.com/sfdbg/sfdbg/debugger/proc"
	"github.com/sfdbg/sfdbg/frames"
)

func TestSeizeStopsReadsAndDetaches(t *testing.T) {
	cmd := startFixture(t, "deep-v3-O2", "threads")
	pid := cmd.Process.Pid
	s, err := proc.Seize(pid)
	skipIfNoPtrace(t, err)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Detach()
	tids := s.Threads()
	if len(tids) != 4 || tids[0] != pid {
		t.Fatalf("threads = %v, want 4 with the leader %d first", tids, pid)
	}
	for _, tid := range tids {
		if st := proc.ProcState(tid); st != 't' {
			t.Errorf("thread %d in state %q while seized, want 't'", tid, st)
		}
	}
	sp, err := s.Space()
	if err != nil {
		t.Fatal(err)
	}
	spinners := 0
	for _, tid := range tids {
		regs, err := s.Regs(tid)
		if err != nil {
			t.Fatal(err)
		}
		tr := compare.Unwind(sp, regs, compare.Options{Methods: compare.OnlySFrame})
		var names []string
		for _, f := range tr.Frames {
			name, _, _ := funcName(sp, f.PC)
			names = append(names, name)
		}
		t.Logf("thread %d: %s (stop: %v)", tid, strings.Join(names, " <- "), tr.Stop)
		if len(names) > 0 && names[0] == "spin_here" {
			spinners++
		}
	}
	if spinners != 3 {
		t.Errorf("%d threads in spin_here, want 3", spinners)
	}

	if err := s.Resume(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Regs(pid); !errors.Is(err, proc.ErrRunning) {
		t.Errorf("Regs while running: %v, want proc.ErrRunning", err)
	}
	if err := s.Interrupt(); err != nil {
		t.Fatal(err)
	}
	if n := len(s.Threads()); n != 4 {
		t.Errorf("%d threads after a second stop, want 4", n)
	}
	if err := s.Detach(); err != nil {
		t.Fatal(err)
	}
	checkRunning(t, pid)
}

func TestSeizeRejectsMissingProcess(t *testing.T) {
	_, err := proc.Seize(1 << 30)
	var ae *proc.AttachError
	if !errors.As(err, &ae) || !strings.Contains(err.Error(), "no such process") {
		t.Fatalf("proc.Seize of a missing PID: %v, want an proc.AttachError saying no such process", err)
	}
}

func TestProcMemoryReadsThroughPageCache(t *testing.T) {
	cmd := startFixture(t, "deep-v3-O2", "spin")
	s, err := proc.Seize(cmd.Process.Pid)
	skipIfNoPtrace(t, err)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Detach()
	regs, _ := s.Regs(cmd.Process.Pid)
	sp := regs.SP()
	m := s.Memory().(*proc.ProcMemory)
	a, err := frames.ReadUint64(m, sp)
	if err != nil {
		t.Fatal(err)
	}
	var b [8]byte
	if _, err := m.ReadUncached(b[:], sp); err != nil {
		t.Fatal(err)
	}
	if got := leUint64(b[:]); got != a {
		t.Errorf("cached read %#x, uncached %#x", a, got)
	}
	before := m.Reads
	for i := uint64(0); i < 64; i += 8 {
		frames.ReadUint64(m, sp&^4095+i)
	}
	if m.Reads != before {
		t.Errorf("%d process_vm_readv calls for reads in a cached page, want 0", m.Reads-before)
	}
	// ReadUint64 (the cached fast path, words straddling a page, uncached
	// pages) gives what ReadUncached reads; an unmapped address gives a
	// *frames.MemoryError naming it.
	page := sp &^ 4095
	for _, addr := range []uint64{sp, page, page + 4088, page + 4092, page + 4095, page + 8192 + 100} {
		for _, fresh := range []bool{false, true} {
			if fresh {
				m.Invalidate()
			}
			got, err := m.ReadUint64(addr)
			if _, uerr := m.ReadUncached(b[:], addr); uerr != nil {
				if err == nil {
					t.Errorf("ReadUint64(%#x) = %#x, but the address is unreadable: %v", addr, got, uerr)
				}
				continue
			}
			if err != nil || got != leUint64(b[:]) {
				t.Errorf("ReadUint64(%#x) (fresh cache %v) = %#x, %v; want %#x", addr, fresh, got, err, leUint64(b[:]))
			}
		}
	}
	var me *frames.MemoryError
	if _, err := m.ReadUint64(8); !errors.As(err, &me) || me.Addr != 8 {
		t.Errorf("ReadUint64(8) = %v, want a *frames.MemoryError at 0x8", err)
	}
}

func leUint64(b []byte) uint64 {
	var v uint64
	for i := 7; i >= 0; i-- {
		v = v<<8 | uint64(b[i])
	}
	return v
}

func TestSeizeRejectsAZombie(t *testing.T) {
	cmd := exec.Command("/bin/sh", "-c", "exit 0")
	if err := cmd.Start(); err != nil {
		t.Skip(err)
	}
	defer cmd.Wait()
	deadline := time.Now().Add(5 * time.Second)
	for proc.ProcState(cmd.Process.Pid) != 'Z' {
		if time.Now().After(deadline) {
			t.Fatal("child did not become a zombie")
		}
		time.Sleep(5 * time.Millisecond)
	}
	_, err := proc.Seize(cmd.Process.Pid)
	var ae *proc.AttachError
	if !errors.As(err, &ae) || !strings.Contains(err.Error(), "has exited") {
		t.Errorf("proc.Seize of a zombie: %v", err)
	}
}
