package sframe_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/sfdbg/sfdbg/sframe"
	"github.com/sfdbg/sfdbg/sframe/sframetest"
)

// seqPart encodes a v2 AMD64 section at addr with PC-relative FDE starts
// (as LLVM writes them) for functions of 16 bytes at starts, each with the
// FREs sp+8 at 0 and sp+cfa at 1.
func seqPart(t testing.TB, addr uint64, cfa int32, starts ...uint64) []byte {
	t.Helper()
	b := &sframetest.Builder{Version: sframe.Version2, ABI: sframe.ABIAMD64LittleEndian,
		Flags: sframe.FlagFDEFuncStartPCRel, CFAFixedRAOffset: -8, Addr: addr}
	for _, s := range starts {
		b.FDEs = append(b.FDEs, sframetest.FDESpec{Start: s, Size: 16, FREs: []sframetest.FRESpec{
			{StartOff: 0, BaseReg: sframe.BaseRegSP, Words: []int32{8}},
			{StartOff: 1, BaseReg: sframe.BaseRegSP, Words: []int32{cfa}},
		}})
	}
	data, err := b.Encode()
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// concat lays sections out as lld does: each at an 8-byte boundary,
// zeros between.
func concat(parts ...[]byte) []byte {
	var out []byte
	for _, p := range parts {
		for len(out)%8 != 0 {
			out = append(out, 0)
		}
		out = append(out, p...)
	}
	return out
}

// twoSections lays out, as lld does, the section first builds at addr and,
// after it, the one second builds at its own address off2 bytes on.
func twoSections(addr uint64, first, second func(addr uint64) []byte) (data []byte, off2 uint64) {
	a := first(addr)
	off2 = uint64(len(a)+7) &^ 7
	return concat(a, second(addr+off2)), off2
}

func TestSequenceOfSections(t *testing.T) {
	const addr = 0x1000
	data, off2 := twoSections(addr, func(a uint64) []byte { return seqPart(t, a, 16, 0x2000, 0x2010) },
		func(a uint64) []byte { return seqPart(t, a, 32, 0x3000) })

	s, err := sframe.ParseAt(data, addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("both sections' FDEs are read, each in its own section", func(t *testing.T) {
		if s.Parts() != 2 || len(s.FDEs()) != 3 || s.NumFDEs != 3 {
			t.Fatalf("%d parts, %d FDEs (header %d), want 2 and 3", s.Parts(), len(s.FDEs()), s.NumFDEs)
		}
		for _, c := range []struct {
			pc  uint64
			cfa int32
		}{{0x2001, 16}, {0x2011, 16}, {0x3001, 32}} {
			fde, err := s.FindFDE(c.pc)
			if err != nil {
				t.Fatalf("FindFDE(%#x): %v", c.pc, err)
			}
			var fre sframe.FRE
			if err := s.FindFRE(fde, c.pc, &fre); err != nil {
				t.Fatalf("FindFRE(%#x): %v", c.pc, err)
			}
			row, err := s.Row(fde, &fre)
			if err != nil || row.CFA.Offset != int64(c.cfa) {
				t.Errorf("row at %#x: CFA %v (%v), want sp+%d", c.pc, row.CFA, err, c.cfa)
			}
		}
	})
	t.Run("it validates without trailing-data or overlap problems", func(t *testing.T) {
		for _, p := range s.Validate() {
			if p.Severity == sframe.SeverityError || p.Kind == sframe.ProblemTrailingData {
				t.Errorf("%v", p)
			}
		}
	})
	t.Run("the dump prints each section once", func(t *testing.T) {
		var b strings.Builder
		if err := s.WriteText(&b); err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(b.String(), "Contents of the SFrame section"); n != 2 {
			t.Errorf("%d section dumps, want 2:\n%s", n, b.String())
		}
		if !strings.Contains(b.String(), "SFrame section 2 of 2 in this ELF section") {
			t.Errorf("the second section is not named:\n%s", b.String())
		}
	})
	t.Run("a broken second section is an error at its offset in the whole data", func(t *testing.T) {
		bad := append([]byte(nil), data...)
		bad[off2+2] = 9 // version
		_, err := sframe.ParseAt(bad, addr)
		var fe *sframe.FormatError
		if !errors.As(err, &fe) || fe.Off != int64(off2)+2 {
			t.Errorf("ParseAt: %v, want a *FormatError at byte %#x", err, off2+2)
		}
	})
	t.Run("non-zero bytes after a section are trailing data, not a sequence", func(t *testing.T) {
		junk := append(seqPart(t, addr, 16, 0x2000, 0x2010), 1, 2, 3, 4, 5, 6, 7, 8, 0xe2, 0xde, 2, 4)
		s, err := sframe.ParseAt(junk, addr)
		if err != nil || s.Parts() != 1 {
			t.Fatalf("ParseAt: %v, %d parts", err, s.Parts())
		}
	})
}

// The kernel and libsframe read the first header only: on an lld sequence
// their verdict is the first section's, and what they never see is said.
func TestAcceptJudgesASequenceByItsFirstSection(t *testing.T) {
	part := func(addr uint64, starts ...uint64) []byte {
		b := &sframetest.Builder{Version: sframe.Version3, ABI: sframe.ABIAMD64LittleEndian,
			Flags: sframe.FlagFDEFuncStartPCRel | sframe.FlagFDESorted, CFAFixedRAOffset: -8, Addr: addr}
		for _, s := range starts {
			b.FDEs = append(b.FDEs, sframetest.FDESpec{Start: s, Size: 16, FREs: []sframetest.FRESpec{
				{StartOff: 0, BaseReg: sframe.BaseRegSP, Words: []int32{8}},
				{StartOff: 1, BaseReg: sframe.BaseRegSP, Words: []int32{16}},
			}})
		}
		d, err := b.Encode()
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	const addr = 0x1000
	data, _ := twoSections(addr, func(a uint64) []byte { return part(a, 0x2000) },
		func(a uint64) []byte { return part(a, 0x3000, 0x3010) })
	alone := sframe.Accept(part(addr, 0x2000), addr, nil)
	for i, a := range sframe.Accept(data, addr, nil) {
		if !a.Accepted || len(a.Rejections) != 0 || a.Accepted != alone[i].Accepted {
			t.Errorf("%v: accepted %v %v; the first section alone: %v", a.Consumer, a.Accepted, a.Rejections, alone[i].Accepted)
		}
		if !strings.Contains(a.Unseen, "first of the 2 SFrame sections") || !strings.Contains(a.Unseen, "2 FDEs") {
			t.Errorf("%v: unseen %q", a.Consumer, a.Unseen)
		}
	}
}

// A decoding error in a later section of a sequence names the byte offset
// in the whole ELF section, as every other error does.
func TestSequenceErrorsAreAtOffsetsOfTheWholeSection(t *testing.T) {
	const addr = 0x1000
	data, off2 := twoSections(addr, func(a uint64) []byte { return seqPart(t, a, 16, 0x2000) },
		func(a uint64) []byte { return seqPart(t, a, 32, 0x3000) })
	s, err := sframe.ParseAt(data, addr)
	if err != nil {
		t.Fatal(err)
	}
	fde, err := s.FindFDE(0x3001)
	if err != nil {
		t.Fatal(err)
	}
	var fre sframe.FRE
	if err := s.FindFRE(fde, 0x3005, &fre); err != nil || uint64(fre.Off) < off2 {
		t.Fatalf("FRE at byte %#x (%v), want in the second section, from %#x", fre.Off, err, off2)
	}
	it := s.FREs(fde)
	for it.Next() {
		if uint64(it.FRE().Off) < off2 {
			t.Errorf("iterated FRE at byte %#x, before the second section (%#x)", it.FRE().Off, off2)
		}
	}
	// The FDE's FRE count raised past its sub-section: the error's offset
	// is inside the second section.
	bad := append([]byte(nil), data...)
	bad[fde.Off+12] = 0xff // v2 FDE: start, size, FRE offset, FRE count (low byte)
	s, err = sframe.ParseAt(bad, addr)
	if err != nil {
		t.Fatal(err)
	}
	fde, _ = s.FindFDE(0x3001)
	_, err = s.AllFREs(fde)
	var fe *sframe.FormatError
	if !errors.As(err, &fe) || uint64(fe.Off) < off2 || fe.Off > int64(len(bad)) {
		t.Errorf("AllFREs: %v; want a format error at an offset in [%#x, %#x]", err, off2, len(bad))
	}
	if err := s.FindFRE(fde, 0x300f, &fre); !errors.As(err, &fe) || uint64(fe.Off) < off2 {
		t.Errorf("FindFRE: %v; want a format error in the second section", err)
	}
}

// WriteJSON on a sequence writes JSON Lines: one valid document per line.
func TestSequenceJSONIsOneDocumentPerLine(t *testing.T) {
	const addr = 0x1000
	data, _ := twoSections(addr, func(a uint64) []byte { return seqPart(t, a, 16, 0x2000) },
		func(a uint64) []byte { return seqPart(t, a, 32, 0x3000) })
	s, err := sframe.ParseAt(data, addr)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := s.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines, want 2:\n%s", len(lines), b.String())
	}
	for i, l := range lines {
		var d map[string]any
		if err := json.Unmarshal([]byte(l), &d); err != nil || d["fdes"] == nil {
			t.Errorf("line %d: %v: %.80s", i+1, err, l)
		}
	}
}
