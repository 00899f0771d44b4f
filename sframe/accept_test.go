package sframe_test

import (
	"debug/elf"
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/sfdbg/sfdbg/sframe"
	"github.com/sfdbg/sfdbg/sframe/elfobj"
	"github.com/sfdbg/sfdbg/sframe/sframetest"
)

// acceptText is the text range of sframetest.AMD64Section: every FDE
// starts inside it.
var acceptText = []sframe.TextRange{{Start: 0x1000, End: 0x20000}}

// failedRules returns the names of the rules that failed, sorted, without
// repeats.
func failedRules(a sframe.Acceptance) []string {
	var out []string
	for _, r := range a.Rejections {
		if !slices.Contains(out, r.Name) {
			out = append(out, r.Name)
		}
	}
	sort.Strings(out)
	return out
}

// fresFirst lays b's section out with the FRE sub-section before the FDE
// sub-section (b must not use PC-relative function starts, which would
// move with their FDEs).
func fresFirst(t *testing.T, b *sframetest.Builder) []byte {
	t.Helper()
	d := sframetest.MustEncode(t, b)
	s := sframetest.MustParse(t, b)
	hl := s.HeaderLen()
	fdes := d[hl+int(s.FDEOff) : hl+int(s.FREOff)]
	fres := d[hl+int(s.FREOff):]
	out := slices.Clone(d[:hl])
	binary.LittleEndian.PutUint32(out[20:], uint32(len(fres)))
	binary.LittleEndian.PutUint32(out[24:], 0)
	out = append(out, fres...)
	fdes = slices.Clone(fdes)
	if b.Flags&sframe.FlagFDEFuncStartPCRel != 0 {
		// The FDEs move len(fres) bytes on: their function starts, relative
		// to their own field, move back by as much.
		size := int(s.FDESize())
		for i := 0; i+size <= len(fdes); i += size {
			v := int64(binary.LittleEndian.Uint64(fdes[i:]))
			binary.LittleEndian.PutUint64(fdes[i:], uint64(v-int64(len(fres))))
		}
	}
	return append(out, fdes...)
}

func u8(v uint8) *uint8    { return &v }
func u32(v uint32) *uint32 { return &v }
func u16(v uint16) *uint16 { return &v }

