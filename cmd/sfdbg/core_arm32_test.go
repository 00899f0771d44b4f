package main

import (
	"bufio"
	"bytes"
	"context"
	"debug/elf"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sfdbg/sfdbg/compare"
	"github.com/sfdbg/sfdbg/frames"
	"github.com/sfdbg/sfdbg/frames/ehabi"
)

// The 32-bit ARM core (scripts/build-arm-core-fixtures.sh): arm-crash,
// static armhf, ARM and Thumb functions calling each other, its core
// written by qemu-arm.
var (
	armCoreExe = filepath.Join(coreFixtures, "arm-crash")
)

// gdbARMFrames reads a 32-bit gdb backtrace of one thread ("#N  0xPC in F
// (...)" lines): physical frames only (gdb's inline frames, which have no
// PC of their own, and its tail-call frames are skipped).
func gdbARMFrames(text string) []gdbFrame {
	var out []gdbFrame
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		line := sc.Text()
		m := gdbCoreFrameRE.FindStringSubmatch(line)
		if m == nil || m[1] == "" && !strings.HasPrefix(line, "#0 ") || strings.Contains(line, "tailcall") {
			continue
		}
		pc, _ := strconv.ParseUint(m[1], 0, 64)
		out = append(out, gdbFrame{pc, m[2]})
	}
	return out
}

// checkARMFrames compares the one thread of sfdbg core's document with
// gdb's frames, PC by PC and function by function.
func checkARMFrames(t *testing.T, d *compare.ProcessDocument, gdb []gdbFrame) {
	t.Helper()
	if len(d.Threads) != 1 || len(gdb) == 0 {
		t.Fatalf("%d threads, gdb %d frames", len(d.Threads), len(gdb))
	}
	th := d.Threads[0]
	if len(th.Frames) != len(gdb) {
		t.Errorf("%d frames, gdb %d", len(th.Frames), len(gdb))
	}
	for i := range min(len(th.Frames), len(gdb)) {
		f, g := th.Frames[i], gdb[i]
		if f.PC != g.pc || !sameFunction(f.Function, g.function) && !(g.function == "??" && f.Function == "") {
			t.Errorf("#%d: %#x %s, gdb %#x %s", i, f.PC, f.Function, g.pc, g.function)
		}
	}
}

// armCores are the 32-bit ARM cores of arm-crash: frame 0 in a
// function's body (a null write), at a function's first instruction and
// inside a prologue (undefined instructions).
var armCores = []struct {
	name string
	// leaf is frame 0's function; entryOK says whether EHABI's step from
	// frame 0 holds (not in a prologue), and so whether EHABI alone gives
	// gdb's frames.
	leaf    string
	entryOK bool
}{
	{"arm-crash", "crash_leaf", true},
	{"arm-crash-trap", "trap_at_entry", true},
	{"arm-crash-prologue", "trap_in_prologue", false},
}

func TestCoreARM32HasGDBsFramesWithEveryMethod(t *testing.T) {
	for _, c := range armCores {
		t.Run(c.name, func(t *testing.T) { testARMCore(t, c.name, c.leaf, c.entryOK) })
	}
}

