package sframe_test

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sfdbg/sfdbg/sframe"
	"github.com/sfdbg/sfdbg/sframe/elfobj"
	"github.com/sfdbg/sfdbg/sframe/sframetest"
)

var updateCTF = flag.Bool("update-ctf", false, "rebuild testdata/bin/ctf-frame-v1 and its dump testdata/golden/ctf-frame-v1.objdump")

// sameRows fails the test unless a and b have the same FDEs, FRE starts
// and rows.
func sameRows(t *testing.T, a, b *sframe.Section) {
	t.Helper()
	if len(a.FDEs()) != len(b.FDEs()) {
		t.Fatalf("%d FDEs, want %d", len(a.FDEs()), len(b.FDEs()))
	}
	for i := range a.FDEs() {
		fa, fb := &a.FDEs()[i], &b.FDEs()[i]
		if fa.Start != fb.Start || fa.Size != fb.Size || fa.PCType != fb.PCType || fa.FREType != fb.FREType {
			t.Errorf("FDE %d: start %#x size %d %v %v, want %#x %d %v %v", i, fa.Start, fa.Size, fa.PCType, fa.FREType, fb.Start, fb.Size, fb.PCType, fb.FREType)
		}
		ra, erra := a.AllFREs(fa)
		rb, errb := b.AllFREs(fb)
		if erra != nil || errb != nil || len(ra) != len(rb) {
			t.Fatalf("FDE %d: %d FREs (%v), want %d (%v)", i, len(ra), erra, len(rb), errb)
		}
		for k := range ra {
			rowA, errA := a.Row(fa, &ra[k])
			rowB, errB := b.Row(fb, &rb[k])
			if ra[k].StartOff != rb[k].StartOff || rowA != rowB || (errA == nil) != (errB == nil) {
				t.Errorf("FDE %d FRE %d: start %#x row %+v (%v), want %#x %+v (%v)", i, k, ra[k].StartOff, rowA, errA, rb[k].StartOff, rowB, errB)
			}
		}
	}
}

// aarch64CTF returns a v1 AArch64 section whose FREs have the forms both
// layouts share: CFA only, and CFA, RA and FP. (v1 cannot say "FP saved,
// RA not", which is CTF Frame's two-offset form, nor CTF Frame "RA saved,
// FP not", v1's.)
func aarch64CTF(abi sframe.ABI) *sframetest.Builder {
	return &sframetest.Builder{Version: sframe.Version1, ABI: abi, Flags: sframe.FlagFDESorted, Addr: 0x7000,
		FDEs: []sframetest.FDESpec{
			{Start: 0x1000, Size: 0x30, FREs: []sframetest.FRESpec{
				{StartOff: 0, BaseReg: sframe.BaseRegSP, Words: []int32{0}},
				{StartOff: 4, BaseReg: sframe.BaseRegSP, Words: []int32{32, -8, -16}},
				{StartOff: 8, BaseReg: sframe.BaseRegFP, Words: []int32{32, -8, -16}},
			}},
			{Start: 0x2000, Size: 0x10, PCType: sframe.PCTypeMask, FREs: []sframetest.FRESpec{
				{StartOff: 0, BaseReg: sframe.BaseRegSP, Words: []int32{0}},
			}},
		}}
}

func TestCTFFrameDecodesToTheSFrameV1Rows(t *testing.T) {
	builders := map[string]*sframetest.Builder{"AMD64": sframetest.AMD64Section(sframe.Version1)}
	for _, abi := range []sframe.ABI{sframe.ABIAArch64LittleEndian, sframe.ABIAArch64BigEndian} {
		builders[abi.String()+" with FP and RA words"] = aarch64CTF(abi)
	}
	for name, b := range builders {
		t.Run(name+" round-trips through the CTF Frame layout", func(t *testing.T) {
			ctf, err := b.EncodeCTFFrame()
			if err != nil {
				t.Fatal(err)
			}
			v1 := sframetest.MustEncode(t, b)
			if len(ctf) != len(v1)-1 {
				t.Errorf("CTF Frame section of %d bytes, want %d (no auxiliary-header length byte)", len(ctf), len(v1)-1)
			}
			got, err := sframe.ParseCTFAt(ctf, b.Addr)
			if err != nil {
				t.Fatal(err)
			}
			if !got.CTFFrame {
				t.Error("CTFFrame not set")
			}
			sameRows(t, got, sframetest.MustParse(t, b))
		})
	}
}

