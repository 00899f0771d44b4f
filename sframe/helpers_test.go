package sframe

import (
	"debug/elf"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
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
			data, addr, err := ELFSection(f)
			typ := f.Type
			f.Close()
			if err != nil || typ == elf.ET_REL { // relocatable objects' start fields are unrelocated

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

// mustEncode encodes b or fails the test.
func mustEncode(t testing.TB, b *Builder) []byte {
	t.Helper()
	data, err := b.Encode()
	if err != nil {
		t.Fatalf("Encode: %v", err)
	}
	return data
}

// mustParse encodes b and parses the result at b.Addr, or fails the test.
func mustParse(t testing.TB, b *Builder) *Section {
	t.Helper()
	s, err := ParseAt(mustEncode(t, b), b.Addr)
	if err != nil {
		t.Fatalf("ParseAt: %v", err)
	}
	return s
}

// rowAt sets the AMD64 fixed RA offset (-8) when b is for AMD64, encodes
// and parses b, and returns the row Lookup finds for pc, or fails the test.
func rowAt(t testing.TB, b *Builder, pc uint64) Row {
	t.Helper()
	if b.ABI == ABIAMD64LittleEndian {
		b.CFAFixedRAOffset = -8
	}
	row, _, _, err := mustParse(t, b).Lookup(pc)
	if err != nil {
		t.Fatal(err)
	}
	return row
}

// mustFRE unwraps the result of DefaultFRE or FlexFRE.
func mustFRE(t testing.TB) func(FRESpec, error) FRESpec {
	return func(r FRESpec, err error) FRESpec {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
}

// cfaOff is a shorthand for the rule "saved at CFA+off".
func cfaOff(off int64) Rule { return Rule{Kind: RuleOffset, Reg: RegCFA, Offset: off} }

// amd64Func returns the FDE of a typical AMD64 function with a frame
// pointer: push %rbp at 0, mov %rsp,%rbp at 1, body from 4, leave at
// size-2, ret at size-1.
func amd64Func(start uint64, size uint32) FDESpec {
	return FDESpec{
		Start: start, Size: size,
		FREs: []FRESpec{
			{StartOff: 0, BaseReg: BaseRegSP, Words: []int32{8}},
			{StartOff: 1, BaseReg: BaseRegSP, Words: []int32{16, -16}},
			{StartOff: 4, BaseReg: BaseRegFP, Words: []int32{16, -16}},
			{StartOff: size - 1, BaseReg: BaseRegSP, Words: []int32{8, -16}},
		},
	}
}

// amd64Section returns a sorted AMD64 section of the given version with
// three functions and a PLT, at address 0x10000.
func amd64Section(v Version) *Builder {
	b := &Builder{
		Version: v, ABI: ABIAMD64LittleEndian, Flags: FlagFDESorted,
		CFAFixedRAOffset: -8, Addr: 0x10000,
		FDEs: []FDESpec{
			{Start: 0x1020, Size: 64, PCType: PCTypeMask, RepSize: 16, FREs: []FRESpec{
				{StartOff: 0, BaseReg: BaseRegSP, Words: []int32{8}},
				{StartOff: 11, BaseReg: BaseRegSP, Words: []int32{16}},
			}},
			amd64Func(0x1100, 40),
			amd64Func(0x1200, 300),
			{Start: 0x1400, Size: 70000, FREs: []FRESpec{
				{StartOff: 0, BaseReg: BaseRegSP, Words: []int32{8}},
				{StartOff: 1, BaseReg: BaseRegSP, Words: []int32{4112}},
				{StartOff: 69999, BaseReg: BaseRegSP, Words: []int32{131088}},
			}},
		},
	}
	if v == Version1 {
		b.FDEs[0].RepSize = 0
	}
	if v >= Version2 {
		b.Flags |= FlagFDEFuncStartPCRel
	}
	return b
}

// diffSections compares the decoded contents of two sections (header
// fields other than lengths and offsets, FDEs, FREs) and describes the first
// difference, or returns "".
func diffSections(a, b *Section) string {
	ha, hb := a.Header, b.Header
	ha.FRELen, hb.FRELen, ha.FDEOff, hb.FDEOff, ha.FREOff, hb.FREOff = 0, 0, 0, 0, 0, 0
	if ha != hb {
		return fmt.Sprintf("headers differ: %+v vs %+v", ha, hb)
	}
	for i := range a.fdes {
		fa, fb := &a.fdes[i], &b.fdes[i]
		type key struct {
			Start         uint64
			Size, NumFREs uint32
			PCType        FDEPCType
			Type          FDEType
			RepSize       uint8
			PAuthKey      PAuthKey
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

// diffSpec compares a parsed section with the Builder it was encoded from
// and describes the first difference, or returns "".
func diffSpec(b *Builder, s *Section) string {
	if s.Version != b.Version || s.ABI != b.ABI || s.Flags != b.Flags ||
		s.CFAFixedFPOffset != b.CFAFixedFPOffset || s.CFAFixedRAOffset != b.CFAFixedRAOffset ||
		int(s.AuxHdrLen) != len(b.AuxHeader) || len(s.FDEs()) != len(b.FDEs) {
		return fmt.Sprintf("header %+v does not match the builder", s.Header)
	}
	for i := range b.FDEs {
		want, got := &b.FDEs[i], &s.FDEs()[i]
		rep := want.RepSize
		if b.Version == Version1 {
			rep = 16
		}
		if got.Start != want.Start || got.Size != want.Size || got.PCType != want.PCType ||
			got.Type != want.Type || got.RepSize != rep || got.PAuthKey != want.PAuthKey ||
			got.Signal != (want.Signal && b.Version == Version3) || int(got.NumFREs) != len(want.FREs) {
			return fmt.Sprintf("FDE %d: got %+v, want %+v", i, *got, *want)
		}
		if want.ExactFREType && got.FREType != want.FREType {
			return fmt.Sprintf("FDE %d: FRE type %v, want %v", i, got.FREType, want.FREType)
		}
		frs, err := s.AllFREs(got)
		if err != nil {
			return fmt.Sprintf("FDE %d: %v", i, err)
		}
		for k, wr := range want.FREs {
			gr := frs[k]
			if gr.StartOff != wr.StartOff || gr.Info.MangledRA() != wr.MangledRA ||
				gr.NumWords() != len(wr.Words) || (len(wr.Words) > 0 && gr.Info.BaseReg() != wr.BaseReg) {
				return fmt.Sprintf("FDE %d FRE %d: got %+v, want %+v", i, k, gr, wr)
			}
			if wr.ExactWordSize && gr.Info.DataWordSize() != wr.WordSize {
				return fmt.Sprintf("FDE %d FRE %d: data-word size %v, want %v", i, k, gr.Info.DataWordSize(), wr.WordSize)
			}
			for j, w := range wr.Words {
				g := gr.Words[j]
				if f := want.Type == FDETypeFlex; f && flexControlWords(len(wr.Words), wr.Words[min(2, len(wr.Words)-1)])&(1<<j) != 0 {
					g = int32(gr.UWord(j))
				}
				if g != w {
					return fmt.Sprintf("FDE %d FRE %d word %d: got %d, want %d", i, k, j, g, w)
				}
			}
		}
	}
	return ""
}
