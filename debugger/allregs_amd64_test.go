package debugger

import (
	"encoding/binary"
	"slices"
	"strings"
	"testing"
)

// TestRegisterLinesUseGdbsTabStops: gdb prints the raw value from column
// 15 and the natural one from column 35, with at least one space between
// columns (default_print_one_register_info, pad_to_column).
func TestRegisterLinesUseGdbsTabStops(t *testing.T) {
	for _, tc := range []struct{ name, raw, natural, want string }{
		{"rax", "0x0", "0", "rax            0x0                 0"},
		{"rcx", "0x7ffff7ecd350", "140737352880976", "rcx            0x7ffff7ecd350      140737352880976"},
		{"st0", "0", "(raw 0x00000000000000000000)", "st0            0                   (raw 0x00000000000000000000)"},
		{"a_very_long_name", "0x12345678901234567890", "1", "a_very_long_name 0x12345678901234567890 1"},
		{"xmm0", "{v4_float = {0x0}}", "", "xmm0           {v4_float = {0x0}}"},
	} {
		if got := regLine(tc.name, tc.raw, tc.natural); got != tc.want {
			t.Errorf("regLine(%q, %q, %q) =\n%q, want\n%q", tc.name, tc.raw, tc.natural, got, tc.want)
		}
	}
}

// TestX87AndVectorRegistersFormatAsGdbs checks the x87 value, the full tag
// word, MXCSR's flags and a vector register's union against lines gdb
// 13.1 printed on amd64 (info all-registers).
func TestX87AndVectorRegistersFormatAsGdbs(t *testing.T) {
	// An XSAVE area as Linux gives it, decoded by decodeXSave: FCW, MXCSR,
	// st0 = 1.5 (exponent 0x3fff, significand 0xc000000000000000), st1 =
	// -inf; two registers in use, top 6: physical registers 6 and 7.
	b := make([]byte, 576)
	le := binary.LittleEndian
	le.PutUint16(b[0:], 0x37f)
	le.PutUint32(b[24:], 0x1f80)
	put := func(i int, mant uint64, se uint16) {
		le.PutUint64(b[32+16*i:], mant)
		le.PutUint16(b[40+16*i:], se)
	}
	put(0, 0xc000000000000000, 0x3fff)
	put(1, 0x8000000000000000, 0xffff)
	le.PutUint16(b[2:], 6<<11)
	b[4] = 0xc0
	copy(b[160:], []byte{0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0, 0xff, 0, 0xff, 0, 0xff})
	le.PutUint64(b[xsaveXCR0Offset:], 0x2e7) // x87, SSE, AVX, AVX-512, PKRU
	x, err := decodeXSave(b, xsaveLayout{})
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(fpRegLines(x), "\n")
	for _, want := range []string{
		"st0            1.5                 (raw 0x3fffc000000000000000)\n",
		"st1            -inf                (raw 0xffff8000000000000000)\n",
		"st2            0                   (raw 0x00000000000000000000)\n",
		// st0 valid (0) in physical register 6, st1 special (2) in 7.
		"ftag           0x8fff              36863\n",
		"mxcsr          0x1f80              [ IM DM ZM OM UM PM ]\n",
		"zmm0           {v32_bfloat16 = {0x0, 0x0, 0x0, 0xffff, 0xffff, 0xff00, 0xff00, 0xff00, 0x0 <repeats 24 times>}, v32_half = {0x0, 0x0, 0x0, 0xffff, 0xffff, 0xff00, 0xff00, 0xff00, 0x0 <repeats 24 times>}, v16_float = {0x0, 0xffff0000, 0xff00ffff, 0xff00ff00, 0x0 <repeats 12 times>}, v8_double = {0xffff000000000000, 0xff00ff00ff00ffff, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0}, v64_int8 = {0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0xff, 0xff, 0xff, 0xff, 0x0, 0xff, 0x0, 0xff, 0x0, 0xff, 0x0 <repeats 48 times>}, v32_int16 = {0x0, 0x0, 0x0, 0xffff, 0xffff, 0xff00, 0xff00, 0xff00, 0x0 <repeats 24 times>}, v16_int32 = {0x0, 0xffff0000, 0xff00ffff, 0xff00ff00, 0x0 <repeats 12 times>}, v8_int64 = {0xffff000000000000, 0xff00ff00ff00ffff, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0}, v4_int128 = {0xff00ff00ff00ffffffff000000000000, 0x0, 0x0, 0x0}}\n",
		"k0             0x0                 0\n",
		"k7             0x0                 0\n",
		"zmm15          {",
		"zmm31          {",
	} {
		if !strings.Contains(got+"\n", want) {
			t.Errorf("lacks %q:\n%s", want, got)
		}
	}
	// Without AVX: xmm registers, whose last view is a scalar uint128.
	le.PutUint64(b[xsaveXCR0Offset:], 3)
	if x, err = decodeXSave(b, xsaveLayout{}); err != nil {
		t.Fatal(err)
	}
	got = strings.Join(fpRegLines(x), "\n")
	if want := "xmm0           {v8_bfloat16 = {0x0, 0x0, 0x0, 0xffff, 0xffff, 0xff00, 0xff00, 0xff00}, v8_half = {0x0, 0x0, 0x0, 0xffff, 0xffff, 0xff00, 0xff00, 0xff00}, v4_float = {0x0, 0xffff0000, 0xff00ffff, 0xff00ff00}, v2_double = {0xffff000000000000, 0xff00ff00ff00ffff}, v16_int8 = {0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0xff, 0xff, 0xff, 0xff, 0x0, 0xff, 0x0, 0xff, 0x0, 0xff}, v8_int16 = {0x0, 0x0, 0x0, 0xffff, 0xffff, 0xff00, 0xff00, 0xff00}, v4_int32 = {0x0, 0xffff0000, 0xff00ffff, 0xff00ff00}, v2_int64 = {0xffff000000000000, 0xff00ff00ff00ffff}, uint128 = 0xff00ff00ff00ffffffff000000000000}\n"; !strings.Contains(got+"\n", want) {
		t.Errorf("lacks %q:\n%s", want, got)
	}
	if strings.Contains(got, "k0") || strings.Contains(got, "ymm") || strings.Contains(got, "zmm") {
		t.Errorf("an SSE-only machine shows xmm0-15 and nothing else:\n%s", got)
	}
}

