package debugger

import (
	"debug/dwarf"
	"strings"
	"testing"

	"github.com/sfdbg/sfdbg/frames"
)

func TestReturnValuesFormatAsGdbs(t *testing.T) {
	basic := func(n string, size int64) dwarf.BasicType {
		return dwarf.BasicType{CommonType: dwarf.CommonType{ByteSize: size, Name: n}}
	}
	intT := &dwarf.IntType{BasicType: basic("int", 4)}
	for _, tc := range []struct {
		t    dwarf.Type
		rax  uint64
		want string
	}{
		{intT, 0xffffffff, "-1"},
		{intT, 0x1_0000_002a, "42"}, // the upper half of rax is not the int's
		{&dwarf.TypedefType{CommonType: dwarf.CommonType{Name: "myint"}, Type: intT}, 7, "7"},
		{&dwarf.UintType{BasicType: basic("unsigned int", 4)}, 0xffffffff, "4294967295"},
		{&dwarf.IntType{BasicType: basic("long", 8)}, 1<<63 | 5, "-9223372036854775803"},
		{&dwarf.CharType{BasicType: basic("char", 1)}, 'a', "97 'a'"},
		{&dwarf.BoolType{BasicType: basic("_Bool", 1)}, 0x100, "false"},
		{&dwarf.BoolType{BasicType: basic("_Bool", 1)}, 1, "true"},
		{&dwarf.EnumType{CommonType: dwarf.CommonType{ByteSize: 4}, EnumName: "color",
			Val: []*dwarf.EnumValue{{Name: "RED", Val: 0}, {Name: "GREEN", Val: 1}}}, 1, "GREEN"},
	} {
		text, _, why, ok := returnValue(nil, tc.t, tc.rax)
		if !ok || text != tc.want {
			t.Errorf("%s with rax %#x: %q (%s), want %q", tc.t, tc.rax, text, why, tc.want)
		}
	}
	if _, _, why, ok := returnValue(nil, &dwarf.FloatType{BasicType: basic("double", 8)}, 0); ok || !strings.Contains(why, "xmm0") {
		t.Errorf("double: ok %v, %q; want a sentence on xmm0", ok, why)
	}
	if _, _, why, ok := returnValue(nil, &dwarf.VoidType{}, 0); ok || why != "" {
		t.Errorf("void: ok %v, %q; want nothing", ok, why)
	}
}

func TestCStringEscapesAsGdb(t *testing.T) {
	for in, want := range map[string]string{
		"hello":          `"hello"`,
		"a\nb\tc":        `"a\nb\tc"`,
		`say "hi" \ now`: `"say \"hi\" \\ now"`,
		"\x01\xff":       `"\001\377"`,
	} {
		if got := cString([]byte(in)); got != want {
			t.Errorf("cString(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestReturnValueOfATypedefCycleIsRefused(t *testing.T) {
	a := &dwarf.TypedefType{CommonType: dwarf.CommonType{Name: "a"}}
	b := &dwarf.TypedefType{CommonType: dwarf.CommonType{Name: "b"}, Type: a}
	a.Type = b
	if _, _, why, ok := returnValue(nil, a, 1); ok || why == "" {
		t.Errorf("a typedef cycle: ok %v, %q", ok, why)
	}
}

// TestReturnedPointersFormatAsGdbs: gdb writes a pointer's type in C,
// "(struct rec *) 0x...", "(char **) 0x...", and a pointer to a char as
// the string it points to, 0x... "hi" (gdb 13, finish out of functions
// returning them); it printed Go's spelling, (*struct rec), (**char).
func TestReturnedPointersFormatAsGdbs(t *testing.T) {
	basic := func(n string, size int64) dwarf.BasicType {
		return dwarf.BasicType{CommonType: dwarf.CommonType{ByteSize: size, Name: n}}
	}
	ptr := func(to dwarf.Type) dwarf.Type {
		return &dwarf.PtrType{CommonType: dwarf.CommonType{ByteSize: 8}, Type: to}
	}
	char := &dwarf.CharType{BasicType: basic("char", 1)}
	rec := &dwarf.StructType{CommonType: dwarf.CommonType{ByteSize: 8}, StructName: "rec", Kind: "struct"}
	for _, tc := range []struct {
		t    dwarf.Type
		want string
	}{
		{ptr(rec), "(struct rec *) 0x1000"},
		{ptr(ptr(char)), "(char **) 0x1000"},
		{ptr(&dwarf.IntType{BasicType: basic("int", 4)}), "(int *) 0x1000"},
		{ptr(&dwarf.QualType{Qual: "const", Type: char}), `0x1000 "hi"`},
		{ptr(char), `0x1000 "hi"`},
	} {
		sp := &frames.Space{Mem: memBytes{0x1000, []byte("hi\x00")}, Modules: frames.NewModules()}
		text, _, why, ok := returnValue(sp, tc.t, 0x1000)
		if !ok || text != tc.want {
			t.Errorf("%s: %q (%s), want %q", tc.t, text, why, tc.want)
		}
	}
	sp := &frames.Space{Mem: memBytes{}, Modules: frames.NewModules()}
	if text, _, _, _ := returnValue(sp, ptr(char), 0); text != "0x0" {
		t.Errorf("NULL char pointer: %q, want 0x0", text)
	}
}
