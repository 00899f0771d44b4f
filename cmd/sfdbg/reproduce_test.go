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

// findAssembler returns the first of the named assemblers found in $PATH
// or in the cross toolchains of scripts/cross-toolchains.sh.
func findAssembler(names ...string) string {
	tc := os.Getenv("SFDBG_TOOLCHAINS")
	if tc == "" {
		tc = "/tmp/sfdbg-toolchains"
	}
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
		if p := filepath.Join(tc, "cross-v3", "bin", n); fileExists(p) {
			return p
		}
	}
	return ""
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// check --reproduce on code-oracle findings (issue 30: the OCaml and LLVM
// classes written up for their upstreams), on each machine's real-world
// reproducer: every function with a code finding gets NAME.code.s, which
// assembled again gives the same finding (kind, offset, the code's and
// the CFI's rules), and NAME.code.txt with the original's instructions
// around it.
func TestCheckReproduceRebuildsCodeFindings(t *testing.T) {
	for _, c := range []struct {
		obj string
		as  []string
	}{
		{"llvm_epilogue_hoist.o", []string{"x86_64-linux-gnu-as", "as"}},
		{"ocaml_trap_frame_call_gc.o", []string{"x86_64-linux-gnu-as", "as"}},
		{"llvm_sync_cfi_aarch64.o", []string{"aarch64-linux-gnu-as"}},
		{"gcc_fpr_epilogue_cfa_s390x.o", []string{"s390x-linux-gnu-as"}},
	} {
		t.Run(c.obj, func(t *testing.T) {
			as := findAssembler(c.as...)
			if as == "" {
				t.Skipf("no assembler %v (binutils, scripts/cross-toolchains.sh)", c.as)
			}
			obj := filepath.Join("..", "..", "testdata", "codeoracle", "realworld", c.obj)
			orig, err := compare.CheckFile(obj, compare.CheckOptions{Code: compare.FramesCode})
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]compare.Finding{} // the first code finding of each function
			for _, f := range orig.Findings {
				if _, ok := want[f.Function]; !ok && compare.ReproCodeKind(f.Kind) {
					want[f.Function] = f
				}
			}
			if len(want) == 0 {
				t.Fatal("no code finding in the original")
			}
			dir := t.TempDir()
			if code, _, errOut := runSfdbg("check", "--reproduce", dir, "--assembler", as, obj); code != exitFindings {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			for fn, f := range want {
				src := filepath.Join(dir, fn+".code.s")
				if !fileExists(src) {
					txt, _ := os.ReadFile(filepath.Join(dir, fn+".code.txt"))
					t.Fatalf("%s: no reproducer:\n%s", fn, txt)
				}
				re := filepath.Join(t.TempDir(), fn+".o")
				if out, err := exec.Command(as, "-o", re, src).CombinedOutput(); err != nil {
					t.Fatalf("%s: %v\n%s", src, err, out)
				}
				rep, err := compare.CheckFile(re, compare.CheckOptions{Code: compare.FramesCode})
				if err != nil {
					t.Fatal(err)
				}
				found := false
				for _, g := range rep.Findings {
					if g.Function == fn && g.Kind == f.Kind && g.PC-g.FuncStart == f.PC-f.FuncStart &&
						g.Rules[frames.MethodCode] == f.Rules[frames.MethodCode] && g.Rules[frames.MethodCFI] == f.Rules[frames.MethodCFI] {
						found = true
					}
				}
				if !found {
					b, _ := os.ReadFile(src)
					t.Errorf("%s: the rebuilt function does not give %s %s\n%s", fn, f.Kind, f.Message, b)
				}
				txt, _ := os.ReadFile(filepath.Join(dir, fn+".code.txt"))
				if !strings.Contains(string(txt), "the original around the finding") || !strings.Contains(string(txt), "=> +") {
					t.Errorf("%s.code.txt lacks the original's instructions:\n%s", fn, txt)
				}
			}
		})
	}
}
