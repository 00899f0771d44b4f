package code

import (
	"debug/elf"
	"encoding/binary"
	"path/filepath"
	"testing"

	"github.com/sfdbg/sfdbg/sframe/arch"
	"github.com/sfdbg/sfdbg/sframe/rule"
)

var sameRule = rule.Rule{Kind: rule.SameValue, Reg: rule.CFA}

// arm64 is AArch64 (AAPCS64: CFA=sp+0 at entry, RA in x30; x19-x29
// callee-saved) with its decoder.
var arm64 = &arch.Arch{
	Name: "aarch64", Machine: elf.EM_AARCH64, ByteOrder: binary.LittleEndian, PtrSize: 8,
	PC: 32, SP: 31, FP: 29, RA: 30,
	CalleeSaved: []rule.Reg{19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29},
	Entry:       rule.Row{CFA: rule.Rule{Kind: rule.ValOffset, Reg: 31}, RA: sameRule, FP: sameRule},
	RegNames:    map[rule.Reg]string{29: "x29", 30: "x30", 31: "sp", 19: "x19", 20: "x20"},
	Decoder:     arch.ARM64{},
}

// s390x is s390x (ELF ABI: CFA=r15+160 at entry, RA in r14; r6-r13 and
// f8-f15 callee-saved) with its decoder.
var s390x = &arch.Arch{
	Name: "s390x", Machine: elf.EM_S390, ByteOrder: binary.BigEndian, PtrSize: 8,
	PC: 14, SP: 15, FP: 11, RA: 14,
	CalleeSaved: []rule.Reg{6, 7, 8, 9, 10, 11, 12, 13, 24, 25, 26, 27, 28, 29, 30, 31},
	Entry: rule.Row{CFA: rule.Rule{Kind: rule.ValOffset, Reg: 15, Offset: 160}, RA: sameRule, FP: sameRule,
		SPOffset: -160},
	RegNames: map[rule.Reg]string{11: "r11", 14: "r14", 15: "r15", 6: "r6", 7: "r7", 13: "r13"},
	Decoder:  arch.S390X{},
}

// TestCodeOracleFixturesCross runs the walk over helper armsz's AArch64
// and s390x annotation-fault fixtures: each fault is caught at its label,
// each clean function agrees with CFI everywhere.
func TestCodeOracleFixturesCross(t *testing.T) {
	for _, c := range []struct {
		a    *arch.Arch
		path string
	}{
		{arm64, filepath.Join("..", "..", "testdata", "codeoracle", "aarch64", "codeoracle-aarch64")},
		{s390x, filepath.Join("..", "..", "testdata", "codeoracle", "s390x", "codeoracle-s390x")},
	} {
		fx := loadFixture(t, c.path)
		for _, fn := range fx.funcs {
			t.Run(c.a.Name+"/"+fn.name, func(t *testing.T) {
				f := Analyze(c.a, fn.code, fn.addr, nil)
				for _, fd := range f.Findings {
					t.Errorf("finding: %s", f.Describe(fd))
				}
				dis := judgeCFI(t, fx, f)
				if fn.fault == 0 {
					for _, d := range dis {
						t.Errorf("clean function: %#x: %s", d.pc, d.what)
					}
					return
				}
				if len(dis) == 0 {
					t.Fatalf("fault at %#x not caught", fn.fault)
				}
				if dis[0].pc != fn.fault {
					t.Errorf("first disagreement at %#x (%s), fault at %#x", dis[0].pc, dis[0].what, fn.fault)
				}
				t.Logf("%#x: %s", dis[0].pc, dis[0].what)
			})
		}
	}
}

// FuzzAnalyzeCross walks arbitrary bytes with the AArch64 and s390x
// decoders.
func FuzzAnalyzeCross(f *testing.F) {
	f.Add(byte(0), []byte{0xfd, 0x7b, 0xbf, 0xa9, 0xfd, 0x03, 0x00, 0x91, 0xfd, 0x7b, 0xc1, 0xa8, 0xc0, 0x03, 0x5f, 0xd6})
	f.Add(byte(1), []byte{0xeb, 0xbf, 0xf0, 0x58, 0x00, 0x24, 0xa7, 0xfb, 0xff, 0x60, 0xeb, 0xbf, 0xf0, 0xf8, 0x00, 0x04, 0x07, 0xfe})
	f.Fuzz(func(t *testing.T, sel byte, text []byte) {
		const start = 0x400000
		a := arm64
		if sel&1 != 0 {
			a = s390x
		}
		fn := Analyze(a, text, start, fuzzOptions(sel>>1, text, start))
		checkFunc(t, fn, len(text))
	})
}
