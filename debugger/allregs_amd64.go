package debugger

import (
	"encoding/binary"
	"fmt"
	"math/big"
	"strings"
)

// xstateReader is a Target that reads a thread's x87, SSE and AVX
// registers: its XSAVE area (Intel SDM vol. 1, 13.4), decoded by
// decodeXSave (legacy region, the AVX upper halves, the ZMM upper halves
// of zmm0-15).
type xstateReader interface {
	XState(tid int) (*xstate, error)
}

// XSAVE state-component bits of XCR0 (Intel SDM vol. 1, 13.1).
const (
	xcr0AVX    = 1 << 2
	xcr0AVX512 = 7 << 5 // opmask, ZMM_Hi256, Hi16_ZMM
	xcr0PKRU   = 1 << 9
)

// xsaveXCR0Offset is where Linux stores XCR0 in the XSAVE area it gives
// PTRACE_GETREGSET NT_X86_XSTATE (the sw_reserved bytes of the legacy
// region: arch/x86/include/asm/user.h, "xstate_fx_sw_bytes" at 464).
const xsaveXCR0Offset = 464

// The x87, SSE and AVX registers of "info all-registers", as gdb prints
// them on amd64: st0-st7, fctrl, fstat, ftag, fiseg, fioff, foseg, fooff,
// fop, mxcsr and the vector registers: zmm0-zmm15 on a machine with
// AVX-512, ymm0-ymm15 with AVX, else xmm0-xmm15; with AVX-512, k0-k7
// before them and zmm16-zmm31 after, and pkru before them where the kernel
// enabled protection keys, as gdb does.
const (
	fpRegsName        = "x87, SSE and AVX registers"
	fpRegsUnavailable = "(x87, SSE and AVX registers: not available in this target, which has no XSAVE area)"
)

// hostFPRegLines returns the selected thread's x87, SSE and AVX register
// lines from its XSAVE area, nil for a target that has none.
func (s *Session) hostFPRegLines() ([]string, error) {
	xr, ok := s.tgt.(xstateReader)
	if !ok {
		return nil, nil
	}
	x, err := xr.XState(s.thread)
	if err != nil {
		return nil, fmt.Errorf("cannot read the %s of thread %d: %w", fpRegsName, s.thread, err)
	}
	return fpRegLines(x), nil
}

// fpRegLines formats the x87, SSE and AVX registers of x as gdb's "info
// all-registers" does on amd64 (gdb/i387-tdep.c i387_supply_fxsave,
// gdb/i386-tdep.c's vector types).
func fpRegLines(x *xstate) []string {
	var out []string
	line := func(name, raw, natural string) {
		out = append(out, regLine(name, raw, natural))
	}
	top := int(x.fsw>>11) & 7
	st := func(i int) []byte { return x.st[i][:] }
	for i := 0; i < 8; i++ {
		b := st(i)
		line(fmt.Sprintf("st%d", i), extendedText(b), fmt.Sprintf("(raw 0x%s)", hexBE(b)))
	}
	// The full tag word from the abridged one (i387_supply_fxsave): an
	// empty register is 3, else its value's class (i387_tag).
	ftag := 0
	for reg := 7; reg >= 0; reg-- {
		tag := 3
		if x.ftw&(1<<reg) != 0 {
			tag = x87Tag(st((reg + 8 - top) % 8))
		}
		ftag |= tag << (2 * reg)
	}
	for _, r := range []struct {
		name string
		v    uint64
	}{
		{"fctrl", uint64(x.fcw)}, {"fstat", uint64(x.fsw)}, {"ftag", uint64(ftag)},
		// In 64-bit mode FXSAVE64 stores 64-bit instruction and operand
		// pointers: gdb shows their high halves as fiseg and foseg.
		{"fiseg", x.fip >> 32}, {"fioff", x.fip & 0xffffffff},
		{"foseg", x.fdp >> 32}, {"fooff", x.fdp & 0xffffffff},
		{"fop", uint64(x.fop) & 0x7ff},
	} {
		line(r.name, fmt.Sprintf("%#x", r.v), fmt.Sprint(r.v))
	}
	line("mxcsr", fmt.Sprintf("%#x", x.mxcsr), mxcsrText(x.mxcsr))

	xcr0 := x.xcr0
	avx512 := xcr0&xcr0AVX512 == xcr0AVX512
	if avx512 {
		for i, k := range x.k {
			line(fmt.Sprintf("k%d", i), fmt.Sprintf("%#x", k), fmt.Sprint(k))
		}
	}
	// PKRU is a raw register numbered after the opmask ones, the vector
	// registers gdb shows here are pseudo registers numbered after all raw
	// ones (gdb/amd64-tdep.h, AMD64_PKRU_REGNUM).
	if xcr0&xcr0PKRU != 0 {
		line("pkru", fmt.Sprintf("%#x", x.pkru), fmt.Sprint(x.pkru))
	}
	for n := 0; n < 16; n++ {
		v := append([]byte(nil), x.xmm[n][:]...)
		name := "xmm"
		if xcr0&xcr0AVX != 0 {
			name = "ymm"
			v = append(v, x.ymmHi[n][:]...)
		}
		if avx512 {
			name = "zmm"
			v = append(v, x.zmmHi[n][:]...)
		}
		line(fmt.Sprintf("%s%d", name, n), vectorText(v), "")
	}
	if avx512 {
		for n := range x.zmm16 {
			line(fmt.Sprintf("zmm%d", 16+n), vectorText(x.zmm16[n][:]), "")
		}
	}
	return out
}

