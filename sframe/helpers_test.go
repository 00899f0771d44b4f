package sframe_test

import (
	"debug/elf"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/sfdbg/sfdbg/sframe"
	"github.com/sfdbg/sfdbg/sframe/elfobj"
	"github.com/sfdbg/sfdbg/sframe/rule"
	"github.com/sfdbg/sfdbg/sframe/sframetest"
)

// fixture is the SFrame section of one ELF file of the test corpus.
type fixture struct {
	name string // file name
	data []byte // section bytes
	addr uint64 // section address
}

// fixtureDirs lists the directories searched for fixture binaries: the
// committed corpus ../testdata/bin and, for ad-hoc runs against other
// builds, the directories in $SFRAME_EXTRA_FIXTURES (colon-separated).
func fixtureDirs() []string {
	dirs := []string{filepath.Join("..", "testdata", "bin")}
	if extra := os.Getenv("SFRAME_EXTRA_FIXTURES"); extra != "" {
		dirs = append(dirs, strings.Split(extra, ":")...)
	}
	return dirs
}

// loadFixtures returns the SFrame sections of every ELF file in the fixture
// directories, sorted by name. Files without .sframe are left out.
func loadFixtures(t testing.TB) []fixture {
	t.Helper()
	var out []fixture
	seen := map[string]bool{}
	for _, dir := range fixtureDirs() {
		ents, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range ents {
			if e.IsDir() {
				continue
			}
			path := filepath.Join(dir, e.Name())
			f, err := elf.Open(path)
			if err != nil {
				continue
			}
			d, err := elfobj.AsIs(f).FindSFrame()
			data, addr := d.Data, d.Addr
			typ := f.Type
			f.Close()
			if err != nil || d.CTFFrame || typ == elf.ET_REL { // relocatable objects' start fields are unrelocated

				continue
			}
			name := e.Name()
			if seen[name] {
				name = path
			}
			seen[name] = true
			out = append(out, fixture{name: name, data: data, addr: addr})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// fixturesOrSkip is loadFixtures, skipping the test when there are none.
func fixturesOrSkip(t testing.TB) []fixture {
	t.Helper()
	fx := loadFixtures(t)
	if len(fx) == 0 {
		t.Fatal("no fixture binaries with .sframe in ../testdata/bin (build them with scripts/build-fixtures.sh)")
	}
	return fx
}

// fixtureByName returns the named fixture, or skips the test.
func fixtureByName(t testing.TB, name string) fixture {
	t.Helper()
	for _, f := range loadFixtures(t) {
		if f.name == name {
			return f
		}
	}
	t.Fatalf("fixture %s not found in ../testdata/bin (build it with scripts/build-fixtures.sh)", name)
	return fixture{}
}

// rowAt sets the AMD64 fixed RA offset (-8) when b is for AMD64, encodes
// and parses b, and returns the row lookup finds for pc, or fails the test.
func rowAt(t testing.TB, b *sframetest.Builder, pc uint64) rule.Row {
	t.Helper()
	if b.ABI == sframe.ABIAMD64LittleEndian {
		b.CFAFixedRAOffset = -8
	}
	row, _, _, err := lookup(sframetest.MustParse(t, b), pc)
	if err != nil {
		t.Fatal(err)
	}
	return row
}

// cfaOff is a shorthand for the rule "saved at CFA+off".
func cfaOff(off int64) rule.Rule {
	return rule.Rule{Kind: rule.Offset, Reg: rule.CFA, Offset: off}
}

// diffSections compares the decoded contents of two sections (header
// fields other than lengths and offsets, FDEs, FREs) and describes the first
// difference, or returns "".
func diffSections(a, b *sframe.Section) string {
	ha, hb := a.Header, b.Header
	ha.FRELen, hb.FRELen, ha.FDEOff, hb.FDEOff, ha.FREOff, hb.FREOff = 0, 0, 0, 0, 0, 0
	if ha != hb {
		return fmt.Sprintf("headers differ: %+v vs %+v", ha, hb)
	}
	for i := range a.FDEs() {
		fa, fb := &a.FDEs()[i], &b.FDEs()[i]
		type key struct {
			Start         uint64
			Size, NumFREs uint32
			PCType        sframe.FDEPCType
			Type          sframe.FDEType
			RepSize       uint8
			PAuthKey      rule.PAuthKey
			Signal        bool
		}
		ka := key{fa.Start, fa.Size, fa.NumFREs, fa.PCType, fa.Type, fa.RepSize, fa.PAuthKey, fa.Signal}
		kb := key{fb.Start, fb.Size, fb.NumFREs, fb.PCType, fb.Type, fb.RepSize, fb.PAuthKey, fb.Signal}
		if ka != kb {
			return fmt.Sprintf("FDE %d differs: %+v vs %+v", i, ka, kb)
		}
		ra, erra := a.AllFREs(fa)
		rb, errb := b.AllFREs(fb)
		if (erra == nil) != (errb == nil) || len(ra) != len(rb) {
			return fmt.Sprintf("FDE %d FREs differ: %d (%v) vs %d (%v)", i, len(ra), erra, len(rb), errb)
		}
		for k := range ra {
			ra[k].Off, rb[k].Off = 0, 0
			if ra[k] != rb[k] {
				return fmt.Sprintf("FDE %d FRE %d differs: %+v vs %+v", i, k, ra[k], rb[k])
			}
		}
	}
	return ""
}

// lookup returns the row that covers pc with its FDE and FRE the way the
// unwinders find it: FindFDE, then FindFRE, then RowInto. Errors: ErrNoFDE,
// ErrNoFRE or a *FormatError. It does not allocate, except that the
// section's FRE index is built once lookups have paid for it.
func lookup(s *sframe.Section, pc uint64) (row rule.Row, fde *sframe.FDE, fre sframe.FRE, err error) {
	// Named results: the FRE and row are built in place, not copied.
	if fde, err = s.FindFDE(pc); err != nil {
		return row, nil, fre, err
	}
	if err = s.FindFRE(fde, pc, &fre); err != nil {
		return row, fde, fre, err
	}
	err = s.RowInto(&row, fde, &fre)
	return row, fde, fre, err
}

// count returns the number of problems of severity sev.
func count(ps []sframe.Problem, sev sframe.Severity) int {
	n := 0
	for _, p := range ps {
		if p.Severity == sev {
			n++
		}
	}
	return n
}

// has reports whether a problem of kind k was found.
func has(ps []sframe.Problem, k sframe.ProblemKind) bool {
	for _, p := range ps {
		if p.Kind == k {
			return true
		}
	}
	return false
}

// firstDiff returns the first offset at which a and b differ.
func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// specOf parses a section and turns it back into a Builder.
func specOf(t *testing.T, data []byte, addr uint64) *sframetest.Builder {
	t.Helper()
	s, err := sframe.ParseAt(data, addr)
	if err != nil {
		t.Fatal(err)
	}
	b, err := sframetest.SpecFrom(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// openELF opens the ELF file at path and parses its SFrame section as
// sfdbg dump does (elfobj.AsIs: an object's sections at 0, as objdump
// shows them).
func openELF(path string) (*sframe.Section, error) {
	f, err := elf.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	s, err := elfobj.AsIs(f).SFrame()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}
