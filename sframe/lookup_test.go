package sframe

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"
)

// lookupSection returns a section with a gap between its functions, a
// function whose first FRE starts late, a PLT and an outermost function.
func lookupSection(v Version, sorted bool) *Builder {
	b := &Builder{Version: v, ABI: ABIAMD64LittleEndian, CFAFixedRAOffset: -8, Addr: 0x9000,
		FDEs: []FDESpec{
			{Start: 0x1000, Size: 0x40, PCType: PCTypeMask, RepSize: 16, FREs: []FRESpec{
				{StartOff: 0, BaseReg: BaseRegSP, Words: []int32{8}},
				{StartOff: 6, BaseReg: BaseRegSP, Words: []int32{16}},
			}},
			amd64Func(0x1100, 0x20),
			{Start: 0x1200, Size: 0x10, FREs: []FRESpec{
				{StartOff: 4, BaseReg: BaseRegSP, Words: []int32{8}},
			}},
			{Start: 0x1300, Size: 0x10, FREs: []FRESpec{OutermostFRE(0)}},
		}}
	if v == Version1 {
		b.FDEs[0].RepSize = 0 // implied 16
	}
	if sorted {
		b.Flags |= FlagFDESorted
	} else {
		b.FDEs[0], b.FDEs[3] = b.FDEs[3], b.FDEs[0]
		b.FDEs[1], b.FDEs[2] = b.FDEs[2], b.FDEs[1]
	}
	return b
}

func TestLookup(t *testing.T) {
	type want struct {
		pc        uint64
		fdeStart  uint64
		freStart  uint32
		cfa       string // Rule.String of the CFA, or the error
		outermost bool
	}
	wants := []want{
		{pc: 0xfff, cfa: "no FDE"},
		{pc: 0x1000, fdeStart: 0x1000, freStart: 0, cfa: "r7+8"},
		{pc: 0x1005, fdeStart: 0x1000, freStart: 0, cfa: "r7+8"},
		{pc: 0x1006, fdeStart: 0x1000, freStart: 6, cfa: "r7+16"},
		{pc: 0x100f, fdeStart: 0x1000, freStart: 6, cfa: "r7+16"},
		{pc: 0x1010, fdeStart: 0x1000, freStart: 0, cfa: "r7+8"}, // next PLT entry: pc % 16
		{pc: 0x1036, fdeStart: 0x1000, freStart: 6, cfa: "r7+16"},
		{pc: 0x1040, cfa: "no FDE"}, // gap after the PLT
		{pc: 0x10ff, cfa: "no FDE"},
		{pc: 0x1100, fdeStart: 0x1100, freStart: 0, cfa: "r7+8"},
		{pc: 0x1101, fdeStart: 0x1100, freStart: 1, cfa: "r7+16"},
		{pc: 0x1104, fdeStart: 0x1100, freStart: 4, cfa: "r6+16"},
		{pc: 0x111e, fdeStart: 0x1100, freStart: 4, cfa: "r6+16"},
		{pc: 0x111f, fdeStart: 0x1100, freStart: 0x1f, cfa: "r7+8"},
		{pc: 0x1120, cfa: "no FDE"},
		{pc: 0x1200, fdeStart: 0x1200, cfa: "no FRE"}, // before the first FRE
		{pc: 0x1203, fdeStart: 0x1200, cfa: "no FRE"},
		{pc: 0x1204, fdeStart: 0x1200, freStart: 4, cfa: "r7+8"},
		{pc: 0x1300, fdeStart: 0x1300, freStart: 0, cfa: "undefined", outermost: true},
		{pc: 0x1310, cfa: "no FDE"},
		{pc: 1<<64 - 1, cfa: "no FDE"},
	}
	for _, v := range []Version{Version1, Version2, Version3} {
		for _, sorted := range []bool{true, false} {
			order := "a sorted"
			if !sorted {
				order = "an unsorted"
			}
			b := lookupSection(v, sorted)
			s := mustParse(t, b)
			if s.Sorted() != sorted {
				t.Fatalf("Sorted() = %v", s.Sorted())
			}
			for _, w := range wants {
				t.Run(fmt.Sprintf("PC %#x in %s %v section finds %s", w.pc, order, v, w.cfa), func(t *testing.T) {
					row, fde, fre, err := s.Lookup(w.pc)
					switch w.cfa {
					case "no FDE":
						if !errors.Is(err, ErrNoFDE) || fde != nil {
							t.Fatalf("got FDE %v, err %v; want ErrNoFDE", fde, err)
						}
						return
					case "no FRE":
						if !errors.Is(err, ErrNoFRE) || fde == nil || fde.Start != w.fdeStart {
							t.Fatalf("got FDE %v, err %v; want ErrNoFRE in the FDE at %#x", fde, err, w.fdeStart)
						}
						return
					}
					if err != nil {
						t.Fatal(err)
					}
					if fde.Start != w.fdeStart || fre.StartOff != w.freStart {
						t.Errorf("got FDE at %#x FRE at +%#x, want %#x +%#x", fde.Start, fre.StartOff, w.fdeStart, w.freStart)
					}
					if got := row.CFA.String(); got != w.cfa || row.Outermost != w.outermost {
						t.Errorf("got CFA %s outermost %v, want %s %v", got, row.Outermost, w.cfa, w.outermost)
					}
				})
			}
		}
	}
}

