package main

import (
	"debug/elf"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/sfdbg/sfdbg/compare"
	"github.com/sfdbg/sfdbg/sframe/arch"
)

// completeThreads checks that every thread of a --json document is a
// complete trace (it ends at the outermost frame) and returns the document.
func completeThreads(t *testing.T, what, out string) *compare.ProcessDocument {
	t.Helper()
	var d compare.ProcessDocument
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatalf("%s: %v\n%s", what, err, out)
	}
	if d.Methods != "code" {
		t.Errorf("%s: methods %q, want code", what, d.Methods)
	}
	for _, th := range d.Threads {
		if !th.Complete {
			t.Errorf("%s: thread %d is not complete (%d frames): %s", what, th.Tid, len(th.Frames), th.Stop)
		}
	}
	return &d
}

// TestTheCodeUnwindsAsGdbOnTheFixtures unwinds each program whose gdb
// backtrace is in testdata/golden (gdb-NAME-MODE.txt: deep -O0 and -O2,
// inline, noreturn, tail calls, in every mode recorded: threads, a signal
// handler's chain, abort) with the code alone (bt --method code, and the
// debugger's "bt code"): every frame is gdb's, as CFI's are
// (TestEveryFrameIsNamedAsGdbNamesIt), and every trace is complete, ending
// at _start or at the thread's clone.
func TestTheCodeUnwindsAsGdbOnTheFixtures(t *testing.T) {
	goldens, err := filepath.Glob(filepath.Join("..", "..", "testdata", "golden", "gdb-*.txt"))
	if err != nil || len(goldens) == 0 {
		t.Fatalf("no gdb goldens: %v", err)
	}
	total := 0
	for _, g := range goldens {
		base := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(g), "gdb-"), ".txt")
		i := strings.LastIndexByte(base, '-')
		name, mode := base[:i], base[i+1:]
		t.Run(name+" "+mode+": the code's frames are gdb's and its traces complete", func(t *testing.T) {
			text, err := os.ReadFile(g)
			if err != nil {
				t.Fatal(err)
			}
			gdb := btThreads(string(text))
			if len(gdb) == 0 {
				t.Fatalf("no threads in %s", g)
			}
			fx := startFixture(t, dumpFixture(t, name), mode)
			pid := strconv.Itoa(fx.Process.Pid)
			requirePtrace(t, fx.Process.Pid)
			views := map[string]map[int][]namedFrame{}
			code, out, errOut := runSfdbg("bt", "--method", "code", pid)
			if code != exitOK {
				t.Fatalf("bt --method code: status %d: %s", code, errOut)
			}
			views["bt --method code"] = btThreads(out)
			code, out, errOut = runSfdbg("bt", "--method", "code", "--json", pid)
			if code != exitOK {
				t.Fatalf("bt --method code --json: status %d: %s", code, errOut)
			}
			completeThreads(t, "bt --method code --json", out)
			views["bt --method code --json"] = jsonThreads(t, out)
			code, out, errOut = runSfdbg("attach", "-batch", "-ex", "thread apply all bt code", "-ex", "detach", pid)
			if code != exitOK {
				t.Fatalf("attach: status %d: %s", code, errOut)
			}
			views["attach: thread apply all bt code"] = btThreads(out)
			for view, ours := range views {
				ours = pairThreads(gdb, ours)
				if len(ours) != len(gdb) {
					t.Errorf("%s: %d threads, gdb %d", view, len(ours), len(gdb))
				}
				for n, g := range gdb {
					c, _ := matchNames(t, view+" thread "+strconv.Itoa(n), g, ours[n])
					if view == "bt --method code" {
						total += c
					}
				}
			}
			checkRunning(t, fx.Process.Pid)
		})
	}
	t.Logf("%d frames unwound by the code as gdb unwinds them", total)
}

// pairThreads numbers our threads as gdb's recording numbers them: each
// of gdb's threads takes the thread of ours with the most function names
// in common (the one of the same number first on a tie). Threads the
// fixture starts at once are numbered in the order the kernel ran them,
// which a recording does not fix.
func pairThreads(gdb, ours map[int][]namedFrame) map[int][]namedFrame {
	common := func(a, b []namedFrame) int {
		seen := map[string]int{}
		for _, f := range a {
			seen[f.function]++
		}
		n := 0
		for _, f := range b {
			if seen[f.function] > 0 {
				seen[f.function]--
				n++
			}
		}
		return n
	}
	var nums []int
	for n := range gdb {
		nums = append(nums, n)
	}
	sort.Ints(nums)
	out, used := map[int][]namedFrame{}, map[int]bool{}
	for _, n := range nums {
		best, bestN := -1, -1
		if fs, ok := ours[n]; ok {
			best, bestN = common(gdb[n], fs), n
		}
		for m, fs := range ours {
			if c := common(gdb[n], fs); !used[m] && (c > best || bestN >= 0 && used[bestN]) {
				best, bestN = c, m
			}
		}
		if bestN >= 0 && !used[bestN] {
			out[n], used[bestN] = ours[bestN], true
		}
	}
	for m, fs := range ours { // threads gdb does not have keep their numbers (counted as extra)
		if !used[m] {
			if _, taken := out[m]; !taken {
				out[m] = fs
			} else {
				out[-m] = fs
			}
		}
	}
	return out
}