func TestCTFFrameLayoutDiffersFromSFrameV1(t *testing.T) {
	b := aarch64CTF(sframe.ABIAArch64LittleEndian)
	ctf, err := b.EncodeCTFFrame()
	if err != nil {
		t.Fatal(err)
	}
	bo := binary.LittleEndian
	const fde0 = sframe.CTFFrameHeaderSize
	t.Run("the header has no auxiliary-header length: the FDE count is at byte 7", func(t *testing.T) {
		if n := bo.Uint32(ctf[7:]); n != uint32(len(b.FDEs)) {
			t.Errorf("num_fdes %d at byte 7, want %d", n, len(b.FDEs))
		}
	})
	t.Run("function starts are relative to the FDE", func(t *testing.T) {
		if got, want := int64(int32(bo.Uint32(ctf[fde0:]))), int64(b.FDEs[0].Start-b.Addr)-fde0; got != want {
			t.Errorf("start field %d, want %d", got, want)
		}
	})
	t.Run("FRE types are numbered from 1", func(t *testing.T) {
		if got := ctf[fde0+16] & 0xf; got != uint8(sframe.CTFFrameFRETypeAddr1) {
			t.Errorf("FRE type %d, want CTF_FRAME_ROW_ENTRY_TYPE_ADDR1 (1)", got)
		}
	})
	t.Run("offsets are ordered CFA, FP, RA", func(t *testing.T) {
		// FRE 1 of FDE 0: words {32, -8, -16} in v1 order (CFA, RA, FP)
		// are written CFA, FP, RA; FRE 0 (one word) takes 3 bytes.
		off := sframe.CTFFrameHeaderSize + 2*sframe.CTFFrameFDESize + 3
		if got := []int8{int8(ctf[off+2]), int8(ctf[off+3]), int8(ctf[off+4])}; got[0] != 32 || got[1] != -16 || got[2] != -8 {
			t.Errorf("words %v, want [32 -16 -8]", got)
		}
	})
	t.Run("an FRE tracking FP but not RA has no SFrame v1 form", func(t *testing.T) {
		bad := bytes.Clone(ctf)
		bad[fre1Info] = uint8(sframetest.MakeFREInfo(sframe.BaseRegSP, 2, sframe.DataWord1B, false))
		if _, err := sframe.ParseCTFAt(bad, b.Addr); err == nil {
			t.Error("no error")
		}
	})
	t.Run("an FRE type of 0 is unknown", func(t *testing.T) {
		bad := bytes.Clone(ctf)
		bad[fde0+16] &^= 0xf
		s, err := sframe.ParseCTFAt(bad, b.Addr)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.AllFREs(&s.FDEs()[0]); err == nil {
			t.Error("FREs of an FDE with FRE type 0 decoded")
		}
	})
	t.Run("a wrong version is refused at byte 2", func(t *testing.T) {
		bad := bytes.Clone(ctf)
		bad[2] = 2
		if _, err := sframe.ParseCTFAt(bad, b.Addr); err == nil || err.(*sframe.FormatError).Off != 2 {
			t.Errorf("err %v, want a FormatError at byte 2", err)
		}
	})
	t.Run("a short header is refused", func(t *testing.T) {
		if _, err := sframe.ParseCTFAt(ctf[:20], b.Addr); err == nil {
			t.Error("no error")
		}
	})
	t.Run("an FRE sub-section past the end is refused with the CTF offset", func(t *testing.T) {
		bad := bytes.Clone(ctf)
		bo.PutUint32(bad[15:], 1<<20) // cth_fre_len
		_, err := sframe.ParseCTFAt(bad, b.Addr)
		if fe, ok := err.(*sframe.FormatError); !ok || fe.Off != 23 {
			t.Errorf("err %v, want a FormatError at byte 23 (cth_freoff)", err)
		}
	})
}

// fre1Info is the offset of the info byte of FRE 1 of FDE 0 of the
// section aarch64CTF builds, in its CTF Frame layout.
const fre1Info = sframe.CTFFrameHeaderSize + 2*sframe.CTFFrameFDESize + 3 + 1

