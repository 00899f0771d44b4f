package main

import (
	"bufio"
	"debug/elf"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/sfdbg/sfdbg/compare"
	"github.com/sfdbg/sfdbg/sframe"
)

var coreFixtures = filepath.Join("..", "..", "testdata", "cores")

// gdbFrame is one frame of a golden gdb backtrace.
type gdbFrame struct {
	pc       uint64
	function string
}

var (
	gdbCoreThreadRE  = regexp.MustCompile(`^Thread \d+ \(.*\(LWP (\d+)\)\):$`)
	gdbCoreFrameRE   = regexp.MustCompile(`^#\d+\s+(?:(0x[0-9a-f]+) (?:\[PAC\] )?in )?(\S+) \(`)
	gdbSignalFrameRE = regexp.MustCompile(`^#\d+\s+<signal handler called>$`)
)

// gdbCoreThreads reads testdata/golden/core-NAME.gdb ("thread apply all
// bt" with past-main on) into frames by LWP. gdb's inline frames (no PC
// of their own) and tail-call frames are not physical frames: skipped.
func gdbCoreThreads(t *testing.T, name string) map[int][]gdbFrame {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "testdata", "golden", "core-"+name+".gdb"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[int][]gdbFrame{}
	lwp := -1
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if m := gdbCoreThreadRE.FindStringSubmatch(line); m != nil {
			lwp, _ = strconv.Atoi(m[1])
			continue
		}
		if lwp >= 0 && gdbSignalFrameRE.MatchString(line) {
			// A signal frame: sfdbg names the trampoline's PC.
			out[lwp] = append(out[lwp], gdbFrame{0, "<signal handler called>"})
			continue
		}
		m := gdbCoreFrameRE.FindStringSubmatch(line)
		if m == nil || lwp < 0 {
			continue
		}
		if m[1] == "" && !strings.HasPrefix(line, "#0 ") || strings.Contains(line, "tailcall") {
			continue // an inline frame shares its caller's PC
		}
		pc, _ := strconv.ParseUint(m[1], 0, 64)
		out[lwp] = append(out[lwp], gdbFrame{pc, m[2]})
	}
	if len(out) == 0 {
		t.Fatalf("no threads in gdb's backtrace of %s", name)
	}
	return out
}

// sameFunction compares function names up to glibc's aliases (gdb says
// clone3 where the symbol table's first name is __clone3).
func sameFunction(a, b string) bool {
	return strings.TrimLeft(a, "_") == strings.TrimLeft(b, "_")
}

func coreDocument(t *testing.T, args ...string) (int, *compare.ProcessDocument, string) {
	t.Helper()
	code, out, errOut := runSfdbg(append([]string{"core", "--json"}, args...)...)
	if code == exitError {
		return code, nil, errOut
	}
	var d compare.ProcessDocument
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatalf("sfdbg core --json: %v\n%s", err, out)
	}
	return code, &d, errOut
}

