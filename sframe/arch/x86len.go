package arch

import "golang.org/x/arch/x86/x86asm"

// Instruction boundaries of x86-64 code, as GNU objdump -d delimits them,
// and the fields of each instruction that the stack-effect decoder reads.
//
// x86asm decodes the general-purpose, x87, SSE and AVX instructions GNU
// tools emit, but not the CET and hint-NOP space 0F 18-1F beyond prefetch
// and NOP Ev: endbr64 (F3 0F 1E FA) comes back as a one-byte REP prefix,
// and the rest does not decode. x86Scan is a decoder over the opcode maps
// of the Intel SDM vol. 2, appendix A (one-byte, 0F, 0F38, 0F3A, VEX and
// EVEX maps; modrm, SIB, displacement and immediate sizes). It delimits
// instructions about 7 times faster than a full x86asm decode (75 of the
// 130 ms that check took on sqlite-v3), so it goes first and x86asm serves
// the opcodes the table marks invalid. TestX86BoundariesMatchObjdump
// compares both Len and the table alone with objdump's boundaries on every
// x86-64 fixture (testdata/golden/*.insn).

// x86MaxLen is the longest x86-64 instruction in bytes (SDM vol. 2,
// 2.3.11).
const x86MaxLen = 15

// Len returns the length in bytes of the x86-64 instruction that starts at
// code[0], or ok false when neither decoder can delimit it (invalid or
// truncated code).
func (X86) Len(code []byte) (n int, ok bool) {
	var in x86Insn
	if x86Scan(code, &in) {
		return int(in.n), true
	}
	return x86asmLen(code)
}

// x86asmLen returns the length x86asm finds for the instruction at code[0]
// (Len's slow path, for what the opcode tables mark invalid).
func x86asmLen(code []byte) (n int, ok bool) {
	inst, err := x86asm.Decode(code, 64)
	if err == nil && inst.Len > 0 && inst.Op != 0 {
		// Op 0 with no error: x86asm returned a lone prefix, which it
		// does when the bytes after the prefix do not decode.
		return inst.Len, true
	}
	return 0, false
}

// x86LenTable returns the length of the x86-64 instruction at code[0] from
// the opcode maps alone (x86Scan), or ok false.
func x86LenTable(code []byte) (n int, ok bool) {
	var in x86Insn
	if x86Scan(code, &in) {
		return int(in.n), true
	}
	return 0, false
}

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
// x86Scan before the table is read.
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
// are handled by x86Scan.
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

// Prefix bits of x86Insn.pfx.
const (
	pfx66   = 1 << iota // operand-size override
	pfx67               // address-size override
	pfxF2               // REPNE (or a mandatory F2)
	pfxF3               // REP (or a mandatory F3)
	pfxSeg              // an FS or GS segment override
	pfxLock             // LOCK
)

// Encodings of x86Insn.enc.
const (
	encLegacy = iota // legacy and REX
	encVEX           // C4, C5
	encEVEX          // 62
)

// x86Insn holds the fields of one instruction found by x86Scan: what the
// stack-effect decoder needs, kept small so that decoding allocates
// nothing.
type x86Insn struct {
	n     uint8 // length in bytes
	pfx   uint8 // pfx* bits
	rex   uint8 // the REX byte, or 0
	enc   uint8 // enc*
	m     uint8 // opcode map: 0 one-byte, 1 0F, 2 0F38, 3 0F3A (VEX/EVEX: its map field)
	op    byte  // the opcode byte (in map m)
	modrm byte
	sib   byte
	vexPP uint8 // VEX/EVEX pp: 0 none, 1 66, 2 F3, 3 F2
	vvvv  uint8 // VEX/EVEX register operand (not inverted), 0-15
	// Where the displacement and the first immediate (or branch
	// displacement) are, read only when Decode needs them: offsets in the
	// instruction and lengths in bytes (0: none). A second, 8-bit
	// immediate (ENTER's nesting level) follows the first.
	dispAt, dispLen uint8
	immAt, immLen   uint8
	imm2            bool
}

// disp returns the displacement, sign-extended (0 when there is none);
// code is the instruction's bytes.
func (in *x86Insn) disp(code []byte) int64 {
	if in.dispLen == 0 {
		return 0
	}
	return le(code[in.dispAt:], int(in.dispLen))
}

// imm returns the first immediate or branch displacement, sign-extended.
func (in *x86Insn) imm(code []byte) int64 {
	if in.immLen == 0 {
		return 0
	}
	return le(code[in.immAt:], int(in.immLen))
}

// immByte2 returns the second, 8-bit immediate (ENTER's nesting level).
func (in *x86Insn) immByte2(code []byte) int64 {
	if !in.imm2 {
		return 0
	}
	return int64(code[in.immAt+in.immLen])
}

// le reads a little-endian signed number of n (1, 2, 4 or 8) bytes.
func le(b []byte, n int) int64 {
	switch n {
	case 1:
		return int64(int8(b[0]))
	case 2:
		return int64(int16(uint16(b[0]) | uint16(b[1])<<8))
	case 4:
		return int64(int32(uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24))
	}
	var v uint64
	for i := 7; i >= 0; i-- {
		v = v<<8 | uint64(b[i])
	}
	return int64(v)
}