// ctfFixtureFrom builds the CTF Frame fixture from the ELF file src (an
// SFrame v1 build of GNU as 2.40): its .sframe is re-encoded as CTF Frame
// by sframetest.EncodeCTFFrame and stored in place as ".ctf_frame" (one
// byte shorter), the section name table is rewritten at the end of the
// file with the new name, and the PT_GNU_SFRAME segment becomes PT_NULL, so
// that nothing finds an .sframe any more. No toolchain emits CTF Frame;
// this is the only way to have one.
func ctfFixtureFrom(t *testing.T, src string) []byte {
	t.Helper()
	raw, err := os.ReadFile(src)
	if err != nil {
		t.Skip(err)
	}
	f, err := elf.NewFile(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if f.Class != elf.ELFCLASS64 || f.Data != elf.ELFDATA2LSB {
		t.Fatal("want a little-endian ELF64 file")
	}
	sec := f.Section(".sframe")
	data, err := sec.Data()
	if err != nil {
		t.Fatal(err)
	}
	s, err := sframe.ParseAt(data, sec.Addr)
	if err != nil {
		t.Fatal(err)
	}
	b, err := sframetest.SpecFrom(s)
	if err != nil {
		t.Fatal(err)
	}
	ctf, err := b.EncodeCTFFrame()
	if err != nil {
		t.Fatal(err)
	}
	out := bytes.Clone(raw)
	bo := binary.LittleEndian
	copy(out[sec.Offset:sec.Offset+sec.Size], append(ctf, 0))
	shoff, shentsize := bo.Uint64(out[0x28:]), uint64(bo.Uint16(out[0x3a:]))
	shstrndx := uint64(bo.Uint16(out[0x3e:]))
	hdr := func(i int) []byte { return out[shoff+uint64(i)*shentsize:] }
	strtab := f.Sections[shstrndx]
	names, err := strtab.Data()
	if err != nil {
		t.Fatal(err)
	}
	nameOff := uint32(len(names))
	names = append(names, sframe.CTFFrameSectionName+"\x00"...)
	for i, x := range f.Sections {
		if x == sec {
			h := hdr(i)
			bo.PutUint32(h[0:], nameOff)
			bo.PutUint32(h[4:], uint32(elf.SHT_PROGBITS))
			bo.PutUint64(h[32:], uint64(len(ctf)))
		}
	}
	h := hdr(int(shstrndx))
	bo.PutUint64(h[24:], uint64(len(out)))
	bo.PutUint64(h[32:], uint64(len(names)))
	out = append(out, names...)
	phoff, phentsize, phnum := bo.Uint64(out[0x20:]), uint64(bo.Uint16(out[0x36:])), uint64(bo.Uint16(out[0x38:]))
	for i := uint64(0); i < phnum; i++ {
		p := out[phoff+i*phentsize:]
		if elf.ProgType(bo.Uint32(p)) == sframe.PT_GNU_SFRAME {
			bo.PutUint32(p, uint32(elf.PT_NULL))
		}
	}
	return out
}

func TestCTFFrameFixture(t *testing.T) {
	bin := filepath.Join("..", "testdata", "bin", "ctf-frame-v1")
	golden := filepath.Join("..", "testdata", "golden", "ctf-frame-v1.objdump")
	built := ctfFixtureFrom(t, filepath.Join("..", "testdata", "bin", "deep-v1-O2"))
	f, err := elf.NewFile(bytes.NewReader(built))
	if err != nil {
		t.Fatal(err)
	}
	if d, err := elfobj.Link(f).FindSFrame(); err != nil || !d.CTFFrame {
		t.Fatalf("the fixture's SFrame data is not its .ctf_frame section: %+v, %v", d, err)
	}
	s, err := elfobj.FromELF(f)
	if err != nil {
		t.Fatal(err)
	}
	if !s.CTFFrame {
		t.Fatal("FromELF did not read .ctf_frame as CTF Frame")
	}
	var dump bytes.Buffer
	if err := s.WriteText(&dump); err != nil {
		t.Fatal(err)
	}
	if *updateCTF {
		if err := os.WriteFile(bin, built, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, dump.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Run("the committed fixture is what the encoder builds", func(t *testing.T) {
		got, err := os.ReadFile(bin)
		if err != nil {
			t.Fatalf("%v (run go test ./sframe -run TestCTFFrameFixture -update-ctf)", err)
		}
		if !bytes.Equal(got, built) {
			t.Error("testdata/bin/ctf-frame-v1 differs from what the encoder builds (-update-ctf rebuilds it)")
		}
	})
	t.Run("it decodes to the rows of the SFrame v1 build it came from", func(t *testing.T) {
		orig, err := elf.Open(filepath.Join("..", "testdata", "bin", "deep-v1-O2"))
		if err != nil {
			t.Fatal(err)
		}
		defer orig.Close()
		v1, err := elfobj.FromELF(orig)
		if err != nil {
			t.Fatal(err)
		}
		sameRows(t, s, v1)
	})
	t.Run("the dump is the golden one", func(t *testing.T) {
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(dump.Bytes(), want) {
			t.Errorf("dump differs from %s:\n%s", golden, dump.String())
		}
	})
}

// FuzzParseCTF checks that ParseCTFAt never panics, fails only with a
// *FormatError inside the section, and that whatever it accepts can be
// walked, validated and dumped (text, and JSON that is valid) with the
// work budgets of FuzzParse and FuzzWriteText. Seeds: the encoder's CTF
// Frame sections.
func FuzzParseCTF(f *testing.F) {
	for _, b := range []*sframetest.Builder{sframetest.AMD64Section(sframe.Version1), aarch64CTF(sframe.ABIAArch64LittleEndian), aarch64CTF(sframe.ABIAArch64BigEndian)} {
		if d, err := b.EncodeCTFFrame(); err == nil {
			f.Add(d)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// ParseCTFAt rewrites the section into SFrame v1 form: one copy.
		sframetest.AllocBudget(parseAllocs.PerByte+dumpAllocs.PerByte+1).CheckAllocs(t, len(data), func() {
			s, err := sframe.ParseCTFAt(data, 0x1000)
			if err != nil {
				var fe *sframe.FormatError
				if !errors.As(err, &fe) || fe.Off < 0 || fe.Off > int64(len(data)) {
					t.Fatalf("ParseCTFAt: %v is not a *FormatError inside the %d-byte section", err, len(data))
				}
				return
			}
			budget := 4*len(data) + 64 // FREs to decode; sections that share FRE data are quadratic
			for i := range s.FDEs() {
				fde := &s.FDEs()[i]
				it := s.FREs(fde)
				n := uint64(0)
				for budget > 0 && it.Next() {
					budget--
					n++
					s.Row(fde, it.FRE())
				}
				parseFREs.Check(t, n, len(data))
			}
			parseProblems.Check(t, uint64(len(s.Validate())), len(data))
			var w countWriter
			s.WriteText(&w)
			textBudget.Check(t, uint64(w), len(data))
			var buf bytes.Buffer
			_ = s.WriteJSON(&buf)
			if !json.Valid(buf.Bytes()) {
				t.Fatalf("invalid JSON:\n%s", buf.String())
			}
			jsonBudget.Check(t, uint64(buf.Len()), len(data))
		})
	})
}

// TestCTFFrameErrorsNameTheSectionAndFormat damages a CTF Frame section in
// its header, its FDE sub-section and one FRE, and checks that every error
// (from ParseCTFAt and from the section's methods) names .ctf_frame and CTF
// Frame, not SFrame, at the offset of the damage in the section's own bytes.
func TestCTFFrameErrorsNameTheSectionAndFormat(t *testing.T) {
	good, err := aarch64CTF(sframe.ABIAArch64LittleEndian).EncodeCTFFrame()
	if err != nil {
		t.Fatal(err)
	}
	bo := binary.LittleEndian
	freOff := bo.Uint32(good[23:])
	fre0 := sframe.CTFFrameHeaderSize + int(freOff) + int(bo.Uint32(good[sframe.CTFFrameHeaderSize+8:])) // FDE 0's first FRE
	info := int64(fre0 + 1)                                                                              // after its 1-byte start address
	check := func(t *testing.T, err error, off int64) {
		t.Helper()
		var fe *sframe.FormatError
		if !errors.As(err, &fe) {
			t.Fatalf("error %v, want a *FormatError", err)
		}
		msg := err.Error()
		if fe.Section != sframe.CTFFrameSectionName || !strings.HasPrefix(msg, ".ctf_frame (CTF Frame): ") || strings.Contains(msg, "sframe") || fe.Off != off {
			t.Errorf("error %q (section %q) at byte %#x, want .ctf_frame (CTF Frame) at byte %#x", msg, fe.Section, fe.Off, off)
		}
	}
	for _, c := range []struct {
		name   string
		damage func(d []byte)
		off    int64
	}{
		{"an unknown version", func(d []byte) { d[2] = 7 }, 2},
		{"more FDEs than the section holds", func(d []byte) { bo.PutUint32(d[7:], 1<<30) }, 19},
		{"an FRE sub-section past the end", func(d []byte) { bo.PutUint32(d[15:], 1<<30) }, 23},
	} {
		t.Run(c.name+" is refused at the damaged field", func(t *testing.T) {
			d := bytes.Clone(good)
			c.damage(d)
			_, err := sframe.ParseCTFAt(d, 0x7000)
			check(t, err, c.off)
			if err != nil && strings.Contains(err.Error(), fmt.Sprintf("%d-byte", len(d)+1)) {
				t.Errorf("error %q gives the size of the v1 image, not of the %d-byte section", err, len(d))
			}
		})
	}
	t.Run("an FRE with an unknown data-word size fails lookups and the dump at its info byte", func(t *testing.T) {
		d := bytes.Clone(good)
		d[info] |= 3 << 5
		s, err := sframe.ParseCTFAt(d, 0x7000)
		if err != nil {
			t.Fatal(err)
		}
		fde := &s.FDEs()[0]
		_, err = s.AllFREs(fde)
		check(t, err, info)
		var fre sframe.FRE
		_, _, err = s.FindFRERange(fde, fde.Start, &fre)
		check(t, err, info)
		check(t, s.WriteText(io.Discard), info)
		check(t, s.WriteJSON(io.Discard), info)
	})
}
