package sframe_test

import (
	"bytes"
	"errors"
	"sort"
	"testing"

	"github.com/sfdbg/sfdbg/sframe"
	"github.com/sfdbg/sfdbg/sframe/sframetest"
)

// FuzzParse runs ParseAt and Validate on arbitrary bytes, then decodes
// every FRE, interprets it with Row, looks up PCs in and around every
// function and re-encodes the section with SpecFrom. It checks that
// nothing panics and that the parts agree:
//
//   - ParseAt fails only with a *FormatError at an offset inside the data;
//   - a section without validation errors decodes every FRE and row and
//     every lookup ends in a row, ErrNoFDE or ErrNoFRE, never a
//     *FormatError;
//   - problem offsets lie inside the section;
//   - Encode(SpecFrom(s)) reproduces the bytes whenever SpecFrom succeeds.
//
// The work is budgeted (parseAllocs, parseFREs): bytes allocated, FREs
// decoded per FDE and problems reported are linear in the section's size.
//
// Seeds: encoder output of every version and ABI (f.Add), the committed
// corpus in testdata/fuzz/FuzzParse (real sections from GNU as/ld and
// regressions), and the .sframe sections of ../testdata/bin when present.
func FuzzParse(f *testing.F) {
	for _, seed := range fuzzSeeds(f) {
		f.Add(seed.data, seed.addr)
	}
	f.Fuzz(func(t *testing.T, data []byte, addr uint64) {
		parseAllocs.CheckAllocs(t, len(data), func() { fuzzParse(t, data, addr) })
	})
}

// Budgets of FuzzParse, per byte of section.
var (
	// parseAllocs: ParseAt keeps one 80-byte FDE and an 8-byte start per
	// FDE entry of at least 16 bytes (about 6 bytes per byte), the harness
	// decodes FREs in place and SpecFrom describes each FRE of at least 2
	// bytes in about 100 bytes (50 per byte, sections up to 64 KiB only).
	// The seeds need at most 40; 128 leaves room, and a count trusted
	// from the input costs gigabytes.
	parseAllocs = sframetest.AllocBudget(128)
	// parseFREs: an FRE takes at least 2 bytes (a 1-byte start offset and
	// the info byte), so one FDE yields at most half the bytes of the FRE
	// sub-section from its first FRE on, whatever its FRE count says.
	parseFREs = sframetest.Budget{What: "FREs decoded for one FDE", PerByte: 1, Per: 2, Const: 1}
	// parseProblems: Validate reports a bounded number of problems per
	// FDE and per FRE it decodes (its own FRE budget is the section size).
	parseProblems = sframetest.Budget{What: "problems reported", PerByte: 4, Const: 64}
)

func fuzzParse(t *testing.T, data []byte, addr uint64) {
	s, err := sframe.ParseAt(data, addr)
	if err != nil {
		var fe *sframe.FormatError
		if !errors.As(err, &fe) || fe.Off < 0 || fe.Off > int64(len(data)) {
			t.Fatalf("ParseAt: %v is not a *FormatError inside the %d-byte section", err, len(data))
		}
		return
	}
	ps := s.Validate()
	parseProblems.Check(t, uint64(len(ps)), len(data))
	for _, p := range ps {
		if p.Off < 0 || p.Off > int64(len(data)) {
			t.Errorf("problem offset outside the %d-byte section: %v", len(data), p)
		}
	}
	clean := count(ps, sframe.SeverityError) == 0
	budget := 4*len(data) + 64 // FREs to decode; sections that share FRE data are quadratic
	for i := range s.FDEs() {
		fde := &s.FDEs()[i]
		it := s.FREs(fde)
		n := uint64(0)
		for budget > 0 && it.Next() {
			budget--
			n++
			if _, err := s.Row(fde, it.FRE()); err != nil && clean {
				t.Fatalf("FDE %d FRE %d: Row: %v, but Validate found no error", i, it.Index(), err)
			}
		}
		if err := it.Err(); err != nil && clean {
			t.Fatalf("FDE %d: %v, but Validate found no error", i, err)
		}
		parseFREs.Check(t, n, len(data))
	}
	for i := range s.FDEs() {
		if i >= 64 {
			break
		}
		fde := &s.FDEs()[i]
		for _, pc := range []uint64{fde.Start - 1, fde.Start, fde.Start + uint64(fde.Size)/2, fde.End() - 1, fde.End()} {
			row, got, _, err := lookup(s, pc)
			switch {
			case err == nil:
				if pc < got.Start || pc-got.Start >= uint64(got.Size) {
					t.Fatalf("Lookup(%#x) returned FDE %d [%#x, %#x)", pc, got.Index, got.Start, got.End())
				}
				_ = row
			case errors.Is(err, sframe.ErrNoFDE), errors.Is(err, sframe.ErrNoFRE):
			default:
				var fe *sframe.FormatError
				if !errors.As(err, &fe) {
					t.Fatalf("Lookup(%#x): %v is neither a sentinel nor a *FormatError", pc, err)
				}
				if clean {
					t.Fatalf("Lookup(%#x): %v, but Validate found no error", pc, err)
				}
			}
		}
	}
	if clean {
		freLookupsAgreeWithScans(t, s, len(data))
	}
	if len(data) > 1<<16 {
		return
	}
	if b, err := sframetest.SpecFrom(s); err == nil {
		out, err := b.Encode()
		if err != nil {
			t.Fatalf("Encode(SpecFrom(s)): %v", err)
		}
		if !bytes.Equal(out, data) {
			t.Fatalf("Encode(SpecFrom(s)) differs from the input at byte %#x", firstDiff(out, data))
		}
	}
}

