package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sfdbg/sfdbg/compare"
)

// namedFrame is a frame as a backtrace names it: function, and file and
// line where one is printed.
type namedFrame struct {
	function, file string
	line           int
	addr           bool // the line prints an address
}

const sigFrame = "<signal handler called>"

var (
	btThreadRE = regexp.MustCompile(`^Thread (\d+) \(`)
	// "#3  0x... in nr_middle (n=...) at testdata/src/noreturn.c:85",
	// "#0  spin_leaf () at FILE:LINE", "#8  0x... in _start () from /x",
	// "#2  <signal handler called>".
	btFrameRE = regexp.MustCompile(`^#\d+\s+(?:(0x[0-9a-f]+) in )?(\S+) \(.*\)(?: at (\S+):(\d+)| from \S+)?$`)
	btSigRE   = regexp.MustCompile(`^#\d+\s+<signal handler called>$`)
)

// btThreads reads the threads of a "thread apply all bt" text, gdb's or
// sfdbg's (bt --method cfi, the REPL's), by thread number.
func btThreads(text string) map[int][]namedFrame {
	out := map[int][]namedFrame{}
	n := -1
	// A frame line too long for the terminal continues with its
	// location on the next line, as gdb wraps it.
	text = strings.NewReplacer("\n    at ", " at ", "\n    from ", " from ").Replace(text)
	for _, line := range strings.Split(text, "\n") {
		if m := btThreadRE.FindStringSubmatch(line); m != nil {
			n, _ = strconv.Atoi(m[1])
			continue
		}
		if n < 0 {
			continue
		}
		if btSigRE.MatchString(line) {
			out[n] = append(out[n], namedFrame{function: sigFrame})
			continue
		}
		if m := btFrameRE.FindStringSubmatch(line); m != nil {
			l, _ := strconv.Atoi(m[4])
			out[n] = append(out[n], namedFrame{function: m[2], file: m[3], line: l, addr: m[1] != ""})
		}
	}
	return out
}

// jsonThreads reads the frames of "sfdbg bt --json" as gdb shows them
// (inline frames first, then their physical frame), by thread number
// (the document's order, main thread first, as gdb numbers them).
func jsonThreads(t *testing.T, out string) map[int][]namedFrame {
	var doc compare.ProcessDocument
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("bt --json: %v\n%s", err, out)
	}
	res := map[int][]namedFrame{}
	for i, th := range doc.Threads {
		var fs []namedFrame
		for _, f := range th.Frames {
			for _, in := range f.Inline {
				fs = append(fs, namedFrame{function: in.Function, file: in.File, line: in.Line})
			}
			fn := f.Function
			if fn == "__restore_rt" {
				fn = sigFrame
			}
			fs = append(fs, namedFrame{function: fn, file: f.File, line: f.Line, addr: true})
		}
		res[i+1] = fs
	}
	return res
}

// gdbName is a library function's name as sfdbg gives it whether the
// library's debug file is installed or not (gdb's goldens were recorded
// with libc6-dbg): with it, both name glibc's functions by their DWARF
// linkage names (__GI_raise, __GI___clock_nanosleep); without it, sfdbg
// has only the ELF symbols (raise, clock_nanosleep). gdb's first name for
// an address may also differ in leading underscores (clone3 for
// __clone3). The program's own frames are compared exactly.
func gdbName(s string) string {
	return strings.TrimLeft(strings.TrimPrefix(s, "__GI_"), "_")
}

// matchNames compares the frames sfdbg shows for one thread with gdb's:
// every frame gdb shows must be shown with the same name, and in the
// program (testdata/src) with the same file and line, except the line of
// frame 0 and of a frame a signal interrupted, which spin anywhere in
// their loops. gdb's frames outside the program that sfdbg does not show
// (tail-call frames gdb makes from DWARF call sites, inline frames in a
// library without the debug information sfdbg reads) are skipped and
// counted; sfdbg may show frames past gdb's last (past main). It returns
// the frames compared and skipped.
func matchNames(t *testing.T, what string, gdb, ours []namedFrame) (compared, skipped int) {
	t.Helper()
	same := func(i, j int) bool {
		g, o := gdb[i], ours[j]
		if !strings.HasPrefix(g.file, "testdata/src/") {
			return gdbName(g.function) == gdbName(o.function)
		}
		if g.function != o.function {
			return false
		}
		exact := i > 0 && gdb[i-1].function != sigFrame
		return g.file == o.file && (!exact || g.line == o.line)
	}
	j := 0
	for i := 0; i < len(gdb); i++ {
		switch {
		case j < len(ours) && same(i, j):
			compared++
			j++
		case !strings.HasPrefix(gdb[i].file, "testdata/src/") && gdb[i].function != sigFrame &&
			i+1 < len(gdb) && j < len(ours) && same(i+1, j):
			skipped++
		default:
			o := "nothing"
			if j < len(ours) {
				o = ours[j].function + " at " + ours[j].file + ":" + strconv.Itoa(ours[j].line)
			}
			t.Errorf("%s: gdb's frame %d is %s at %s:%d, sfdbg shows %s", what, i, gdb[i].function, gdb[i].file, gdb[i].line, o)
			return compared, skipped
		}
	}
	return compared, skipped
}

