package main

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/sfdbg/sfdbg/compare"
)

// exeRange returns the address range of a process's mappings of path.
func exeRange(t *testing.T, pid int, path string) (lo, hi uint64) {
	t.Helper()
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/maps")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	lo = ^uint64(0)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 6 || fields[5] != path {
			continue
		}
		a, b, _ := strings.Cut(fields[0], "-")
		x, _ := strconv.ParseUint(a, 16, 64)
		y, _ := strconv.ParseUint(b, 16, 64)
		lo, hi = min(lo, x), max(hi, y)
	}
	return lo, hi
}

var (
	threadRE   = regexp.MustCompile(`^Thread \d+ \((?:Thread 0x[0-9a-f]+ \(LWP (\d+)\)|Thread (\d+)) `)
	frameRE    = regexp.MustCompile(`^#(\d+)\s+(?:(0x[0-9a-f]+)\s+in\s+)?(\S+) \(`)
	ourFrameRE = regexp.MustCompile(`^#(\d+)\s+(?:(0x[0-9a-f]+)(?:\s+\S+){0,4}?\s+)?(?:in\s+)?(\S+) \(`)
)

type btFrame struct {
	pc    uint64
	name  string
	inExe bool
}

// parseThreads splits "thread apply all bt"-style output into frames by
// thread ID. inExe decides from a frame's PC and line whether it is in the
// fixture's executable.
func parseThreads(out string, re *regexp.Regexp, inExe func(pc uint64, line string) bool) map[int][]btFrame {
	m := map[int][]btFrame{}
	tid := 0
	for _, l := range strings.Split(out, "\n") {
		if sm := threadRE.FindStringSubmatch(l); sm != nil {
			tid, _ = strconv.Atoi(sm[1] + sm[2])
			continue
		}
		if tid != 0 && strings.HasPrefix(l, "#") && strings.Contains(l, "<signal handler called>") {
			m[tid] = append(m[tid], btFrame{name: "<signal handler called>"})
			continue
		}
		sm := re.FindStringSubmatch(l)
		if sm == nil || tid == 0 {
			continue
		}
		pc, _ := strconv.ParseUint(strings.TrimPrefix(sm[2], "0x"), 16, 64)
		m[tid] = append(m[tid], btFrame{pc: pc, name: sm[3], inExe: inExe(pc, l)})
	}
	return m
}

func exeNames(fs []btFrame, throughMain bool) []string {
	var out []string
	for _, f := range fs {
		if f.inExe {
			out = append(out, f.name)
			if throughMain && f.name == "main" {
				break
			}
		}
	}
	return out
}

// leadingExe returns the names of the frames from frame 0 up to the first
// frame outside the executable: the part an SFrame-only trace can cover
// when only the executable has SFrame.
func leadingExe(fs []btFrame) []string {
	var out []string
	for _, f := range fs {
		if !f.inExe {
			break
		}
		out = append(out, f.name)
	}
	return out
}

func gdbBacktraces(t *testing.T, pid int) string {
	t.Helper()
	gdb, err := exec.LookPath("gdb")
	if err != nil {
		t.Skip("gdb not installed")
	}
	out, err := exec.Command(gdb, "-nx", "-batch", "-p", strconv.Itoa(pid), "-ex", "thread apply all bt").CombinedOutput()
	if err != nil {
		t.Fatalf("gdb: %v\n%s", err, out)
	}
	return string(out)
}

// TestBtMatchesGdbFrameForFrame compares the function names of sfdbg's
// backtraces with gdb's "thread apply all bt" where SFrame covers the
// code (the fixture's executable; libc has no .sframe here): the SFrame-only
// trace of "sfdbg bt --method sframe" up to the first frame outside the
// executable, and the REPL's trace (SFrame, CFI where SFrame has no data)
// for every executable frame up to main.
func TestBtMatchesGdbFrameForFrame(t *testing.T) {
	for _, tc := range []struct{ fixture, mode string }{
		{"deep-v3-O2", "spin"}, {"deep-v3-O2", "threads"}, {"deep-v3-O2", "signal"},
		{"deep-v3-O0", "spin"}, {"deep-v2-O2", "threads"},
	} {
		t.Run(tc.fixture+" "+tc.mode, func(t *testing.T) {
			path, _ := filepathAbs(dumpFixture(t, tc.fixture))
			fx := startFixture(t, path, tc.mode)
			pid := fx.Process.Pid
			requirePtrace(t, pid)
			lo, hi := exeRange(t, pid, path)
			inRange := func(pc uint64, l string) bool {
				if pc == 0 { // frame 0 at a statement's start: no address, as gdb prints it
					return strings.Contains(l, "deep.c")
				}
				return pc >= lo && pc < hi
			}
			gdbOut := gdbBacktraces(t, pid)
			gdb := parseThreads(gdbOut, frameRE, func(_ uint64, l string) bool { return strings.Contains(l, "deep.c") })

			code, sfOut, errOut := runSfdbg("bt", "--method", "sframe", strconv.Itoa(pid))
			if code != exitOK {
				t.Fatalf("sfdbg bt: status %d: %s", code, errOut)
			}
			sf := parseThreads(sfOut, ourFrameRE, inRange)
			code, replOut, errOut := runSfdbg("attach", "-batch", "-ex", "thread apply all bt", strconv.Itoa(pid))
			if code != exitOK {
				t.Fatalf("sfdbg attach: status %d: %s", code, errOut)
			}
			repl := parseThreads(replOut, ourFrameRE, inRange)
			if len(gdb) == 0 || len(sf) != len(gdb) || len(repl) != len(gdb) {
				t.Fatalf("threads: gdb %d, sfdbg bt %d, sfdbg attach %d\ngdb:\n%s\nsfdbg bt:\n%s", len(gdb), len(sf), len(repl), gdbOut, sfOut)
			}
			compared := 0
			for tid, g := range gdb {
				want := exeNames(g, true)
				if got := exeNames(repl[tid], true); strings.Join(got, " ") != strings.Join(want, " ") {
					t.Errorf("thread %d: attach bt %q, gdb %q", tid, got, want)
				}
				lead := leadingExe(g)
				got := leadingExe(sf[tid])
				if strings.Join(got, " ") != strings.Join(lead, " ") {
					t.Errorf("thread %d: bt --method sframe %q, gdb %q", tid, got, lead)
				}
				compared += len(lead)
			}
			if compared == 0 {
				t.Errorf("no frame covered by SFrame to compare:\n%s", gdbOut)
			}
			checkRunning(t, pid)
		})
	}
}

