package debugger

import (
	"debug/elf"
	"encoding/binary"
	"encoding/hex"
	"testing"
)

// TestLongDoubleIsCs: the long double of each machine decodes and prints
// as C's %.{21,36}Lg does (gdb's digits for the type): x87's 80-bit format
// on x86-64 (bytes and text from gcc's printf on x86-64, denormal-range
// and huge exponents included), IEEE binary128 on AArch64 (little-endian)
// and s390x (big-endian).
func TestLongDoubleIsCs(t *testing.T) {
	for _, c := range []struct {
		m    elf.Machine
		bo   binary.ByteOrder
		hex  string
		want string
	}{
		{elf.EM_X86_64, binary.LittleEndian, "cdccccccccccccccfb3f", "0.100000000000000000001"},
		{elf.EM_X86_64, binary.LittleEndian, "bfd5edbdcefee6dbdd3f", "1.00000000000000000002e-10"},
		{elf.EM_X86_64, binary.LittleEndian, "9dc839208c5dcab3b1cb", "-2.70000000000000000007e+901"},
		{elf.EM_X86_64, binary.LittleEndian, "abaaaaaaaaaaaaaafd3f", "0.333333333333333333342"},
		{elf.EM_X86_64, binary.LittleEndian, "0000c06582fdb88f2740", "1234567890123.5"},
		{elf.EM_X86_64, binary.LittleEndian, "00000000000000000000", "0"},
		{elf.EM_X86_64, binary.LittleEndian, "300706e367d04cc3188c", "-2.49999999999999999997e-4000"},
		{elf.EM_X86_64, binary.LittleEndian, "0000000000000080ff7f", "inf"},
		{elf.EM_AARCH64, binary.LittleEndian, "9a99999999999999999999999999fb3f", "0.100000000000000000000000000000000005"},
		{elf.EM_S390, binary.BigEndian, "3ffb999999999999999999999999999a", "0.100000000000000000000000000000000005"},
		{elf.EM_S390, binary.BigEndian, "3fff4000000000000000000000000000", "1.25"},
		{elf.EM_S390, binary.BigEndian, "ffff0000000000000000000000000000", "-inf"},
	} {
		b, _ := hex.DecodeString(c.hex)
		b = append(b, make([]byte, 16-len(b))...)
		x, f := longDouble(b, c.m, c.bo)
		var got string
		if x != nil {
			got = floatValueText(longDoubleValue(x), c.m)
		} else {
			got = floatText(f, floatDigits(16, c.m))
		}
		if got != c.want {
			t.Errorf("%v %s: %s, want %s", c.m, c.hex, got, c.want)
		}
	}
}

// TestCFloatConvIsPrintfs: printf's floating conversions, as glibc's.
func TestCFloatConvIsPrintfs(t *testing.T) {
	for _, c := range []struct {
		conv  byte
		flags string
		f     float64
		want  string
	}{
		{'g', "", 1234567, "1.23457e+06"},
		{'g', "", 7.5, "7.5"},
		{'g', "", 0.0001, "0.0001"},
		{'g', "", 0.00001, "1e-05"},
		{'G', "", 1e-10, "1E-10"},
		{'g', "10.4", 1.25, "      1.25"},
		{'g', "#", 2, "2.00000"},
		{'g', "-8", -3, "-3      "},
		{'g', "08.2", -1.5, "-00001.5"},
		{'g', " ", 0.5, " 0.5"},
		{'g', "", 0, "0"},
		{'f', "5.2", 2.5, " 2.50"},
		{'e', "-12.3", 0.5, "5.000e-01   "},
		{'f', "+.1", 2.5, "+2.5"},
		{'f', "", 1.0 / 3, "0.333333"},
	} {
		if got := cFloatConv(c.conv, c.flags, c.f); got != c.want {
			t.Errorf("%%%s%c of %v: %q, want %q", c.flags, c.conv, c.f, got, c.want)
		}
	}
}

// FuzzExpressions: no expression panics the evaluator or print's
// formatting, in every format letter, without a process (as print's
// arithmetic is used before `run`); the seeds are the forms a second
// reading found panicking or looping (a long double NaN, a huge width).
func FuzzExpressions(f *testing.F) {
	for _, s := range []string{"1 + 2", "(long double)(0.0/0)", "1e300L * 1e300L", "'a'", `'\0'`, `"hi"`, "sizeof(int)",
		"(_Bool)0.5", "1 << 64", "-1U", "$1", "0 && *(int *)0", "(char *)5", "(void *)0 + 1", "-(0.0/0)", "1.0L/3",
		"(unsigned long)-1 + 1.0", "~0 >> 70", "(float)1e40", "((long)1)[0]", "(1).x", "(1)->x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, expr string) {
		s := &Session{}
		v, err := s.evalExpr(expr)
		if err != nil {
			return
		}
		for _, l := range []byte{0, 'x', 'd', 'u', 'o', 't', 'c', 'f', 'a'} {
			formatValue(nil, v, l)
		}
	})
}