// TestDecodeXSaveReadsTheComponentsPresent checks the extended components
// a register's upper halves are read when XSTATE_BV says the component is
// in use (AVX at 576, ZMM_Hi256 at the offset given), read as zero when it
// is in its initial state, not read from a compacted area, and an area
// shorter than the legacy region is an error.
func TestDecodeXSaveReadsTheComponentsPresent(t *testing.T) {
	le := binary.LittleEndian
	b := make([]byte, 1664+16*64)
	for i := range b[xsaveYMMHi:] {
		b[xsaveYMMHi+i] = byte(i%251) + 1
	}
	b[160] = 0x42 // xmm0's first byte
	all := uint64(xstateAVX | xstateOpmask | xstateZMMHi256 | xstateHi16ZMM)
	for _, c := range []struct {
		name           string
		bv, comp       uint64
		ymm1, zmm, z16 byte   // ymmHi[1][0], zmmHi[15][31], zmm16[15][63]
		k7             uint64 // k[7]
	}{
		{"initial state", 0, 0, 0, 0, 0, 0},
		{"AVX", xstateAVX, 0, b[xsaveYMMHi+16], 0, 0, 0},
		{"AVX and ZMM_Hi256", xstateAVX | xstateZMMHi256, 0, b[xsaveYMMHi+16], b[1152+15*32+31], 0, 0},
		{"AVX-512", all, 0, b[xsaveYMMHi+16], b[1152+15*32+31], b[1664+15*64+63], le.Uint64(b[1088+7*8:])},
		{"compacted", all, xcompCompacted | 0x66, 0, 0, 0, 0},
	} {
		le.PutUint64(b[xsaveHeader:], c.bv)
		le.PutUint64(b[xsaveHeader+8:], c.comp)
		x, err := decodeXSave(b, xsaveLayout{zmmHi256: 1152})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if x.xmm[0][0] != 0x42 || x.ymmHi[1][0] != c.ymm1 || x.zmmHi[15][31] != c.zmm || x.zmm16[15][63] != c.z16 || x.k[7] != c.k7 {
			t.Errorf("%s: xmm0[0] %#x, ymm1 upper[0] %#x (want %#x), zmm15 upper[31] %#x (want %#x), zmm31[63] %#x (want %#x), k7 %#x (want %#x)",
				c.name, x.xmm[0][0], x.ymmHi[1][0], c.ymm1, x.zmmHi[15][31], c.zmm, x.zmm16[15][63], c.z16, x.k[7], c.k7)
		}
	}
	// A short area: the components past its end read as zero.
	le.PutUint64(b[xsaveHeader:], all)
	le.PutUint64(b[xsaveHeader+8:], 0)
	if x, err := decodeXSave(b[:1700], xsaveLayout{zmmHi256: 1152}); err != nil || x.zmm16[0][0] != 0 || x.zmmHi[0][0] == 0 {
		t.Errorf("short area: %v, zmm16[0] %#x, zmm0 upper %#x", err, x.zmm16[0][0], x.zmmHi[0][0])
	}
	if _, err := decodeXSave(b[:511], xsaveLayout{}); err == nil {
		t.Error("a 511-byte area decoded")
	}
}