func TestCorePrintsTheFramesGDBPrints(t *testing.T) {
	// The noreturn cores (noreturn.c) hold five return addresses one past
	// their function's end each: named after the function of the call.
	for _, name := range []string{"crash-v2", "crash-v3", "crash-v3-qemu",
		"crash-aarch64-v2", "crash-aarch64-v3", "crash-aarch64-pac-v3", "crash-s390x-v3",
		"noreturn-v3", "noreturn-aarch64-v3", "noreturn-s390x-v3",
		// Written by Debian 12's arm64 kernel in a VM (scripts/vm-test.sh
		// arm64): its signal trampoline is the vDSO's, pointer
		// authentication is on, and the core has NT_ARM_PAC_MASK.
		"crash-aarch64-vm"} {
		t.Run(name+": every thread has gdb's frames and SFrame agrees with CFI at each frame it covers", func(t *testing.T) {
			gdb := gdbCoreThreads(t, name)
			exe := strings.TrimSuffix(name, "-qemu")
			code, d, errOut := coreDocument(t, filepath.Join(coreFixtures, name+".core"), filepath.Join(coreFixtures, exe))
			if code != exitOK {
				t.Fatalf("exit %d, want 0: %s", code, errOut)
			}
			// The name is the core's pr_fname: the first 16 bytes.
			if !strings.HasPrefix(exe, d.Name) || len(d.Name) < min(len(exe), 15) || d.Pid == 0 || len(d.Threads) != len(gdb) || d.Disagreements != 0 || !d.Compared {
				t.Fatalf("document %q pid %d, %d threads (gdb: %d), %d disagreements, compared %v",
					d.Name, d.Pid, len(d.Threads), len(gdb), d.Disagreements, d.Compared)
			}
			for _, th := range d.Threads {
				want, ok := gdb[th.Tid]
				if !ok {
					t.Fatalf("thread %d is not in gdb's backtrace", th.Tid)
				}
				if len(th.Frames) != len(want) {
					t.Errorf("thread %d: %d frames, gdb %d", th.Tid, len(th.Frames), len(want))
				}
				for i := range min(len(th.Frames), len(want)) {
					f, g := th.Frames[i], want[i]
					if g.function == "<signal handler called>" {
						// AMD64: glibc's __restore_rt, with CFI; AArch64 and
						// s390x: qemu-user's trampoline page, known by its
						// code.
						if f.Function != "__restore_rt" && f.Steps["cfi"].Source != "signal trampoline (kernel frame layout)" {
							t.Errorf("thread %d #%d: %#x %s (%+v), gdb a signal frame", th.Tid, i, f.PC, f.Function, f.Steps["cfi"])
						}
						continue
					}
					// gdb prints no address for a frame 0 stopped at the
					// start of a line (pc 0 here).
					if g.pc != 0 && f.PC != g.pc || !sameFunction(f.Function, g.function) {
						t.Errorf("thread %d #%d: %#x %s, gdb %#x %s", th.Tid, i, f.PC, f.Function, g.pc, g.function)
					}
					inProgram := strings.HasPrefix(f.File, "testdata/src/")
					switch {
					case inProgram && f.Verdict != compare.VerdictAgree:
						t.Errorf("thread %d #%d %s: SFrame %v, want agree", th.Tid, i, f.Function, f.Verdict)
					case !inProgram && f.Verdict != compare.VerdictNotCovered && f.Verdict != compare.VerdictAgree:
						t.Errorf("thread %d #%d %s (static glibc): SFrame %v", th.Tid, i, f.Function, f.Verdict)
					}
				}
				if !th.Complete {
					t.Errorf("thread %d: trace not complete: %s", th.Tid, th.Stop)
				}
			}
		})
	}
}

