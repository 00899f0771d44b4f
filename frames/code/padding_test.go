package code

import (
	"debug/elf"
	"math/rand"
	"path/filepath"
	"testing"

	"golang.org/x/arch/x86/x86asm"
)

// x86Padding decides only what x86asm decodes as a nop, int3 or ud2: at
// every byte offset of SQLite's .text, and on the padding GNU as emits.
func TestX86PaddingAgreesWithX86asm(t *testing.T) {
	f, err := elf.Open(filepath.Join("..", "..", "testdata", "bin", "sqlite-v3"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	text, err := f.Section(".text").Data()
	if err != nil {
		t.Fatal(err)
	}
	slow := func(code []byte) bool {
		in, err := x86asm.Decode(code, 64)
		return err == nil && (in.Op == x86asm.NOP || in.Op == x86asm.INT || in.Op == x86asm.UD2)
	}
	n := 0
	for off := range text {
		code := text[off:min(off+16, len(text))]
		if x86Padding(code) {
			n++
			if !slow(code) {
				t.Errorf(".text+%#x: % x is padding by its bytes, not by x86asm", off, code)
			}
		}
	}
	if n == 0 {
		t.Error("no padding found by bytes")
	}
	for _, code := range [][]byte{
		{0x66, 0x2e, 0x0f, 0x1f, 0x84, 0, 0, 0, 0, 0}, {0x0f, 0x1f, 0x40, 0}, {0x0f, 0x1f, 0x44, 0, 0},
		{0x90}, {0xcc}, {0x0f, 0x0b}, {0x0f, 0x1f, 0x80, 0, 0, 0, 0}, {0x0f, 0x1f, 0},
	} {
		if !x86Padding(code) || !slow(code) {
			t.Errorf("% x: padding by its bytes %v, by x86asm %v", code, x86Padding(code), slow(code))
		}
	}
}

// TestX86MayBeNopIsSound: the quick opcode check before a full decode
// never rejects what x86asm calls NOP (or, for padding, INT or UD2):
// every one- and two-byte opcode with random operands and prefixes.
func TestX86MayBeNopIsSound(t *testing.T) {
	rng := rand.New(rand.NewSource(30))
	prefixes := []byte{0x66, 0x67, 0xf2, 0xf3, 0x2e, 0x3e, 0x26, 0x36, 0x64, 0x65, 0xf0, 0x40, 0x48, 0x4f}
	checked := 0
	for op := 0; op < 0x200; op++ {
		for range 200 {
			var code []byte
			for range rng.Intn(3) {
				code = append(code, prefixes[rng.Intn(len(prefixes))])
			}
			if op < 0x100 {
				code = append(code, byte(op))
			} else {
				code = append(code, 0x0f, byte(op-0x100))
			}
			for len(code) < 15 {
				code = append(code, byte(rng.Intn(256)))
			}
			in, err := x86asm.Decode(code, 64)
			if err != nil {
				continue
			}
			checked++
			if in.Op == x86asm.NOP && !x86MayBeNop(code, false) {
				t.Fatalf("% x: x86asm's NOP rejected by x86MayBeNop", code[:in.Len])
			}
			if (in.Op == x86asm.NOP || in.Op == x86asm.INT || in.Op == x86asm.UD2) && !x86MayBeNop(code, true) {
				t.Fatalf("% x: x86asm's %v rejected as padding", code[:in.Len], in.Op)
			}
		}
	}
	if checked < 50000 {
		t.Fatalf("only %d instructions decoded", checked)
	}
}
