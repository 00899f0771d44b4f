package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestFinishValueIsGdbs stops gdb and sfdbg run at the same function of
// clones-v3-O2 (a clone, a constprop clone, a plain function), runs finish
// and compares the "Value returned is $N = V" line.
func TestFinishValueIsGdbs(t *testing.T) {
	gdb, err := exec.LookPath("gdb")
	if err != nil {
		t.Skip("gdb not installed")
	}
	path, _ := filepathAbs(dumpFixture(t, "clones-v3-O2"))
	re := regexp.MustCompile(`(?m)^Value returned is .*$`)
	for _, fn := range []string{"weigh", "scale", "report"} {
		t.Run(fn, func(t *testing.T) {
			g, err := exec.Command(gdb, "-nx", "-batch", "-ex", "break "+fn, "-ex", "run", "-ex", "finish", path).CombinedOutput()
			if err != nil {
				t.Fatalf("gdb: %v\n%s", err, g)
			}
			want := re.FindString(string(g))
			if want == "" {
				t.Fatalf("gdb printed no value:\n%s", g)
			}
			code, out, errOut := runSfdbg("run", "-batch", "-ex", "break "+fn, "-ex", "continue", "-ex", "finish", "--", path)
			if strings.Contains(errOut, "operation not permitted") {
				t.Skipf("ptrace not permitted: %s", errOut)
			}
			if code != exitOK {
				t.Fatalf("status %d: %s\n%s", code, errOut, out)
			}
			if got := re.FindString(out); got != want {
				t.Errorf("sfdbg %q, gdb %q\n%s", got, want, out)
			}
		})
	}
}

// TestFinishPointerValueIsGdbs: functions returning a char pointer and a
// structure pointer (built with the C compiler): gdb's 0x... "hi" and
// (struct rec *) 0x... <r>, where sfdbg wrote (*const char) and
// (*struct rec). Addresses differ between the two runs (ASLR): they are
// replaced by ADDR.
func TestFinishPointerValueIsGdbs(t *testing.T) {
	gdb, err := exec.LookPath("gdb")
	if err != nil {
		t.Skip("gdb not installed")
	}
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("no C compiler")
	}
	dir := t.TempDir()
	src, bin := filepath.Join(dir, "ptr.c"), filepath.Join(dir, "ptr")
	os.WriteFile(src, []byte(`struct rec { long key; };
static struct rec r = {7};
static const char *msg = "hi";
__attribute__((noinline)) const char *getmsg(int x) { return x ? msg : 0; }
__attribute__((noinline)) struct rec *getrec(int x) { return x ? &r : 0; }
int main(int argc, char **argv) { return getmsg(argc) != 0 && getrec(argc) != 0 ? 0 : 1; }
`), 0o644)
	if out, err := exec.Command(cc, "-g", "-O1", "-o", bin, src).CombinedOutput(); err != nil {
		t.Skipf("cc: %v: %s", err, out)
	}
	re := regexp.MustCompile(`(?m)^Value returned is .*$`)
	addr := regexp.MustCompile(`0x[0-9a-f]+`)
	for _, fn := range []string{"getmsg", "getrec"} {
		g, err := exec.Command(gdb, "-nx", "-batch", "-ex", "break "+fn, "-ex", "run", "-ex", "finish", bin).CombinedOutput()
		if err != nil {
			t.Fatalf("gdb: %v\n%s", err, g)
		}
		want := addr.ReplaceAllString(re.FindString(string(g)), "ADDR")
		code, out, errOut := runSfdbg("run", "-batch", "-ex", "break "+fn, "-ex", "continue", "-ex", "finish", "--", bin)
		if strings.Contains(errOut, "operation not permitted") {
			t.Skipf("ptrace not permitted: %s", errOut)
		}
		if code != exitOK {
			t.Fatalf("status %d: %s\n%s", code, errOut, out)
		}
		if got := addr.ReplaceAllString(re.FindString(out), "ADDR"); want == "" || got != want {
			t.Errorf("%s: sfdbg %q, gdb %q", fn, got, want)
		}
	}
}