func TestLookupInNestedFunctionsFindsTheInnermost(t *testing.T) {
	b := &Builder{Version: Version3, ABI: ABIAMD64LittleEndian, CFAFixedRAOffset: -8, Flags: FlagFDESorted,
		FDEs: []FDESpec{
			{Start: 0x1000, Size: 0x100, FREs: []FRESpec{{Words: []int32{8}}}},
			{Start: 0x1010, Size: 0x10, FREs: []FRESpec{{Words: []int32{16}}}},
		}}
	s := mustParse(t, b)
	for _, tc := range []struct {
		pc   uint64
		want uint64
	}{{0x1008, 0x1000}, {0x1010, 0x1010}, {0x101f, 0x1010}, {0x1020, 0x1000}} {
		t.Run(fmt.Sprintf("PC %#x resolves to the function at %#x", tc.pc, tc.want), func(t *testing.T) {
			f, err := s.FindFDE(tc.pc)
			if err != nil || f.Start != tc.want {
				t.Errorf("FindFDE = %v, %v", f, err)
			}
		})
	}
}

func TestFindFREWithZeroRepetitionSizeFails(t *testing.T) {
	b := &Builder{Version: Version2, ABI: ABIAMD64LittleEndian, CFAFixedRAOffset: -8,
		FDEs: []FDESpec{{Start: 0x1000, Size: 0x40, PCType: PCTypeMask, FREs: []FRESpec{{Words: []int32{8}}}}}}
	s := mustParse(t, b)
	_, _, _, err := s.Lookup(0x1004)
	var fe *FormatError
	if !errors.As(err, &fe) {
		t.Fatalf("err = %v, want a *FormatError", err)
	}
}