func TestBtJSONAndExitStatus(t *testing.T) {
	path := dumpFixture(t, "deep-v3-O2")
	fx := startFixture(t, path, "spin")
	pid := fx.Process.Pid
	requirePtrace(t, pid)
	t.Run("all: compare report as one JSON document", func(t *testing.T) {
		code, out, errOut := runSfdbg("bt", "--json", strconv.Itoa(pid))
		if code != exitOK {
			t.Fatalf("status %d: %s", code, errOut)
		}
		var doc compare.ProcessDocument
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		if doc.SchemaVersion != 2 || doc.Methods != "all" || doc.Pid != pid || len(doc.Threads) != 1 || len(doc.Threads[0].Frames) < 12 {
			t.Errorf("unexpected document: %+v", doc)
		}
		if f := doc.Threads[0].Frames[1]; len(f.Steps) != 4 || f.Verdict != compare.VerdictAgree || f.Verdicts["code"] != compare.VerdictAgree {
			t.Errorf("frame 1: want four steps and SFrame and the code agreeing, got %+v", f)
		}
	})
	for _, m := range []string{"sframe", "cfi", "fp", "code"} {
		t.Run(m+": frames as JSON", func(t *testing.T) {
			code, out, errOut := runSfdbg("bt", "--method", m, "--json", strconv.Itoa(pid))
			if code != exitOK {
				t.Fatalf("status %d: %s", code, errOut)
			}
			var doc struct {
				SchemaVersion int    `json:"schema_version"`
				Method        string `json:"methods"`
				Threads       []struct {
					Frames []struct {
						Function string `json:"function"`
					} `json:"frames"`
				} `json:"threads"`
			}
			if err := json.Unmarshal([]byte(out), &doc); err != nil || doc.Method != m || doc.SchemaVersion != 2 || len(doc.Threads) != 1 {
				t.Fatalf("%v: %s", err, out)
			}
			if f := doc.Threads[0].Frames; len(f) == 0 || f[0].Function != "spin_here" {
				t.Errorf("frame 0 is not spin_here: %s", out)
			}
		})
	}
	t.Run("unknown method", func(t *testing.T) {
		if code, _, errOut := runSfdbg("bt", "--method", "magic", strconv.Itoa(pid)); code != exitError || !strings.Contains(errOut, "unknown method") {
			t.Errorf("status %d, stderr %q", code, errOut)
		}
	})
	checkRunning(t, pid)
}

// TestBtReadsOnlyTheUnitsOfItsPCs checks, on a threaded process whose
// libc has its separate debug file (libc6-dbg; skipped without it), that
// a one-shot bt names libc's frames from their compilation units alone
// (.debug_aranges), never reading the whole of libc's DWARF.
func TestBtReadsOnlyTheUnitsOfItsPCs(t *testing.T) {
	path, _ := filepathAbs(dumpFixture(t, "deep-v3-O2"))
	fx := startFixture(t, path, "threads")
	pid := fx.Process.Pid
	requirePtrace(t, pid)
	for _, method := range []string{"sframe", "all"} {
		code, out, errOut := runSfdbg("--log-level=debug", "bt", "--method", method, strconv.Itoa(pid))
		if code > exitFindings {
			t.Fatalf("bt --method %s: status %d: %s", method, code, errOut)
		}
		if !strings.Contains(errOut, "separate debug file") {
			t.Skip("libc has no separate debug file here (install libc6-dbg)")
		}
		if !strings.Contains(errOut, "libc.so.6: ") || !strings.Contains(errOut, "address ranges of units") {
			t.Errorf("bt --method %s: libc's units not found through .debug_aranges:\n%s", method, errOut)
		}
		if strings.Contains(errOut, "DWARF: reading all of it") {
			t.Errorf("bt --method %s read a whole DWARF:\n%s", method, errOut)
		}
		if method == "sframe" && !strings.Contains(out, "start_thread () at ./nptl/pthread_create.c:") {
			t.Errorf("bt --method %s: no source line for start_thread:\n%s", method, out)
		}
	}
}
