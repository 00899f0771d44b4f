package debugger

import (
	"bytes"
	"debug/dwarf"
	"encoding/binary"
	"math"
	"strings"
	"testing"

	"github.com/sfdbg/sfdbg/frames"
)

func basicT(name string, size int64) dwarf.BasicType {
	return dwarf.BasicType{CommonType: dwarf.CommonType{ByteSize: size, Name: name}}
}

var (
	tInt    = &dwarf.IntType{BasicType: basicT("int", 4)}
	tChar   = &dwarf.CharType{BasicType: basicT("char", 1)}
	tUchar  = &dwarf.UcharType{BasicType: basicT("unsigned char", 1)}
	tShort  = &dwarf.IntType{BasicType: basicT("short int", 2)}
	tULong  = &dwarf.UintType{BasicType: basicT("long unsigned int", 8)}
	tDouble = &dwarf.FloatType{BasicType: basicT("double", 8)}
	tFloat  = &dwarf.FloatType{BasicType: basicT("float", 4)}
	tBool   = &dwarf.BoolType{BasicType: basicT("_Bool", 1)}
)

func arrayOf(t dwarf.Type, n int64) *dwarf.ArrayType {
	return &dwarf.ArrayType{CommonType: dwarf.CommonType{ByteSize: n * t.Size()}, Type: t, Count: n}
}

func ptrTo(t dwarf.Type) *dwarf.PtrType {
	return &dwarf.PtrType{CommonType: dwarf.CommonType{ByteSize: 8}, Type: t}
}

func le32(vs ...int32) []byte {
	var b []byte
	for _, v := range vs {
		b = binary.LittleEndian.AppendUint32(b, uint32(v))
	}
	return b
}

