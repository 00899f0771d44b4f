package ehabi

import (
	"encoding/binary"
	"fmt"
	"strings"
)

// OpKind names a frame unwinding instruction (EHABI 9.3 for ARM, SPRAB89
// 7.2 for C6000). Kinds that exist in one machine only say so in their
// name.
type OpKind uint8

const (
	OpInvalid OpKind = iota
	// OpVSPAdd: ARM 00xxxxxx, vsp += (x << 2) + 4; 0xb2 ULEB128, vsp +=
	// 0x204 + (ULEB128 << 2). C6000 00xxxxxx, SP += (x << 3) + 8; 0xd2
	// ULEB128, SP += 0x408 + (ULEB128 << 3). Arg is the increment in bytes.
	OpVSPAdd
	// OpVSPSub: ARM 01xxxxxx, vsp -= (x << 2) + 4 (Arg bytes).
	OpVSPSub
	// OpRefuse: ARM and C6000 0x80 0x00, refuse to unwind (CANTUNWIND).
	OpRefuse
	// OpPopMask: ARM 1000iiii iiiiiiii, pop r4-r15 under the 12-bit mask
	// Arg (bit 0 = r4). C6000 100ciiii iiiiiiii, pop the registers of the
	// 13-bit mask Arg (bit 12 = A15 ... bit 0 = A10), Compact set for the
	// C64x+ compact frame form (c = 1).
	OpPopMask
	// OpReserved: ARM 0x9d and 0x9f (reserved register-to-SP moves).
	OpReserved
	// OpVSPReg: ARM 1001nnnn (n != 13, 15), vsp = r[n] (Arg = n).
	OpVSPReg
	// OpPopRange: ARM 10100nnn and 10101nnn, pop r4-r[4+n] (Arg = n),
	// plus r14 when LR is set.
	OpPopRange
	// OpFinish: ARM 0xb0.
	OpFinish
	// OpSpare: ARM 0xb1 and 0xc7 with an operand of 0 or with its high
	// nibble set (spare encodings).
	OpSpare
	// OpPopLow: ARM 0xb1 0000iiii, pop r0-r3 under the mask Arg.
	OpPopLow
	// OpPopVFP: ARM 0xb3 sssscccc (FSTMFDX form, D[s]..D[s+c]), 0xc8
	// (D[16+s]..D[16+s+c]), 0xc9 (D[s]..D[s+c]), 10111nnn (FSTMFDX) and
	// 11010nnn (D8..D[8+n]): First and Count extra registers.
	OpPopVFP
	// OpPopWR: ARM 11000nnn (n != 6, 7), pop wR10-wR[10+n]; 0xc6 sssscccc,
	// pop wR[s]-wR[s+c].
	OpPopWR
	// OpPopWCGR: ARM 0xc7 0000iiii, pop wCGR0-wCGR3 under the mask Arg.
	OpPopWCGR
	// OpPopFrame: C6000 1100nnnn + n bytes of register numbers, a C64x+
	// compact frame: Regs lists the slots, -1 for a pad.
	OpPopFrame
	// OpMovFPSP: C6000 0xd0, MV FP, SP (restore SP from FP).
	OpMovFPSP
	// OpPopRTS: C6000 0xd1, emulate a call to __C6000_pop_rts.
	OpPopRTS
	// OpReturn: C6000 0xe7, RET B3 (this frame is done).
	OpReturn
	// OpMvB3: C6000 1110rrrr (r != 7), restore B3 from register r (Arg).
	OpMvB3
	// OpPopPAC: ARM 0xb4, pop the return address authentication code
	// (ra_auth_code, PACBTI-M; EHABI 2022Q1 and later).
	OpPopPAC
	// OpPACModifier: ARM 0xb5, use the current vsp as the modifier for PAC
	// validation.
	OpPACModifier
	// OpUnsupported: an encoding neither machine defines (ARM 0xb6-0xb7,
	// 0xca-0xcf, 0xd8-0xff; C6000 01xxxxxx, 0xd3-0xdf, 0xf0-0xff).
	OpUnsupported
	// OpTruncated: the opcode needs operand bytes beyond the entry's
	// words.
	OpTruncated
	// OpCorruptULEB: a 0xb2/0xd2 operand of more than 9 bytes.
	OpCorruptULEB
)

var opKindNames = [...]string{"invalid", "vsp-add", "vsp-sub", "refuse", "pop-mask", "reserved",
	"vsp-reg", "pop-range", "finish", "spare", "pop-low", "pop-vfp", "pop-wr", "pop-wcgr",
	"pop-frame", "mv-fp-sp", "pop-rts", "return", "mv-b3", "pop-pac", "pac-modifier", "unsupported", "truncated", "corrupt-uleb"}

