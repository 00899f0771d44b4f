package main

import (
	"bufio"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sfdbg/sfdbg/compare"
	"github.com/sfdbg/sfdbg/debugger/proc"
	"github.com/sfdbg/sfdbg/frames/livetest"
	"github.com/sfdbg/sfdbg/sframe"
)

// startFixture starts a fixture binary in a mode and waits for its "ready"
// line; the process is killed when the test ends.
func startFixture(t *testing.T, path string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(path, args...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	ready := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "ready") {
				ready <- true
				return
			}
		}
		ready <- false
	}()
	select {
	case ok := <-ready:
		if !ok {
			t.Fatalf("%s did not print ready", path)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("%s: no ready line within 10s", path)
	}
	if err := livetest.Settle(cmd.Process.Pid); err != nil { // let it reach spin_here
		t.Fatal(err)
	}
	return cmd
}

func TestLiveComparisonFlagsInjectedFREFaultAtItsFrame(t *testing.T) {
	src := dumpFixture(t, "deep-v3-O2")
	const victim = "level3_indirect"
	// Copy the fixture and add 8 to the CFA offset of every FRE of the victim.
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	f, err := elf.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	s := f.Section(".sframe")
	syms, _ := f.Symbols()
	f.Close()
	data := b[s.Offset : s.Offset+s.Size]
	sec, err := sframe.ParseAt(append([]byte(nil), data...), s.Addr)
	if err != nil {
		t.Fatal(err)
	}
	var fde *sframe.FDE
	for _, sym := range syms {
		if sym.Name == victim {
			fde, _ = sec.FindFDE(sym.Value)
		}
	}
	if fde == nil {
		t.Fatalf("no FDE for %s", victim)
	}
	fres, err := sec.AllFREs(fde)
	if err != nil {
		t.Fatal(err)
	}
	for _, fre := range fres {
		data[fre.Off+uint32(fde.FREType.Size())+1] += 8
	}
	bin := filepath.Join(t.TempDir(), "deep-v3-O2-broken")
	if err := os.WriteFile(bin, b, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := startFixture(t, bin, "spin")
	stop, err := proc.Seize(cmd.Process.Pid)
	if err != nil {
		t.Skipf("cannot ptrace here: %v", err)
	}
	defer stop.Detach()
	space, err := stop.Space()
	if err != nil {
		t.Fatal(err)
	}
	regs, err := stop.Regs(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	tr := compare.Unwind(space, regs, compare.Options{Independent: true})
	var bad []int
	for i := range tr.Frames {
		if tr.Frames[i].Verdict() == compare.VerdictDisagree {
			bad = append(bad, i)
		}
	}
	name := func(i int) string {
		f := &tr.Frames[i]
		return compare.Location(space, f.PC, f.LookupPC(), false)
	}
	if len(bad) != 1 || !strings.Contains(name(bad[0]), victim) {
		for i := range tr.Frames {
			t.Logf("#%d %s %s", i, name(i), tr.Frames[i].Verdict())
		}
		t.Fatalf("want exactly one disagreeing frame, in %s; got %d", victim, len(bad))
	}
	kinds := map[compare.Kind]bool{}
	for _, fnd := range tr.Findings {
		if fnd.Frame == bad[0] {
			kinds[fnd.Kind] = true
		}
	}
	stop.Detach()
	if !kinds[compare.KindCFA] {
		t.Errorf("frame #%d %s: findings %v, want a CFA disagreement", bad[0], name(bad[0]), tr.Findings)
	}
	// The frames below the victim still agree: the fault is one finding at
	// one frame, not a cascade.
	if bad[0] < 3 {
		t.Errorf("victim found at level %d, expected deeper in the chain", bad[0])
	}
}
