package sframe_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/sfdbg/sfdbg/sframe"
	"github.com/sfdbg/sfdbg/sframe/sframetest"
)

// Tests over the real toolchain output in ../testdata/bin (GNU as/ld 2.40,
// 2.44 and 2.47.50 for SFrame v1, v2 and v3). They skip when the corpus has
// not been built.

func TestFixturesValidateWithoutErrors(t *testing.T) {
	for _, fx := range fixturesOrSkip(t) {
		t.Run(fx.name+" validates without errors", func(t *testing.T) {
			s, err := sframe.ParseAt(fx.data, fx.addr)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range s.Validate() {
				if p.Severity == sframe.SeverityError {
					t.Errorf("%v", p)
				} else {
					t.Logf("%v", p)
				}
			}
		})
	}
}

func TestFixturesReencodeToTheSameBytes(t *testing.T) {
	for _, fx := range fixturesOrSkip(t) {
		t.Run(fx.name+" re-encodes byte for byte", func(t *testing.T) {
			b := specOf(t, fx.data, fx.addr)
			got := sframetest.MustEncode(t, b)
			if !bytes.Equal(got, fx.data) {
				t.Fatalf("re-encoded section differs from the original at byte %#x (lengths %d, %d)", firstDiff(got, fx.data), len(got), len(fx.data))
			}
		})
		t.Run(fx.name+" re-encodes with the encoder's own data-word sizes", func(t *testing.T) {
			// The encoder's choice of data-word size must be gas's: the
			// smallest that holds every word.
			b := specOf(t, fx.data, fx.addr)
			for i := range b.FDEs {
				for k := range b.FDEs[i].FREs {
					r := &b.FDEs[i].FREs[k]
					r.ExactWordSize, r.WordSize = false, 0
				}
			}
			if got := sframetest.MustEncode(t, b); !bytes.Equal(got, fx.data) {
				t.Errorf("encoder's data-word sizes differ from the toolchain's at byte %#x", firstDiff(got, fx.data))
			}
		})
		t.Run(fx.name+" re-encodes with the encoder's own FRE types to the same rows", func(t *testing.T) {
			// gas picks the FRE type from the function size, as the encoder
			// does; ld picks it for PLT FDEs from the size of all of .plt,
			// so bytes may differ but the decoded rows may not.
			s, err := sframe.ParseAt(fx.data, fx.addr)
			if err != nil {
				t.Fatal(err)
			}
			b := specOf(t, fx.data, fx.addr)
			for i := range b.FDEs {
				b.FDEs[i].ExactFREType, b.FDEs[i].FREType = false, 0
			}
			s2, err := sframe.ParseAt(sframetest.MustEncode(t, b), fx.addr)
			if err != nil {
				t.Fatal(err)
			}
			if d := diffSections(s, s2); d != "" {
				t.Error(d)
			}
		})
	}
}

func TestFixturesEveryFREHasARow(t *testing.T) {
	for _, fx := range fixturesOrSkip(t) {
		t.Run(fx.name+" has a row for every FRE, found again by FindFRE, and a lookup for every function PC", func(t *testing.T) {
			s, err := sframe.ParseAt(fx.data, fx.addr)
			if err != nil {
				t.Fatal(err)
			}
			for i := range s.FDEs() {
				f := &s.FDEs()[i]
				it := s.FREs(f)
				for it.Next() {
					want := *it.FRE()
					if _, err := s.Row(f, &want); err != nil {
						t.Errorf("FDE %d FRE %d: %v", i, it.Index(), err)
					}
					// FindFRE's scan must find the same FRE, decoded the same.
					if f.PCType == sframe.PCTypeInc && want.StartOff < f.Size {
						var got sframe.FRE
						if err := s.FindFRE(f, f.Start+uint64(want.StartOff), &got); err != nil || got != want {
							t.Errorf("FDE %d FRE %d: FindFRE at its start gives %+v, %v; want %+v", i, it.Index(), got, err, want)
						}
					}
				}
				if err := it.Err(); err != nil {
					t.Errorf("FDE %d: %v", i, err)
				}
				for pc := f.Start; pc < f.End() && pc < f.Start+4096; pc++ {
					_, got, _, err := lookup(s, pc)
					if errors.Is(err, sframe.ErrNoFRE) && f.NumFREs == 0 {
						continue
					}
					if err != nil {
						t.Fatalf("Lookup(%#x) in FDE %d: %v", pc, i, err)
					}
					if got.Start > pc || got.End() <= pc {
						t.Fatalf("Lookup(%#x) found FDE %d [%#x, %#x)", pc, got.Index, got.Start, got.End())
					}
				}
			}
		})
	}
}