func (k OpKind) String() string {
	if int(k) < len(opKindNames) {
		return opKindNames[k]
	}
	return fmt.Sprintf("OpKind(%d)", k)
}

// Op is one decoded unwinding instruction: Bytes are its opcode and
// operand bytes as they are consumed (most significant byte of each word
// first), Off the byte offset of its first byte in Section.
type Op struct {
	Section string
	Off     int64
	Bytes   []byte
	Kind    OpKind
	Arg     uint64 // increment in bytes, register mask or register number
	First   int    // first register of OpPopVFP/OpPopWR
	Count   int    // registers after First
	LR      bool   // OpPopRange also pops r14
	Compact bool   // OpPopMask (C6000) in the compact frame form
	Regs    []int  // OpPopFrame slots, -1 for a pad
}

// c6000RegNames are the C6000 unwinding register numbers (SPRAB89 7.2).
var c6000RegNames = [16]string{
	"A15", "B15", "B14", "B13", "B12", "B11", "B10", "B3",
	"A14", "A13", "A12", "A11", "A10",
	"[invalid reg 13]", "[invalid reg 14]", "[invalid reg 15]",
}

// stream is the opcode bytes of one entry, most significant byte of each
// word first, with the section offset of each byte.
type stream struct {
	sec   string
	b     []byte
	order binary.ByteOrder
	words []uint64 // section offsets of the words the bytes come from
	first int      // bytes taken from words[0] (its low ones)
	pos   int
	last  int64 // offset of the last byte consumed, for truncation errors

	clipped bool // the entry declared more words than its section holds
	avail   int  // words the section holds after the entry's first
}

func (s *stream) more() bool { return s.pos < len(s.b) }

// offAt returns the section offset of byte k of the stream.
func (s *stream) offAt(k int) int64 {
	w, i := 0, 4-s.first+k
	if k >= s.first {
		w, i = 1+(k-s.first)/4, (k-s.first)%4
	}
	return int64(byteOff(s.order, s.words[w], i))
}

func (s *stream) next() (byte, bool) {
	if s.pos >= len(s.b) {
		return 0, false
	}
	c := s.b[s.pos]
	s.last = s.offAt(s.pos)
	s.pos++
	return c, true
}

// uleb reads a ULEB128 operand of at most 9 bytes (what readelf accepts).
func (s *stream) uleb() (v uint64, ok, corrupt bool) {
	for i := 0; i < 9; i++ {
		c, ok := s.next()
		if !ok {
			return 0, false, false
		}
		v |= uint64(c&0x7f) << (7 * i)
		if c&0x80 == 0 {
			return v, true, false
		}
	}
	return 0, true, true
}

// decodeOps decodes every opcode of s for machine m. A truncated operand
// ends the list with an OpTruncated op and a *DecodeError.
func decodeOps(m Machine, s *stream) ([]Op, error) {
	var ops []Op
	for s.more() {
		first := s.pos
		start := s.offAt(first)
		c, _ := s.next()
		op := Op{Section: s.sec, Off: start}
		var ok bool
		if m == C6000 {
			ok = decodeC6000(&op, c, s)
		} else {
			ok = decodeARM(&op, c, s)
		}
		op.Bytes = s.b[first:s.pos:s.pos]
		ops = append(ops, op)
		if !ok {
			return ops, malformed(s.sec, s.last, "opcode %#02x at byte %#x: operand past the entry's last word", c, start)
		}
		if m == C6000 && op.Kind == OpCorruptULEB {
			return ops, malformed(s.sec, start, "opcode 0xd2: ULEB128 operand longer than 9 bytes")
		}
	}
	return ops, nil
}

// operand reads one operand byte into op; false (op becomes OpTruncated)
// when the entry has no more.
func operand(op *Op, s *stream) (byte, bool) {
	c, ok := s.next()
	if !ok {
		op.Kind = OpTruncated
		return 0, false
	}
	return c, true
}

