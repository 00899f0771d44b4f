package cfi

import (
	"debug/elf"
	"encoding/binary"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sfdbg/sfdbg/sframe/sframetest"
)

// checkError fails unless err is an *Error of section sec matching want,
// whose message contains msg, at an offset inside a section of size bytes
// (or at its end, where a field is missing).
func checkError(t *testing.T, err error, sec string, want error, msg string, size int64) *Error {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T), want an *Error", err, err)
	}
	if e.Section != sec || !errors.Is(err, want) || !strings.Contains(err.Error(), msg) {
		t.Fatalf("error %v, want a %s error matching %v with %q", err, sec, want, msg)
	}
	if e.Off < 0 || e.Off > size {
		t.Fatalf("error offset %#x outside the section (%#x bytes): %v", e.Off, size, err)
	}
	return e
}

func TestMalformedRecords(t *testing.T) {
	le := binary.LittleEndian
	cases := []struct {
		name  string
		build func() Section
		want  error
		msg   string
		off   int64 // -1: do not check
	}{
		{"a record length past the end of the section is malformed", func() Section {
			b := newBuilder(EHFrame, le, false)
			b.cie(cieSpec{})
			b.buf = append(b.buf, 0x40, 0, 0, 0, 1, 2, 3, 4)
			return b.section()
		}, ErrMalformed, "runs past the end", 0xd},
		{"a 64-bit record length past the end of the section is malformed", func() Section {
			b := newBuilder(DebugFrame, le, true)
			b.buf = append(b.buf, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 0x80)
			return b.section()
		}, ErrMalformed, "runs past the end", 0},
		{"a reserved initial length is malformed", func() Section {
			b := newBuilder(DebugFrame, le, false)
			b.buf = append(b.buf, 0xf0, 0xff, 0xff, 0xff, 0, 0, 0, 0)
			return b.section()
		}, ErrMalformed, "reserved initial length", 0},
		{"a record too short for its CIE id is malformed", func() Section {
			b := newBuilder(EHFrame, le, false)
			b.buf = append(b.buf, 2, 0, 0, 0, 0, 0)
			return b.section()
		}, ErrMalformed, "runs past the end", 0},
		{"a truncated length word is malformed", func() Section {
			b := newBuilder(EHFrame, le, false)
			b.cie(cieSpec{})
			b.buf = append(b.buf, 1, 0)
			return b.section()
		}, ErrMalformed, "truncated record length", 0xd},
		{"a CIE pointer to the FDE itself is malformed", func() Section {
			b := newBuilder(EHFrame, le, false)
			b.cie(cieSpec{})
			self := b.off()
			b.cies[self] = cieSpec{addrSize: 8}
			b.fde(self, fdeSpec{start: 0x1000, length: 0x10})
			return b.section()
		}, ErrMalformed, "leads to the FDE itself", 0xd},
		{"a CIE pointer to an FDE is malformed", func() Section {
			b := newBuilder(EHFrame, le, false)
			c := b.cie(cieSpec{})
			f := b.fde(c, fdeSpec{start: 0x1000, length: 0x10})
			b.cies[f] = b.cies[c]
			b.fde(f, fdeSpec{start: 0x2000, length: 0x10})
			return b.section()
		}, ErrMalformed, "not a CIE", 0x25},
		{"an .eh_frame CIE pointer before the section is malformed", func() Section {
			b := newBuilder(EHFrame, le, false)
			b.cies[-64] = cieSpec{addrSize: 8}
			b.fde(-64, fdeSpec{start: 0x1000, length: 0x10})
			return b.section()
		}, ErrMalformed, "before the start of the section", 4},
		{"a .debug_frame CIE pointer past the section is malformed", func() Section {
			b := newBuilder(DebugFrame, le, false)
			b.cies[0x1000] = cieSpec{addrSize: 8}
			b.fde(0x1000, fdeSpec{start: 0x1000, length: 0x10})
			return b.section()
		}, ErrMalformed, "past the end of the section", 4},
		{"a CIE pointer into the middle of a record is malformed", func() Section {
			b := newBuilder(DebugFrame, le, false)
			c := b.cie(cieSpec{version: 3})
			b.cies[c+4] = b.cies[c]
			b.fde(c+4, fdeSpec{start: 0x1000, length: 0x10})
			return b.section()
		}, ErrMalformed, "not the start of a CIE", -1},
		{"CIE version 2 is refused", func() Section {
			b := newBuilder(EHFrame, le, false)
			b.cie(cieSpec{version: 2})
			return b.section()
		}, ErrUnsupported, "CIE version 2", 8},
		{"an augmentation that does not start with z is refused", func() Section {
			b := newBuilder(EHFrame, le, false)
			b.cie(cieSpec{aug: "armcc+"})
			return b.section()
		}, ErrUnsupported, `augmentation "armcc+"`, 9},
		{"an unknown augmentation letter is refused", func() Section {
			b := newBuilder(EHFrame, le, false)
			b.cie(cieSpec{aug: "zRX", fdeEnc: DW_EH_PE_pcrel | DW_EH_PE_sdata4})
			return b.section()
		}, ErrUnsupported, "augmentation character 'X'", 11},
		{"augmentation data past the record is malformed", func() Section {
			b := newBuilder(EHFrame, le, false)
			b.cie(cieSpec{aug: "zR", augData: []byte{3}, initial: []byte{}})
			b.buf[len(b.buf)-2] = 9 // the data length
			return b.section()
		}, ErrMalformed, "augmentation data of 9 bytes", -1},
		{"augmentation data shorter than its fields is malformed", func() Section {
			b := newBuilder(EHFrame, le, false)
			b.cie(cieSpec{aug: "zPR", augData: []byte{byte(DW_EH_PE_udata4), 0}})
			return b.section()
		}, ErrMalformed, "truncated personality routine", -1},
		{"an unknown pointer format is malformed", func() Section {
			b := newBuilder(EHFrame, le, false)
			b.cie(cieSpec{aug: "zR", augData: []byte{0x07}})
			return b.section()
		}, ErrMalformed, "not a pointer encoding", -1},
		{"an omitted FDE pointer encoding is malformed", func() Section {
			b := newBuilder(EHFrame, le, false)
			b.cie(cieSpec{aug: "zR", augData: []byte{0xff}})
			return b.section()
		}, ErrMalformed, "not a pointer encoding", -1},
		{"an indirect PC begin is refused", func() Section {
			b := newBuilder(EHFrame, le, false)
			b.cie(cieSpec{aug: "zR", augData: []byte{byte(DW_EH_PE_indirect | DW_EH_PE_pcrel | DW_EH_PE_sdata4)}})
			return b.section()
		}, ErrUnsupported, "indirect PC begin", -1},
		{"a datarel PC begin is refused", func() Section {
			b := newBuilder(EHFrame, le, false)
			b.cie(cieSpec{aug: "zR", augData: []byte{byte(DW_EH_PE_datarel | DW_EH_PE_sdata4)}})
			return b.section()
		}, ErrUnsupported, "absptr or pcrel only", -1},
		{"a textrel PC begin is refused", func() Section {
			b := newBuilder(EHFrame, le, false)
			b.cie(cieSpec{aug: "zR", augData: []byte{byte(DW_EH_PE_textrel | DW_EH_PE_udata4)}})
			return b.section()
		}, ErrUnsupported, "absptr or pcrel only", -1},
		{"an aligned personality pointer is refused", func() Section {
			b := newBuilder(EHFrame, le, false)
			b.cie(cieSpec{aug: "zP", augData: []byte{byte(DW_EH_PE_aligned), 0, 0, 0, 0, 0, 0, 0, 0}})
			return b.section()
		}, ErrUnsupported, "personality encoding aligned|absptr", -1},
		{"a funcrel LSDA pointer is refused", func() Section {
			b := newBuilder(EHFrame, le, false)
			c := b.cie(cieSpec{aug: "zL", lsdaEnc: DW_EH_PE_funcrel | DW_EH_PE_udata4})
			b.fde(c, fdeSpec{start: 0x1000, length: 0x10, augData: []byte{0, 0, 0, 0}})
			return b.section()
		}, ErrUnsupported, "LSDA pointer: pointer encoding funcrel|udata4", -1},
		{"a version 4 CIE with a segment selector is refused", func() Section {
			b := newBuilder(DebugFrame, le, false)
			b.cie(cieSpec{version: 4, addrSize: 8, segSize: 2})
			return b.section()
		}, ErrUnsupported, "segment_selector_size 2", -1},
		{"a version 4 CIE with 3-byte addresses is refused", func() Section {
			b := newBuilder(DebugFrame, le, false)
			b.cie(cieSpec{version: 4, addrSize: 3})
			return b.section()
		}, ErrUnsupported, "address_size 3", -1},
		{"an RA column beyond rule.Reg is refused", func() Section {
			b := newBuilder(DebugFrame, le, false)
			b.cie(cieSpec{version: 3, ra: 1 << 16})
			return b.section()
		}, ErrUnsupported, "does not fit rule.Reg", -1},
		{"a huge LEB128 alignment factor is malformed", func() Section {
			b := newBuilder(EHFrame, le, false)
			b.buf = append(b.buf, 18, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01)
			return b.section()
		}, ErrMalformed, "does not fit in 64 bits", 10},
		{"an unterminated augmentation string is malformed", func() Section {
			b := newBuilder(EHFrame, le, false)
			b.buf = append(b.buf, 7, 0, 0, 0, 0, 0, 0, 0, 1, 'z', 'R')
			return b.section()
		}, ErrMalformed, "not NUL-terminated", 9},
		{"a PC range that wraps around is malformed", func() Section {
			b := newBuilder(DebugFrame, le, false)
			c := b.cie(cieSpec{version: 3})
			b.fde(c, fdeSpec{start: 1 << 63, length: 1 << 63})
			return b.section()
		}, ErrMalformed, "wraps around", -1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.build()
			_, err := Parse(s)
			e := checkError(t, err, s.Kind.String(), tc.want, tc.msg, int64(len(s.Data)))
			if tc.off >= 0 && e.Off != tc.off {
				t.Errorf("error at %#x, want %#x: %v", e.Off, tc.off, err)
			}
		})
	}
}