func TestRowsOfEachABI(t *testing.T) {
	same := Rule{Kind: RuleSameValue, Reg: RegCFA}
	val := func(r Reg, off int64) Rule { return Rule{Kind: RuleValOffset, Reg: r, Offset: off} }
	deref := func(r Reg, off int64) Rule { return Rule{Kind: RuleOffset, Reg: r, Offset: off} }
	tests := []struct {
		name  string
		v     Version
		abi   ABI
		typ   FDEType
		fre   FRESpec
		pauth PAuthKey
		sig   bool
		want  Row
	}{
		{"an AMD64 row with no data words is the outermost frame", Version2, ABIAMD64LittleEndian, FDETypeDefault,
			FRESpec{}, 0, false, Row{Outermost: true}},
		{"an AArch64 row reads RA and FP offsets", Version2, ABIAArch64LittleEndian, FDETypeDefault,
			FRESpec{BaseReg: BaseRegFP, Words: []int32{32, -24, -32}}, 0, false,
			Row{CFA: val(AArch64RegFP, 32), RA: cfaOff(-24), FP: cfaOff(-32)}},
		{"a big-endian AArch64 row with a signed RA and the B key", Version3, ABIAArch64BigEndian, FDETypeDefault,
			FRESpec{BaseReg: BaseRegSP, Words: []int32{16, -8, -16}, MangledRA: true}, PAuthKeyB, false,
			Row{CFA: val(AArch64RegSP, 16), RA: cfaOff(-8), FP: cfaOff(-16), MangledRA: true, PAuthKey: PAuthKeyB}},
		{"an AArch64 leaf row keeps RA in LR", Version3, ABIAArch64LittleEndian, FDETypeDefault,
			FRESpec{BaseReg: BaseRegSP, Words: []int32{0}}, 0, false,
			Row{CFA: val(AArch64RegSP, 0), RA: same, FP: same, TopmostOnly: true}},
		{"an s390x CFA offset is stored scaled by 8 and less 160", Version3, ABIS390XBigEndian, FDETypeDefault,
			FRESpec{BaseReg: BaseRegSP, Words: []int32{20, -48, -72}}, 0, false,
			Row{CFA: val(S390XRegSP, 320), RA: cfaOff(-48), FP: cfaOff(-72), SPOffset: -160}},
		{"an s390x v2 odd RA word names a register", Version2, ABIS390XBigEndian, FDETypeDefault,
			FRESpec{BaseReg: BaseRegSP, Words: []int32{0, 16<<1 | 1}}, 0, false,
			Row{CFA: val(S390XRegSP, 160), RA: Rule{Kind: RuleRegister, Reg: 16}, FP: same, TopmostOnly: true, SPOffset: -160}},
		{"an s390x zero RA word is padding before FP", Version2, ABIS390XBigEndian, FDETypeDefault,
			FRESpec{BaseReg: BaseRegFP, Words: []int32{-1, 0, -72}}, 0, false,
			Row{CFA: val(S390XRegFP, 152), RA: same, FP: cfaOff(-72), TopmostOnly: true, SPOffset: -160}},
		{"a FLEX DRAP row dereferences the CFA", Version3, ABIAMD64LittleEndian, FDETypeFlex,
			FRESpec{Words: []int32{int32(FlexControl(AMD64RegFP, true, true)), -8, 0, int32(FlexControl(AMD64RegFP, true, true)), 0}}, 0, false,
			Row{CFA: deref(AMD64RegFP, -8), RA: cfaOff(-8), FP: deref(AMD64RegFP, 0)}},
		{"a FLEX row with an RA rule from the CFA", Version3, ABIAMD64LittleEndian, FDETypeFlex,
			FRESpec{Words: []int32{int32(FlexControl(AMD64RegSP, true, false)), 16, int32(FlexControl(0, false, true)), -8}}, 0, false,
			Row{CFA: val(AMD64RegSP, 16), RA: cfaOff(-8), FP: same}},
		{"an s390x FLEX row scales the CFA offset and reads RA from a register", Version3, ABIS390XBigEndian, FDETypeFlex,
			FRESpec{Words: []int32{0x79, 0, 0x81, 0}}, 0, false,
			Row{CFA: val(S390XRegSP, 160), RA: val(16, 0), FP: same, TopmostOnly: true, SPOffset: -160}},
		{"a v3 signal frame sets Signal", Version3, ABIAMD64LittleEndian, FDETypeDefault,
			FRESpec{BaseReg: BaseRegSP, Words: []int32{160}}, 0, true,
			Row{CFA: val(AMD64RegSP, 160), RA: cfaOff(-8), FP: same, Signal: true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := &Builder{Version: tc.v, ABI: tc.abi, Addr: 0x8000,
				FDEs: []FDESpec{{Start: 0x1000, Size: 8, Type: tc.typ, PAuthKey: tc.pauth, Signal: tc.sig, FREs: []FRESpec{tc.fre}}}}
			if row := rowAt(t, b, 0x1004); row != tc.want {
				t.Errorf("got  %+v\nwant %+v", row, tc.want)
			}
		})
	}
}

func TestLookupDoesNotAllocate(t *testing.T) {
	s := mustParse(t, amd64Section(Version3))
	var sink Row
	n := testing.AllocsPerRun(100, func() {
		for _, pc := range []uint64{0x1000, 0x1025, 0x1103, 0x1250, 0x1400 + 69999, 0x5000} {
			row, _, _, _ := s.Lookup(pc)
			sink = row
		}
	})
	_ = sink
	if n != 0 {
		t.Errorf("Lookup allocates %v times per run", n)
	}
}