func TestCoreTextIsBtsText(t *testing.T) {
	code, out, errOut := runSfdbg("core", filepath.Join(coreFixtures, "crash-v3.core"), filepath.Join(coreFixtures, "crash-v3"))
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"(crash-v3), 2 threads, SFRAME, FP and CODE checked against CFI at every frame",
		"crash_leaf () at testdata/src/crash.c:", "spin_leaf () at testdata/src/crash.c:", "<signal handler called>", "No SFrame disagreements."} {
		// A location past the line's width is wrapped to a line of its own.
		if !strings.Contains(strings.ReplaceAll(out, "\n    at ", " at "), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// damagedCoreExe copies testdata/cores/NAME and adds delta to the CFA
// offset (first data word) of the .sframe FRE covering pc.
func damagedCoreExe(t *testing.T, name string, pc uint64, delta int8) string {
	t.Helper()
	src := filepath.Join(coreFixtures, name)
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	f, err := elf.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := f.Section(".sframe")
	data := b[s.Offset : s.Offset+s.Size]
	sec, err := sframe.ParseAt(append([]byte(nil), data...), s.Addr)
	if err != nil {
		t.Fatal(err)
	}
	fde, err := sec.FindFDE(pc)
	if err != nil {
		t.Fatal(err)
	}
	fres, err := sec.AllFREs(fde)
	if err != nil {
		t.Fatal(err)
	}
	var fre *sframe.FRE
	for i := range fres {
		if uint64(fres[i].StartOff) <= pc-fde.Start {
			fre = &fres[i]
		}
	}
	if fre == nil {
		t.Fatalf("no FRE covers %#x", pc)
	}
	word := fre.Off + uint32(fde.FREType.Size()) + 1 // start address, info byte, CFA offset
	data[word] = byte(int8(data[word]) + delta)
	out := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(out, b, 0o755); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestCoreFlagsADamagedFREAtItsFrame(t *testing.T) {
	for _, name := range []string{"crash-v2", "crash-v3", "crash-aarch64-v2", "crash-aarch64-v3", "crash-aarch64-pac-v3", "crash-s390x-v3"} {
		t.Run(name+": a CFA offset 8 too large in spin_b's FRE is a cfa finding at the worker's frame #1 only", func(t *testing.T) {
			gdb := gdbCoreThreads(t, name)
			var worker int
			var pc uint64
			for lwp, fs := range gdb {
				if len(fs) > 1 && fs[1].function == "spin_b" {
					worker, pc = lwp, fs[1].pc
				}
			}
			exe := damagedCoreExe(t, name, pc-1, 8) // the call's FRE: the return address's one may start at it
			code, d, errOut := coreDocument(t, filepath.Join(coreFixtures, name+".core"), exe)
			if code != exitFindings {
				t.Fatalf("exit %d, want 1: %s", code, errOut)
			}
			var got []compare.Finding
			for _, th := range d.Threads {
				for _, f := range th.Findings {
					if f.Kind.Disagreement() {
						if th.Tid != worker {
							t.Errorf("thread %d: unexpected %v at #%d", th.Tid, f.Kind, f.Frame)
						}
						got = append(got, f)
					}
				}
			}
			// The CFA is the finding; the RA (and, where the FP is saved
			// relative to the CFA, as on AArch64 and s390x, the FP) read
			// from the wrong CFA follow from it, at the same frame.
			if len(got) == 0 || got[0].Kind != compare.KindCFA {
				t.Fatalf("findings %+v, want a cfa finding first", got)
			}
			for _, f := range got {
				if f.Frame != 1 || !strings.Contains(f.Function, "!spin_b+") ||
					(f.Kind != compare.KindCFA && f.Kind != compare.KindRA && f.Kind != compare.KindFP) {
					t.Errorf("finding %v at #%d in %s, want cfa (or the ra and fp it implies) at #1 in spin_b", f.Kind, f.Frame, f.Function)
				}
			}
		})
	}
}

func TestCoreUnreadableIsExitTwo(t *testing.T) {
	good, err := os.ReadFile(filepath.Join(coreFixtures, "crash-v3.core"))
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(t.TempDir(), "cut.core")
	if err := os.WriteFile(cut, good[:len(good)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"a truncated core names the file and the byte offset", []string{cut}, []string{cut, "at byte 0x", "beyond the end of the file"}},
		{"a missing core names the file", []string{cut + ".none"}, []string{cut + ".none"}},
		{"an executable that is not the core's names both files", []string{filepath.Join(coreFixtures, "crash-v3.core"), filepath.Join(coreFixtures, "crash-v2")},
			[]string{"crash-v3.core", "/tmp/sfdbg-cores/crash-v3", "crash-v2 has build-id"}},
		{"an ELF file that is not a core says so", []string{filepath.Join(coreFixtures, "crash-v3")}, []string{"not ET_CORE"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runSfdbg(append([]string{"core"}, tc.args...)...)
			if code != exitError || out != "" {
				t.Fatalf("exit %d, stdout %q; want 2 and nothing", code, out)
			}
			for _, w := range tc.want {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr %q lacks %q", errOut, w)
				}
			}
		})
	}
}

func TestCoreFindsFilesUnderTheSysroot(t *testing.T) {
	core := filepath.Join(coreFixtures, "crash-v2.core")
	t.Run("the executable under --sysroot DIR at its path in the core gives gdb's frames", func(t *testing.T) {
		root := t.TempDir()
		dir := filepath.Join(root, "tmp", "sfdbg-cores")
		b, err := os.ReadFile(filepath.Join(coreFixtures, "crash-v2"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "crash-v2"), b, 0o755); err != nil {
			t.Fatal(err)
		}
		code, d, errOut := coreDocument(t, "--sysroot", root, core)
		if code != exitOK {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		gdb := gdbCoreThreads(t, "crash-v2")
		for _, th := range d.Threads {
			if len(th.Frames) != len(gdb[th.Tid]) {
				t.Errorf("thread %d: %d frames, gdb %d", th.Tid, len(th.Frames), len(gdb[th.Tid]))
			}
		}
	})
	t.Run("a sysroot without the executable stops the trace naming the file it looked for", func(t *testing.T) {
		root := t.TempDir()
		code, out, errOut := runSfdbg("core", "--sysroot", root, core)
		want := filepath.Join(root, "tmp", "sfdbg-cores", "crash-v2") + ": no such file or directory"
		if code != exitOK || !strings.Contains(out, want) {
			t.Fatalf("exit %d, stdout lacks %q:\n%s%s", code, want, out, errOut)
		}
	})
}

// A core whose saved return addresses are signed (pac-ret on a CPU with
// pointer authentication, no NT_ARM_PAC_MASK): sfdbg strips the PACs and
// gives, thread by thread, the frames gdb gives on the same binary's
// unsigned core; gdb-multiarch 13.1 itself stops after two frames on it
// (core-crash-aarch64-pac-v3-signed.gdb).
func TestCoreWithSignedReturnAddresses(t *testing.T) {
	plain := gdbCoreThreads(t, "crash-aarch64-pac-v3")
	signed := gdbCoreThreads(t, "crash-aarch64-pac-v3-signed")
	code, d, errOut := coreDocument(t, filepath.Join(coreFixtures, "crash-aarch64-pac-v3-signed.core"),
		filepath.Join(coreFixtures, "crash-aarch64-pac-v3"))
	if code != exitOK || len(d.Threads) != 2 || d.Disagreements != 0 {
		t.Fatalf("exit %d, %d threads, %d disagreements: %s", code, len(d.Threads), d.Disagreements, errOut)
	}
	gdbMax := 0
	for _, fs := range signed {
		gdbMax = max(gdbMax, len(fs))
	}
	// The plain core's threads by the function of their frame 0.
	byLeaf := map[string][]gdbFrame{}
	for _, fs := range plain {
		byLeaf[fs[0].function] = fs
	}
	for _, th := range d.Threads {
		want := byLeaf[th.Frames[0].Function[strings.LastIndexByte(th.Frames[0].Function, '!')+1:]]
		if want == nil {
			t.Fatalf("thread %d: frame 0 %s is no thread's of the plain core", th.Tid, th.Frames[0].Function)
		}
		if len(th.Frames) != len(want) || len(th.Frames) <= gdbMax || !th.Complete {
			t.Errorf("thread %d: %d frames (complete %v), the plain core's %d, gdb's on this core at most %d",
				th.Tid, len(th.Frames), th.Complete, len(want), gdbMax)
		}
		for i := range min(len(th.Frames), len(want)) {
			if g := want[i]; g.function != "<signal handler called>" && th.Frames[i].PC != g.pc {
				t.Errorf("thread %d #%d: %#x, gdb on the unsigned core %#x %s", th.Tid, i, th.Frames[i].PC, g.pc, g.function)
			}
		}
	}
}