// fixtureEHFrame returns the .eh_frame of a fixture under testdata/bin.
func fixtureEHFrame(t testing.TB, name string) Section {
	t.Helper()
	f, err := elf.Open(filepath.Join("..", "..", "testdata", "bin", name))
	if err != nil {
		t.Skipf("fixture %s: %v", name, err)
	}
	defer f.Close()
	s := f.Section(".eh_frame")
	if s == nil {
		t.Skipf("%s has no .eh_frame", name)
	}
	data, err := s.Data()
	if err != nil {
		t.Fatal(err)
	}
	return Section{Kind: EHFrame, Addr: s.Addr, Order: f.ByteOrder, PtrSize: 8, Data: data}
}

// TestTruncatedRecords cuts the first CIE and FDE of a real .eh_frame at
// every byte, with the record's length left as it was (so it runs past the
// end) and with the length patched to the bytes that are left (so a field
// is cut short): every parse and row table either succeeds or fails with
// an *Error inside the section, and none panics.
func TestTruncatedRecords(t *testing.T) {
	for _, name := range []string{"deep-v3-O2", "aarch64be-v3", "s390x-v3"} {
		t.Run("every truncation of the first records of "+name+" is an error inside the section", func(t *testing.T) {
			sec := fixtureEHFrame(t, name)
			// The first CIE, and the first FDE after it.
			h0, _ := sec.head(sec.Data, 0, int64(len(sec.Data)))
			h1, _ := sec.head(sec.Data[h0.end:], h0.end, int64(len(sec.Data)))
			for h1.cie && h1.end < int64(len(sec.Data)) {
				h1, _ = sec.head(sec.Data[h1.end:], h1.end, int64(len(sec.Data)))
			}
			full := sec.Data[:h1.end]
			var errs, oks int
			for n := 0; n <= len(full); n++ {
				for _, patch := range []bool{false, true} {
					data := append([]byte(nil), full[:n]...)
					if patch {
						for _, h := range []recHead{h0, h1} {
							if h.off+4 <= int64(n) && int64(n) < h.end {
								sec.Order.PutUint32(data[h.off:], uint32(int64(n)-h.off-4))
							}
						}
					}
					s := sec
					s.Data = data
					tab, err := Parse(s)
					if err == nil {
						oks++
						for _, f := range tab.FDEs() {
							if _, err := f.Rows(); err != nil {
								checkError(t, err, SectionEHFrame, ErrMalformed, "", int64(n))
							}
						}
						continue
					}
					errs++
					var e *Error
					if !errors.As(err, &e) || e.Off < 0 || e.Off > int64(n) {
						t.Fatalf("%d bytes (patched %v): %v", n, patch, err)
					}
				}
			}
			t.Logf("%d truncations: %d errors, %d parsed", 2*(len(full)+1), errs, oks)
		})
	}
}

