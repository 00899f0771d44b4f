package code

import (
	"strings"

	"golang.org/x/arch/x86/x86asm"

	"github.com/sfdbg/sfdbg/sframe/arch"
)

// IsPadding reports whether the instruction that code starts with, at pc,
// is alignment padding: a nop, int3 or ud2 on x86-64 (known from its bytes
// for the forms assemblers emit, else by x86asm), a nop on the other
// machines (their decoder's text: nop, s390x's nopr and bcr 0,...).
func IsPadding(a *arch.Arch, code []byte, pc uint64) bool {
	if a == arch.AMD64Arch {
		if x86Padding(code) {
			return true
		}
		in, err := x86asm.Decode(code, 64)
		return err == nil && (in.Op == x86asm.NOP || in.Op == x86asm.INT || in.Op == x86asm.UD2)
	}
	return textNop(a, code, pc)
}

// IsNop reports whether the instruction that code starts with, at pc, is a
// no-op: x86-64's nop forms (x86asm's NOP), the other machines' as
// IsPadding. int3 and ud2 are padding, not no-ops.
func IsNop(a *arch.Arch, code []byte, pc uint64) bool {
	if a == arch.AMD64Arch {
		in, err := x86asm.Decode(code, 64)
		return err == nil && in.Op == x86asm.NOP
	}
	return textNop(a, code, pc)
}

// textNop reports whether a's decoder spells the instruction as a nop.
func textNop(a *arch.Arch, code []byte, pc uint64) bool {
	if a == nil || a.Decoder == nil || len(code) == 0 {
		return false
	}
	t := a.Decoder.Text(code, pc)
	return strings.HasPrefix(t, "nop") || strings.HasPrefix(t, "bcr\t0,") || strings.HasPrefix(t, "bcr 0,")
}

// x86Padding reports whether code starts with one of the padding forms
// assemblers emit, known from its bytes without a full decode: int3
// (cc), ud2 (0f 0b), nop (90) and the long nops (0f 1f /0 with its
// ModRM, SIB and displacement, after 66 and 2e prefixes, as GNU as pads
// with "66 2e 0f 1f 84 00 00 00 00 00"). false means "decode it": each
// form it accepts is one x86asm.Decode calls NOP, INT or UD2.
func x86Padding(code []byte) bool {
	if len(code) == 0 {
		return false
	}
	switch {
	case code[0] == 0xcc, code[0] == 0x90:
		return true
	case len(code) >= 2 && code[0] == 0x0f && code[1] == 0x0b:
		return true
	}
	i := 0
	for i < len(code) && i < 14 && (code[i] == 0x66 || code[i] == 0x2e) {
		i++
	}
	c := code[i:]
	if len(c) < 3 || c[0] != 0x0f || c[1] != 0x1f || (c[2]>>3)&7 != 0 {
		return false
	}
	n := 3 // 0f 1f ModRM
	mod, rm := c[2]>>6, c[2]&7
	if mod != 3 && rm == 4 { // SIB
		if len(c) < 4 {
			return false
		}
		n++
		if mod == 0 && c[3]&7 == 5 {
			n += 4
		}
	}
	switch {
	case mod == 0 && rm == 5, mod == 2:
		n += 4
	case mod == 1:
		n++
	}
	return i+n <= len(code) && i+n <= 15
}
