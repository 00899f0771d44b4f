package debugger

import (
	"debug/elf"
	"strings"
	"testing"

	"github.com/sfdbg/sfdbg/compare"
	"github.com/sfdbg/sfdbg/debugger/proc"
	"github.com/sfdbg/sfdbg/frames"
)

// findingsOf returns the report's findings of method m.
func findingsOf(r *compare.VerifyReport, m frames.Method) []*compare.VerifyFinding {
	var out []*compare.VerifyFinding
	for _, fd := range r.Findings {
		if fd.Method == m {
			out = append(out, fd)
		}
	}
	return out
}

// TestVerifyFindsThePltGotFaultByExecution attaches verify to the running
// pltgot fixture (main -> shout -> labs@plt -> labs in a loop): GNU ld's
// SFrame for the .plt.got stub says CFA=rsp+16 where the call left it at
// rsp+8 (binutils PR 32298). The execution must show exactly that, at the
// stub's one instruction, and nothing against CFI or the code; the
// process must run on, untraced, afterwards.
func TestVerifyFindsThePltGotFaultByExecution(t *testing.T) {
	requirePtraceHere(t)
	cmd := startFixture(t, "pltgot-v3")
	pid := cmd.Process.Pid
	res, err := VerifyProcess(nil, pid, VerifyOptions{MaxInstructions: 20000})
	if err != nil {
		t.Fatal(err)
	}
	r := res.Report
	var out strings.Builder
	WriteVerifyText(&out, "pltgot-v3", res)
	sf := findingsOf(r, frames.MethodSFrame)
	if len(sf) != 1 || sf[0].Function != "labs@plt" || sf[0].What != "cfa" || sf[0].Got != sf[0].Truth+8 {
		t.Errorf("SFrame's findings are not the one at labs@plt, 8 bytes high:\n%s", out.String())
	}
	if len(r.Findings) != len(sf) {
		t.Errorf("findings of other methods (CFI, the code, FP are right here):\n%s", out.String())
	}
	if r.Calls == 0 || r.Verified < r.Executed/2 {
		t.Errorf("verify saw %d calls and verified %d of %d instructions:\n%s", r.Calls, r.Verified, r.Executed, out.String())
	}
	if tp := proc.ProcStatus(pid)["TracerPid"]; tp != "0" {
		t.Errorf("TracerPid %s after verify", tp)
	}
	checkAlive(t, pid)
}

// TestVerifyFollowsASignalHandler starts the deep fixture in its signal
// mode and verifies presignal_spin and the handler's chain: the itimer's
// SIGALRM arrives while presignal_spin is stepped, the kernel enters
// on_signal, which calls sig_chain1 and sig_chain2. The handler's frame
// (entered by the kernel, not by a call) and its callees are judged
// against the execution, and every method is right.
func TestVerifyFollowsASignalHandler(t *testing.T) {
	requirePtraceHere(t)
	res, err := VerifyProcess([]string{fixture(t, "deep-v3-O2"), "signal"}, 0, VerifyOptions{
		// spin_here, which the handler's chain calls and which never
		// returns, is stepped too: a call run at full speed would not end.
		Functions: []string{"presignal_spin", "on_signal", "sig_chain*", "spin_here"}, MaxInstructions: 20000})
	if err != nil {
		t.Fatal(err)
	}
	r := res.Report
	var out strings.Builder
	WriteVerifyText(&out, "deep-v3-O2 signal", res)
	if r.Signals != 1 {
		t.Errorf("%d signal handlers entered, want 1:\n%s", r.Signals, out.String())
	}
	verified := map[string]uint64{}
	for _, f := range r.Functions {
		verified[f.Name] = f.Verified
	}
	for _, fn := range []string{"presignal_spin", "on_signal", "sig_chain1", "sig_chain2"} {
		if verified[fn] == 0 {
			t.Errorf("%s not verified:\n%s", fn, out.String())
		}
	}
	if len(r.Findings) != 0 {
		t.Errorf("findings in GCC's code:\n%s", out.String())
	}
}