func TestPLTLookupsInRealLinkerOutput(t *testing.T) {
	// GNU ld describes .plt with one INC FDE for PLT0 and one MASK FDE for
	// the pltN entries: jmp *GOT (6 bytes), push $n (5 bytes), jmp PLT0. The
	// CFA is SP+8 up to the push and SP+16 after it, in every entry. The
	// lookup is (PC - start) % 16 in v1 too: v1's "PC & start-as-mask"
	// wording would give SP+8 at offset 12 (12 & 11 = 8 < 11).
	for _, name := range []string{"deep-v1-O2", "deep-v2-O2", "deep-v3-O2"} {
		t.Run("every PLT entry of "+name+" has SP+8 then SP+16 after the push", func(t *testing.T) {
			fx := fixtureByName(t, name)
			s, err := ParseAt(fx.data, fx.addr)
			if err != nil {
				t.Fatal(err)
			}
			var plt *FDE
			for i := range s.FDEs() {
				if f := &s.FDEs()[i]; f.PCType == PCTypeMask && f.RepSize == 16 {
					plt = f
				}
			}
			if plt == nil {
				t.Fatal("no MASK FDE with 16-byte blocks")
			}
			for e := uint64(0); e < uint64(plt.Size)/16; e++ {
				for off, want := range map[uint64]string{0: "r7+8", 10: "r7+8", 11: "r7+16", 12: "r7+16", 15: "r7+16"} {
					row, f, _, err := s.Lookup(plt.Start + 16*e + off)
					if err != nil || f != plt {
						t.Fatalf("entry %d +%d: FDE %v err %v", e, off, f, err)
					}
					if got := row.CFA.String(); got != want {
						t.Errorf("entry %d +%d: CFA %s, want %s", e, off, got, want)
					}
				}
			}
		})
	}
}

func TestFindFREReportsUndecodableFREs(t *testing.T) {
	tests := []struct {
		name string
		edit func(f *FDESpec)
		pc   uint64
	}{
		{"an FRE count past the end of the FRE sub-section", func(f *FDESpec) { f.NumFREs = new(uint32(5)) }, 0x1000 + 39},
		{"an unknown data-word size before the PC", func(f *FDESpec) { f.FREs[1].Info = new(uint8(0x63)) }, 0x1000 + 2},
		{"an unknown data-word size just after the PC", func(f *FDESpec) { f.FREs[1].Info = new(uint8(0x63)) }, 0x1000},
	}
	for _, tc := range tests {
		t.Run("a lookup through "+tc.name+" fails with a *FormatError", func(t *testing.T) {
			b := &Builder{Version: Version2, ABI: ABIAMD64LittleEndian, CFAFixedRAOffset: -8, FDEs: []FDESpec{amd64Func(0x1000, 40)}}
			tc.edit(&b.FDEs[0])
			s := mustParse(t, b)
			_, _, _, err := s.Lookup(tc.pc)
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("err = %v, want a *FormatError", err)
			}
		})
	}
}

func TestFindFDEAgreesWithALinearSearch(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for round := 0; round < 50; round++ {
		b := &Builder{Version: Version3, ABI: ABIAMD64LittleEndian, CFAFixedRAOffset: -8}
		n := 1 + r.IntN(40)
		for i := 0; i < n; i++ {
			// Small ranges make duplicate starts, nesting and gaps likely.
			b.FDEs = append(b.FDEs, FDESpec{Start: uint64(0x1000 + 8*r.IntN(64)), Size: uint32(r.IntN(48)), FREs: []FRESpec{{Words: []int32{8}}}})
		}
		s := mustParse(t, b)
		for pc := uint64(0xff0); pc < 0x1000+8*64+64; pc++ {
			// Reference: the FDE with the greatest start <= pc that covers
			// pc among the maxOverlap+1 nearest, in address order.
			var want *FDE
			cnt := 0
			for k := range s.FDEs() {
				if s.fdeAt(k).Start <= pc {
					cnt = k + 1
				}
			}
			for k := cnt - 1; k >= 0 && k >= cnt-maxOverlap; k-- {
				if f := s.fdeAt(k); f.Contains(pc) {
					want = f
					break
				}
			}
			got, err := s.FindFDE(pc)
			if got != want || (want == nil) != errors.Is(err, ErrNoFDE) {
				t.Fatalf("round %d: FindFDE(%#x) = %v, %v; want %v", round, pc, got, err, want)
			}
		}
	}
}