func testARMCore(t *testing.T, name, leaf string, entryOK bool) {
	golden, err := os.ReadFile(filepath.Join("..", "..", "testdata", "golden", "core-"+name+".gdb"))
	if err != nil {
		t.Fatal(err)
	}
	gdb := gdbARMFrames(string(golden))
	core := filepath.Join(coreFixtures, name+".core")
	code, d, errOut := coreDocument(t, core, armCoreExe)
	if code != exitOK {
		t.Fatalf("exit %d, want 0: %s", code, errOut)
	}
	if d.Name != "arm-crash" || d.Pid == 0 || d.Terminated == nil || d.Terminated.Signal == 0 {
		t.Fatalf("name %q pid %d terminated %+v", d.Name, d.Pid, d.Terminated)
	}
	checkARMFrames(t, d, gdb)
	th := d.Threads[0]
	if !th.Complete || th.Frames[0].Function != leaf {
		t.Errorf("trace complete %v (%s), frame 0 in %s; want complete, in %s", th.Complete, th.Stop, th.Frames[0].Function, leaf)
	}
	t.Run("EHABI agrees with CFI at every frame of the program and unwinds the rest", func(t *testing.T) {
		for i, f := range th.Frames {
			eh := f.Steps["ehabi"]
			last := i == len(th.Frames)-1
			switch {
			case i == 0 && !entryOK:
				// In a prologue EHABI does not hold: not counted as a
				// disagreement, said as skipped.
				if f.Verdicts["ehabi"] != compare.VerdictNotCovered || len(th.Findings) == 0 || th.Findings[0].Kind != compare.KindSkipped ||
					!strings.Contains(th.Findings[0].Message, "EHABI describes the body at call sites") {
					t.Errorf("#0 %s: EHABI %v, findings %+v; want not covered, one skipped finding", f.Function, f.Verdicts["ehabi"], th.Findings)
				}
			case (strings.HasPrefix(f.File, "testdata/src/") || i == 0) && f.Verdicts["ehabi"] != compare.VerdictAgree:
				t.Errorf("#%d %s: EHABI %v, want agree (%+v)", i, f.Function, f.Verdicts["ehabi"], eh)
			case !last && !eh.OK:
				t.Errorf("#%d %s: EHABI found no caller: %s", i, f.Function, eh.Error)
			case last && (eh.OK || !strings.Contains(eh.Error, "EXIDX_CANTUNWIND")):
				t.Errorf("#%d %s: EHABI %+v, want the end of the trace at _start's EXIDX_CANTUNWIND", i, f.Function, eh)
			}
			if !strings.HasPrefix(eh.Source, ".ARM.exidx entry ") {
				t.Errorf("#%d %s: EHABI source %q", i, f.Function, eh.Source)
			}
		}
		// static glibc's functions have EHABI entries but no CFI: the
		// trace goes on with EHABI where CFI stops.
		if len(th.Frames) > 8 && th.Frames[8].FoundBy != "ehabi" {
			t.Errorf("#8 %s found by %s, want ehabi (no CFI in libc.a's __libc_start_call_main)", th.Frames[8].Function, th.Frames[8].FoundBy)
		}
	})
	t.Run("the frame-pointer chain agrees in ARM functions and Thumb ones whose r7 is their frame record", func(t *testing.T) {
		// #0 (a Thumb leaf whose r7 is its SP, or a function that has
		// not set r7) and #4 crash_2 (Thumb, r7 set below its 16 bytes
		// of locals) differ; crash_3 and crash_1 (ARM: fp at the saved
		// lr) and main (Thumb, r7 at its record) agree.
		for i, f := range th.Frames[:7] {
			want := i != 0 && i != 4
			if f.FPAgrees != want {
				t.Errorf("#%d %s: FP chain agrees %v, want %v (%+v)", i, f.Function, f.FPAgrees, want, f.Steps["fp"])
			}
		}
	})
	t.Run("SFrame, which has no ARM ABI, covers nothing", func(t *testing.T) {
		if th.Agree+th.Disagree != 0 || d.Disagreements != 0 {
			t.Errorf("SFrame %d agree, %d disagree; %d disagreements", th.Agree, th.Disagree, d.Disagreements)
		}
	})
	t.Run("EHABI alone gives gdb's frames where frame 0 is not in a prologue", func(t *testing.T) {
		code, d, errOut := coreDocument(t, "--method", "ehabi", core, armCoreExe)
		if code != exitOK {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		if entryOK {
			checkARMFrames(t, d, gdb)
		} else if n := len(d.Threads[0].Frames); n >= len(gdb) {
			t.Errorf("EHABI alone from a prologue: %d frames, want fewer than gdb's %d", n, len(gdb))
		}
	})
	t.Run("the text table has an EHABI column", func(t *testing.T) {
		_, out, _ := runSfdbg("core", core, armCoreExe)
		if !regexp.MustCompile(`(?m)^#\s+PC\s+FOUND\s+SFRAME\s+FP\s+CODE\s+EHABI\s+FUNCTION$`).MatchString(out) ||
			!strings.Contains(out, leaf+" ()") || !strings.Contains(out, "No disagreements: EHABI agrees with CFI at every frame both cover") {
			t.Errorf("output:\n%s", out)
		}
	})
}

// gdb-multiarch run now on the committed cores: sfdbg core gives its
// frames (gdb's inline frames and tail-call frames skipped).
func TestCoreARM32EqualsGDBMultiarch(t *testing.T) {
	gdbPath, err := exec.LookPath("gdb-multiarch")
	if err != nil {
		t.Skip("gdb-multiarch not installed (apt-get install gdb-multiarch): the committed goldens are compared instead")
	}
	names := []string{"arm-crash-dyn"}
	for _, c := range armCores {
		names = append(names, c.name)
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			core, exe, sysroot := filepath.Join(coreFixtures, name+".core"), armCoreExe, armSysroot
			if name == "arm-crash-dyn" {
				exe = filepath.Join(coreFixtures, name)
				if _, err := os.Stat(filepath.Join(armSysroot, "lib", "libc.so.6")); err != nil {
					t.Skipf("the armhf libc is not installed (apt-get install libc6-armhf-cross): %v", err)
				}
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			out, err := exec.CommandContext(ctx, gdbPath, "-nx", "-batch", "-ex", "set sysroot "+sysroot, "-ex", "set backtrace past-main on",
				"-ex", "thread apply all bt", exe, core).Output()
			if err != nil {
				t.Fatalf("gdb-multiarch: %v\n%s", err, out)
			}
			// The backtrace follows "Thread 1 (LWP N):"; gdb prints the
			// frame it stopped in before.
			text := string(out)
			i := strings.Index(text, "\nThread ")
			if i < 0 {
				t.Fatalf("gdb-multiarch printed no thread:\n%s", out)
			}
			gdb := gdbARMFrames(text[i:])
			if len(gdb) < 7 {
				t.Fatalf("gdb-multiarch gave %d frames:\n%s", len(gdb), out)
			}
			code, d, errOut := coreDocument(t, "--sysroot", sysroot, core, exe)
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			checkARMFrames(t, d, gdb)
		})
	}
}