// The formats gdb 13 prints for these values (gdb -batch on the locals
// fixtures, deep.c's buffer, and gdb's documented rules: repeats beyond
// 10, 200 elements, the last NUL of a char array dropped).
func TestValuesFormatAsGdbPrintsThem(t *testing.T) {
	f := &cFormatter{}
	point := &dwarf.StructType{CommonType: dwarf.CommonType{ByteSize: 8}, StructName: "point", Kind: "struct",
		Field: []*dwarf.StructField{{Name: "x", Type: tInt, ByteOffset: 0}, {Name: "y", Type: tInt, ByteOffset: 4}}}
	color := &dwarf.EnumType{CommonType: dwarf.CommonType{ByteSize: 4}, EnumName: "color",
		Val: []*dwarf.EnumValue{{Name: "RED", Val: 0}, {Name: "GREEN", Val: 2}, {Name: "BLUE", Val: 3}}}
	// unsigned flag : 3 at bit 96 (DWARF 5 DW_AT_data_bit_offset), and a
	// DWARF 4 style one: DW_AT_bit_offset 29 from the MSB of a 4-byte unit.
	bits := &dwarf.StructType{CommonType: dwarf.CommonType{ByteSize: 8}, StructName: "b", Kind: "struct",
		Field: []*dwarf.StructField{{Name: "f", Type: &dwarf.UintType{BasicType: basicT("unsigned int", 4)}, BitSize: 3, DataBitOffset: 32},
			{Name: "g", Type: tInt, ByteOffset: 0, ByteSize: 4, BitSize: 3, BitOffset: 29}}}
	deepBuf := make([]byte, 320) // deep.c's buffer: a byte every 64
	for i, c := range []byte{0x13, 'S', 0x93, 0xd3, 0x13} {
		deepBuf[i*64] = c
	}
	for _, tc := range []struct {
		name string
		t    dwarf.Type
		b    []byte
		mode valueMode
		want string
	}{
		{"an int", tInt, le32(-7), modeNested, "-7"},
		{"a short", tShort, []byte{0xfe, 0xff}, modeNested, "-2"},
		{"an unsigned char", tUchar, []byte{200}, modeNested, `200 '\310'`},
		{"a char", tChar, []byte{'h'}, modeNested, `104 'h'`},
		{"a NUL char", tChar, []byte{0}, modeNested, `0 '\000'`},
		{"a bool", tBool, []byte{1}, modeNested, "true"},
		{"a double", tDouble, binary.LittleEndian.AppendUint64(nil, math.Float64bits(2.5)), modeNested, "2.5"},
		{"a double with 17 digits", tDouble, binary.LittleEndian.AppendUint64(nil, math.Float64bits(3.14)), modeNested, "3.1400000000000001"},
		{"a float with 9 digits", tFloat, binary.LittleEndian.AppendUint32(nil, math.Float32bits(3.14)), modeNested, "3.1400001"},
		{"an enum", color, le32(2), modeNested, "GREEN"},
		{"an enum value without a name", color, le32(7), modeNested, "7"},
		{"a struct", point, le32(4, 3), modeNested, "{x = 4, y = 3}"},
		{"a struct argument in a frame line", point, le32(4, 3), modeArg, "..."},
		{"bit-fields", bits, []byte{0x05, 0, 0, 0, 0x05, 0, 0, 0}, modeNested, "{f = 5, g = -3}"},
		{"an array", arrayOf(tShort, 4), []byte{1, 0, 0xfe, 0xff, 3, 0, 0, 0}, modeNested, "{1, -2, 3, 0}"},
		{"an array with a run", arrayOf(tInt, 16), append(le32(0, 7), make([]byte, 56)...), modeNested, "{0, 7, 0 <repeats 14 times>}"},
		{"a run of ten is printed", arrayOf(tInt, 10), make([]byte, 40), modeNested, "{0, 0, 0, 0, 0, 0, 0, 0, 0, 0}"},
		{"a char array, last NUL dropped", arrayOf(tChar, 8), []byte("hi\x00\x00\x00\x00\x00\x00"), modeNested, `"hi\000\000\000\000\000"`},
		{"a char array with a run", arrayOf(tChar, 32), append([]byte("hello"), make([]byte, 27)...), modeNested, `"hello", '\000' <repeats 26 times>`},
		{"an unsigned char array", arrayOf(tUchar, 4), []byte{4, 3, 2, 1}, modeNested, `"\004\003\002\001"`},
		{"200 characters count runs whole", arrayOf(tChar, 320), deepBuf, modeNested,
			`"\023", '\000' <repeats 63 times>, "S", '\000' <repeats 63 times>, "\223", '\000' <repeats 63 times>, "\323", '\000' <repeats 63 times>...`},
		{"escapes", arrayOf(tChar, 6), []byte("a\"\\\n\t\x00"), modeNested, `"a\"\\\n\t"`},
		{"a null pointer", ptrTo(tInt), make([]byte, 8), modeNested, "0x0"},
		{"a pointer in print", ptrTo(point), binary.LittleEndian.AppendUint64(nil, 0x7ffc171866f0), modeTop, "(struct point *) 0x7ffc171866f0"},
		{"a pointer in info locals", ptrTo(point), binary.LittleEndian.AppendUint64(nil, 0x7ffc171866f0), modeNested, "0x7ffc171866f0"},
		{"a pointer argument", ptrTo(point), binary.LittleEndian.AppendUint64(nil, 0x10), modeArg, "0x10"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := f.format(tc.t, tc.b, tc.mode, 0); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

func TestArraysStopAt200Elements(t *testing.T) {
	b := make([]byte, 0, 4*300)
	for i := range 300 {
		b = binary.LittleEndian.AppendUint32(b, uint32(i))
	}
	got := (&cFormatter{}).format(arrayOf(tInt, 300), b, modeNested, 0)
	if !strings.HasSuffix(got, ", 198, 199...}") || strings.Count(got, ",") != 199 {
		t.Errorf("300 ints: %s", got)
	}
}

// memBytes is a target memory of one mapped range.
type memBytes struct {
	base uint64
	b    []byte
}

func (m memBytes) ReadAt(p []byte, a uint64) (int, error) {
	if a < m.base || a >= m.base+uint64(len(m.b)) {
		return 0, bytes.ErrTooLarge
	}
	return copy(p, m.b[a-m.base:]), nil
}

func TestCharPointersPrintTheirString(t *testing.T) {
	long := bytes.Repeat([]byte("ab"), 150)
	for _, tc := range []struct {
		name string
		mem  []byte
		addr uint64
		want string
	}{
		{"a string", []byte("thirteen\x00"), 0x1000, `0x1000 "thirteen"`},
		{"an empty string", []byte{0}, 0x1000, `0x1000 ""`},
		{"200 characters then more", append(long, 0), 0x1000, `0x1000 "` + string(long[:200]) + `"...`},
		{"exactly 200 characters", append(append([]byte{}, long[:200]...), 0), 0x1000, `0x1000 "` + string(long[:200]) + `"`},
		{"unreadable", nil, 0x2000, `0x2000 <error: Cannot access memory at address 0x2000>`},
		{"ends in unreadable memory", []byte("abc"), 0x1000, `0x1000 "abc"<error: Cannot access memory at address 0x1003>`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &cFormatter{sp: spaceOf(memBytes{0x1000, tc.mem})}
			b := binary.LittleEndian.AppendUint64(nil, tc.addr)
			if got := f.format(ptrTo(&dwarf.QualType{Qual: "const", Type: tChar}), b, modeTop, 0); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

func TestTypesAreNamedAsGdbNamesThem(t *testing.T) {
	fn := &dwarf.FuncType{ReturnType: tInt, ParamType: []dwarf.Type{tInt}}
	point := &dwarf.StructType{CommonType: dwarf.CommonType{ByteSize: 8}, StructName: "point", Kind: "struct",
		Field: []*dwarf.StructField{{Name: "x", Type: tInt}, {Name: "tags", Type: arrayOf(tShort, 4), ByteOffset: 4}}}
	for _, tc := range []struct {
		t     dwarf.Type
		ptype bool
		want  string
	}{
		{ptrTo(fn), false, "int (*)(int)"},
		{arrayOf(tChar, 32), false, "char [32]"},
		{ptrTo(&dwarf.QualType{Qual: "const", Type: tChar}), false, "const char *"},
		{&dwarf.QualType{Qual: "const", Type: ptrTo(tChar)}, false, "char * const"},
		{ptrTo(arrayOf(tInt, 4)), false, "int (*)[4]"},
		{ptrTo(ptrTo(tChar)), false, "char **"},
		{tULong, false, "unsigned long"},
		{&dwarf.QualType{Qual: "volatile", Type: &dwarf.IntType{BasicType: basicT("long int", 8)}}, false, "volatile long"},
		{ptrTo(point), true, "struct point {\n    int x;\n    short tags[4];\n} *"},
		{&dwarf.EnumType{EnumName: "color", Val: []*dwarf.EnumValue{{Name: "RED", Val: 0}, {Name: "GREEN", Val: 2}, {Name: "BLUE", Val: 3}}}, true,
			"enum color {RED, GREEN = 2, BLUE}"},
		{&dwarf.TypedefType{CommonType: dwarf.CommonType{Name: "pt"}, Type: point}, false, "pt"},
	} {
		got := cTypeName(tc.t)
		if tc.ptype {
			got = ptypeText(tc.t)
		}
		if got != tc.want {
			t.Errorf("got %q, want %q", got, tc.want)
		}
	}
}

// spaceOf is an address space of memory m and no modules.
func spaceOf(m frames.Memory) *frames.Space {
	return &frames.Space{Mem: m, Modules: frames.NewModules()}
}

// Hostile DWARF can make types that contain themselves: naming and
// printing them ends.
func TestCyclicTypesEnd(t *testing.T) {
	q := &dwarf.QualType{Qual: "const"}
	q.Type = q
	fn := &dwarf.FuncType{ReturnType: tInt}
	fp := ptrTo(fn)
	fn.ParamType = []dwarf.Type{fp}
	for _, ty := range []dwarf.Type{q, fp} {
		if name := cTypeName(ty); !strings.Contains(name, "nested too deep") {
			t.Errorf("a cyclic type is named %q", name)
		}
	}
	huge := &dwarf.ArrayType{CommonType: dwarf.CommonType{ByteSize: 8}, Type: tInt, Count: 1 << 62}
	if got := (&cFormatter{}).format(huge, make([]byte, 8), modeNested, 0); !strings.Contains(got, "error") {
		t.Errorf("an array of 2^62 ints in 8 bytes: %s", got)
	}
}
