package compare

import (
	"debug/elf"
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/sfdbg/sfdbg/frames"
	"github.com/sfdbg/sfdbg/sframe"
)

const fixtures = "../testdata/bin"

// fixture returns the path of a committed fixture binary.
func fixture(t *testing.T, name string) string {
	t.Helper()
	p := filepath.Join(fixtures, name)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("fixture %s missing (run scripts/build-fixtures.sh): %v", name, err)
	}
	return p
}

// fixtureELF returns an ELF fixture's bytes, to patch a copy of, and the
// file opened for reading its headers.
func fixtureELF(t *testing.T, name string) ([]byte, *elf.File) {
	t.Helper()
	src := fixture(t, name)
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	f, err := elf.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	return b, f
}

func TestCleanFixturesCheckClean(t *testing.T) {
	for _, name := range []string{"deep-v1-O0", "deep-v1-O2", "deep-v2-O0", "deep-v2-O2", "deep-v3-O0", "deep-v3-O2", "features-v3", "sqlite-v2", "sqlite-v3",
		"deep-cet-v3-O0", "deep-cet-v3-O2", "cet-v3"} {
		t.Run(name+" has no disagreement apart from the linker's .plt.got stub", func(t *testing.T) {
			rep, err := CheckFile(fixture(t, name), CheckOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Summary.Instructions == 0 || rep.Summary.FunctionsBoth == 0 {
				t.Fatalf("nothing compared: %+v", rep.Summary)
			}
			for _, f := range rep.Findings {
				if !f.Kind.Disagreement() {
					continue
				}
				// GNU ld gives .plt.got entries (no push) the lazy-PLT CFA sp+16;
				// CFI says sp+8. A real toolchain finding, see README.
				if f.Kind == KindPLT && f.Rules[frames.MethodSFrame] == "cfa=rsp+16 ra=c-8 fp=u" && f.Rules[frames.MethodCFI] == "cfa=rsp+8 ra=c-8 fp=u" {
					continue
				}
				t.Errorf("unexpected finding: %v %s", f.Kind, f.Message)
			}
		})
	}
}

func TestPreErrata2AssemblersMissTheOutermostFrame(t *testing.T) {
	// GNU as 2.40 and 2.44 ignore .cfi_undefined rip and give _start a
	// plain sp+8 row; CFI says RA is undefined there.
	for _, name := range []string{"features-v1", "features-v2"} {
		t.Run(name, func(t *testing.T) {
			rep, err := CheckFile(fixture(t, name), CheckOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var kinds []Kind
			for _, f := range rep.Findings {
				if f.Kind.Disagreement() {
					kinds = append(kinds, f.Kind)
					if f.Kind != KindOutermost || f.Function != "_start" {
						t.Errorf("unexpected finding %v in %s: %s", f.Kind, f.Function, f.Message)
					}
				}
			}
			if len(kinds) != 1 {
				t.Errorf("want exactly one outermost finding in _start, got %v", kinds)
			}
		})
	}
}

func TestFeaturesV2ReportsSkippedDRAPFunction(t *testing.T) {
	rep, err := CheckFile(fixture(t, "features-v2"), CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, f := range rep.Findings {
		if f.Function == "flex_drap" {
			found = true
			if f.Kind != KindSkipped {
				t.Errorf("flex_drap: kind %v, want %v (v2 cannot express a CFA based on r10): %s", f.Kind, KindSkipped, f.Message)
			}
		}
	}
	if !found {
		t.Errorf("flex_drap, which 2.44 drops, not reported; findings: %+v", rep.Findings)
	}
}

// patched copies an ELF fixture to a temporary file and lets fn patch its
// .sframe section bytes in place; fn gets the parsed section and the
// section bytes (whose offsets are section offsets).
func patched(t *testing.T, name string, fn func(sec *sframe.Section, data []byte)) string {
	t.Helper()
	b, f := fixtureELF(t, name)
	defer f.Close()
	s := f.Section(".sframe")
	if s == nil {
		t.Fatalf("%s has no .sframe", name)
	}
	data := b[s.Offset : s.Offset+s.Size]
	sec, err := sframe.ParseAt(append([]byte(nil), data...), s.Addr)
	if err != nil {
		t.Fatal(err)
	}
	fn(sec, data)
	out := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(out, b, 0o755); err != nil {
		t.Fatal(err)
	}
	return out
}

// fdeFor returns the FDE of the named function, found through the symbol table.
func fdeFor(t *testing.T, name, fn string, sec *sframe.Section) *sframe.FDE {
	t.Helper()
	f, err := elf.Open(filepath.Join(fixtures, name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, _ := f.Symbols()
	for _, s := range syms {
		if s.Name == fn {
			fde, err := sec.FindFDE(s.Value)
			if err != nil {
				t.Fatalf("%s: %v", fn, err)
			}
			return fde
		}
	}
	t.Fatalf("no symbol %s in %s", fn, name)
	return nil
}

// nthFRE returns FRE i of fde.
func nthFRE(t *testing.T, sec *sframe.Section, fde *sframe.FDE, i int) sframe.FRE {
	t.Helper()
	fres, err := sec.AllFREs(fde)
	if err != nil || i >= len(fres) {
		t.Fatalf("FDE %d has %d FREs (%v), want FRE %d", fde.Index, len(fres), err, i)
	}
	return fres[i]
}

func TestCheckNamesEveryInjectedFault(t *testing.T) {
	const bin = "deep-v3-O0"
	const fn = "level1" // push %rbp; mov %rsp,%rbp; ...: FREs sp+8, sp+16 c-16, fp+16 c-16, ...
	le := binary.LittleEndian
	tests := []struct {
		name  string
		patch func(t *testing.T, sec *sframe.Section, data []byte)
		want  Kind
	}{
		{"a wrong CFA offset in one FRE is a CFA disagreement", func(t *testing.T, sec *sframe.Section, data []byte) {
			fre := nthFRE(t, sec, fdeFor(t, bin, fn, sec), 1) // sp+16 after push %rbp
			word := fre.Off + 1 + 1                           // ADDR1 start, info byte, first data word
			data[word] += 8
		}, KindCFA},
		{"a wrong FP offset in one FRE is an FP disagreement", func(t *testing.T, sec *sframe.Section, data []byte) {
			fre := nthFRE(t, sec, fdeFor(t, bin, fn, sec), 1)
			data[fre.Off+1+1+1] -= 8 // second data word: FP at c-16 -> c-24
		}, KindFP},
		{"an FRE starting one byte late is an FRE boundary finding", func(t *testing.T, sec *sframe.Section, data []byte) {
			fre := nthFRE(t, sec, fdeFor(t, bin, fn, sec), 1)
			data[fre.Off]++
		}, KindFREBoundary},
		{"a function size cut short is a function-bounds finding", func(t *testing.T, sec *sframe.Section, data []byte) {
			fde := fdeFor(t, bin, fn, sec)
			le.PutUint32(data[fde.Off+8:], fde.Size-4) // v3 FDE index: int64 start, uint32 size
		}, KindBounds},
		{"a function start moved is a function-bounds finding", func(t *testing.T, sec *sframe.Section, data []byte) {
			fde := fdeFor(t, bin, fn, sec)
			le.PutUint64(data[fde.Off:], uint64(fde.StartField+2))
		}, KindBounds},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := patched(t, bin, func(sec *sframe.Section, data []byte) { tc.patch(t, sec, data) })
			rep, err := CheckFile(path, CheckOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var hit bool
			for _, f := range rep.Findings {
				if !f.Kind.Disagreement() || f.Kind == KindPLT {
					continue
				}
				if f.Function != fn && f.Kind != KindFormat {
					t.Errorf("finding in %q, want only %q: %v %s", f.Function, fn, f.Kind, f.Message)
					continue
				}
				if f.Kind == tc.want {
					hit = true
				}
			}
			if !hit {
				t.Errorf("no %v finding for %s; findings:", tc.want, fn)
				for _, f := range rep.Findings {
					t.Logf("  %v %s", f.Kind, f.Message)
				}
			}
		})
	}
}

func TestBigEndianFilesAreCompared(t *testing.T) {
	// Until frames/cfi replaced Delve's little-endian CFI parser these
	// were only validated (no-cfi).
	for _, tc := range []struct {
		name      string
		outermost int // GNU as 2.44 ignores .cfi_undefined: _start is not outermost in v2
	}{{"s390x-v3", 0}, {"aarch64be-v3", 0}, {"aarch64be-v2", 1}} {
		t.Run(tc.name+" is compared at every row boundary", func(t *testing.T) {
			rep, err := CheckFile(fixture(t, tc.name), CheckOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Summary.FunctionsBoth == 0 || rep.Summary.Instructions == 0 {
				t.Errorf("not compared: %+v", rep.Summary)
			}
			n := 0
			for _, f := range rep.Findings {
				switch {
				case f.Kind == KindOutermost && f.Function == "_start":
					n++
				default:
					t.Errorf("unexpected finding %v %s", f.Kind, f.Message)
				}
			}
			if n != tc.outermost {
				t.Errorf("%d outermost findings at _start, want %d", n, tc.outermost)
			}
		})
	}
}

func TestAArch64LittleEndianIsComparedAtRowBoundaries(t *testing.T) {
	rep, err := CheckFile(fixture(t, "aarch64-v3"), CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Summary.FunctionsBoth == 0 || rep.Summary.Instructions == 0 || rep.Disagreements() != 0 {
		t.Errorf("aarch64-v3: %+v %+v", rep.Summary, rep.Findings)
	}
}

func TestCorruptIBTPLTRowIsFoundInEveryRepetition(t *testing.T) {
	// deep-cet-v3-O*: -z ibtplt. Lazy .plt entries are endbr64 (4), push
	// (5), jmp (5), xchg %ax,%ax (2): SFrame sp+8 at +0, sp+16 from +9.
	// .plt.sec entries are endbr64, jmp *GOT(%rip) (6), nopw (6): sp+8.
	for _, bin := range []string{"deep-cet-v3-O0", "deep-cet-v3-O2"} {
		f, err := elf.Open(fixture(t, bin))
		if err != nil {
			t.Fatal(err)
		}
		plt, pltSec := f.Section(".plt"), f.Section(".plt.sec")
		f.Close()
		if plt == nil || pltSec == nil {
			t.Fatalf("%s: no .plt or .plt.sec", bin)
		}
		entries := int(pltSec.Size / 16) // one .plt.sec and one lazy .plt entry per function
		for _, tc := range []struct {
			name      string
			sec       *elf.Section
			fre       int // the FRE of the section's PC-mask FDE to corrupt
			perEntry  int // instructions per entry that FRE covers
			wantStart uint64
		}{
			{"the lazy .plt's after-push row sp+16 -> sp+24", plt, 1, 2, plt.Addr + 16 + 9},
			{"the .plt.sec row sp+8 -> sp+16", pltSec, 0, 3, pltSec.Addr},
		} {
			t.Run(bin+": "+tc.name+" is a plt finding at every instruction of every entry", func(t *testing.T) {
				path := patched(t, bin, func(sec *sframe.Section, data []byte) {
					fde, err := sec.FindFDE(tc.sec.Addr + tc.sec.Size - 1)
					if err != nil || fde.PCType != sframe.PCTypeMask || fde.FREType != sframe.FRETypeAddr1 {
						t.Fatalf("no ADDR1 PC-mask FDE at the end of %s: %v %+v", tc.sec.Name, err, fde)
					}
					fre := nthFRE(t, sec, fde, tc.fre)
					data[fre.Off+1+1] += 8 // ADDR1 start, info byte, CFA offset
				})
				rep, err := CheckFile(path, CheckOptions{})
				if err != nil {
					t.Fatal(err)
				}
				var hit *Finding
				for i, f := range rep.Findings {
					if f.Kind == KindPLT && f.PC >= tc.sec.Addr && f.PC < tc.sec.Addr+tc.sec.Size {
						hit = &rep.Findings[i]
					}
				}
				if hit == nil {
					t.Fatalf("no plt finding in %s; findings: %+v", tc.sec.Name, rep.Findings)
				}
				if want := entries * tc.perEntry; hit.PC != tc.wantStart || hit.Instructions != want {
					t.Errorf("plt finding at %#x over %d instructions, want %#x over %d: %s", hit.PC, hit.Instructions, tc.wantStart, want, hit.Message)
				}
			})
		}
	}
}

func TestPCMaskFDEWithoutCodeIsComparedAtEveryRepetitionsFREs(t *testing.T) {
	// Without decodable code (here: no executable section known) a PC-mask
	// FDE is compared at its FRE starts in every repetition, not only the
	// first.
	f, sec := openSFrame(t, fixture(t, "deep-cet-v3-O2"))
	plt := f.Section(".plt")
	c := &checker{f: f, sec: sec}
	fde, err := sec.FindFDE(plt.Addr + plt.Size - 1)
	if err != nil || fde.PCType != sframe.PCTypeMask {
		t.Fatalf("no PC-mask FDE in .plt: %v", err)
	}
	own := []Range{{fde.Start, fde.End()}}
	got := c.boundaries(fde, own, nil, nil, nil)
	var want []uint64
	for pc := fde.Start; pc < fde.End(); pc += uint64(fde.RepSize) {
		want = append(want, pc, pc+9) // FREs at +0 (sp+8) and +9 (sp+16)
	}
	if !slices.Equal(got, want) {
		t.Errorf("boundaries %#x, want %#x", got, want)
	}
}
