package compare

import "golang.org/x/arch/x86/x86asm"

// Instruction boundaries of x86-64 code, as GNU objdump -d delimits them.
//
// x86asm decodes the general-purpose, x87, SSE and AVX instructions GNU
// tools emit, but not the CET and hint-NOP space 0F 18-1F beyond prefetch
// and NOP Ev: endbr64 (F3 0F 1E FA) comes back as a one-byte REP prefix,
// and the rest does not decode. x86LenTable is a length decoder over the
// opcode maps of the Intel SDM vol. 2, appendix A (one-byte, 0F, 0F38,
// 0F3A, VEX and EVEX maps; modrm, SIB, displacement and immediate sizes).
// It only delimits instructions, which makes it about 7 times faster than
// a full x86asm decode (75 of the 130 ms that check took on sqlite-v3), so
// it goes first and x86asm serves the opcodes the table marks invalid.
// TestX86BoundariesMatchObjdump compares both x86Len and the table alone
// with objdump's boundaries on every x86-64 fixture (testdata/golden/*.insn).

// x86Len returns the length in bytes of the x86-64 instruction that starts
// at code[0], or ok false when neither decoder can delimit it (invalid or
// truncated code).
func x86Len(code []byte) (n int, ok bool) {
	if n, ok := x86LenTable(code); ok {
		return n, true
	}
	inst, err := x86asm.Decode(code, 64)
	if err == nil && inst.Len > 0 && !prefixOnly(inst) {
		return inst.Len, true
	}
	return 0, false
}

// prefixOnly reports whether x86asm returned a lone prefix (Op 0, no
// error), which it does when the bytes after the prefix do not decode.
func prefixOnly(inst x86asm.Inst) bool { return inst.Op == 0 }

// Operand shapes of an opcode in x86OneByte and x86TwoByte.
const (
	opModRM   = 1 << iota // a modrm byte (and SIB, displacement) follows
	opImm8                // an 8-bit immediate or rel8
	opImm16               // a 16-bit immediate
	opImmZ                // a 16- (66 prefix) or 32-bit immediate or rel32
	opImmV                // opImmZ, or 64-bit with REX.W (MOV r64, imm64)
	opMoffs               // an 8-byte (4 with a 67 prefix) absolute address
	opGroup3              // F6/F7: the immediate only for /0 and /1
	opRel32               // a 32-bit branch displacement, whatever the prefixes
	opInvalid             // not an instruction in 64-bit mode
)

// x86OneByte is the one-byte opcode map in 64-bit mode (SDM vol. 2, table
// A-2); prefixes, REX, 0F, VEX (C4, C5) and EVEX (62) are handled by
// x86LenTable before the table is read.
var x86OneByte = func() (t [256]uint16) {
	for op := 0; op < 0x40; op++ {
		switch op & 7 {
		case 0, 1, 2, 3:
			t[op] = opModRM
		case 4:
			t[op] = opImm8
		case 5:
			t[op] = opImmZ
		default:
			t[op] = opInvalid // push/pop segment, DAA/DAS/AAA/AAS
		}
	}
	inv := []int{0x60, 0x61, 0x82, 0x9a, 0xc4, 0xc5, 0xce, 0xd4, 0xd5, 0xd6, 0xea}
	for _, op := range inv {
		t[op] = opInvalid
	}
	for _, op := range []int{0x63, 0x84, 0x85, 0x86, 0x87, 0x88, 0x89, 0x8a, 0x8b, 0x8c, 0x8d, 0x8e, 0x8f,
		0xd0, 0xd1, 0xd2, 0xd3, 0xd8, 0xd9, 0xda, 0xdb, 0xdc, 0xdd, 0xde, 0xdf, 0xfe, 0xff} {
		t[op] = opModRM
	}
	for op := 0x70; op <= 0x7f; op++ {
		t[op] = opImm8
	}
	for op := 0xb0; op <= 0xb7; op++ {
		t[op] = opImm8
	}
	for op := 0xb8; op <= 0xbf; op++ {
		t[op] = opImmV
	}
	for op := 0xe0; op <= 0xe7; op++ {
		t[op] = opImm8
	}
	t[0x68], t[0x6a], t[0xa8], t[0xa9], t[0xcd], t[0xeb] = opImmZ, opImm8, opImm8, opImmZ, opImm8, opImm8
	t[0x69], t[0x6b] = opModRM|opImmZ, opModRM|opImm8
	t[0x80], t[0x81], t[0x83] = opModRM|opImm8, opModRM|opImmZ, opModRM|opImm8
	t[0xc0], t[0xc1], t[0xc6], t[0xc7] = opModRM|opImm8, opModRM|opImm8, opModRM|opImm8, opModRM|opImmZ
	t[0xc2], t[0xca], t[0xc8] = opImm16, opImm16, opImm16|opImm8
	t[0xe8], t[0xe9] = opRel32, opRel32
	t[0xf6], t[0xf7] = opModRM|opGroup3|opImm8, opModRM|opGroup3|opImmZ
	for op := 0xa0; op <= 0xa3; op++ {
		t[op] = opMoffs
	}
	return t
}()