// TestFindFRERangeAgreesWithTheFREs looks up the first and last byte of
// every FRE, once with linear scans only and once with the FRE index built
// before the first lookup.
func TestFindFRERangeAgreesWithTheFREs(t *testing.T) {
	for _, c := range []struct {
		name  string
		index bool
	}{
		{"deep-v1-O2", false}, {"deep-v3-O0", false}, {"sqlite-v3", false}, {"sqlite-v3", true},
		{"features-v3", false}, {"aarch64be-v3", false}, {"s390x-v3", false}, {"sqlite-v2", true}, {"deep-v1-O2", true},
	} {
		name := c.name
		t.Run(fmt.Sprintf("%s/index=%v", name, c.index), func(t *testing.T) {
			s, err := Open(filepath.Join("..", "testdata", "bin", name))
			if err != nil {
				t.Fatal(err)
			}
			if c.index {
				s.idx.scanned.Store(math.MaxInt64 / 2) // the first indexable lookup builds it
			} else {
				s.idx.scanned.Store(math.MinInt64 / 2) // never built
			}
			defer func() {
				if built := s.idx.ready.Load(); built != c.index || c.index && name == "sqlite-v3" && len(s.idx.starts) == 0 {
					t.Errorf("FRE index built %v with %d entries, want built %v", built, len(s.idx.starts), c.index)
				}
			}()
			checkFindFRERange(t, s)
		})
	}
}

// checkFindFRERange looks up the first and last byte of every FRE of s.
func checkFindFRERange(t *testing.T, s *Section) {
	t.Helper()
	for i := range s.FDEs() {
		fde := &s.FDEs()[i]
		fres, err := s.AllFREs(fde)
		if err != nil {
			t.Fatal(err)
		}
		for k, want := range fres {
			end := fde.Size
			if fde.PCType == PCTypeMask {
				end = uint32(fde.RepSize)
			}
			if k+1 < len(fres) {
				end = fres[k+1].StartOff
			}
			for _, off := range []uint32{want.StartOff, end - 1} {
				if off < want.StartOff || off >= end {
					continue
				}
				var got FRE
				idx, gotEnd, err := s.FindFRERange(fde, fde.Start+uint64(off), &got)
				if err != nil || idx != k || gotEnd != end || got != want {
					t.Fatalf("FDE %d +%#x: got FRE %d end %#x (%v) %+v, want FRE %d end %#x %+v", i, off, idx, gotEnd, err, got, k, end, want)
				}
			}
		}
	}
}

// TestFREIndexBigEndian checks FindFRERange with and without the FRE index
// on a big-endian section (no fixture has an FDE with enough FREs), with
// 1- and 2-byte FRE start offsets.
func TestFREIndexBigEndian(t *testing.T) {
	sp := BaseRegSP
	var long, short []FRESpec
	for i := range 40 {
		long = append(long, FRESpec{StartOff: uint32(i * 20), BaseReg: sp, Words: []int32{int32(16 + i*8)}})
	}
	for i := range 20 {
		short = append(short, FRESpec{StartOff: uint32(i * 3), BaseReg: sp, Words: []int32{int32(16 + i*8)}})
	}
	for _, v := range []Version{Version2, Version3} {
		b := &Builder{Version: v, ABI: ABIAArch64BigEndian, Flags: FlagFDESorted, Addr: 0x400000,
			FDEs: []FDESpec{{Start: 0x401000, Size: 0x400, FREs: long}, {Start: 0x402000, Size: 0x40, FREs: short}}}
		data, err := b.Encode()
		if err != nil {
			t.Fatal(err)
		}
		for _, index := range []bool{false, true} {
			t.Run(fmt.Sprintf("v%d/index=%v", v, index), func(t *testing.T) {
				s, err := ParseAt(data, 0x400000)
				if err != nil {
					t.Fatal(err)
				}
				if index {
					s.idx.scanned.Store(math.MaxInt64 / 2)
				} else {
					s.idx.scanned.Store(math.MinInt64 / 2)
				}
				checkFindFRERange(t, s)
				if built := s.idx.ready.Load(); built != index || index && len(s.idx.starts) != 60 {
					t.Errorf("FRE index built %v with %d entries, want %v with 60", built, len(s.idx.starts), index)
				}
			})
		}
	}
}