// x87Tag classifies an 80-bit register as gdb's i387_tag does: 0 valid,
// 1 zero, 2 special (NaN, infinity, denormal, unnormal).
func x87Tag(b []byte) int {
	integer := b[7]&0x80 != 0
	exp := int(b[9]&0x7f)<<8 | int(b[8])
	frac := binary.LittleEndian.Uint64(b[0:8]) &^ (1 << 63)
	switch {
	case exp == 0x7fff:
		return 2
	case exp == 0:
		if frac == 0 && !integer {
			return 1
		}
		return 2
	case integer:
		return 0
	}
	return 2
}

// extendedText prints an x87 80-bit extended value as gdb does: %.21Lg
// (DECIMAL_DIG of a 64-bit significand, gdb/target-float.c
// floatformat_printf_format), inf, or nan(0xMANTISSA).
func extendedText(b []byte) string {
	sign := ""
	if b[9]&0x80 != 0 {
		sign = "-"
	}
	exp := int(b[9]&0x7f)<<8 | int(b[8])
	mant := binary.LittleEndian.Uint64(b[0:8])
	if exp == 0x7fff {
		if mant<<1 == 0 {
			return sign + "inf"
		}
		return fmt.Sprintf("%snan(%#x)", sign, mant)
	}
	if mant == 0 {
		return sign + "0"
	}
	e := exp - 16383 - 63
	if exp == 0 {
		e = -16382 - 63
	}
	v := new(big.Float).SetPrec(64).SetUint64(mant)
	v.SetMantExp(v, e)
	return sign + v.Text('g', 21)
}

// mxcsrText names the set flags of MXCSR as gdb's i386_mxcsr_type does.
func mxcsrText(v uint32) string {
	var out []string
	for i, n := range []string{"IE", "DE", "ZE", "OE", "UE", "PE", "DAZ", "IM", "DM", "ZM", "OM", "UM", "PM"} {
		if v&(1<<i) != 0 {
			out = append(out, n)
		}
	}
	if v&(1<<15) != 0 {
		out = append(out, "FZ")
	}
	return "[ " + strings.Join(out, " ") + " ]"
}

// vectorText prints a vector register's bytes (little-endian) as gdb's
// union of views: {v8_bfloat16 = {...}, ..., uint128 = 0x...} for 16
// bytes, with v2_int128/v4_int128 arrays for 32 and 64; every element in
// hex, a run of more than 10 equal elements as "<repeats N times>".
func vectorText(v []byte) string {
	n := len(v)
	views := []struct {
		name string
		size int
	}{{"bfloat16", 2}, {"half", 2}, {"float", 4}, {"double", 8}, {"int8", 1}, {"int16", 2}, {"int32", 4}, {"int64", 8}, {"int128", 16}}
	var parts []string
	for _, w := range views {
		var elems []string
		for i := 0; i < n; i += w.size {
			elems = append(elems, "0x"+hexTrim(v[i:i+w.size]))
		}
		if w.name == "int128" && n == 16 {
			parts = append(parts, "uint128 = "+elems[0])
			continue
		}
		parts = append(parts, fmt.Sprintf("v%d_%s = {%s}", n/w.size, w.name, strings.Join(repeats(elems), ", ")))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// repeats collapses runs of more than 10 equal elements, as gdb does
// (repeat_count_threshold).
func repeats(elems []string) []string {
	var out []string
	for i := 0; i < len(elems); {
		j := i + 1
		for j < len(elems) && elems[j] == elems[i] {
			j++
		}
		if j-i > 10 {
			out = append(out, fmt.Sprintf("%s <repeats %d times>", elems[i], j-i))
			i = j
			continue
		}
		out = append(out, elems[i])
		i++
	}
	return out
}

// hexBE returns the hex digits of little-endian bytes b, most significant
// first, with leading zeros.
func hexBE(b []byte) string {
	var sb strings.Builder
	for i := len(b) - 1; i >= 0; i-- {
		fmt.Fprintf(&sb, "%02x", b[i])
	}
	return sb.String()
}

// hexTrim is hexBE without the leading zeros ("0" for zero).
func hexTrim(b []byte) string {
	h := strings.TrimLeft(hexBE(b), "0")
	if h == "" {
		return "0"
	}
	return h
}
