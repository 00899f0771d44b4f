package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sfdbg/sfdbg/compare"
	"github.com/sfdbg/sfdbg/frames"
)

// check --reproduce on the known-fault objects of each GNU as
// (testdata/known, scripts/build-known-fault-fixtures.sh): every fault
// becomes a .s of at most 30 lines that the same assembler turns into the
// same wrong SFrame, checked here by assembling it again; the linker's
// .plt.got fault is named as not an assembler's.
func TestCheckReproduceRebuildsEachAssemblerFault(t *testing.T) {
	tc := os.Getenv("SFDBG_TOOLCHAINS")
	if tc == "" {
		tc = "/tmp/sfdbg-toolchains"
	}
	for _, c := range []struct {
		v     string
		funcs []string
	}{
		{"1", []string{"cfa_r12", "defreg_after_off", "setcontext_like"}},
		{"2", []string{"defreg_after_off"}},
		{"3", []string{"defreg_after_off", "setcontext_like"}},
	} {
		t.Run("GNU as v"+c.v, func(t *testing.T) {
			as := filepath.Join(tc, "v"+c.v, "bin", "as")
			if _, err := os.Stat(as); err != nil {
				t.Skipf("no GNU as at %s (scripts/toolchains.sh; set SFDBG_TOOLCHAINS)", as)
			}
			dir := t.TempDir()
			obj := filepath.Join("..", "..", "testdata", "known", "known-as-v"+c.v+".o")
			code, _, errOut := runSfdbg("check", "--reproduce", dir, "--assembler", as, obj)
			if code != exitFindings {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			orig, err := compare.CheckFile(obj, compare.CheckOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for _, fn := range c.funcs {
				src, err := os.ReadFile(filepath.Join(dir, fn+".s"))
				if err != nil {
					t.Fatalf("%s: no reproducer: %v\n%s", fn, err, errOut)
				}
				if n := strings.Count(string(src), "\n"); n > maxReproLines {
					t.Errorf("%s.s has %d lines, more than %d", fn, n, maxReproLines)
				}
				txt, err := os.ReadFile(filepath.Join(dir, fn+".txt"))
				if err != nil || !strings.Contains(string(txt), "command: "+as+" --gsframe") || !strings.Contains(string(txt), "actual (the SFrame FREs)") {
					t.Errorf("%s.txt: %v\n%s", fn, err, txt)
				}
				re := filepath.Join(t.TempDir(), fn+".o")
				if out, err := exec.Command(as, "--gsframe", "-o", re, filepath.Join(dir, fn+".s")).CombinedOutput(); err != nil {
					t.Fatalf("%s.s does not assemble: %v\n%s", fn, err, out)
				}
				var want compare.Finding
				for _, f := range orig.Findings {
					if f.Function == fn && compare.ReproKind(f.Kind) {
						want = f
					}
				}
				got, ok, err := compare.ReproFinding(re, fn, want.Kind)
				if err != nil || !ok {
					t.Errorf("%s.s: check finds no %s finding in %s (%v)", fn, want.Kind, fn, err)
				} else if got.Rules[frames.MethodSFrame] != want.Rules[frames.MethodSFrame] || got.Rules[frames.MethodCFI] != want.Rules[frames.MethodCFI] {
					t.Errorf("%s.s reproduces with other rules: SFrame %s, CFI %s (the original: %s, %s)", fn, got.Rules[frames.MethodSFrame], got.Rules[frames.MethodCFI], want.Rules[frames.MethodSFrame], want.Rules[frames.MethodCFI])
				}
			}
		})
	}
	t.Run("the linker's PLT fault is said not to be an assembler's", func(t *testing.T) {
		dir := t.TempDir()
		runSfdbg("check", "--reproduce", dir, "--assembler", "sh", filepath.Join("..", "..", "testdata", "bin", "pltgot-v3"))
		txt, err := os.ReadFile(filepath.Join(dir, "labs_plt.txt"))
		if err != nil || !strings.Contains(string(txt), "not reproduced: the linker wrote the FDE of labs@plt") {
			t.Errorf("%v\n%s", err, txt)
		}
	})
}