func TestAcceptanceRulesEachFailAlone(t *testing.T) {
	base := func() *sframetest.Builder { return sframetest.AMD64Section(sframe.Version3) }
	badWordSize := uint8(sframetest.MakeFREInfo(sframe.BaseRegSP, 1, 0, false)) | 3<<5
	cases := []struct {
		name     string
		consumer sframe.Consumer
		rule     string
		off      int64 // -1: not checked
		data     func(t *testing.T) []byte
		text     []sframe.TextRange
	}{
		{"the kernel refuses a version 2 section", sframe.ConsumerLinux, "version", 2, func(t *testing.T) []byte {
			return sframetest.MustEncode(t, sframetest.AMD64Section(sframe.Version2))
		}, acceptText},
		{"the kernel refuses a section without SFRAME_F_FDE_SORTED", sframe.ConsumerLinux, "fde-sorted", 3, func(t *testing.T) []byte {
			b := base()
			b.Flags &^= sframe.FlagFDESorted
			return sframetest.MustEncode(t, b)
		}, acceptText},
		{"the kernel refuses a section without SFRAME_F_FDE_FUNC_START_PCREL", sframe.ConsumerLinux, "fde-func-start-pcrel", 3, func(t *testing.T) []byte {
			b := base()
			b.Flags &^= sframe.FlagFDEFuncStartPCRel
			return sframetest.MustEncode(t, b)
		}, acceptText},
		{"the kernel refuses an auxiliary header", sframe.ConsumerLinux, "no-aux-header", 7, func(t *testing.T) []byte {
			b := base()
			b.AuxHeader = []byte{0, 0, 0, 0}
			return sframetest.MustEncode(t, b)
		}, acceptText},
		{"the kernel refuses a section without FDEs and FREs", sframe.ConsumerLinux, "non-zero-counts", 8, func(t *testing.T) []byte {
			b := base()
			b.FDEs = nil
			return sframetest.MustEncode(t, b)
		}, acceptText},
		{"the kernel refuses FREs laid out before the FDEs", sframe.ConsumerLinux, "subsections-in-section", 24, func(t *testing.T) []byte {
			return fresFirst(t, base())
		}, acceptText},
		{"the kernel refuses an FRE sub-section past the section end", sframe.ConsumerLinux, "subsections-in-section", 24, func(t *testing.T) []byte {
			b := base()
			b.Override.FRELen = u32(1 << 20)
			return sframetest.MustEncode(t, b)
		}, acceptText},
		{"the kernel refuses an unknown ABI", sframe.ConsumerLinux, "header", 4, func(t *testing.T) []byte {
			b := base()
			b.Override.ABI = u8(9)
			return sframetest.MustEncode(t, b)
		}, acceptText},
		{"the kernel refuses an AArch64 section", sframe.ConsumerLinux, "arch", 4, func(t *testing.T) []byte {
			b := base()
			b.ABI, b.CFAFixedRAOffset = sframe.ABIAArch64LittleEndian, 0
			return sframetest.MustEncode(t, b)
		}, acceptText},
		{"the kernel refuses an FDE outside the text range", sframe.ConsumerLinux, "fde-in-text", sframe.HeaderSize + 3*sframe.FDEIndexSize, func(t *testing.T) []byte {
			return sframetest.MustEncode(t, base())
		}, []sframe.TextRange{{Start: 0x1000, End: 0x1400}}},
		{"the kernel refuses FDEs out of order", sframe.ConsumerLinux, "fde-order", sframe.HeaderSize + 2*sframe.FDEIndexSize, func(t *testing.T) []byte {
			b := base()
			b.FDEs[1], b.FDEs[2] = b.FDEs[2], b.FDEs[1]
			return sframetest.MustEncode(t, b)
		}, acceptText},
		{"the kernel refuses an unknown FDE type", sframe.ConsumerLinux, "fde-decodable", -1, func(t *testing.T) []byte {
			b := base()
			b.FDEs[1].Info2 = u8(7)
			return sframetest.MustEncode(t, b)
		}, acceptText},
		{"the kernel refuses an FRE that runs past the FRE sub-section", sframe.ConsumerLinux, "fre-in-section", -1, func(t *testing.T) []byte {
			b := base()
			b.FDEs[3].NumFREs = u32(4)
			return sframetest.MustEncode(t, b)
		}, acceptText},
		{"the kernel refuses an FRE that starts past the function size", sframe.ConsumerLinux, "fre-start-in-function", -1, func(t *testing.T) []byte {
			b := base()
			b.FDEs[1].FREs[3].StartOff = 41 // size 40
			return sframetest.MustEncode(t, b)
		}, acceptText},
		{"the kernel refuses FRE starts that do not increase", sframe.ConsumerLinux, "fre-order", -1, func(t *testing.T) []byte {
			b := base()
			b.FDEs[1].FREs[2].StartOff = 1
			return sframetest.MustEncode(t, b)
		}, acceptText},
		{"the kernel refuses an FRE without data words", sframe.ConsumerLinux, "fre-data-words", -1, func(t *testing.T) []byte {
			b := base()
			b.FDEs[1].FREs[0] = sframetest.OutermostFRE(0)
			return sframetest.MustEncode(t, b)
		}, acceptText},
		{"the kernel refuses an RA data word where the header fixes the RA offset", sframe.ConsumerLinux, "fre-data-words", -1, func(t *testing.T) []byte {
			b := base()
			b.FDEs[1].FREs[1].Words = []int32{16, -8, -16}
			return sframetest.MustEncode(t, b)
		}, acceptText},
		{"the kernel refuses an FP data word where the header fixes the FP offset", sframe.ConsumerLinux, "fre-data-words", -1, func(t *testing.T) []byte {
			b := base()
			b.CFAFixedFPOffset = -16
			return sframetest.MustEncode(t, b)
		}, acceptText},
		{"the kernel refuses an unknown data-word size", sframe.ConsumerLinux, "fre-data-words", -1, func(t *testing.T) []byte {
			b := base()
			b.FDEs[1].FREs[0].Info = &badWordSize
			return sframetest.MustEncode(t, b)
		}, acceptText},

		{"libsframe refuses a section shorter than the header", sframe.ConsumerLibsframe, "header-size", 0, func(t *testing.T) []byte {
			return sframetest.MustEncode(t, base())[:20]
		}, nil},
		{"libsframe refuses a bad magic", sframe.ConsumerLibsframe, "magic", 0, func(t *testing.T) []byte {
			b := base()
			b.Override.Magic = u16(0x1234)
			return sframetest.MustEncode(t, b)
		}, nil},
		{"libsframe refuses version 4", sframe.ConsumerLibsframe, "version", 2, func(t *testing.T) []byte {
			b := base()
			b.Override.Version = u8(4)
			return sframetest.MustEncode(t, b)
		}, nil},
		{"libsframe refuses a flag unknown to the version", sframe.ConsumerLibsframe, "known-flags", 3, func(t *testing.T) []byte {
			b := base()
			b.Flags |= sframe.FlagFramePointer // v1 and v2 only
			return sframetest.MustEncode(t, b)
		}, nil},
		{"libsframe refuses sfh_fdeoff after sfh_freoff", sframe.ConsumerLibsframe, "fdeoff-le-freoff", 20, func(t *testing.T) []byte {
			b := base()
			b.Flags &^= sframe.FlagFDEFuncStartPCRel
			return fresFirst(t, b)
		}, nil},
		{"libsframe does not look PCs up without SFRAME_F_FDE_SORTED", sframe.ConsumerLibsframe, "fde-sorted", 3, func(t *testing.T) []byte {
			b := base()
			b.Flags &^= sframe.FlagFDESorted
			return sframetest.MustEncode(t, b)
		}, nil},
		{"libsframe refuses an unknown data-word size", sframe.ConsumerLibsframe, "data-word-size", -1, func(t *testing.T) []byte {
			b := base()
			b.FDEs[1].FREs[0].Info = &badWordSize
			return sframetest.MustEncode(t, b)
		}, nil},
	}
	t.Run("both accept the well-formed v3 section", func(t *testing.T) {
		for _, a := range sframe.Accept(sframetest.MustEncode(t, base()), 0x10000, acceptText) {
			if !a.Accepted || len(a.Rejections) > 0 {
				t.Errorf("%v: accepted %v, %v", a.Consumer, a.Accepted, a.Rejections)
			}
		}
	})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := c.data(t)
			var a sframe.Acceptance
			if c.consumer == sframe.ConsumerLinux {
				a = sframe.AcceptLinux(d, 0x10000, c.text)
			} else {
				a = sframe.AcceptLibsframe(d)
			}
			if a.Accepted {
				t.Fatalf("accepted, want rule %s to fail", c.rule)
			}
			if got := failedRules(a); !slices.Equal(got, []string{c.rule}) {
				t.Fatalf("failed rules %v, want only %s: %v", got, c.rule, a.Rejections)
			}
			r := a.Rejections[0]
			if c.off >= 0 && r.Off != c.off {
				t.Errorf("offset %#x, want %#x (%v)", r.Off, c.off, r)
			}
			if r.Off < 0 || r.Off > int64(len(d)) {
				t.Errorf("offset %#x outside the %d-byte section", r.Off, len(d))
			}
			want := "kernel/unwind/sframe.c"
			if c.consumer == sframe.ConsumerLibsframe {
				want = "libsframe/sframe.c"
			}
			if r.Name != "arch" && (!strings.Contains(r.Source, want) || !strings.Contains(r.Source, "()")) {
				t.Errorf("source %q does not cite a function of %s", r.Source, want)
			}
			t.Log(r)
		})
	}
}