// x86TwoByte is the 0F opcode map (SDM vol. 2, table A-3); 0F 38 and 0F 3A
// are handled by x86LenTable.
var x86TwoByte = func() (t [256]uint16) {
	for op := range t {
		t[op] = opModRM
	}
	for _, op := range []int{0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0e,
		0x30, 0x31, 0x32, 0x33, 0x34, 0x35, 0x36, 0x37, 0x77, 0xa0, 0xa1, 0xa2, 0xa8, 0xa9, 0xaa,
		0xc8, 0xc9, 0xca, 0xcb, 0xcc, 0xcd, 0xce, 0xcf} {
		t[op] = 0
	}
	for op := 0x80; op <= 0x8f; op++ {
		t[op] = opRel32 // Jcc rel32
	}
	for _, op := range []int{0x0f, 0x70, 0x71, 0x72, 0x73, 0xa4, 0xac, 0xba, 0xc2, 0xc4, 0xc5, 0xc6} {
		t[op] = opModRM | opImm8
	}
	return t
}()

// x86LenTable returns the length of the x86-64 instruction at code[0]
// from the opcode maps alone, or ok false for an invalid opcode or code
// that ends inside the instruction.
func x86LenTable(code []byte) (n int, ok bool) {
	const maxLen = 15 // SDM vol. 2, 2.3.11
	i := 0
	opsize16, addr32, rexW := false, false, false
prefixes:
	for ; i < len(code) && i < maxLen; i++ {
		switch code[i] {
		case 0x66:
			opsize16 = true
		case 0x67:
			addr32 = true
		case 0xf0, 0xf2, 0xf3, 0x26, 0x2e, 0x36, 0x3e, 0x64, 0x65:
		default:
			break prefixes
		}
	}
	if i < len(code) && code[i]&0xf0 == 0x40 { // REX
		rexW = code[i]&8 != 0
		i++
	}
	if i >= len(code) {
		return 0, false
	}
	var shape uint16
	switch op := code[i]; {
	case op == 0xc4 || op == 0xc5 || op == 0x62: // VEX3, VEX2, EVEX
		var m byte = 1 // opcode map: 1 = 0F, 2 = 0F38, 3 = 0F3A
		switch op {
		case 0xc4:
			if i+2 >= len(code) {
				return 0, false
			}
			m = code[i+1] & 0x1f
			i += 3
		case 0xc5:
			i += 2
		default:
			if i+3 >= len(code) {
				return 0, false
			}
			m = code[i+1] & 7
			i += 4
		}
		if i >= len(code) {
			return 0, false
		}
		shape = opModRM
		if m == 3 || m == 1 && x86TwoByte[code[i]]&opImm8 != 0 {
			shape |= opImm8
		}
		if m == 1 && code[i] == 0x77 { // vzeroupper, vzeroall
			shape = 0
		}
	case op == 0x0f:
		i++
		if i >= len(code) {
			return 0, false
		}
		switch code[i] {
		case 0x38:
			i++
			shape = opModRM
		case 0x3a:
			i++
			shape = opModRM | opImm8
		default:
			shape = x86TwoByte[code[i]]
		}
	default:
		shape = x86OneByte[op]
	}
	i++ // the opcode
	if shape&opInvalid != 0 {
		return 0, false
	}
	if shape&opModRM != 0 {
		if i >= len(code) {
			return 0, false
		}
		modrm := code[i]
		i++
		mod, rm := modrm>>6, modrm&7
		if shape&opGroup3 != 0 && modrm>>3&7 > 1 {
			shape &^= opImm8 | opImmZ
		}
		if mod != 3 {
			if rm == 4 { // SIB
				if i >= len(code) {
					return 0, false
				}
				if mod == 0 && code[i]&7 == 5 {
					i += 4
				}
				i++
			}
			switch {
			case mod == 0 && rm == 5:
				i += 4 // RIP-relative disp32
			case mod == 1:
				i++
			case mod == 2:
				i += 4
			}
		}
	}
	switch {
	case shape&opMoffs != 0:
		if addr32 {
			i += 4
		} else {
			i += 8
		}
	case shape&opImmV != 0 && rexW:
		i += 8
	case shape&(opImmZ|opImmV) != 0 && opsize16:
		i += 2
	case shape&(opImmZ|opImmV|opRel32) != 0:
		i += 4
	}
	if shape&opImm8 != 0 {
		i++
	}
	if shape&opImm16 != 0 {
		i += 2
	}
	if i > len(code) || i > maxLen {
		return 0, false
	}
	return i, true
}