// TestTheCodeUnwindsTheCoresAsGdb unwinds the cores of testdata/cores
// with the code alone (core --method code): every thread has gdb's frames
// (core-NAME.gdb) and is complete. A core of a machine without an
// instruction decoder (sframe/arch: Arch.Decoder) is skipped, saying so.
// A known gap of the walk is asserted as it is: the thread stops with that
// code-unknown, after gdb's frames up to there (when the walk learns the
// instruction, the test says so and the gap goes from the table).
func TestTheCodeUnwindsTheCoresAsGdb(t *testing.T) {
	// No known gap: the s390x conditional return (bner %r14 in
	// noreturn-s390x-v3's spin_leaf) is arch.CondReturn since the walk
	// follows it.
	gaps := map[string]string{}
	for _, name := range []string{"crash-v2", "crash-v3", "crash-v3-qemu", "noreturn-v3",
		"crash-aarch64-v2", "crash-aarch64-v3", "crash-aarch64-pac-v3", "crash-s390x-v3",
		"noreturn-aarch64-v3", "noreturn-s390x-v3"} {
		t.Run(name+": every thread has gdb's frames and is complete", func(t *testing.T) {
			exe := filepath.Join(coreFixtures, strings.TrimSuffix(name, "-qemu"))
			ef, err := elf.Open(exe)
			if err != nil {
				t.Fatal(err)
			}
			a, err := arch.For(ef.Machine, ef.ByteOrder)
			ef.Close()
			if err != nil {
				t.Fatal(err)
			}
			if a.Decoder == nil {
				t.Skipf("%s has no instruction decoder (sframe/arch Arch.Decoder): the code cannot unwind it", a.Name)
			}
			gdb := gdbCoreThreads(t, name)
			code, out, errOut := runSfdbg("core", "--json", "--method", "code", filepath.Join(coreFixtures, name+".core"), exe)
			if code != exitOK {
				t.Fatalf("exit %d, want 0: %s", code, errOut)
			}
			var d *compare.ProcessDocument
			if gap := gaps[name]; gap != "" {
				d = &compare.ProcessDocument{}
				if err := json.Unmarshal([]byte(out), d); err != nil {
					t.Fatal(err)
				}
				stopped := 0
				for _, th := range d.Threads {
					if !th.Complete {
						if !strings.Contains(th.Stop, gap) {
							t.Errorf("thread %d stops with %q, want the known gap %q", th.Tid, th.Stop, gap)
						}
						stopped++
						// Compare the frames it has with gdb's first ones.
						gdb[th.Tid] = gdb[th.Tid][:min(len(th.Frames), len(gdb[th.Tid]))]
					}
				}
				if stopped == 0 {
					t.Errorf("every thread is complete: the walk follows %s now; take it from the gaps", gap)
				}
			} else {
				d = completeThreads(t, "core --method code", out)
			}
			if len(d.Threads) != len(gdb) {
				t.Fatalf("%d threads, gdb %d", len(d.Threads), len(gdb))
			}
			for _, th := range d.Threads {
				want := gdb[th.Tid]
				if len(th.Frames) != len(want) {
					t.Errorf("thread %d: %d frames, gdb %d", th.Tid, len(th.Frames), len(want))
				}
				for i := range min(len(th.Frames), len(want)) {
					f, g := th.Frames[i], want[i]
					if g.function == "<signal handler called>" {
						if f.Function != "__restore_rt" && f.Steps["code"].Source != "signal trampoline (kernel frame layout)" {
							t.Errorf("thread %d #%d: %#x %s, gdb a signal frame", th.Tid, i, f.PC, f.Function)
						}
						continue
					}
					if g.pc != 0 && f.PC != g.pc || !sameFunction(f.Function, g.function) {
						t.Errorf("thread %d #%d: %#x %s, gdb %#x %s", th.Tid, i, f.PC, f.Function, g.pc, g.function)
					}
				}
			}
		})
	}
}