// decodeARM decodes the ARM opcode c (EHABI 9.3).
func decodeARM(op *Op, c byte, s *stream) bool {
	switch {
	case c&0xc0 == 0x00:
		op.Kind, op.Arg = OpVSPAdd, uint64(c&0x3f)<<2+4
	case c&0xc0 == 0x40:
		op.Kind, op.Arg = OpVSPSub, uint64(c&0x3f)<<2+4
	case c&0xf0 == 0x80:
		c2, ok := operand(op, s)
		if !ok {
			return false
		}
		if c == 0x80 && c2 == 0 {
			op.Kind = OpRefuse
		} else {
			op.Kind, op.Arg = OpPopMask, uint64(c&0x0f)<<8|uint64(c2)
		}
	case c&0xf0 == 0x90:
		if c == 0x9d || c == 0x9f {
			op.Kind = OpReserved
		} else {
			op.Kind, op.Arg = OpVSPReg, uint64(c&0x0f)
		}
	case c&0xf0 == 0xa0:
		op.Kind, op.Arg, op.LR = OpPopRange, uint64(c&7), c&8 != 0
	case c == 0xb0:
		op.Kind = OpFinish
	case c == 0xb1, c == 0xc7:
		c2, ok := operand(op, s)
		if !ok {
			return false
		}
		switch {
		case c2 == 0 || c2&0xf0 != 0:
			op.Kind = OpSpare
		case c == 0xb1:
			op.Kind, op.Arg = OpPopLow, uint64(c2&0x0f)
		default:
			op.Kind, op.Arg = OpPopWCGR, uint64(c2&0x0f)
		}
	case c == 0xb2:
		v, ok, corrupt := s.uleb()
		if !ok {
			op.Kind = OpTruncated
			return false
		}
		if corrupt {
			op.Kind = OpCorruptULEB
		} else {
			op.Kind, op.Arg = OpVSPAdd, v*4+0x204
		}
	case c == 0xb3 || c == 0xc8 || c == 0xc9:
		c2, ok := operand(op, s)
		if !ok {
			return false
		}
		op.Kind, op.First, op.Count = OpPopVFP, int(c2>>4), int(c2&0x0f)
		if c == 0xc8 {
			op.First += 16
		}
	case c&0xf8 == 0xb8 || c&0xf8 == 0xd0:
		op.Kind, op.First, op.Count = OpPopVFP, 8, int(c&7)
	case c == 0xb4:
		op.Kind = OpPopPAC
	case c == 0xb5:
		op.Kind = OpPACModifier
	case c >= 0xc0 && c <= 0xc5:
		op.Kind, op.First, op.Count = OpPopWR, 10, int(c&7)
	case c == 0xc6:
		c2, ok := operand(op, s)
		if !ok {
			return false
		}
		op.Kind, op.First, op.Count = OpPopWR, int(c2>>4), int(c2&0x0f)
	default:
		op.Kind = OpUnsupported
	}
	return true
}

// decodeC6000 decodes the C6000 opcode c (SPRAB89 7.2).
func decodeC6000(op *Op, c byte, s *stream) bool {
	switch {
	case c&0xc0 == 0x00:
		op.Kind, op.Arg = OpVSPAdd, uint64(c&0x3f)<<3+8
	case c&0xc0 == 0x80:
		c2, ok := operand(op, s)
		if !ok {
			return false
		}
		if c == 0x80 && c2 == 0 {
			op.Kind = OpRefuse
		} else {
			op.Kind, op.Arg, op.Compact = OpPopMask, uint64(c&0x1f)<<8|uint64(c2), c&0x20 != 0
		}
	case c&0xf0 == 0xc0:
		// n registers follow, two 4-bit numbers a byte, 0xf for a pad:
		// bytes are read until n registers are named (readelf 2.40 reads
		// them so; each byte is clipped to the entry's bytes).
		n := int(c & 0x0f)
		op.Kind = OpPopFrame
		op.Regs = make([]int, 0, 2*n)
		for named := 0; named < n; named = countRegs(op.Regs) {
			c2, ok := operand(op, s)
			if !ok {
				return false
			}
			for _, r := range [2]byte{c2 >> 4, c2 & 0x0f} {
				if r == 0x0f {
					op.Regs = append(op.Regs, -1)
				} else {
					op.Regs = append(op.Regs, int(r))
				}
			}
		}
	case c == 0xd0:
		op.Kind = OpMovFPSP
	case c == 0xd1:
		op.Kind = OpPopRTS
	case c == 0xd2:
		v, ok, corrupt := s.uleb()
		if !ok {
			op.Kind = OpTruncated
			return false
		}
		if corrupt {
			op.Kind = OpCorruptULEB
		} else {
			op.Kind, op.Arg = OpVSPAdd, v*8+0x408
		}
	case c&0xf0 == 0xe0:
		if c&0x0f == 7 {
			op.Kind = OpReturn
		} else {
			op.Kind, op.Arg = OpMvB3, uint64(c&0x0f)
		}
	default:
		op.Kind = OpUnsupported
	}
	return true
}

