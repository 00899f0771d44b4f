package compare

import (
	"debug/elf"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"testing"

	"github.com/sfdbg/sfdbg/frames"
	"github.com/sfdbg/sfdbg/sframe/sframetest"
)

// x86Fixtures are the x86-64 fixtures with a testdata/golden/NAME.insn
// (scripts/fixtures-lib.sh insn_golden).
var x86Fixtures = []string{"deep-v1-O0", "deep-v1-O2", "deep-v2-O0", "deep-v2-O2", "deep-v3-O0", "deep-v3-O2",
	"features-v1", "features-v2", "features-v3", "sqlite-v2", "sqlite-v3", "deep-cet-v3-O0", "deep-cet-v3-O2", "cet-v3"}

// readInsnGolden reads testdata/golden/NAME.insn.
func readInsnGolden(t *testing.T, name string) []sframetest.InsnBlock {
	t.Helper()
	return readInsnGoldenAt(t, filepath.Join("../testdata/golden", name+".insn"))
}

// readInsnGoldenAt reads the .insn golden file at path.
func readInsnGoldenAt(t *testing.T, path string) []sframetest.InsnBlock {
	t.Helper()
	b, err := sframetest.ReadInsnGolden(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestCheckBoundariesAreObjdumps(t *testing.T) {
	for _, name := range x86Fixtures {
		t.Run(name+": check compares at exactly objdump's instructions in every SFrame FDE", func(t *testing.T) {
			f, sec := openSFrame(t, fixture(t, name))
			c := &checker{f: f, sec: sec}
			for _, s := range f.Sections {
				if s.Flags&elf.SHF_EXECINSTR != 0 && s.Type == elf.SHT_PROGBITS {
					c.text = append(c.text, textRange{addr: s.Addr, size: s.Size, r: s})
				}
			}
			var want []uint64
			for _, b := range readInsnGolden(t, name) {
				pc := b.Start
				for _, n := range b.Lens {
					want = append(want, pc)
					pc += uint64(n)
				}
			}
			slices.Sort(want)
			path := fixture(t, name)
			m := &frames.Module{Name: name, Path: path, OpenPath: path, Start: 0, End: 1 << 40}
			defer m.Close()
			oracle, err := FramesCode(m)
			if err != nil {
				t.Fatal(err)
			}
			fdes := sec.FDEs()
			total, walked := 0, 0
			for i, own := range c.owned() {
				if len(own) == 0 {
					continue
				}
				got := slices.Clone(c.boundaries(&fdes[i], own, nil, nil, nil))
				var exp []uint64
				for _, r := range own {
					lo, _ := slices.BinarySearch(want, r.Start)
					hi, _ := slices.BinarySearch(want, r.End)
					exp = append(exp, want[lo:hi]...)
				}
				total += len(exp)
				if !slices.Equal(got, exp) {
					t.Errorf("FDE %d [%#x, %#x): %d boundaries, objdump %d", i, fdes[i].Start, fdes[i].End(), len(got), len(exp))
				}
				// With the oracle's walk, whose instructions are not
				// decoded again: the same.
				end := own[len(own)-1].End
				text, ok := c.funcCode(fdes[i].Start, end)
				if !ok {
					continue
				}
				walked++
				got = c.boundaries(&fdes[i], own, nil, nil, oracle(text, fdes[i].Start))
				if !slices.Equal(got, exp) {
					t.Errorf("FDE %d [%#x, %#x) with the oracle's walk: %d boundaries, objdump %d", i, fdes[i].Start, fdes[i].End(), len(got), len(exp))
				}
			}
			if walked == 0 {
				t.Error("no FDE's code walked")
			}
			t.Logf("%d instructions in SFrame FDEs, as objdump delimits them", total)
		})
	}
}

// BenchmarkCheckFile measures a whole static check without the code
// oracle (sfdbg check --no-code), reporting compared instructions per
// wall-second and per CPU-second (issue 22: at least 5 M/s), on the
// fixtures and on the host's libc.so.6 when it has an .sframe section
// (glibc 2.42+ built with --enable-sframe; skipped otherwise: without one
// check compares nothing), or on the libc named by $SFDBG_BENCH_LIBC
// (scripts/build-sframe-libc.sh builds one). The collector runs at
// GOGC=400, as sfdbg check sets it (cmd/sfdbg check.go) unless GOGC is
// set.
func BenchmarkCheckFile(b *testing.B) {
	if os.Getenv("GOGC") == "" {
		defer debug.SetGCPercent(debug.SetGCPercent(400))
	}
	libc := "/lib/x86_64-linux-gnu/libc.so.6"
	if p := os.Getenv("SFDBG_BENCH_LIBC"); p != "" {
		libc = p
	}
	paths := []string{filepath.Join(fixtures, "sqlite-v3"), filepath.Join(fixtures, "deep-cet-v3-O2"),
		filepath.Join(fixtures, "cet-v3"), libc}
	for _, path := range paths {
		b.Run(filepath.Base(path), func(b *testing.B) {
			if f, err := elf.Open(path); err != nil {
				b.Skipf("no %s: %v", path, err)
			} else {
				sec := f.Section(".sframe")
				f.Close()
				if sec == nil {
					b.Skipf("%s has no .sframe section: nothing to compare", path)
				}
			}
			n := 0
			cpu0 := cpuSeconds()
			for b.Loop() {
				rep, err := CheckFile(path, CheckOptions{})
				if err != nil {
					b.Fatal(err)
				}
				n += rep.Summary.Instructions
			}
			cpu := cpuSeconds() - cpu0
			b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "insts/s")
			if cpu > 0 {
				b.ReportMetric(float64(n)/cpu, "insts/cpu-s")
			}
		})
	}
}