// freLookupsAgreeWithScans checks, on a section without validation
// errors, FindFDE at the first and last byte of every FDE and FindFRERange
// at the start of every FRE, against linear scans of the decoded FREs,
// twice: the second pass runs after the first has made the section build
// its FRE index (freIndex), so both lookup paths are compared. At most
// about 2 × size FREs are looked up.
func freLookupsAgreeWithScans(t *testing.T, s *sframe.Section, size int) {
	t.Helper()
	type fre struct{ start, off uint32 }
	left := size
	for pass := 0; pass < 2; pass++ {
		for i := range s.FDEs() {
			fde := &s.FDEs()[i]
			if fde.Size > 0 {
				for _, pc := range []uint64{fde.Start, fde.End() - 1} {
					if got, err := s.FindFDE(pc); err != nil || got != fde {
						t.Fatalf("FindFDE(%#x) = %v, %v; want FDE %d [%#x, %#x)", pc, got, err, i, fde.Start, fde.End())
					}
				}
			}
			if fde.PCType == sframe.PCTypeMask && fde.RepSize == 0 {
				continue
			}
			var fres []fre
			it := s.FREs(fde)
			for left > 0 && it.Next() {
				left--
				fres = append(fres, fre{it.FRE().StartOff, it.FRE().Off})
			}
			for k, want := range fres {
				if fde.PCType == sframe.PCTypeInc && want.start >= fde.Size {
					// An FRE at the function's end covers no byte (the
					// validator's fre-at-end warning): no PC finds it.
					continue
				}
				pc := fde.Start + uint64(want.start)
				off := uint64(want.start)
				if fde.PCType == sframe.PCTypeMask {
					off %= uint64(fde.RepSize)
				}
				// The last FRE that starts at or below off (a clean
				// section's FRE starts increase).
				j := sort.Search(len(fres), func(m int) bool { return uint64(fres[m].start) > off }) - 1
				var got sframe.FRE
				idx, _, err := s.FindFRERange(fde, pc, &got)
				switch {
				case j < 0 && !errors.Is(err, sframe.ErrNoFRE):
					t.Fatalf("pass %d: FDE %d FRE %d: FindFRERange(%#x) = %d, %v; a scan finds none", pass, i, k, pc, idx, err)
				case j >= 0 && (err != nil || idx != j || got.Off != fres[j].off):
					t.Fatalf("pass %d: FDE %d FRE %d: FindFRERange(%#x) = FRE %d at %#x, %v; a scan finds FRE %d at %#x", pass, i, k, pc, idx, got.Off, err, j, fres[j].off)
				}
			}
		}
	}
}

type fuzzSeed struct {
	data []byte
	addr uint64
}

// fuzzSeeds returns encoder output of every version, ABI, FDE and FRE type
// and data-word size, a few malformed variants, and the real sections of
// the fixture corpus (up to 16 KiB each).
func fuzzSeeds(tb testing.TB) []fuzzSeed {
	var out []fuzzSeed
	add := func(b *sframetest.Builder) {
		if d, err := b.Encode(); err == nil {
			out = append(out, fuzzSeed{d, b.Addr})
		}
	}
	for _, v := range []sframe.Version{sframe.Version1, sframe.Version2, sframe.Version3} {
		add(sframetest.AMD64Section(v))
		add(lookupSection(v, false))
		for _, tc := range validateCases {
			if tc.edit == nil || (tc.versions != nil && tc.versions[0] != v) {
				continue
			}
			abi := tc.abi
			if abi == sframe.ABIS390XBigEndian && v == sframe.Version1 {
				continue
			}
			b := baseFor(v, abi)
			base, err := sframe.ParseAt(sframetest.MustEncode(tb, b), b.Addr)
			if err != nil {
				continue
			}
			tc.edit(b, base)
			add(b)
		}
		for _, tc := range parseErrorCases {
			if tc.edit != nil {
				b := baseFor(v, sframe.ABIAMD64LittleEndian)
				tc.edit(b)
				add(b)
			}
		}
	}
	for _, tc := range sframetest.ABIVersions() {
		cases := sframetest.Variants(tc.Version, tc.ABI)
		for i := 0; i < len(cases); i += 5 {
			add(cases[i])
		}
	}
	// Sequences of sections, as lld concatenates its inputs' .sframe.
	seq, _ := twoSections(0x1000, func(a uint64) []byte { return seqPart(tb, a, 16, 0x2000, 0x2010) },
		func(a uint64) []byte { return seqPart(tb, a, 32, 0x3000) })
	out = append(out, fuzzSeed{seq, 0x1000})
	seq3, _ := twoSections(0x1000, func(a uint64) []byte { return seq },
		func(a uint64) []byte { return seqPart(tb, a, 48, 0x4000, 0x4010, 0x4020) })
	out = append(out, fuzzSeed{seq3, 0x1000})
	for _, fx := range loadFixtures(tb) {
		if len(fx.data) <= 16<<10 {
			out = append(out, fuzzSeed{fx.data, fx.addr})
		}
	}
	return out
}