// Text returns the op as readelf -u prints it, without the leading two
// spaces and the newline: its bytes ("0x%02x " each) and its meaning.
func (op *Op) Text(m Machine) string {
	var b strings.Builder
	for _, c := range op.Bytes {
		fmt.Fprintf(&b, "0x%02x ", c)
	}
	// One-byte forms print five spaces before their meaning.
	pad := "     "
	switch op.Kind {
	case OpVSPAdd:
		if len(op.Bytes) > 1 {
			if m == C6000 {
				fmt.Fprintf(&b, "sp = sp + %d", int64(op.Arg))
			} else {
				fmt.Fprintf(&b, "vsp = vsp + %d", int64(op.Arg))
			}
		} else if m == C6000 {
			fmt.Fprintf(&b, "%ssp = sp + %d", pad, op.Arg)
		} else {
			fmt.Fprintf(&b, "%svsp = vsp + %d", pad, op.Arg)
		}
	case OpVSPSub:
		fmt.Fprintf(&b, "%svsp = vsp - %d", pad, op.Arg)
	case OpRefuse:
		b.WriteString("Refuse to unwind")
	case OpPopMask:
		if m == C6000 {
			if op.Compact {
				b.WriteString("pop compact {")
			} else {
				b.WriteString("pop {")
			}
			b.WriteString(c6000Mask(uint32(op.Arg)))
			b.WriteString("}")
		} else {
			b.WriteString("pop {" + regList("r", 4, 12, op.Arg) + "}")
		}
	case OpReserved:
		b.WriteString(pad + "[Reserved]")
	case OpVSPReg:
		fmt.Fprintf(&b, "%svsp = r%d", pad, op.Arg)
	case OpPopRange:
		regs := make([]string, 0, 9)
		for i := 4; i <= 4+int(op.Arg); i++ {
			regs = append(regs, fmt.Sprintf("r%d", i))
		}
		if op.LR {
			regs = append(regs, "r14")
		}
		b.WriteString(pad + "pop {" + strings.Join(regs, ", ") + "}")
	case OpFinish:
		b.WriteString(pad + "finish")
	case OpSpare:
		b.WriteString("[Spare]")
	case OpPopLow:
		b.WriteString("pop {" + regList("r", 0, 4, op.Arg) + "}")
	case OpPopWCGR:
		b.WriteString("pop {" + regList("wCGR", 0, 4, op.Arg) + "}")
	case OpPopVFP, OpPopWR:
		name := "D"
		if op.Kind == OpPopWR {
			name = "wR"
		}
		if len(op.Bytes) == 1 && op.Kind == OpPopWR {
			b.WriteString(pad)
		}
		fmt.Fprintf(&b, "pop {%s%d", name, op.First)
		if op.Count != 0 {
			fmt.Fprintf(&b, "-%s%d", name, op.First+op.Count)
		}
		b.WriteString("}")
	case OpPopFrame:
		b.WriteString("pop frame {")
		b.WriteString(c6000Frame(op.Regs))
		b.WriteString("}")
	case OpMovFPSP:
		b.WriteString(pad + "MOV FP, SP")
	case OpPopRTS:
		b.WriteString(pad + "__c6xabi_pop_rts")
	case OpReturn:
		b.WriteString(pad + "RETURN")
	case OpMvB3:
		fmt.Fprintf(&b, "%sMV %s, B3", pad, c6000RegNames[op.Arg&15])
	case OpPopPAC:
		b.WriteString(pad + "pop {ra_auth_code}")
	case OpPACModifier:
		b.WriteString(pad + "vsp as modifier for PAC validation")
	case OpUnsupported:
		b.WriteString(pad + "[unsupported opcode]")
	case OpTruncated:
		b.WriteString("[Truncated opcode]")
	}
	return b.String()
}

// regList lists the registers prefix+(base+i) for the set bits i < n of
// mask, as "r4, r5".
func regList(prefix string, base, n int, mask uint64) string {
	var regs []string
	for i := 0; i < n; i++ {
		if mask&(1<<i) != 0 {
			regs = append(regs, fmt.Sprintf("%s%d", prefix, base+i))
		}
	}
	return strings.Join(regs, ", ")
}

// c6000Mask lists the registers of a C6000 POP bitmask, bit 0 (A10)
// first, as readelf does.
func c6000Mask(mask uint32) string {
	var regs []string
	for i := 12; mask != 0 && i >= 0; mask, i = mask>>1, i-1 {
		if mask&1 != 0 {
			regs = append(regs, c6000RegNames[i])
		}
	}
	if mask != 0 {
		// Bits above 12 (readelf reads past its table; never in valid data).
		regs = append(regs, fmt.Sprintf("[mask %#x]", mask))
	}
	return strings.Join(regs, ", ")
}

// c6000Frame lists the slots of a compact frame from the last to the
// first, "[pad]" for unused ones, as readelf does.
func c6000Frame(regs []int) string {
	var out []string
	if countRegs(regs) == 0 {
		return "*corrupt* - no registers specified"
	}
	for i := len(regs) - 1; i >= 0; i-- {
		if regs[i] >= 0 {
			out = append(out, c6000RegNames[regs[i]])
		} else {
			out = append(out, "[pad]")
		}
	}
	return strings.Join(out, ", ")
}

// countRegs counts the registers (not pads) of a compact frame.
func countRegs(regs []int) int {
	n := 0
	for _, r := range regs {
		if r >= 0 {
			n++
		}
	}
	return n
}