// TestPKRUIsReadAndPrintedWhereGdbPrintsIt: where XCR0 enables protection
// keys, "info all-registers" prints pkru after k7 (a raw register, numbered
// after the opmask ones) and before the vector registers (gdb's pseudo
// registers), read at the offset CPUID gives, or at Intel's or AMD's
// default; in its initial state (XSTATE_BV bit 9 clear) it reads 0.
func TestPKRUIsReadAndPrintedWhereGdbPrintsIt(t *testing.T) {
	le := binary.LittleEndian
	for _, tc := range []struct {
		name      string
		size, off int
		lay       xsaveLayout
		bv        uint64
		want      string
	}{
		{"Intel's layout, offset from CPUID", 2696, 2688, xsaveLayout{zmmHi256: 1152, pkru: 2688}, xstatePKRU, "0x55555554          1431655764"},
		{"Intel's layout, default offset", 2696, 2688, xsaveLayout{}, xstatePKRU, "0x55555554          1431655764"},
		{"AMD's 2,440-byte layout, default offset", 2440, 2432, xsaveLayout{}, xstatePKRU, "0x55555554          1431655764"},
		{"an offset CPUID gives that no default has", 3000, 2900, xsaveLayout{pkru: 2900}, xstatePKRU, "0x55555554          1431655764"},
		{"initial state", 2696, 2688, xsaveLayout{}, 0, "0x0                 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := make([]byte, tc.size)
			le.PutUint64(b[xsaveXCR0Offset:], 0x2e7) // x87, SSE, AVX, AVX-512, PKRU
			le.PutUint64(b[xsaveHeader:], tc.bv)
			le.PutUint32(b[tc.off:], 0x55555554)
			x, err := decodeXSave(b, tc.lay)
			if err != nil {
				t.Fatal(err)
			}
			lines := fpRegLines(x)
			names := make([]string, len(lines))
			for i, l := range lines {
				names[i], _, _ = strings.Cut(l, " ")
			}
			i := slices.Index(names, "pkru")
			if i < 0 || names[i-1] != "k7" || names[i+1] != "zmm0" {
				t.Fatalf("pkru is not between k7 and zmm0: %v", names)
			}
			if want := "pkru           " + tc.want; lines[i] != want {
				t.Errorf("%q, want %q", lines[i], want)
			}
		})
	}
	t.Run("without protection keys in XCR0 there is no pkru", func(t *testing.T) {
		b := make([]byte, 2696)
		le.PutUint64(b[xsaveXCR0Offset:], 0xe7)
		x, _ := decodeXSave(b, xsaveLayout{})
		if got := strings.Join(fpRegLines(x), "\n"); strings.Contains(got, "pkru") {
			t.Errorf("pkru printed:\n%s", got)
		}
	})
}