func TestSharedFREDataKeepsTheIndexBounded(t *testing.T) {
	// 1000 FDEs pointing at the same 2000 FREs: a malformed section whose
	// naive FRE index would hold 2M entries.
	var fres []FRESpec
	for i := 0; i < 2000; i++ {
		fres = append(fres, FRESpec{StartOff: uint32(i), BaseReg: BaseRegSP, Words: []int32{8}})
	}
	b := Builder{Version: Version3, ABI: ABIAMD64LittleEndian, Flags: FlagFDESorted | FlagFDEFuncStartPCRel, CFAFixedRAOffset: -8,
		FDEs: []FDESpec{{Start: 0x1000, Size: 4000, FREs: fres}}}
	data, err := b.Encode()
	if err != nil {
		t.Fatal(err)
	}
	s, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	// Re-point copies of the one FDE at the same FRE data.
	one := s.FDEs()[0]
	s.fdes = make([]FDE, 1000)
	s.starts = make([]uint64, 1000)
	for i := range s.fdes {
		s.fdes[i] = one
		s.fdes[i].Index = i
		s.fdes[i].Start = 0x1000 + uint64(i)*4000
		s.starts[i] = s.fdes[i].Start
	}
	s.idx.scanned.Store(math.MaxInt64 / 2) // the first lookup builds the index
	var fre FRE
	for _, pc := range []uint64{0x1000 + 10, 0x1000 + 999*4000 + 1500} {
		f, err := s.FindFDE(pc)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.FindFRE(f, pc, &fre); err != nil {
			t.Fatal(err)
		}
		if want := uint32(pc-f.Start) % 4000; fre.StartOff != want {
			t.Errorf("PC %#x: FRE start %d, want %d", pc, fre.StartOff, want)
		}
	}
	if !s.idx.ready.Load() {
		t.Fatal("the FRE index was not built")
	}
	if n, limit := len(s.idx.starts), int(s.FRELen)/2+1; n > limit {
		t.Errorf("index holds %d entries, more than FRELen/2+1 = %d", n, limit)
	}
}

// TestFREIndexIsBuiltOnceLookupsPayForIt looks up PCs in the FDEs with at
// least freIndexMin FREs of a fresh section: the index must stay unbuilt
// while the FRE counts of the FDEs scanned add up to less than the
// section's FRE count, and be built by the lookup that reaches it.
func TestFREIndexIsBuiltOnceLookupsPayForIt(t *testing.T) {
	s, err := Open(filepath.Join("..", "testdata", "bin", "sqlite-v3"))
	if err != nil {
		t.Fatal(err)
	}
	var big []*FDE
	for i := range s.FDEs() {
		if f := &s.FDEs()[i]; f.NumFREs >= freIndexMin {
			big = append(big, f)
		}
	}
	if len(big) < 2 {
		t.Fatalf("only %d FDEs with %d or more FREs", len(big), freIndexMin)
	}
	// A short FDE never counts.
	for i := range s.FDEs() {
		if f := &s.FDEs()[i]; f.NumFREs > 0 && f.NumFREs < freIndexMin {
			var fre FRE
			for range 100 {
				s.FindFRE(f, f.Start, &fre)
			}
			break
		}
	}
	if s.idx.ready.Load() || s.idx.scanned.Load() != 0 {
		t.Fatalf("short FDEs counted: scanned %d", s.idx.scanned.Load())
	}
	sum := int64(0)
	for round := 0; ; round++ {
		f := big[round%len(big)]
		var fre FRE
		if err := s.FindFRE(f, f.Start, &fre); err != nil {
			t.Fatal(err)
		}
		sum += int64(f.NumFREs)
		if got, want := s.idx.ready.Load(), sum >= int64(s.Header.NumFREs); got != want {
			t.Fatalf("after %d lookups (%d FREs of %d): index built %v, want %v", round+1, sum, s.Header.NumFREs, got, want)
		}
		if sum >= int64(s.Header.NumFREs) {
			t.Logf("built after %d lookups in big FDEs", round+1)
			break
		}
	}
	if len(s.idx.starts) == 0 {
		t.Error("index built empty")
	}
}
