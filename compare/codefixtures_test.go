package compare

import (
	"bufio"
	"debug/elf"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// x86FaultKinds are the kinds testdata/README.md's table of
// codeoracle/x86_64 says each fault is ("first wrong row").
var x86FaultKinds = map[string][]Kind{
	"push_noadjust":    {KindCodeCFA},
	"cfa_offset_off8":  {KindCodeCFA},
	"saved_nooffset":   {KindCodeFP},
	"defcfareg_early":  {KindCodeCFA},
	"midret_norestore": {KindCodeCFA},
	"midret_nostate":   {KindCodeCFA},
	"jump_into_fde":    {KindCodeCFA},
	"clean_fp":         nil, "clean_realign": nil, "clean_alloca": nil, "clean_jumptable": nil,
}

// crossFaultKinds reads the "must report" column of a cross fixture
// directory's README.md: function -> kinds, nil for a clean one.
func crossFaultKinds(t *testing.T, dir string) map[string][]Kind {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	row := regexp.MustCompile("^\\| `([a-z0-9_]+)` \\|[^|]*\\| ([a-z -]+) \\|$")
	out := map[string][]Kind{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		m := row.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		var ks []Kind
		if m[2] != "clean" {
			for _, name := range strings.Fields(m[2]) {
				k, ok := map[string]Kind{"code-cfa": KindCodeCFA, "code-ra": KindCodeRA, "code-fp": KindCodeFP, "code-state": KindCodeState}[name]
				if !ok {
					t.Fatalf("%s/README.md: unknown kind %q", dir, name)
				}
				ks = append(ks, k)
			}
		}
		out[m[1]] = ks
	}
	if len(out) == 0 {
		t.Fatalf("%s/README.md: no table", dir)
	}
	return out
}

// faultOffsets returns, per function of the ELF file at path, the offset
// of its NAME.fault label from NAME.
func faultOffsets(t *testing.T, path string) map[string]uint64 {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	at := map[string]elf.Symbol{}
	for _, s := range syms {
		at[s.Name] = s
	}
	out := map[string]uint64{}
	for name, s := range at {
		if fn, ok := strings.CutSuffix(name, ".fault"); ok {
			if p, ok := at[fn]; ok && p.Section == s.Section {
				out[fn] = s.Value - p.Value
			}
		}
	}
	return out
}

// TestCheckCatchesCodeOracleFixtures runs check with the code oracle on
// each annotation-fault fixture of testdata/codeoracle, the linked
// programs and each object alone: every fault is reported with its kinds
// at its fault label, and the clean functions have no code-* finding.
func TestCheckCatchesCodeOracleFixtures(t *testing.T) {
	for _, abi := range []string{"x86_64", "aarch64", "s390x"} {
		dir := filepath.Join("..", "testdata", "codeoracle", abi)
		want := x86FaultKinds
		if abi != "x86_64" {
			want = crossFaultKinds(t, dir)
		}
		objs, _ := filepath.Glob(filepath.Join(dir, "*.o"))
		files := append([]string{filepath.Join(dir, "codeoracle-"+abi)}, objs...)
		for _, path := range files {
			t.Run(abi+"/"+filepath.Base(path), func(t *testing.T) {
				fault := faultOffsets(t, path)
				rep, err := CheckFile(path, CheckOptions{Code: FramesCode})
				if err != nil {
					t.Fatal(err)
				}
				got := map[string][]Finding{}
				for _, f := range codeFindings(rep) {
					if f.Kind != KindCodeUnknown {
						got[f.Function] = append(got[f.Function], f)
					}
				}
				fns := map[string]bool{}
				for _, f := range rep.Findings {
					fns[f.Function] = true
				}
				var names []string
				for fn := range want {
					names = append(names, fn)
				}
				sort.Strings(names)
				checked := 0
				for _, fn := range names {
					kinds := want[fn]
					if strings.HasSuffix(path, ".o") && filepath.Base(path) != fn+".o" {
						continue
					}
					checked++
					if abi == "x86_64" && !strings.HasPrefix(fn, "clean") && kinds == nil {
						t.Errorf("%s: no kinds", fn)
					}
					if len(kinds) == 0 {
						for _, f := range got[fn] {
							t.Errorf("clean %s: %s: %s", fn, f.Kind, f.Message)
						}
						continue
					}
					off, ok := fault[fn]
					if !ok {
						t.Fatalf("%s: no %s.fault label", path, fn)
					}
					// Nothing before the fault label.
					for _, f := range got[fn] {
						if f.PC-f.FuncStart < off && (f.PCEnd <= f.PC || f.PCEnd-f.FuncStart <= off) {
							t.Errorf("%s: %s before the fault at +%#x: %s", fn, f.Kind, off, f.Message)
						}
					}
					for _, k := range kinds {
						found := false
						for _, f := range got[fn] {
							end := f.PCEnd
							if end <= f.PC {
								end = f.PC + 1
							}
							// At the fault label, or after it where the
							// register still held the caller's value at the
							// label (x30 until the bl after it).
							found = found || f.Kind == k && off < end-f.FuncStart
						}
						if !found {
							t.Errorf("%s: no %s at %s+%#x; code findings: %v", fn, k, fn, off, got[fn])
						}
					}
				}
				if checked == 0 {
					t.Errorf("%s: no function of the table", path)
				}
			})
		}
	}
}
