package code

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sfdbg/sfdbg/sframe/arch"
)

// TestCodeOracleFixturesCross runs the walk over helper armsz's AArch64
// and s390x annotation-fault fixtures: each fault is caught at its label,
// each clean function agrees with CFI everywhere.
func TestCodeOracleFixturesCross(t *testing.T) {
	for _, c := range []struct {
		a    *arch.Arch
		path string
	}{
		{arm64, filepath.Join("..", "..", "testdata", "codeoracle", "aarch64", "codeoracle-aarch64")},
		{s390x, filepath.Join("..", "..", "testdata", "codeoracle", "s390x", "codeoracle-s390x")},
	} {
		fx := loadFixture(t, c.path)
		for _, fn := range fx.funcs {
			t.Run(c.a.Name+"/"+fn.name, func(t *testing.T) {
				f := Analyze(c.a, fn.code, fn.addr, nil)
				for _, fd := range f.Findings {
					t.Errorf("finding: %s", f.Describe(fd))
				}
				dis := judgeCFI(t, fx, f)
				if fn.fault == 0 {
					for _, d := range dis {
						t.Errorf("clean function: %#x: %s", d.pc, d.what)
					}
					return
				}
				if len(dis) == 0 {
					t.Fatalf("fault at %#x not caught", fn.fault)
				}
				if dis[0].pc != fn.fault {
					t.Errorf("first disagreement at %#x (%s), fault at %#x", dis[0].pc, dis[0].what, fn.fault)
				}
				t.Logf("%#x: %s", dis[0].pc, dis[0].what)
			})
		}
	}
}

// FuzzAnalyzeCross walks arbitrary bytes with the AArch64 and s390x
// decoders.
func FuzzAnalyzeCross(f *testing.F) {
	f.Add(byte(0), []byte{0xfd, 0x7b, 0xbf, 0xa9, 0xfd, 0x03, 0x00, 0x91, 0xfd, 0x7b, 0xc1, 0xa8, 0xc0, 0x03, 0x5f, 0xd6})
	f.Add(byte(1), []byte{0xeb, 0xbf, 0xf0, 0x58, 0x00, 0x24, 0xa7, 0xfb, 0xff, 0x60, 0xeb, 0xbf, 0xf0, 0xf8, 0x00, 0x04, 0x07, 0xfe})
	f.Fuzz(func(t *testing.T, sel byte, text []byte) {
		const start = 0x400000
		a := arm64
		if sel&1 != 0 {
			a = s390x
		}
		fn := Analyze(a, text, start, fuzzOptions(sel>>1, text, start))
		checkFunc(t, fn, len(text))
	})
}

// TestCrossPrograms walks every function of the AArch64 and s390x
// fixtures (hand-written assembly, testdata/src/aarch64.s and s390x.s)
// and compares the code with their CFI: no finding, no disagreement.
func TestCrossPrograms(t *testing.T) {
	for _, c := range []struct {
		a    *arch.Arch
		name string
	}{{arm64, "aarch64-v3"}, {arm64, "aarch64be-v3"}, {s390x, "s390x-v3"}} {
		t.Run(c.name, func(t *testing.T) {
			p := loadProgram(t, filepath.Join("..", "..", "testdata", "bin", c.name))
			if p.eh == nil {
				t.Skip("no .eh_frame")
			}
			judged, n := 0, 0
			for _, fn := range p.funcs {
				f := Analyze(c.a, fn.code, fn.addr, nil)
				judged += f.Judged
				n += f.Decoded
				for _, fd := range f.Findings {
					if fd.Kind != KindUnknown && fd.Kind != KindFallThrough {
						t.Errorf("%s: %s", fn.name, f.Describe(fd))
					} else {
						t.Logf("%s: %s", fn.name, f.Describe(fd))
					}
				}
				if d := judgeCFIAll(p.elfFixture, f); len(d) > 0 {
					t.Errorf("%s: %d disagreements, first %#x: %s", fn.name, len(d), d[0].pc, d[0].what)
				}
			}
			t.Logf("%d functions, %d instructions reached, %d judged", len(p.funcs), n, judged)
		})
	}
}

// TestExtraProgram walks every function of the programs named by
// $SFDBG_WALK_EXTRA ("aarch64:PATH,s390x:PATH,x86-64:PATH"; compiled with
// a cross gcc by hand, not committed) and logs the findings and the
// differences with their CFI. Skipped when the variable is unset.
func TestExtraProgram(t *testing.T) {
	v := os.Getenv("SFDBG_WALK_EXTRA")
	if v == "" {
		t.Skip("SFDBG_WALK_EXTRA not set")
	}
	arches := map[string]*arch.Arch{"aarch64": arm64, "s390x": s390x, "x86-64": amd64}
	for _, item := range strings.Split(v, ",") {
		name, path, ok := strings.Cut(item, ":")
		a := arches[name]
		if !ok || a == nil {
			t.Fatalf("bad item %q", item)
		}
		p := loadProgram(t, path)
		if a == amd64 {
			r := analyzeProgram(t, p, true)
			t.Logf("%s: %d functions, %d instructions (%d unreached nops), %d judged (%.1f%%); findings %v; %d disagreements in %d functions",
				path, r.funcs, r.swept, r.padding, r.judged, 100*float64(r.judged)/float64(r.swept-r.padding), r.findings, len(r.dis), r.disFuncs)
			for _, e := range r.examples {
				t.Log(e)
			}
			continue
		}
		var r result
		r.findings = map[Kind]int{}
		for round := 0; round < 4; round++ {
			before := len(p.dead)
			r = result{findings: map[Kind]int{}}
			var examples []string
			for _, fn := range p.funcs {
				f := Analyze(a, fn.code, fn.addr, &Options{NoReturn: p.noReturn})
				if !f.Returns {
					p.dead[fn.addr] = true
				}
				r.funcs++
				r.decoded += f.Decoded
				r.judged += f.Judged
				for _, fd := range f.Findings {
					r.findings[fd.Kind]++
					if fd.Kind != KindUnknown && fd.Kind != KindFallThrough && len(examples) < 15 {
						examples = append(examples, fn.name+": "+f.Describe(fd))
					}
				}
				if d := judgeCFIAll(p.elfFixture, f); len(d) > 0 {
					r.disFuncs++
					r.dis = append(r.dis, d...)
					if len(examples) < 30 {
						examples = append(examples, fmt.Sprintf("%s: %#x %s", fn.name, d[0].pc, d[0].what))
					}
				}
			}
			r.examples = examples
			if len(p.dead) == before {
				break
			}
		}
		t.Logf("%s: %d functions, %d instructions reached, %d judged; findings %v; %d disagreements in %d functions",
			path, r.funcs, r.decoded, r.judged, r.findings, len(r.dis), r.disFuncs)
		for _, e := range r.examples {
			t.Log(e)
		}
	}
}