// execText returns the executable PT_LOAD segments of an ELF file: the
// text range the kernel registers with its SFrame section.
func execText(f *elf.File) []sframe.TextRange {
	var out []sframe.TextRange
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD && p.Flags&elf.PF_X != 0 {
			out = append(out, sframe.TextRange{Start: p.Vaddr, End: p.Vaddr + p.Memsz})
		}
	}
	return out
}

// TestFixturesAcceptance records which fixtures the kernel and libsframe
// accept, and why not. The kernel series reads SFrame v3 only; libsframe
// 2.47 reads all three versions. features-v3 marks _start outermost with an
// FRE of zero data words, which the kernel rules refuse. Fixtures not
// listed here are only logged.
func TestFixturesAcceptance(t *testing.T) {
	want := map[string]map[sframe.Consumer][]string{}
	for _, n := range []string{"deep-v1-O0", "deep-v1-O2", "deep-v2-O0", "deep-v2-O2", "features-v1", "features-v2", "aarch64-v2", "aarch64be-v2", "sqlite-v2"} {
		want[n] = map[sframe.Consumer][]string{sframe.ConsumerLinux: {"version"}}
	}
	want["features-v3"] = map[sframe.Consumer][]string{sframe.ConsumerLinux: {"fre-data-words"}}
	want["s390x-v3"] = map[sframe.Consumer][]string{sframe.ConsumerLinux: {"fre-data-words"}}
	for _, n := range []string{"aarch64-v3", "aarch64be-v3"} {
		want[n] = map[sframe.Consumer][]string{sframe.ConsumerLinux: {"arch", "fre-data-words"}}
	}
	for _, n := range []string{"deep-v3-O0", "deep-v3-O2", "sqlite-v3"} {
		want[n] = map[sframe.Consumer][]string{} // accepted by both
	}
	dir := filepath.Join("..", "testdata", "bin")
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Skip(err)
	}
	for _, e := range ents {
		f, err := elf.Open(filepath.Join(dir, e.Name()))
		if err != nil {
			continue
		}
		d, err := elfobj.Link(f).FindSFrame()
		data, addr := d.Data, d.Addr
		text := execText(f)
		f.Close()
		if err != nil {
			continue
		}
		t.Run(e.Name(), func(t *testing.T) {
			exps, known := want[e.Name()]
			for _, a := range sframe.Accept(data, addr, text) {
				got := failedRules(a)
				if exp := exps[a.Consumer]; known && !slices.Equal(got, exp) {
					t.Errorf("%v: failed rules %v, want %v: %v", a.Consumer, got, exp, a.Rejections)
				}
				for _, r := range a.Rejections {
					t.Logf("%v: %v", a.Consumer, r)
				}
			}
		})
	}
}