// TestEveryFrameIsNamedAsGdbNamesIt runs each program whose gdb backtrace
// is in testdata/golden (gdb-NAME-MODE.txt, scripts/gdb-golden.sh) in
// that mode and compares the frames sfdbg shows with gdb's, thread by
// thread, in sfdbg bt's gdb form, its JSON and the debugger's "thread
// apply all bt". The noreturn fixtures hold callers whose last
// instruction is a call to a noreturn function: their return addresses lie
// one past their function's end, and they are named at PC-1 as gdb does.
func TestEveryFrameIsNamedAsGdbNamesIt(t *testing.T) {
	goldens, err := filepath.Glob(filepath.Join("..", "..", "testdata", "golden", "gdb-*.txt"))
	if err != nil || len(goldens) == 0 {
		t.Fatalf("no gdb goldens: %v", err)
	}
	total, totalSkipped := 0, 0
	for _, g := range goldens {
		base := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(g), "gdb-"), ".txt")
		i := strings.LastIndexByte(base, '-')
		name, mode := base[:i], base[i+1:]
		t.Run(name+" "+mode, func(t *testing.T) {
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
			code, out, errOut := runSfdbg("bt", "--method", "cfi", pid)
			if code != exitOK {
				t.Fatalf("bt --method cfi: status %d: %s", code, errOut)
			}
			views["bt"] = btThreads(out)
			code, out, errOut = runSfdbg("bt", "--json", pid)
			if code != exitOK && code != exitFindings {
				t.Fatalf("bt --json: status %d: %s", code, errOut)
			}
			views["bt --json"] = jsonThreads(t, out)
			code, out, errOut = runSfdbg("attach", "-batch", "-ex", "thread apply all bt cfi", "-ex", "detach", pid)
			if code != exitOK {
				t.Fatalf("attach: status %d: %s", code, errOut)
			}
			views["attach: thread apply all bt cfi"] = btThreads(out)
			for view, ours := range views {
				if len(ours) != len(gdb) {
					t.Errorf("%s: %d threads, gdb %d", view, len(ours), len(gdb))
				}
				for n, g := range gdb {
					c, s := matchNames(t, view+" thread "+strconv.Itoa(n), g, ours[n])
					if view == "bt" {
						total, totalSkipped = total+c, totalSkipped+s
					}
				}
			}
			checkRunning(t, fx.Process.Pid)
		})
	}
	t.Logf("%d frames named as gdb names them (sfdbg bt), %d of gdb's frames in libraries not shown by sfdbg", total, totalSkipped)
}

// TestEveryFrameIsNamedAsGdbNamesItLive is TestEveryFrameIsNamedAsGdbNamesIt
// against gdb itself rather than its recorded backtraces: every deep and
// noreturn fixture in each of its modes is stopped by "gdb -batch -p PID
// -ex 'thread apply all bt'" and then by "sfdbg bt --method cfi", and the
// frames are compared as there. It needs gdb and runs only with
// SFDBG_GDB_LIVE=1 (about a minute of attaching).
func TestEveryFrameIsNamedAsGdbNamesItLive(t *testing.T) {
	if os.Getenv("SFDBG_GDB_LIVE") != "1" {
		t.Skip("set SFDBG_GDB_LIVE=1 to compare with gdb attached live")
	}
	gdbPath, err := exec.LookPath("gdb")
	if err != nil {
		t.Skipf("no gdb: %v", err)
	}
	modes := map[string][]string{"deep": {"spin", "sleep", "signal", "threads"}, "noreturn": {"spin", "exit", "abort", "threads"}}
	bins, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "bin", "*"))
	total, skipped, runs := 0, 0, 0
	for _, bin := range bins {
		name := filepath.Base(bin)
		prog, _, _ := strings.Cut(name, "-")
		for _, mode := range modes[prog] {
			t.Run(name+" "+mode, func(t *testing.T) {
				fx := startFixture(t, bin, mode)
				pid := strconv.Itoa(fx.Process.Pid)
				requirePtrace(t, fx.Process.Pid)
				if mode == "signal" {
					time.Sleep(100 * time.Millisecond) // the handler's chain
				}
				g, err := exec.Command(gdbPath, "-batch", "-nx", "-iex", "set debuginfod enabled off", "-p", pid,
					"-ex", "set pagination off", "-ex", "thread apply all bt").CombinedOutput()
				if err != nil {
					t.Fatalf("gdb: %v\n%s", err, g)
				}
				code, out, errOut := runSfdbg("bt", "--method", "cfi", pid)
				if code != exitOK {
					t.Fatalf("bt --method cfi: status %d: %s", code, errOut)
				}
				gdb, ours := btThreads(string(g)), btThreads(out)
				if len(ours) != len(gdb) || len(gdb) == 0 {
					t.Errorf("%d threads, gdb %d:\n%s", len(ours), len(gdb), g)
				}
				for n, gf := range gdb {
					c, s := matchNames(t, "thread "+strconv.Itoa(n), gf, ours[n])
					total, skipped = total+c, skipped+s
				}
				runs++
				checkRunning(t, fx.Process.Pid)
			})
		}
	}
	t.Logf("%d programs: %d frames named as gdb names them, %d of gdb's frames in libraries not shown by sfdbg", runs, total, skipped)
}
