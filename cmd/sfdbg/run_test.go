package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/sfdbg/sfdbg/debugger/proc"
)

func TestRunBatchStartsStopsAtBreakpointAndKillsAtTheEnd(t *testing.T) {
	path, _ := filepathAbs(dumpFixture(t, "deep-v3-O2"))
	code, out, errOut := runSfdbg("run", "-batch", "-ex", "break level5_bigframe", "-ex", "continue", "-ex", "bt sframe", "-ex", "info breakpoints", "--", path, "spin")
	if code != exitOK {
		if strings.Contains(errOut, "operation not permitted") {
			t.Skipf("ptrace not permitted: %s", errOut)
		}
		t.Fatalf("status %d, stderr:\n%s\nstdout:\n%s", code, errOut, out)
	}
	m := regexp.MustCompile(`Started process (\d+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no start message:\n%s", out)
	}
	pid, _ := strconv.Atoi(m[1])
	for _, want := range []string{"Breakpoint 1, ", "#0  ", "level5_bigframe (x=", "in level4_recursive (depth=", "in main (argc="} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if _, err := os.Stat("/proc/" + strconv.Itoa(pid)); err == nil && proc.ProcState(pid) != 'Z' {
		t.Errorf("process %d started by sfdbg run still exists (state %q)", pid, proc.ProcState(pid))
	}
}

func TestRunRejectsAMissingProgram(t *testing.T) {
	code, _, errOut := runSfdbg("run", "-batch", "--", "/nonexistent/prog")
	if code != exitError || !strings.Contains(errOut, "cannot run /nonexistent/prog") {
		t.Errorf("status %d, stderr %q", code, errOut)
	}
	if code, _, _ := runSfdbg("run", "-batch"); code != exitError {
		t.Errorf("run without a program: status %d", code)
	}
}

// crasher builds a program that dereferences a null pointer, with the C
// compiler if there is one, else returns python3 doing the same; it skips
// the test when neither exists.
func crasher(t *testing.T) []string {
	t.Helper()
	if cc, err := exec.LookPath("cc"); err == nil {
		dir := t.TempDir()
		src := filepath.Join(dir, "segv.c")
		os.WriteFile(src, []byte("int main(void) { volatile int *p = 0; return *p; }\n"), 0o644)
		bin := filepath.Join(dir, "segv")
		if out, err := exec.Command(cc, "-g", "-o", bin, src).CombinedOutput(); err == nil {
			return []string{bin}
		} else {
			t.Logf("cc: %v: %s", err, out)
		}
	}
	if py, err := exec.LookPath("python3"); err == nil {
		return []string{py, "-c", "import ctypes; ctypes.string_at(0)"}
	}
	t.Skip("neither a C compiler nor python3 to make a program that crashes")
	return nil
}

// TestRunStopsAtAFatalSignalAsGdbDoes: under run, a SIGSEGV stops the
// program where it arrives, with gdb's line and the faulting frame; the
// next continue delivers it and the program dies of it, as in gdb (Delve's
// native backend passed the signal on at once: the program was gone
// before a backtrace could be taken). With gdb installed, the lines are
// compared with its own on the same program.
func TestRunStopsAtAFatalSignalAsGdbDoes(t *testing.T) {
	argv := crasher(t)
	args := append([]string{"run", "-batch", "-ex", "continue", "-ex", "bt", "-ex", "continue", "-ex", "info signals SIGSEGV", "--"}, argv...)
	code, out, errOut := runSfdbg(args...)
	if strings.Contains(errOut, "operation not permitted") {
		t.Skipf("ptrace not permitted: %s", errOut)
	}
	want := []string{"\nProgram received signal SIGSEGV, Segmentation fault.\n",
		"\nProgram terminated with signal SIGSEGV, Segmentation fault.\nThe program no longer exists.\n",
		"SIGSEGV       Yes\tYes\tYes\t\tSegmentation fault\n"}
	if strings.HasSuffix(argv[0], "segv") {
		want = append(want, " in main () at ")
	}
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q; status %d, stdout:\n%s\nstderr:\n%s", w, code, out, errOut)
		}
	}
	if i, j := strings.Index(out, "received signal"), strings.Index(out, "terminated with signal"); i < 0 || j < i {
		t.Errorf("the program did not stop at the signal before it died of it:\n%s", out)
	}
	if code != exitOK {
		t.Errorf("status %d, want 0 (every command succeeded); stderr:\n%s", code, errOut)
	}
	gdb, err := exec.LookPath("gdb")
	if err != nil || !strings.HasSuffix(argv[0], "segv") {
		return
	}
	g, _ := exec.Command(gdb, "-nx", "-batch", "-ex", "run", "-ex", "continue", "-ex", "info signals SIGSEGV", argv[0]).CombinedOutput()
	for _, line := range strings.Split(string(g), "\n") {
		if strings.Contains(line, "signal SIGSEGV") || strings.HasPrefix(line, "SIGSEGV ") || strings.HasPrefix(line, "The program no longer") {
			if !strings.Contains(out, line+"\n") {
				t.Errorf("gdb prints %q, sfdbg does not:\n%s", line, out)
			}
		}
	}
}

// TestRunReportsTheExitAsGdbDoes: a program's exit is reported with gdb's
// line, its code in octal as gdb prints it, compared with gdb's own when
// it is installed.
func TestRunReportsTheExitAsGdbDoes(t *testing.T) {
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("no C compiler")
	}
	pidRE := regexp.MustCompile(`process \d+`)
	for _, code := range []int{0, 3, 10} {
		dir := t.TempDir()
		src, bin := filepath.Join(dir, "ex.c"), filepath.Join(dir, "ex")
		os.WriteFile(src, []byte("int main(void) { return "+strconv.Itoa(code)+"; }\n"), 0o644)
		if out, err := exec.Command(cc, "-o", bin, src).CombinedOutput(); err != nil {
			t.Skipf("cc: %v: %s", err, out)
		}
		st, out, errOut := runSfdbg("run", "-batch", "-ex", "continue", "--", bin)
		if strings.Contains(errOut, "operation not permitted") {
			t.Skipf("ptrace not permitted: %s", errOut)
		}
		want := map[int]string{0: "exited normally]", 3: "exited with code 03]", 10: "exited with code 012]"}[code]
		line := ""
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, "[Inferior 1 (process ") {
				line = pidRE.ReplaceAllString(l, "process N")
			}
		}
		if !strings.HasSuffix(line, want) || st != exitOK {
			t.Errorf("exit %d: line %q (want one ending %q), status %d:\n%s", code, line, want, st, out)
		}
		if gdb, err := exec.LookPath("gdb"); err == nil {
			g, _ := exec.Command(gdb, "-nx", "-batch", "-ex", "run", bin).CombinedOutput()
			if gl := pidRE.ReplaceAllString(strings.TrimSpace(string(g)[strings.LastIndex(string(g), "[Inferior"):]), "process N"); gl != line {
				t.Errorf("exit %d: gdb prints %q, sfdbg %q", code, gl, line)
			}
		}
	}
}
