package code

import (
	"debug/elf"
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