// armSysroot holds the armhf libc (Debian's libc6-armhf-cross) that
// arm-crash-dyn ran with under qemu-arm -L.
const armSysroot = "/usr/arm-linux-gnueabihf"

// arm-crash-dyn's qemu core has no NT_FILE: libc is found through the
// dynamic linker's list in the core's memory, under --sysroot, and its
// frames are gdb-multiarch's (which finds it the same way).
func TestCoreARM32DynamicProgramFindsLibcThroughTheLinkMap(t *testing.T) {
	if _, err := os.Stat(filepath.Join(armSysroot, "lib", "libc.so.6")); err != nil {
		t.Skipf("the armhf libc is not installed (apt-get install libc6-armhf-cross): %v", err)
	}
	golden, err := os.ReadFile(filepath.Join("..", "..", "testdata", "golden", "core-arm-crash-dyn.gdb"))
	if err != nil {
		t.Fatal(err)
	}
	gdb := gdbARMFrames(string(golden))
	code, d, errOut := coreDocument(t, "--sysroot", armSysroot, filepath.Join(coreFixtures, "arm-crash-dyn.core"), filepath.Join(coreFixtures, "arm-crash-dyn"))
	if code == exitError && strings.Contains(errOut, "build-id") {
		t.Skipf("the installed armhf libc is not the one the core was dumped with: %s", errOut)
	}
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	checkARMFrames(t, d, gdb)
	th := d.Threads[0]
	if !th.Complete {
		t.Errorf("trace not complete: %s", th.Stop)
	}
	for _, i := range []int{7, 8} {
		if i < len(th.Frames) && th.Frames[i].Module != "libc.so.6" {
			t.Errorf("#%d %s in module %q, want libc.so.6", i, th.Frames[i].Function, th.Frames[i].Module)
		}
	}
}