// TestRowRulesAreLinear builds FDEs whose every two-byte instruction
// pair (an advance and a DW_CFA_offset) ends a row after initial
// instructions that give 255 registers a rule. When each row copied its
// rules, a 67 KB .eh_frame of 20 such FDEs allocated 228 MB (3,400 bytes
// per byte), and later ruleEntriesPerByte refused them. Now every row
// stores the rule that changed: the FDEs are read, and the work stays
// within the fuzz targets' budget. So do the sections of
// BenchmarkRowsCost, the worst cases per byte of the ways an instruction
// can make the interpreter work (at 512 KB, the rows copying their rules
// allocated 360 MB for offsetRows, where the budget is 136 MB).
func TestRowRulesAreLinear(t *testing.T) {
	b := newBuilder(EHFrame, binary.LittleEndian, false)
	var init []byte
	for r := uint64(0); r < 255; r++ {
		init = append(init, in(cfaOffsetExtended, uleb(r+20), uleb(1))...)
	}
	cie := b.cie(cieSpec{version: 1, initial: init})
	for k := range 20 {
		var ins []byte
		for i := range 1100 {
			ins = append(ins, in(cfaAdvanceLoc|1)...)
			ins = append(ins, in(cfaOffset|1, uleb(uint64(i%2+1)))...)
		}
		b.fde(cie, fdeSpec{start: 0x20000 + uint64(k)*0x10000, length: 0x8000, instr: ins})
	}
	sec := b.section()
	var fdes []*FDE
	got := sframetest.Allocs(func() {
		tab, err := Parse(sec)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range tab.FDEs() {
			if _, err := f.Rows(); err != nil {
				t.Fatal(err)
			}
		}
		fdes = tab.FDEs()
	})
	cfiAllocs.Check(t, got, len(sec.Data))
	for _, f := range fdes {
		rows, _ := f.Rows()
		if len(rows) != 1101 {
			t.Fatalf("FDE at %#x: %d rows, want 1101", f.Off, len(rows))
		}
		for i, r := range rows {
			r1, ok := r.Rule(1)
			want := int64(-8 * ((i-1)%2 + 1))
			if i == 0 {
				ok, want = !ok, 0
			}
			if r.Regs.Len() != 255+min(i, 1) || !ok || r1.Offset != want {
				t.Fatalf("FDE at %#x row %d: %d rules, r1 %v; want %d, r1 at CFA%+d", f.Off, i, r.Regs.Len(), r1, 255+min(i, 1), want)
			}
		}
	}
	const size = 512 << 10
	for _, c := range []struct {
		name string
		sec  Section
	}{
		{"rows that change one of 40 rules each", offsetRows(size, 40)},
		{"rows that change one of 255 initial rules each", initialRules(size)},
		{"rows of one DW_CFA_remember_state and DW_CFA_restore_state each", rememberRows(size)},
		{"rows that add and remove the first of 256 rules", churnRows(size)},
		{"rows of one advance each", advanceRows(size)},
		{"rows that change a rule after DW_CFA_remember_state (the undo log)",
			hostileSection(size, in(cfaDefCFA, uleb(7), uleb(8)), in(cfaRememberState), func(dst []byte, i int) []byte {
				return append(append(dst, in(cfaAdvanceLoc|1)...), in(cfaOffset|cfaOp(i%40), uleb(uint64(2+(i/40+1)&1)))...)
			})},
	} {
		t.Run(c.name+" stay within the budget", func(t *testing.T) {
			cfiAllocs.CheckAllocs(t, len(c.sec.Data), func() {
				tab, err := Parse(c.sec)
				if err != nil {
					t.Fatal(err)
				}
				for _, f := range tab.FDEs() {
					if _, err := f.Rows(); err != nil {
						t.Fatal(err)
					}
				}
			})
		})
	}
}