// TestVerifyFindsEachAnnotationFaultAtItsPC runs verify on the fixture
// whose assembly has three CFI faults (verify-faults-x86_64.s): a push
// without its CFA adjust, wrong from vf_missing_after_push to the pop; an
// adjust placed before its pop, wrong at vf_late_pop; and a push without
// its adjust before a call, wrong at its instructions and, in the
// whole-stack check from the callee, at the caller frame whose return
// address is vf_call_return. CFI and the SFrame GNU as made from it must
// each be found wrong at exactly those PCs, the CFA 8 bytes low; the code
// (right there) and the clean function give nothing.
func TestVerifyFindsEachAnnotationFaultAtItsPC(t *testing.T) {
	requirePtraceHere(t)
	path := fixture(t, "verify-faults-v3")
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	syms, _ := f.Symbols()
	f.Close()
	addr := map[string]uint64{}
	for _, s := range syms {
		addr[s.Name] = s.Value
	}
	// The instructions lea, mov and pop after the push (4, 3 and 1 bytes
	// long), and the early-adjusted pop.
	want := map[uint64]bool{}
	for _, off := range []uint64{0, 4, 7} {
		want[addr["vf_missing_after_push"]+off] = true
	}
	want[addr["vf_late_pop"]] = true
	// mov and call after wrong_at_call's push, add and pop after the call.
	for _, a := range []uint64{addr["vf_call_after_push"], addr["vf_call_after_push"] + 3, addr["vf_call_return"], addr["vf_call_return"] + 3} {
		want[a] = true
	}

	cmd := startFixture(t, "verify-faults-v3")
	mods, err := frames.ModulesFromMaps(cmd.Process.Pid, proc.NewProcMemory(cmd.Process.Pid))
	if err != nil {
		t.Fatal(err)
	}
	var bias uint64
	for _, m := range mods.List() {
		if m.Name == "verify-faults-v3" {
			bias = m.Bias
		}
	}
	res, err := VerifyProcess(nil, cmd.Process.Pid, VerifyOptions{MaxInstructions: 20000})
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	WriteVerifyText(&out, "verify-faults-v3", res)
	exe := res.Report
	for _, m := range []frames.Method{frames.MethodSFrame, frames.MethodCFI} {
		got := map[uint64]bool{}
		callers := 0
		for _, fd := range findingsOf(exe, m) {
			if fd.What != "cfa" || fd.Got+8 != fd.Truth {
				t.Errorf("%s: %s finding at %#x is not a CFA 8 bytes low", m, fd.What, fd.PC)
			}
			if fd.Level > 0 {
				// Seen from clean_leaf: wrong_at_call's frame, whose
				// return address is vf_call_return.
				if fd.Level != 1 || fd.PC-bias != addr["vf_call_return"] {
					t.Errorf("%s: a caller frame found wrong at level %d, return address %#x", m, fd.Level, fd.PC-bias)
				}
				callers++
				continue
			}
			got[fd.PC-bias] = true
		}
		if callers != 1 {
			t.Errorf("%s: %d caller-frame findings, want 1 (wrong_at_call seen from clean_leaf):\n%s", m, callers, out.String())
		}
		if len(got) != len(want) {
			t.Errorf("%s wrong at %d PCs, want %d:\n%s", m, len(got), len(want), out.String())
		}
		for pc := range want {
			if !got[pc] {
				t.Errorf("%s not found wrong at %#x:\n%s", m, pc, out.String())
			}
		}
	}
	if n := len(findingsOf(exe, frames.MethodCode)) + len(findingsOf(exe, frames.MethodFP)); n != 0 {
		t.Errorf("%d findings of the code or FP, which are right here:\n%s", n, out.String())
	}
	for _, fn := range exe.Functions {
		if fn.Name == "clean_leaf" && (fn.Verified == 0 || len(fn.FirstWrong) != 0) {
			t.Errorf("clean_leaf verified %d, wrong %v:\n%s", fn.Verified, fn.FirstWrong, out.String())
		}
	}
}

