package sframetest

import (
	"fmt"
	"testing"

	"github.com/sfdbg/sfdbg/sframe"
	"github.com/sfdbg/sfdbg/sframe/rule"
)

// rowAt sets the AMD64 fixed RA offset (-8) when b is for AMD64, encodes
// and parses b, and returns the row that covers pc (FindFDE, FindFRE, Row),
// or fails the test.
func rowAt(t testing.TB, b *Builder, pc uint64) rule.Row {
	t.Helper()
	if b.ABI == sframe.ABIAMD64LittleEndian {
		b.CFAFixedRAOffset = -8
	}
	s := MustParse(t, b)
	fde, err := s.FindFDE(pc)
	if err != nil {
		t.Fatal(err)
	}
	var fre sframe.FRE
	if err := s.FindFRE(fde, pc, &fre); err != nil {
		t.Fatal(err)
	}
	row, err := s.Row(fde, &fre)
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
func cfaOff(off int64) rule.Rule {
	return rule.Rule{Kind: rule.Offset, Reg: rule.CFA, Offset: off}
}

// diffSpec compares a parsed section with the Builder it was encoded from
// and describes the first difference, or returns "".
func diffSpec(b *Builder, s *sframe.Section) string {
	if s.Version != b.Version || s.ABI != b.ABI || s.Flags != b.Flags ||
		s.CFAFixedFPOffset != b.CFAFixedFPOffset || s.CFAFixedRAOffset != b.CFAFixedRAOffset ||
		int(s.AuxHdrLen) != len(b.AuxHeader) || len(s.FDEs()) != len(b.FDEs) {
		return fmt.Sprintf("header %+v does not match the builder", s.Header)
	}
	for i := range b.FDEs {
		want, got := &b.FDEs[i], &s.FDEs()[i]
		rep := want.RepSize
		if b.Version == sframe.Version1 {
			rep = 16
		}
		if got.Start != want.Start || got.Size != want.Size || got.PCType != want.PCType ||
			got.Type != want.Type || got.RepSize != rep || got.PAuthKey != want.PAuthKey ||
			got.Signal != (want.Signal && b.Version == sframe.Version3) || int(got.NumFREs) != len(want.FREs) {
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
				if f := want.Type == sframe.FDETypeFlex; f && flexControlWords(len(wr.Words), wr.Words[min(2, len(wr.Words)-1)])&(1<<j) != 0 {
					g = int32(uword(&gr, j))
				}
				if g != w {
					return fmt.Sprintf("FDE %d FRE %d word %d: got %d, want %d", i, k, j, g, w)
				}
			}
		}
	}
	return ""
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
func specOf(t *testing.T, data []byte, addr uint64) *Builder {
	t.Helper()
	s, err := sframe.ParseAt(data, addr)
	if err != nil {
		t.Fatal(err)
	}
	b, err := SpecFrom(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// uword returns data word i of r read as an unsigned value of its stored
// size, as FLEX control words are read.
func uword(r *sframe.FRE, i int) uint32 {
	switch r.Info.DataWordSize() {
	case sframe.DataWord1B:
		return uint32(r.Words[i]) & 0xff
	case sframe.DataWord2B:
		return uint32(r.Words[i]) & 0xffff
	}
	return uint32(r.Words[i])
}