// x86Scan decodes the instruction at code[0] into in, which must be zero,
// from the opcode maps alone. It reports false for an opcode the maps mark invalid and for code
// that ends inside the instruction.
func x86Scan(code []byte, in *x86Insn) bool {
	i := 0
	var pfx uint8
prefixes:
	for ; i < len(code) && i < x86MaxLen; i++ {
		switch code[i] {
		case 0x66:
			pfx |= pfx66
		case 0x67:
			pfx |= pfx67
		case 0xf2:
			pfx = pfx&^pfxF3 | pfxF2
		case 0xf3:
			pfx = pfx&^pfxF2 | pfxF3
		case 0xf0:
			pfx |= pfxLock
		case 0x64, 0x65:
			pfx |= pfxSeg
		case 0x26, 0x2e, 0x36, 0x3e:
		default:
			break prefixes
		}
	}
	in.pfx = pfx
	if i < len(code) && code[i]&0xf0 == 0x40 { // REX
		in.rex = code[i]
		i++
	}
	if i >= len(code) {
		return false
	}
	var shape uint16
	switch op := code[i]; {
	case op == 0xc4 || op == 0xc5 || op == 0x62: // VEX3, VEX2, EVEX
		var m byte = 1 // opcode map: 1 = 0F, 2 = 0F38, 3 = 0F3A
		switch op {
		case 0xc4:
			if i+2 >= len(code) {
				return false
			}
			m = code[i+1] & 0x1f
			// REX.R, X, B are stored inverted in VEX; keep them as a REX
			// byte so that register numbers come out the same way.
			in.rex = 0x40 | (^code[i+1]>>5)&7 | code[i+2]>>4&8
			in.vvvv = ^code[i+2] >> 3 & 15
			in.vexPP = code[i+2] & 3
			in.enc = encVEX
			i += 3
		case 0xc5:
			if i+1 >= len(code) {
				return false
			}
			in.rex = 0x40 | (^code[i+1])>>5&4
			in.vvvv = ^code[i+1] >> 3 & 15
			in.vexPP = code[i+1] & 3
			in.enc = encVEX
			i += 2
		default:
			if i+3 >= len(code) {
				return false
			}
			m = code[i+1] & 7
			in.rex = 0x40 | (^code[i+1]>>5)&7 | code[i+2]>>4&8
			in.vvvv = ^code[i+2] >> 3 & 15
			in.vexPP = code[i+2] & 3
			in.enc = encEVEX
			i += 4
		}
		if i >= len(code) {
			return false
		}
		in.m = m
		shape = opModRM
		if m == 3 || m == 1 && x86TwoByte[code[i]]&opImm8 != 0 {
			shape |= opImm8
		}
		if m == 1 && code[i] == 0x77 { // vzeroupper, vzeroall
			shape = 0
		}
	case op == 0x0f:
		in.m = 1
		i++
		if i >= len(code) {
			return false
		}
		switch code[i] {
		case 0x38:
			i++
			in.m = 2
			shape = opModRM
		case 0x3a:
			i++
			in.m = 3
			shape = opModRM | opImm8
		default:
			shape = x86TwoByte[code[i]]
		}
	default:
		shape = x86OneByte[op]
	}
	if i >= len(code) {
		return false
	}
	in.op = code[i]
	i++ // the opcode
	if shape&opInvalid != 0 {
		return false
	}
	if shape&opModRM != 0 {
		if i >= len(code) {
			return false
		}
		modrm := code[i]
		in.modrm = modrm
		i++
		mod, rm := modrm>>6, modrm&7
		if shape&opGroup3 != 0 && modrm>>3&7 > 1 {
			shape &^= opImm8 | opImmZ
		}
		if mod != 3 {
			dispLen := 0
			if rm == 4 { // SIB
				if i >= len(code) {
					return false
				}
				in.sib = code[i]
				if mod == 0 && code[i]&7 == 5 {
					dispLen = 4
				}
				i++
			}
			switch {
			case mod == 0 && rm == 5:
				dispLen = 4 // RIP-relative disp32
			case mod == 1:
				dispLen = 1
			case mod == 2:
				dispLen = 4
			}
			in.dispAt, in.dispLen = uint8(i), uint8(dispLen)
			i += dispLen
		}
	}
	immLen := 0
	switch {
	case shape&opMoffs != 0:
		if pfx&pfx67 != 0 {
			immLen = 4
		} else {
			immLen = 8
		}
	case shape&opImmV != 0 && in.rex&8 != 0:
		immLen = 8
	case shape&(opImmZ|opImmV) != 0 && pfx&pfx66 != 0 && in.rex&8 == 0:
		immLen = 2 // REX.W overrides the 66 prefix (SDM vol. 1, 3.6.1)
	case shape&(opImmZ|opImmV|opRel32) != 0:
		immLen = 4
	case shape&opImm16 != 0:
		immLen = 2
	case shape&opImm8 != 0:
		immLen = 1
	}
	if immLen > 0 {
		in.immAt, in.immLen = uint8(i), uint8(immLen)
		i += immLen
		if shape&opImm8 != 0 && immLen != 1 { // a second, 8-bit immediate
			in.imm2 = true
			i++
		}
	}
	if i > len(code) || i > x86MaxLen {
		return false
	}
	in.n = uint8(i)
	return true
}

// RIPRef returns the length of the x86-64 instruction at code[0], which
// is at address pc, and the address its RIP-relative memory operand
// refers to (lea T(%rip), mov T(%rip), movsd T(%rip), ...), with ref true
// when it has one (ModRM mod 00, r/m 101, no address-size override: SDM
// vol. 2, 2.2.1.6). ok is false when the opcode maps cannot delimit the
// instruction (RIPRef does not try x86asm, unlike Len).
func (X86) RIPRef(code []byte, pc uint64) (n int, target uint64, ref, ok bool) {
	var in x86Insn
	if !x86Scan(code, &in) {
		return 0, 0, false, false
	}
	n = int(in.n)
	if in.dispLen == 4 && in.modrm&0xc7 == 0x05 && in.pfx&pfx67 == 0 {
		return n, pc + uint64(n) + uint64(in.disp(code)), true, true
	}
	return n, 0, false, true
}
