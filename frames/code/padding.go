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
		if !x86MayBeNop(code, true) {
			return false
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
		if !x86MayBeNop(code, false) {
			return false
		}
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

// x86MayBeNop reports whether the x86-64 instruction code starts with
// may be one x86asm calls NOP (90, 0f 18-0f 1f) or, with padding set,
// INT (cc, cd) or UD2 (0f 0b), from its opcode after any prefixes: the
// others need no full decode (most instructions IsPadding and IsNop are
// asked about).
func x86MayBeNop(code []byte, padding bool) bool {
	i := 0
	for i < len(code) && i < 15 {
		switch c := code[i]; {
		case c == 0x66 || c == 0x67 || c == 0xf2 || c == 0xf3 || c == 0x2e || c == 0x3e || c == 0x26 || c == 0x36 || c == 0x64 || c == 0x65 || c == 0xf0, c&0xf0 == 0x40:
			i++
			continue
		}
		break
	}
	if i >= len(code) {
		return true // let the decoder say
	}
	switch c := code[i]; {
	case c == 0x90:
		return true
	case c == 0xcc || c == 0xcd:
		return padding
	case c == 0x0f && i+1 < len(code):
		d := code[i+1]
		return d >= 0x18 && d <= 0x1f || padding && d == 0x0b
	case c == 0x0f:
		return true
	}
	return false
}
