package sframe_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/sfdbg/sfdbg/sframe"
	"github.com/sfdbg/sfdbg/sframe/rule"
	"github.com/sfdbg/sfdbg/sframe/sframetest"
)

// lookupSection returns a section with a gap between its functions, a
// function whose first FRE starts late, a PLT and an outermost function.
func lookupSection(v sframe.Version, sorted bool) *sframetest.Builder {
	b := &sframetest.Builder{Version: v, ABI: sframe.ABIAMD64LittleEndian, CFAFixedRAOffset: -8, Addr: 0x9000,
		FDEs: []sframetest.FDESpec{
			{Start: 0x1000, Size: 0x40, PCType: sframe.PCTypeMask, RepSize: 16, FREs: []sframetest.FRESpec{
				{StartOff: 0, BaseReg: sframe.BaseRegSP, Words: []int32{8}},
				{StartOff: 6, BaseReg: sframe.BaseRegSP, Words: []int32{16}},
			}},
			sframetest.AMD64Func(0x1100, 0x20),
			{Start: 0x1200, Size: 0x10, FREs: []sframetest.FRESpec{
				{StartOff: 4, BaseReg: sframe.BaseRegSP, Words: []int32{8}},
			}},
			{Start: 0x1300, Size: 0x10, FREs: []sframetest.FRESpec{sframetest.OutermostFRE(0)}},
		}}
	if v == sframe.Version1 {
		b.FDEs[0].RepSize = 0 // implied 16
	}
	if sorted {
		b.Flags |= sframe.FlagFDESorted
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
	for _, v := range []sframe.Version{sframe.Version1, sframe.Version2, sframe.Version3} {
		for _, sorted := range []bool{true, false} {
			order := "a sorted"
			if !sorted {
				order = "an unsorted"
			}
			b := lookupSection(v, sorted)
			s := sframetest.MustParse(t, b)
			if s.Sorted() != sorted {
				t.Fatalf("Sorted() = %v", s.Sorted())
			}
			for _, w := range wants {
				t.Run(fmt.Sprintf("PC %#x in %s %v section finds %s", w.pc, order, v, w.cfa), func(t *testing.T) {
					row, fde, fre, err := lookup(s, w.pc)
					switch w.cfa {
					case "no FDE":
						if !errors.Is(err, sframe.ErrNoFDE) || fde != nil {
							t.Fatalf("got FDE %v, err %v; want ErrNoFDE", fde, err)
						}
						return
					case "no FRE":
						if !errors.Is(err, sframe.ErrNoFRE) || fde == nil || fde.Start != w.fdeStart {
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
	b := &sframetest.Builder{Version: sframe.Version3, ABI: sframe.ABIAMD64LittleEndian, CFAFixedRAOffset: -8, Flags: sframe.FlagFDESorted,
		FDEs: []sframetest.FDESpec{
			{Start: 0x1000, Size: 0x100, FREs: []sframetest.FRESpec{{Words: []int32{8}}}},
			{Start: 0x1010, Size: 0x10, FREs: []sframetest.FRESpec{{Words: []int32{16}}}},
		}}
	s := sframetest.MustParse(t, b)
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
	b := &sframetest.Builder{Version: sframe.Version2, ABI: sframe.ABIAMD64LittleEndian, CFAFixedRAOffset: -8,
		FDEs: []sframetest.FDESpec{{Start: 0x1000, Size: 0x40, PCType: sframe.PCTypeMask, FREs: []sframetest.FRESpec{{Words: []int32{8}}}}}}
	s := sframetest.MustParse(t, b)
	_, _, _, err := lookup(s, 0x1004)
	var fe *sframe.FormatError
	if !errors.As(err, &fe) {
		t.Fatalf("err = %v, want a *FormatError", err)
	}
}

func TestRowsOfEachABI(t *testing.T) {
	same := rule.Rule{Kind: rule.SameValue, Reg: rule.CFA}
	val := func(r rule.Reg, off int64) rule.Rule {
		return rule.Rule{Kind: rule.ValOffset, Reg: r, Offset: off}
	}
	deref := func(r rule.Reg, off int64) rule.Rule {
		return rule.Rule{Kind: rule.Offset, Reg: r, Offset: off}
	}
	tests := []struct {
		name  string
		v     sframe.Version
		abi   sframe.ABI
		typ   sframe.FDEType
		fre   sframetest.FRESpec
		pauth rule.PAuthKey
		sig   bool
		want  rule.Row
	}{
		{"an AMD64 row with no data words is the outermost frame", sframe.Version2, sframe.ABIAMD64LittleEndian, sframe.FDETypeDefault,
			sframetest.FRESpec{}, 0, false, rule.Row{Outermost: true}},
		{"an AArch64 row reads RA and FP offsets", sframe.Version2, sframe.ABIAArch64LittleEndian, sframe.FDETypeDefault,
			sframetest.FRESpec{BaseReg: sframe.BaseRegFP, Words: []int32{32, -24, -32}}, 0, false,
			rule.Row{CFA: val(sframe.AArch64RegFP, 32), RA: cfaOff(-24), FP: cfaOff(-32)}},
		{"a big-endian AArch64 row with a signed RA and the B key", sframe.Version3, sframe.ABIAArch64BigEndian, sframe.FDETypeDefault,
			sframetest.FRESpec{BaseReg: sframe.BaseRegSP, Words: []int32{16, -8, -16}, MangledRA: true}, rule.PAuthKeyB, false,
			rule.Row{CFA: val(sframe.AArch64RegSP, 16), RA: cfaOff(-8), FP: cfaOff(-16), MangledRA: true, PAuthKey: rule.PAuthKeyB}},
		{"an AArch64 leaf row keeps RA in LR", sframe.Version3, sframe.ABIAArch64LittleEndian, sframe.FDETypeDefault,
			sframetest.FRESpec{BaseReg: sframe.BaseRegSP, Words: []int32{0}}, 0, false,
			rule.Row{CFA: val(sframe.AArch64RegSP, 0), RA: same, FP: same, TopmostOnly: true}},
		{"an s390x CFA offset is stored scaled by 8 and less 160", sframe.Version3, sframe.ABIS390XBigEndian, sframe.FDETypeDefault,
			sframetest.FRESpec{BaseReg: sframe.BaseRegSP, Words: []int32{20, -48, -72}}, 0, false,
			rule.Row{CFA: val(sframe.S390XRegSP, 320), RA: cfaOff(-48), FP: cfaOff(-72), SPOffset: -160}},
		{"an s390x v2 odd RA word names a register", sframe.Version2, sframe.ABIS390XBigEndian, sframe.FDETypeDefault,
			sframetest.FRESpec{BaseReg: sframe.BaseRegSP, Words: []int32{0, 16<<1 | 1}}, 0, false,
			rule.Row{CFA: val(sframe.S390XRegSP, 160), RA: rule.Rule{Kind: rule.Register, Reg: 16}, FP: same, TopmostOnly: true, SPOffset: -160}},
		{"an s390x zero RA word is padding before FP", sframe.Version2, sframe.ABIS390XBigEndian, sframe.FDETypeDefault,
			sframetest.FRESpec{BaseReg: sframe.BaseRegFP, Words: []int32{-1, 0, -72}}, 0, false,
			rule.Row{CFA: val(sframe.S390XRegFP, 152), RA: same, FP: cfaOff(-72), TopmostOnly: true, SPOffset: -160}},
		{"a FLEX DRAP row dereferences the CFA", sframe.Version3, sframe.ABIAMD64LittleEndian, sframe.FDETypeFlex,
			sframetest.FRESpec{Words: []int32{int32(sframetest.FlexControl(sframe.AMD64RegFP, true, true)), -8, 0, int32(sframetest.FlexControl(sframe.AMD64RegFP, true, true)), 0}}, 0, false,
			rule.Row{CFA: deref(sframe.AMD64RegFP, -8), RA: cfaOff(-8), FP: deref(sframe.AMD64RegFP, 0)}},
		{"a FLEX row with an RA rule from the CFA", sframe.Version3, sframe.ABIAMD64LittleEndian, sframe.FDETypeFlex,
			sframetest.FRESpec{Words: []int32{int32(sframetest.FlexControl(sframe.AMD64RegSP, true, false)), 16, int32(sframetest.FlexControl(0, false, true)), -8}}, 0, false,
			rule.Row{CFA: val(sframe.AMD64RegSP, 16), RA: cfaOff(-8), FP: same}},
		{"an s390x FLEX row scales the CFA offset and reads RA from a register", sframe.Version3, sframe.ABIS390XBigEndian, sframe.FDETypeFlex,
			sframetest.FRESpec{Words: []int32{0x79, 0, 0x81, 0}}, 0, false,
			rule.Row{CFA: val(sframe.S390XRegSP, 160), RA: val(16, 0), FP: same, TopmostOnly: true, SPOffset: -160}},
		{"a v3 signal frame sets Signal", sframe.Version3, sframe.ABIAMD64LittleEndian, sframe.FDETypeDefault,
			sframetest.FRESpec{BaseReg: sframe.BaseRegSP, Words: []int32{160}}, 0, true,
			rule.Row{CFA: val(sframe.AMD64RegSP, 160), RA: cfaOff(-8), FP: same, Signal: true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := &sframetest.Builder{Version: tc.v, ABI: tc.abi, Addr: 0x8000,
				FDEs: []sframetest.FDESpec{{Start: 0x1000, Size: 8, Type: tc.typ, PAuthKey: tc.pauth, Signal: tc.sig, FREs: []sframetest.FRESpec{tc.fre}}}}
			if row := rowAt(t, b, 0x1004); row != tc.want {
				t.Errorf("got  %+v\nwant %+v", row, tc.want)
			}
		})
	}
}

func TestLookupDoesNotAllocate(t *testing.T) {
	s := sframetest.MustParse(t, sframetest.AMD64Section(sframe.Version3))
	var sink rule.Row
	n := testing.AllocsPerRun(100, func() {
		for _, pc := range []uint64{0x1000, 0x1025, 0x1103, 0x1250, 0x1400 + 69999, 0x5000} {
			row, _, _, _ := lookup(s, pc)
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
			s, err := sframe.ParseAt(fx.data, fx.addr)
			if err != nil {
				t.Fatal(err)
			}
			var plt *sframe.FDE
			for i := range s.FDEs() {
				if f := &s.FDEs()[i]; f.PCType == sframe.PCTypeMask && f.RepSize == 16 {
					plt = f
				}
			}
			if plt == nil {
				t.Fatal("no MASK FDE with 16-byte blocks")
			}
			for e := uint64(0); e < uint64(plt.Size)/16; e++ {
				for off, want := range map[uint64]string{0: "r7+8", 10: "r7+8", 11: "r7+16", 12: "r7+16", 15: "r7+16"} {
					row, f, _, err := lookup(s, plt.Start+16*e+off)
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
		edit func(f *sframetest.FDESpec)
		pc   uint64
	}{
		{"an FRE count past the end of the FRE sub-section", func(f *sframetest.FDESpec) { f.NumFREs = new(uint32(5)) }, 0x1000 + 39},
		{"an unknown data-word size before the PC", func(f *sframetest.FDESpec) { f.FREs[1].Info = new(uint8(0x63)) }, 0x1000 + 2},
		{"an unknown data-word size just after the PC", func(f *sframetest.FDESpec) { f.FREs[1].Info = new(uint8(0x63)) }, 0x1000},
	}
	for _, tc := range tests {
		t.Run("a lookup through "+tc.name+" fails with a *FormatError", func(t *testing.T) {
			b := &sframetest.Builder{Version: sframe.Version2, ABI: sframe.ABIAMD64LittleEndian, CFAFixedRAOffset: -8, FDEs: []sframetest.FDESpec{sframetest.AMD64Func(0x1000, 40)}}
			tc.edit(&b.FDEs[0])
			s := sframetest.MustParse(t, b)
			_, _, _, err := lookup(s, tc.pc)
			var fe *sframe.FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("err = %v, want a *FormatError", err)
			}
		})
	}
}

func TestFindFDEAgreesWithALinearSearch(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for round := 0; round < 50; round++ {
		b := &sframetest.Builder{Version: sframe.Version3, ABI: sframe.ABIAMD64LittleEndian, CFAFixedRAOffset: -8}
		n := 1 + r.IntN(40)
		for i := 0; i < n; i++ {
			// Small ranges make duplicate starts, nesting and gaps likely.
			b.FDEs = append(b.FDEs, sframetest.FDESpec{Start: uint64(0x1000 + 8*r.IntN(64)), Size: uint32(r.IntN(48)), FREs: []sframetest.FRESpec{{Words: []int32{8}}}})
		}
		s := sframetest.MustParse(t, b)
		for pc := uint64(0xff0); pc < 0x1000+8*64+64; pc++ {
			// Reference: the FDE with the greatest start <= pc that covers
			// pc among the maxOverlap+1 nearest, in address order.
			var want *sframe.FDE
			cnt := 0
			for k := range s.FDEs() {
				if s.FDEAt(k).Start <= pc {
					cnt = k + 1
				}
			}
			for k := cnt - 1; k >= 0 && k >= cnt-sframe.MaxOverlap; k-- {
				if f := s.FDEAt(k); pc >= f.Start && pc-f.Start < uint64(f.Size) {
					want = f
					break
				}
			}
			got, err := s.FindFDE(pc)
			if got != want || (want == nil) != errors.Is(err, sframe.ErrNoFDE) {
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
			s, err := openELF(filepath.Join("..", "testdata", "bin", name))
			if err != nil {
				t.Fatal(err)
			}
			s.ForceFREIndex(c.index) // built by the first indexable lookup, or never
			defer func() {
				if built, n, _ := s.FREIndex(); built != c.index || c.index && name == "sqlite-v3" && n == 0 {
					t.Errorf("FRE index built %v with %d entries, want built %v", built, n, c.index)
				}
			}()
			checkFindFRERange(t, s)
		})
	}
}

// checkFindFRERange looks up the first and last byte of every FRE of s.
func checkFindFRERange(t *testing.T, s *sframe.Section) {
	t.Helper()
	for i := range s.FDEs() {
		fde := &s.FDEs()[i]
		fres, err := s.AllFREs(fde)
		if err != nil {
			t.Fatal(err)
		}
		for k, want := range fres {
			end := fde.Size
			if fde.PCType == sframe.PCTypeMask {
				end = uint32(fde.RepSize)
			}
			if k+1 < len(fres) {
				end = fres[k+1].StartOff
			}
			for _, off := range []uint32{want.StartOff, end - 1} {
				if off < want.StartOff || off >= end {
					continue
				}
				var got sframe.FRE
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
	sp := sframe.BaseRegSP
	var long, short []sframetest.FRESpec
	for i := range 40 {
		long = append(long, sframetest.FRESpec{StartOff: uint32(i * 20), BaseReg: sp, Words: []int32{int32(16 + i*8)}})
	}
	for i := range 20 {
		short = append(short, sframetest.FRESpec{StartOff: uint32(i * 3), BaseReg: sp, Words: []int32{int32(16 + i*8)}})
	}
	for _, v := range []sframe.Version{sframe.Version2, sframe.Version3} {
		b := &sframetest.Builder{Version: v, ABI: sframe.ABIAArch64BigEndian, Flags: sframe.FlagFDESorted, Addr: 0x400000,
			FDEs: []sframetest.FDESpec{{Start: 0x401000, Size: 0x400, FREs: long}, {Start: 0x402000, Size: 0x40, FREs: short}}}
		data, err := b.Encode()
		if err != nil {
			t.Fatal(err)
		}
		for _, index := range []bool{false, true} {
			t.Run(fmt.Sprintf("v%d/index=%v", v, index), func(t *testing.T) {
				s, err := sframe.ParseAt(data, 0x400000)
				if err != nil {
					t.Fatal(err)
				}
				s.ForceFREIndex(index)
				checkFindFRERange(t, s)
				if built, n, _ := s.FREIndex(); built != index || index && n != 60 {
					t.Errorf("FRE index built %v with %d entries, want %v with 60", built, n, index)
				}
			})
		}
	}
}

func TestSharedFREDataKeepsTheIndexBounded(t *testing.T) {
	// 1000 FDEs pointing at the same 2000 FREs: a malformed section whose
	// naive FRE index would hold 2M entries.
	var fres []sframetest.FRESpec
	for i := 0; i < 2000; i++ {
		fres = append(fres, sframetest.FRESpec{StartOff: uint32(i), BaseReg: sframe.BaseRegSP, Words: []int32{8}})
	}
	b := sframetest.Builder{Version: sframe.Version3, ABI: sframe.ABIAMD64LittleEndian, Flags: sframe.FlagFDESorted | sframe.FlagFDEFuncStartPCRel, CFAFixedRAOffset: -8,
		FDEs: []sframetest.FDESpec{{Start: 0x1000, Size: 4000, FREs: fres}}}
	data, err := b.Encode()
	if err != nil {
		t.Fatal(err)
	}
	s, err := sframe.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	// Re-point copies of the one FDE at the same FRE data.
	s.ReplicateFDE(1000, 0x1000, 4000)
	s.ForceFREIndex(true) // the first lookup builds the index
	var fre sframe.FRE
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
	built, n, _ := s.FREIndex()
	if !built {
		t.Fatal("the FRE index was not built")
	}
	if limit := int(s.FRELen)/2 + 1; n > limit {
		t.Errorf("index holds %d entries, more than FRELen/2+1 = %d", n, limit)
	}
}

// TestFREIndexIsBuiltOnceLookupsPayForIt looks up PCs in the FDEs with at
// least freIndexMin FREs of a fresh section: the index must stay unbuilt
// while the FRE counts of the FDEs scanned add up to less than the
// section's FRE count, and be built by the lookup that reaches it.
func TestFREIndexIsBuiltOnceLookupsPayForIt(t *testing.T) {
	s, err := openELF(filepath.Join("..", "testdata", "bin", "sqlite-v3"))
	if err != nil {
		t.Fatal(err)
	}
	var big []*sframe.FDE
	for i := range s.FDEs() {
		if f := &s.FDEs()[i]; f.NumFREs >= sframe.FREIndexMin {
			big = append(big, f)
		}
	}
	if len(big) < 2 {
		t.Fatalf("only %d FDEs with %d or more FREs", len(big), sframe.FREIndexMin)
	}
	// A short FDE never counts.
	for i := range s.FDEs() {
		if f := &s.FDEs()[i]; f.NumFREs > 0 && f.NumFREs < sframe.FREIndexMin {
			var fre sframe.FRE
			for range 100 {
				s.FindFRE(f, f.Start, &fre)
			}
			break
		}
	}
	if built, _, scanned := s.FREIndex(); built || scanned != 0 {
		t.Fatalf("short FDEs counted: scanned %d", scanned)
	}
	sum := int64(0)
	for round := 0; ; round++ {
		f := big[round%len(big)]
		var fre sframe.FRE
		if err := s.FindFRE(f, f.Start, &fre); err != nil {
			t.Fatal(err)
		}
		sum += int64(f.NumFREs)
		want := sum >= int64(s.Header.NumFREs)
		if got, _, _ := s.FREIndex(); got != want {
			t.Fatalf("after %d lookups (%d FREs of %d): index built %v, want %v", round+1, sum, s.Header.NumFREs, got, want)
		}
		if sum >= int64(s.Header.NumFREs) {
			t.Logf("built after %d lookups in big FDEs", round+1)
			break
		}
	}
	if _, n, _ := s.FREIndex(); n == 0 {
		t.Error("index built empty")
	}
}
