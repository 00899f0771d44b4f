package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// infoSourceBlock returns the lines of "info source" in out, from
// "Current source file is" to the macro line.
func infoSourceBlock(out string) string {
	i := strings.Index(out, "Current source file is ")
	if i < 0 {
		return ""
	}
	block := out[i:]
	if j := strings.Index(block, "preprocessor macro info.\n"); j >= 0 {
		block = block[:j+len("preprocessor macro info.\n")]
	}
	return block
}

// TestInfoSourceIsGdbs stops gdb and sfdbg at the same function of the
// same program and compares "info source": the committed DWARF 5 fixture
// and, with a C compiler, a DWARF 4 build.
func TestInfoSourceIsGdbs(t *testing.T) {
	gdb, err := exec.LookPath("gdb")
	if err != nil {
		t.Skip("gdb not installed")
	}
	deep, _ := filepathAbs(dumpFixture(t, "deep-v3-O2"))
	root, _ := filepathAbs(filepath.Join("..", ".."))
	cases := []struct {
		name, prog, fn, dir string
		args                []string
	}{{"DWARF 5 fixture", deep, "spin_here", root, []string{"spin"}}}
	if cc, err := exec.LookPath("cc"); err == nil {
		dir := t.TempDir()
		src := filepath.Join(dir, "dw4.c")
		os.WriteFile(src, []byte("int g;\n__attribute__((noinline)) int f(int x) { return g + x; }\nint main(void) { return f(1); }\n"), 0o644)
		bin := filepath.Join(dir, "dw4")
		if out, err := exec.Command(cc, "-gdwarf-4", "-O1", "-o", bin, src).CombinedOutput(); err == nil {
			cases = append(cases, struct {
				name, prog, fn, dir string
				args                []string
			}{"DWARF 4 build", bin, "f", dir, nil})
		} else {
			t.Logf("cc -gdwarf-4: %v: %s", err, out)
		}
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := exec.Command(gdb, append([]string{"-nx", "-batch", "-ex", "break " + tc.fn, "-ex", "run", "-ex", "info source", "--args", tc.prog}, tc.args...)...)
			g.Dir = tc.dir
			gout, err := g.CombinedOutput()
			if err != nil {
				t.Fatalf("gdb: %v\n%s", err, gout)
			}
			want := infoSourceBlock(string(gout))
			if want == "" {
				t.Fatalf("gdb printed no info source:\n%s", gout)
			}
			args := append([]string{"run", "-batch", "-ex", "break " + tc.fn, "-ex", "continue", "-ex", "info source", "--", tc.prog}, tc.args...)
			code, out, errOut := runSfdbg(args...)
			if strings.Contains(errOut, "operation not permitted") {
				t.Skipf("ptrace not permitted: %s", errOut)
			}
			if code != exitOK {
				t.Fatalf("status %d: %s\n%s", code, errOut, out)
			}
			if got := infoSourceBlock(out); got != want {
				t.Errorf("info source:\nsfdbg:\n%s\ngdb:\n%s", got, want)
			}
		})
	}
}