// A copy of arm-crash whose EHABI entry for crash_3 says "vsp = vsp - 8"
// where it said "vsp = vsp - 4" (one opcode byte, 0x40 to 0x41): EHABI
// disagrees with CFI at crash_3's three frames, and only there, and core
// exits 1.
func TestCoreARM32CatchesAChangedEHABIOpcode(t *testing.T) {
	b, err := os.ReadFile(armCoreExe)
	if err != nil {
		t.Fatal(err)
	}
	f, err := elf.NewFile(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	eh, err := ehabi.ReadELF(f)
	if err != nil {
		t.Fatal(err)
	}
	name := func(addr uint64) string { n, off, _ := eh.Name(addr); return fmt.Sprintf("%s+%d", n, off) }
	patched := false
	for _, tab := range eh.Tables {
		for _, e := range tab.Entries {
			if name(e.Fn) != "crash_3+0" || e.Unwind == nil {
				continue
			}
			for _, op := range e.Unwind.Ops {
				if op.Kind == ehabi.OpVSPSub && len(op.Bytes) == 1 && op.Bytes[0] == 0x40 {
					sec := f.Section(op.Section)
					b[sec.Offset+uint64(op.Off)] = 0x41
					patched = true
				}
			}
		}
	}
	if !patched {
		t.Fatal("no 0x40 (vsp = vsp - 4) in crash_3's EHABI entry")
	}
	exe := filepath.Join(t.TempDir(), "arm-crash")
	if err := os.WriteFile(exe, b, 0o755); err != nil {
		t.Fatal(err)
	}
	code, d, errOut := coreDocument(t, filepath.Join(coreFixtures, "arm-crash.core"), exe)
	if code != exitFindings {
		t.Fatalf("exit %d, want 1: %s", code, errOut)
	}
	th := d.Threads[0]
	for i, fr := range th.Frames {
		want := compare.VerdictAgree
		if fr.Function == "crash_3" {
			want = compare.VerdictDisagree
		} else if !strings.HasPrefix(fr.File, "testdata/src/") {
			continue
		}
		if got := fr.Verdicts["ehabi"]; got != want {
			t.Errorf("#%d %s: EHABI %v, want %v", i, fr.Function, got, want)
		}
	}
	var cfa int
	for _, fd := range th.Findings {
		if fd.Kind == compare.KindCFA && strings.Contains(fd.Message, "crash_3") && fd.Rules[frames.MethodEHABI] != "" && fd.Rules[frames.MethodCFI] != "" {
			cfa++
		}
	}
	if cfa != 3 {
		t.Errorf("%d cfa findings at crash_3 with both rules, want 3: %+v", cfa, th.Findings)
	}
	_, out, _ := runSfdbg("core", filepath.Join(coreFixtures, "arm-crash.core"), exe)
	if !strings.Contains(out, "ehabi: cfa=r11+0 ") || !strings.Contains(out, "cfi: cfa=r11+4 ") ||
		!strings.Contains(out, "3 frames where EHABI disagrees with CFI.") {
		t.Errorf("the text does not show EHABI's rule beside CFI's, or its count:\n%s", out)
	}
}

// crash.c on 32-bit ARM: the main thread has gdb-multiarch's frames; the
// worker has them down to its signal frame, where gdb-multiarch 13.1
// stops making sense ("?? ()"); past it sfdbg follows the kernel's frame
// (glibc's restorer is a trampoline: CFI by its code, EHABI by the
// restorer's entry, which pops r0-r15) to the functions crash.c calls,
// and ends at start_thread, which EHABI marks EXIDX_CANTUNWIND.
func TestCoreARM32ThreadsAndASignalFrame(t *testing.T) {
	golden, err := os.ReadFile(filepath.Join("..", "..", "testdata", "golden", "core-crash-arm.gdb"))
	if err != nil {
		t.Fatal(err)
	}
	code, d, errOut := coreDocument(t, filepath.Join(coreFixtures, "crash-arm.core"), filepath.Join(coreFixtures, "crash-arm"))
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	gdb := gdbCoreThreads(t, "crash-arm")
	if len(d.Threads) != 2 || len(gdb) != 2 {
		t.Fatalf("%d threads, gdb %d:\n%s", len(d.Threads), len(gdb), golden)
	}
	worker := []string{"spin_leaf", "spin_b", "spin_a", "<signal handler called>", "__libc_do_syscall",
		"__pthread_kill_implementation.constprop.0", "raise", "worker", "start_thread"}
	for _, th := range d.Threads {
		want := gdb[th.Tid]
		if !th.Complete {
			t.Errorf("thread %d: not complete: %s", th.Tid, th.Stop)
		}
		if th.Tid != d.Pid {
			if len(th.Frames) != len(worker) {
				t.Errorf("worker: %d frames, want %d", len(th.Frames), len(worker))
			}
			for i := range min(len(th.Frames), len(worker)) {
				f := th.Frames[i]
				if i == 3 {
					if f.Steps["cfi"].Source != "signal trampoline (kernel frame layout)" || f.Verdicts["ehabi"] != compare.VerdictAgree {
						t.Errorf("worker #3 %s: CFI %+v, EHABI %v; want the trampoline, EHABI agreeing", f.Function, f.Steps["cfi"], f.Verdicts["ehabi"])
					}
					continue
				}
				if f.Function != worker[i] {
					t.Errorf("worker #%d: %s, want %s", i, f.Function, worker[i])
				}
				if i < 3 && (f.PC != want[i].pc || f.Function != want[i].function) {
					t.Errorf("worker #%d: %#x %s, gdb %#x %s", i, f.PC, f.Function, want[i].pc, want[i].function)
				}
			}
			continue
		}
		if len(th.Frames) != len(want) {
			t.Errorf("main thread: %d frames, gdb %d", len(th.Frames), len(want))
		}
		for i := range min(len(th.Frames), len(want)) {
			if f, g := th.Frames[i], want[i]; f.PC != g.pc || !sameFunction(f.Function, g.function) {
				t.Errorf("main #%d: %#x %s, gdb %#x %s", i, f.PC, f.Function, g.pc, g.function)
			}
		}
	}
}

// The link_map walk on a 64-bit core: crash.c for aarch64, linked
// dynamically, its qemu-aarch64 core (no NT_FILE). With --sysroot every
// thread has gdb-multiarch's frames, libc's included.
func TestCoreAArch64DynamicProgramFindsLibcThroughTheLinkMap(t *testing.T) {
	const sysroot = "/usr/aarch64-linux-gnu"
	if _, err := os.Stat(filepath.Join(sysroot, "lib", "libc.so.6")); err != nil {
		t.Skipf("the arm64 libc is not installed (apt-get install libc6-arm64-cross): %v", err)
	}
	name := "crash-aarch64-dyn"
	code, d, errOut := coreDocument(t, "--sysroot", sysroot, filepath.Join(coreFixtures, name+".core"), filepath.Join(coreFixtures, name))
	if code == exitError && strings.Contains(errOut, "build-id") {
		t.Skipf("the installed arm64 libc is not the one the core was dumped with: %s", errOut)
	}
	// Exit 1 is the code method's finding at libc's thread_start (it
	// steps past what CFI marks outermost): a finding about the code
	// oracle, not about which frames there are.
	if code != exitOK && code != exitFindings {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	gdb := gdbCoreThreads(t, name)
	if len(d.Threads) != len(gdb) {
		t.Fatalf("%d threads, gdb %d", len(d.Threads), len(gdb))
	}
	libc := 0
	for _, th := range d.Threads {
		want := gdb[th.Tid]
		if len(th.Frames) != len(want) || !th.Complete {
			t.Errorf("thread %d: %d frames (complete %v: %s), gdb %d", th.Tid, len(th.Frames), th.Complete, th.Stop, len(want))
		}
		for i := range min(len(th.Frames), len(want)) {
			f, g := th.Frames[i], want[i]
			if g.function == "<signal handler called>" {
				if f.Steps["cfi"].Source != "signal trampoline (kernel frame layout)" {
					t.Errorf("thread %d #%d: %#x %s, gdb a signal frame", th.Tid, i, f.PC, f.Function)
				}
				continue
			}
			if f.PC != g.pc || !sameFunction(f.Function, g.function) && !(g.function == "??" && f.Function == "") {
				t.Errorf("thread %d #%d: %#x %s, gdb %#x %s", th.Tid, i, f.PC, f.Function, g.pc, g.function)
			}
			if f.Module == "libc.so.6" {
				libc++
			}
		}
	}
	if libc < 6 {
		t.Errorf("%d frames in libc.so.6, want gdb's 6", libc)
	}
}