// TestAcceptStopsWhereFDEsShareMoreFREsThanTheSectionHolds: 2000 FDEs
// that all list one block of 1000 FREs (2 million FRE decodes for a
// 36 KB section, quadratic in a larger one). Both verdicts walk FREs up
// to the dump's budget and say from which FDE on they did not; the FDE
// rules still apply to every FDE (the unsorted FDE at the end is found).
func TestAcceptStopsWhereFDEsShareMoreFREsThanTheSectionHolds(t *testing.T) {
	fres := make([]sframetest.FRESpec, 1000)
	for i := range fres {
		// Three data words where the header leaves one to FREs: every
		// FRE breaks a kernel rule, so a walk shows in the rejections.
		fres[i] = sframetest.FRESpec{StartOff: uint32(i), Words: []int32{8, -16, -24}}
	}
	b := &sframetest.Builder{Version: sframe.Version3, ABI: sframe.ABIAMD64LittleEndian, CFAFixedRAOffset: -8, CFAFixedFPOffset: -16}
	for i := 0; i < 2000; i++ {
		start := uint64(0x10000 * (i + 1))
		if i == 1999 {
			start = 0x1000 // out of order: an FDE rule past the FRE budget
		}
		f := sframetest.FDESpec{Start: start, Size: 1000, FREOff: new(uint32(0)), NumFREs: new(uint32(1000))}
		if i == 0 {
			f.FREs = fres
		}
		b.FDEs = append(b.FDEs, f)
	}
	data, err := b.Encode()
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range sframe.Accept(data, 0, nil) {
		if !strings.Contains(a.NotWalked, "FRE rules not applied from FDE ") {
			t.Errorf("%s: not_walked %q, want the FDE where the FRE walk stopped", a.Consumer, a.NotWalked)
		}
		if a.Consumer == sframe.ConsumerLinux {
			var order, words bool
			for _, r := range a.Rejections {
				order = order || r.Name == "fde-order"
				words = words || r.Name == "fre-data-words"
			}
			if !order || !words {
				t.Errorf("linux: rejections %v, want fde-order (past the budget) and fre-data-words", a.Rejections)
			}
		}
	}
	// Sections whose FDEs do not share FREs are walked whole.
	for _, fx := range fixturesOrSkip(t) {
		for _, a := range sframe.Accept(fx.data, fx.addr, nil) {
			if a.NotWalked != "" {
				t.Errorf("%s: %s: %s", fx.name, a.Consumer, a.NotWalked)
			}
		}
	}
}
