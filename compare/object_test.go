package compare

import (
	"bufio"
	"debug/elf"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sfdbg/sfdbg/sframe"
	"github.com/sfdbg/sfdbg/sframe/elfobj"
)

// The relocatable objects, archive and lld link of testdata/obj
// (scripts/build-object-fixtures.sh), and their references in
// testdata/golden/obj.
const objFixtures = "../testdata/obj"

// objectFixtures are the objects with a NAME.objdump and NAME.insn golden.
var objectFixtures = []string{"objsections-v1.o", "objsections-v2.o", "objsections-v3.o", "objsections-fs-v3.o",
	"objlib-v3.o", "objsections-clang22.o", "objsections-clang23.o", "objlib-clang22.o"}

// goldenFDECount counts the functions objdump --sframe lists in a golden.
func goldenFDECount(t *testing.T, name string) int {
	t.Helper()
	fh, err := os.Open(filepath.Join("../testdata/golden/obj", name+".objdump"))
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	n := 0
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		if strings.HasPrefix(strings.TrimSpace(sc.Text()), "func idx [") {
			n++
		}
	}
	return n
}

// goldenInstructions returns objdump's instruction starts in the file at
// path (golden NAME.insn, at section offsets) as addresses of the layout
// check uses (elfobj.Link), sorted.
func goldenInstructions(t *testing.T, path, name string) []uint64 {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	l := elfobj.Link(f)
	blocks := readInsnGoldenAt(t, filepath.Join("../testdata/golden/obj", name+".insn"))
	var out []uint64
	for _, b := range blocks {
		s := f.Section(b.Sec)
		if s == nil {
			t.Fatalf("%s.insn names section %s, which %s lacks", name, b.Sec, path)
		}
		base, _ := l.SectionAddr(s)
		if f.Type != elf.ET_REL {
			base = 0 // a linked file's golden holds addresses
		}
		pc := base + b.Start
		for _, n := range b.Lens {
			out = append(out, pc)
			pc += uint64(n)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// inFDEs counts the PCs of sorted pcs inside the FDEs of sec.
func inFDEs(pcs []uint64, sec *sframe.Section) int {
	n := 0
	for _, pc := range pcs {
		if _, err := sec.FindFDE(pc); err == nil {
			n++
		}
	}
	return n
}

func TestCheckObjectsAsObjdumpSeesThem(t *testing.T) {
	for _, name := range objectFixtures {
		t.Run(name+": every function objdump lists is compared at every instruction, without a finding", func(t *testing.T) {
			path := filepath.Join(objFixtures, name)
			rep, err := CheckFile(path, CheckOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range rep.Findings {
				t.Errorf("finding on a clean object: %s %s: %s", f.Kind, f.Function, f.Message)
			}
			want := goldenFDECount(t, name)
			s := rep.Summary
			if s.FunctionsSFrame != want || s.FunctionsBoth != want || s.FunctionsCFI != want {
				t.Errorf("functions: %d with SFrame, %d with CFI, %d compared; objdump --sframe lists %d", s.FunctionsSFrame, s.FunctionsCFI, s.FunctionsBoth, want)
			}
			_, sec := openSFrame(t, path)
			if insts := inFDEs(goldenInstructions(t, path, name), sec); s.Instructions != insts {
				t.Errorf("%d instructions compared, objdump -d finds %d in the SFrame FDEs", s.Instructions, insts)
			}
			t.Logf("%d functions, %d instructions", s.FunctionsBoth, s.Instructions)
		})
	}
}

func TestCheckObjectNamesFunctionsBySection(t *testing.T) {
	rep, err := CheckFile(filepath.Join(objFixtures, "objsections-fs-v3.o"), CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Findings) != 0 {
		t.Fatalf("findings on a clean object: %+v", rep.Findings)
	}
	// Each function has its own section in a -ffunction-sections object,
	// all at address 0 in the file: the layout tells them apart.
	f, err := elf.Open(filepath.Join(objFixtures, "objsections-fs-v3.o"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	l := elfobj.Link(f)
	sec, err := l.SFrame()
	if err != nil {
		t.Fatal(err)
	}
	var locs []string
	for _, fde := range sec.FDEs() {
		locs = append(locs, l.Location(fde.Start))
	}
	slices.Sort(locs)
	want := []string{".text.frame_user", ".text.hot.hot_sum", ".text.split_work", ".text.startup.main", ".text.unlikely.report_failure"}
	if !slices.Equal(locs, want) {
		t.Errorf("FDEs at %v, want %v", locs, want)
	}
}

// patchFirstCFA returns a copy of the object at path with the CFA offset
// of FRE 1 of the first FDE for a function in section secName raised by 3
// (no CFI row of x86-64 code has such a CFA, so the change cannot pass
// for an FRE boundary).
func patchFirstCFA(t *testing.T, path, secName string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	l := elfobj.Link(f)
	d, err := l.FindSFrame()
	if err != nil {
		t.Fatal(err)
	}
	sec, err := d.Parse()
	if err != nil {
		t.Fatal(err)
	}
	for i := range sec.FDEs() {
		fde := &sec.FDEs()[i]
		if s, _, _ := l.Locate(fde.Start); s == nil || s.Name != secName {
			continue
		}
		fres, err := sec.AllFREs(fde)
		if err != nil || len(fres) < 2 || (fres[1].Info.DataWordSize() != sframe.DataWord1B && fres[1].Info.DataWordSize() != sframe.DataWord2B) {
			t.Fatalf("FDE %d in %s: want 2 FREs with 1- or 2-byte data words, have %v (%v)", i, secName, fres, err)
		}
		// The FRE's first data word, the CFA offset; little-endian, so its
		// first byte is the low one (the offsets are multiples of 8).
		at := d.Off + int64(fres[1].Off) + int64(fde.FREType.Size()) + 1
		b[at] += 3
		return b
	}
	t.Fatalf("no FDE for a function in %s", secName)
	return nil
}

func TestCheckObjectFindsInjectedFault(t *testing.T) {
	for _, c := range []struct{ obj, sec, fn string }{
		{"objsections-v1.o", ".text.startup", "main"},
		{"objsections-v2.o", ".text", ""},
		{"objsections-v3.o", ".text.startup", "main"},
		{"objsections-fs-v3.o", ".text.split_work", "split_work"},
		{"objsections-clang22.o", ".text", ""},
	} {
		t.Run("a CFA offset raised by 3 in "+c.obj+" is found in "+c.sec, func(t *testing.T) {
			b := patchFirstCFA(t, filepath.Join(objFixtures, c.obj), c.sec)
			p := filepath.Join(t.TempDir(), c.obj)
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
			rep, err := CheckFile(p, CheckOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var got []Finding
			for _, f := range rep.Findings {
				if f.Kind == KindCFA {
					got = append(got, f)
				}
			}
			if len(got) == 0 {
				t.Fatalf("no cfa finding: %+v", rep.Findings)
			}
			f := got[0]
			if f.Section != c.sec || (c.fn != "" && f.Function != c.fn) {
				t.Errorf("finding for %s in %s+%#x, want %s in %s: %s", f.Function, f.Section, f.SectionOff, c.fn, c.sec, f.Message)
			}
			var text strings.Builder
			rep.WriteText(&text, Style{})
			if !strings.Contains(text.String(), "("+c.sec+"+0x") {
				t.Errorf("the report does not locate the function by section:\n%s", text.String())
			}
		})
	}
}

func TestCheckArchiveMemberByMember(t *testing.T) {
	path := filepath.Join(objFixtures, "libobj-v3.a")
	reps, err := CheckArchive(path, CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range reps {
		names = append(names, r.File)
		switch {
		case strings.HasSuffix(r.File, "(objlib-nosframe.o)"):
			if !r.NoSFrame {
				t.Errorf("%s: want NoSFrame, got %+v", r.File, r)
			}
		case r.Err != "" || r.Disagreements() > 0 || r.Summary.Instructions == 0:
			t.Errorf("%s: %s, %d disagreements, %d instructions", r.File, r.Err, r.Disagreements(), r.Summary.Instructions)
		}
	}
	want := []string{path + "(objsections-fs-v3.o)", path + "(objlib-v3.o)", path + "(objlib-nosframe.o)"}
	if !slices.Equal(names, want) {
		t.Errorf("reports %v, want %v", names, want)
	}
	t.Run("a member, an object, is not judged by the kernel's and libsframe's rules", func(t *testing.T) {
		reps, err := CheckArchive(path, CheckOptions{Consumers: true})
		if err != nil || len(reps[0].Acceptance) != 0 || reps[0].AcceptanceNotJudged == "" {
			t.Errorf("CheckArchive with Consumers: %v, %d verdicts, not judged %q", err, len(reps[0].Acceptance), reps[0].AcceptanceNotJudged)
		}
	})
}

func TestCheckLLDSequence(t *testing.T) {
	path := filepath.Join(objFixtures, "objsections-lld22")
	rep, err := CheckFile(path, CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// lld copied both objects' .sframe: 5 + 3 FDEs, all compared.
	if s := rep.Summary; s.FunctionsSFrame != 8 || s.FunctionsBoth != 8 {
		t.Errorf("functions: %d with SFrame, %d compared; want 8 (two sections back to back)", s.FunctionsSFrame, s.FunctionsBoth)
	}
	if insts := inFDEsOfFile(t, path); rep.Summary.Instructions != insts {
		t.Errorf("%d instructions compared, objdump -d finds %d in the SFrame FDEs", rep.Summary.Instructions, insts)
	}
	for _, f := range rep.Findings {
		switch {
		case f.Kind == KindNoFDE && f.Function == "_start":
			// crt1.o has no .sframe: Debian's glibc is assembled without --gsframe.
			if !strings.Contains(f.Message, "assembled without --gsframe (a linker that concatenates .sframe, as lld, gold and mold do, copies every input's") {
				t.Errorf("no-fde reason: %s", f.Message)
			}
		default:
			t.Errorf("unexpected finding %s %s: %s", f.Kind, f.Function, f.Message)
		}
	}
}

// inFDEsOfFile is inFDEs for a linked fixture of testdata/obj.
func inFDEsOfFile(t *testing.T, path string) int {
	t.Helper()
	_, sec := openSFrame(t, path)
	if sec.Parts() != 2 {
		t.Errorf("%s: %d SFrame sections, want 2", path, sec.Parts())
	}
	return inFDEs(goldenInstructions(t, path, filepath.Base(path)), sec)
}

// The kernel and libsframe read linked files: an object gets no verdicts,
// and says why, where a linked file gets both.
func TestObjectsGetNoConsumerVerdicts(t *testing.T) {
	rep, err := CheckFile(filepath.Join(objFixtures, "objsections-v3.o"), CheckOptions{Consumers: true, KernelProfile: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Acceptance) != 0 || rep.AcceptanceNotJudged == "" || rep.Disagreements() != 0 {
		t.Errorf("object: %d verdicts, not judged %q, %d disagreements; want none, a reason, none",
			len(rep.Acceptance), rep.AcceptanceNotJudged, rep.Disagreements())
	}
	var b strings.Builder
	rep.WriteText(&b, Style{})
	if !strings.Contains(b.String(), "not judged: a relocatable object") || strings.Contains(b.String(), "rejects") {
		t.Errorf("object report:\n%s", b.String())
	}
	linked, err := CheckFile(filepath.Join("..", "testdata", "bin", "deep-v3-O2"), CheckOptions{Consumers: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(linked.Acceptance) != 2 || linked.AcceptanceNotJudged != "" {
		t.Errorf("linked file: %d verdicts, not judged %q", len(linked.Acceptance), linked.AcceptanceNotJudged)
	}
}

// openSFrame opens the ELF file at path and its SFrame section (through
// elfobj, relocated for an object), closing the file when the test ends.
func openSFrame(t *testing.T, path string) (*elf.File, *sframe.Section) {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	sec, err := elfobj.FromELF(f)
	if err != nil {
		t.Fatal(err)
	}
	return f, sec
}