// TestVerifyCommandInTheREPL runs "verify 3000" in an attach session of
// the verify-faults fixture: the report names the late pop's fault, then
// the session goes on (bt) and the detached process runs on.
func TestVerifyCommandInTheREPL(t *testing.T) {
	requirePtraceHere(t)
	cmd := startFixture(t, "verify-faults-v3")
	pid := cmd.Process.Pid
	s, ui := attachBatch(t, pid)
	s.RunBatch([]string{"verify 3000", "bt", "detach"})
	s.Close()
	out := ui.Out.String()
	if !strings.Contains(out, "3,000 instructions executed") || !strings.Contains(out, "<vf_late_pop>") {
		t.Errorf("verify did not report the fixture's fault:\n%s", out)
	}
	if _, after, ok := strings.Cut(out, "first wrong PC"); !ok || !strings.Contains(after, "#0  0x") {
		t.Errorf("no backtrace after verify:\n%s", out)
	}
	if tp := proc.ProcStatus(pid)["TracerPid"]; tp != "0" {
		t.Errorf("TracerPid %s after detach", tp)
	}
	checkAlive(t, pid)
}

// TestVerifyFollowsNonLocalExits verifies the verify-shapes fixture: an
// alloca frame, a realigned frame, setjmp/longjmp and a C++ exception, all
// with GCC's CFI and the SFrame GNU as made from it. The frames longjmp
// and the exception leave are dropped ("frames left without a return"),
// glibc's __longjmp (whose CFI describes its target) and libgcc's
// eh_return (which rewrites its return address) are not judged, and no
// method is wrong anywhere.
func TestVerifyFollowsNonLocalExits(t *testing.T) {
	requirePtraceHere(t)
	cmd := startFixture(t, "verify-shapes-v3")
	res, err := VerifyProcess(nil, cmd.Process.Pid, VerifyOptions{MaxInstructions: 60000})
	if err != nil {
		t.Fatal(err)
	}
	r := res.Report
	var out strings.Builder
	WriteVerifyText(&out, "verify-shapes-v3", res)
	if len(r.Findings) != 0 {
		t.Errorf("findings in compiled code:\n%s", out.String())
	}
	if r.Resynced == 0 {
		t.Errorf("no frame was left without a return (longjmp, throw):\n%s", out.String())
	}
	judged := map[string]uint64{}
	for _, f := range r.Functions {
		judged[f.Name] += f.Judged["sframe"]
	}
	for _, fn := range []string{"_Z10alloca_sumi", "_Z9realignedi", "_Z6jumperi", "_Z7catcheri"} {
		if judged[fn] == 0 {
			t.Errorf("SFrame not judged in %s:\n%s", fn, out.String())
		}
	}
}

// TestVerifyFunctionStepsOverItsCallees verifies spin_until alone in the
// deep fixture's exit mode: each of its calls to clock_gettime (libc, the
// vDSO) runs at full speed to its return, as the issue's --function
// asks, so outside spin_until only the instruction each call lands on
// and the one its own return lands on are stepped; spin_until itself is
// verified, and nothing is wrong.
func TestVerifyFunctionStepsOverItsCallees(t *testing.T) {
	requirePtraceHere(t)
	res, err := VerifyProcess([]string{fixture(t, "deep-v3-O2"), "exit", "30"}, 0, VerifyOptions{Functions: []string{"spin_until"}})
	if err != nil {
		t.Fatal(err)
	}
	r := res.Report
	var out strings.Builder
	WriteVerifyText(&out, "deep-v3-O2 exit", res)
	if r.SteppedOver == 0 {
		t.Fatalf("no call stepped over:\n%s", out.String())
	}
	var others uint64
	for _, f := range r.Functions {
		switch {
		case f.Name == "spin_until":
			if f.Verified == 0 {
				t.Errorf("spin_until not verified:\n%s", out.String())
			}
		default:
			others += f.Executed
		}
	}
	// One instruction per call stepped over (the callee's first, where
	// the step lands), and the caller's instruction after spin_until's
	// return, where the stepping ends.
	if others > r.SteppedOver+1 {
		t.Errorf("%d instructions stepped outside spin_until for %d calls stepped over:\n%s", others, r.SteppedOver, out.String())
	}
	if len(r.Findings) != 0 {
		t.Errorf("findings in GCC's code:\n%s", out.String())
	}
}
