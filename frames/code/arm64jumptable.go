package code

import (
	"encoding/binary"
)

// ARM64JumpTables returns an Options.JumpTable for the AArch64 function
// whose code is text at address start. It recognises the switch forms GCC
// and LLVM emit, which compute the target from a table of offsets:
//
//	adrp xT, T; add xT, xT, :lo12:T     the table
//	adr xB, L                           the base (GCC: the label after br)
//	ldrb/ldrh/ldr/ldrsb/ldrsh wE, [xT, xI(, lsl #s)]   the entry
//	add xR, xB, xE(, lsl #k | sxtb/sxth #k)           base + entry<<k
//	br xR
//
// The table has N+1 entries when `cmp wI, #N; b.hi` (N with b.hs) bounds
// the index in the instructions before; without that bound the jump is
// not resolved (arm64Targets). read returns size bytes
// at a link-time address (nil when they are not in the file). A jump of
// another form gives nil: the walk reports it as not followed.
func ARM64JumpTables(text []byte, start uint64, read func(addr uint64, size int) []byte) func(pc uint64) []uint64 {
	return func(pc uint64) []uint64 {
		if pc < start || pc-start+4 > uint64(len(text)) || (pc-start)%4 != 0 {
			return nil
		}
		end := int(pc - start)
		lo := max(end-4*arm64Window, 0)
		return arm64Table(text[lo:end+4], start+uint64(lo), text, start, read)
	}
}

// arm64Window is how many instructions before an indirect jump are
// followed for its table's address, base, entry and bound.
const arm64Window = 24

// arm64Val is what the window knows of a register: a constant, a table's
// entry, or a base plus an entry shifted.
type arm64Val struct {
	kind   uint8 // 0 unknown, valConst, valEntry, valTarget
	c      uint64
	size   uint8 // entry: bytes (1, 2, 4)
	signed bool
	idx    uint8 // entry: the index register
	shift  uint8 // target: entry << shift
	table  uint64
	base   uint64
}

const (
	valConst = 1 + iota
	valEntry
	valTarget
)

// arm64Table follows win (the instructions before the br at its end, at
// address at) and returns the br's targets in the function [start,
// start+size), or nil.
func arm64Table(win []byte, at uint64, text []byte, start uint64, read func(uint64, int) []byte) []uint64 {
	size := uint64(len(text))
	// block is where the jump's block starts in the window: after its
	// last unconditional branch, or the window's start.
	block := at
	var regs [32]arm64Val
	bound := map[uint8]int{} // index register -> entries, from cmp #N; b.hi/b.hs
	var cmpReg, cmpN = -1, 0
	n := len(win) / 4
	for k := 0; k < n; k++ {
		w := binary.LittleEndian.Uint32(win[4*k:])
		pc := at + uint64(4*k)
		rd, rn, rm := uint8(w&31), uint8(w>>5&31), uint8(w>>16&31)
		cmp := -1
		switch {
		case w&0x9F000000 == 0x10000000: // adr
			regs[rd] = arm64Val{kind: valConst, c: pc + uint64(adrImm(w))}
		case w&0x9F000000 == 0x90000000: // adrp
			regs[rd] = arm64Val{kind: valConst, c: pc&^0xfff + uint64(adrImm(w)<<12)}
		case w&0xFF800000 == 0x91000000: // add xD, xN, #imm
			imm := uint64(w >> 10 & 0xfff)
			if w>>22&1 == 1 {
				imm <<= 12
			}
			if v := regs[rn]; v.kind == valConst && rn != 31 {
				regs[rd] = arm64Val{kind: valConst, c: v.c + imm}
			} else {
				regs[rd] = arm64Val{}
			}
		case w&0xFF200000 == 0x8B000000 && w>>22&3 == 0, w&0xFFE00000 == 0x8B200000: // add xD, xN, xM, lsl #k | ext #k
			var k uint8
			ok := true
			if w&0x00200000 == 0 {
				k = uint8(w >> 10 & 63)
			} else {
				k = uint8(w >> 10 & 7)
				// The extension of a table's entry: uxtw/sxtw of an
				// unsigned or signed load, sxtb/sxth of a signed one.
				switch w >> 13 & 7 {
				case 2, 3, 6, 7: // uxtw, uxtx (lsl), sxtw, sxtx
				case 4, 5: // sxtb, sxth
					if e := regs[rm]; e.kind == valEntry {
						regs[rm].signed = true
					}
				default:
					ok = false
				}
			}
			b, e := regs[rn], regs[rm]
			if b.kind == valEntry && e.kind == valConst {
				b, e = e, b
			}
			switch {
			case ok && b.kind == valConst && e.kind == valEntry:
				regs[rd] = arm64Val{kind: valTarget, base: b.c, table: e.table, size: e.size, signed: e.signed, idx: e.idx, shift: k}
			case ok && b.kind == valConst && e.kind == valConst:
				regs[rd] = arm64Val{kind: valConst, c: b.c + e.c<<k}
			default:
				regs[rd] = arm64Val{}
			}
		case w&0x3FA00C00 == 0x38A00800 || w&0x3FE00C00 == 0x38600800: // ldr{b,h,,sb,sh,sw} (register offset)
			sz := uint8(1) << (w >> 30)
			signed := w>>23&1 == 1
			option, s := w>>13&7, w>>12&1
			t := regs[rn]
			// The index is scaled by the entry's size (S set), but for
			// bytes.
			if t.kind == valConst && rn != 31 && sz <= 4 && (option == 3 || option == 2 || option == 6) && (sz == 1 || s == 1) {
				regs[rd] = arm64Val{kind: valEntry, table: t.c, size: sz, signed: signed, idx: rm}
			} else {
				regs[rd] = arm64Val{}
			}
		case w&0x7F80001F == 0x7100001F: // cmp wN/xN, #imm (subs zr, rn, #imm)
			imm := int(w >> 10 & 0xfff)
			if w>>22&1 == 1 {
				imm <<= 12
			}
			cmp = int(rn)
			cmpN = imm
		case w&0xFF000010 == 0x54000000: // b.cond
			if cmpReg >= 0 {
				switch w & 15 {
				case 8: // b.hi: the index is at most N
					bound[uint8(cmpReg)] = cmpN + 1
				case 2: // b.hs: below N
					bound[uint8(cmpReg)] = cmpN
				}
			}
		case k == n-1 && w&0xFFFFFC1F == 0xD61F0000: // br xR: the jump
			v := regs[rn]
			if v.kind != valTarget {
				return nil
			}
			if _, ok := bound[v.idx]; !ok {
				arm64FarBound(text, start, block, v.idx, bound)
			}
			return arm64Targets(v, bound, start, size, read)
		case w&0xFC000000 == 0x14000000 || w&0xFFFFFC1F == 0xD61F0000 || w&0xFFFFFC1F == 0xD65F0000: // b, br, ret
			block = pc + 4
			regs = [32]arm64Val{} // what follows is another block
		case w&0xFC000000 == 0x94000000 || w&0xFFFFFC1F == 0xD63F0000: // bl, blr
			regs = [32]arm64Val{} // a call may change any of them
		case w&0x3A400000 == 0x28400000: // ldp (and ldnp, ldpsw): two destinations
			regs[rd], regs[w>>10&31] = arm64Val{}, arm64Val{}
		default:
			// Anything else may write Rd: it is unknown after, unless the
			// instruction writes no register (a store, a branch, a
			// compare: bits 4-0 are then not a destination, which only
			// costs a table not resolved).
			if w&0x0A000000 == 0x08000000 && w>>22&1 == 0 { // a store (load/store with L=0)
				break
			}
			regs[rd] = arm64Val{}
		}
		cmpReg = cmp
	}
	return nil
}

// arm64FarBound finds the bound of the index register idx where the
// table's block, at block, is entered by a b.ls or b.lo from elsewhere in
// the function right after `cmp wI, #N` (GCC placing the table after
// other code), and records it in bound.
func arm64FarBound(text []byte, start, block uint64, idx uint8, bound map[uint8]int) {
	for k := 4; k+4 <= len(text); k += 4 {
		w := binary.LittleEndian.Uint32(text[k:])
		if w&0xFF000010 != 0x54000000 {
			continue
		}
		if start+uint64(k)+uint64(int64(int32(w>>5&0x7FFFF)<<13)>>11) != block {
			continue
		}
		c := binary.LittleEndian.Uint32(text[k-4:])
		if c&0x7F80001F != 0x7100001F || uint8(c>>5&31) != idx {
			continue
		}
		n := int(c >> 10 & 0xfff)
		if c>>22&1 == 1 {
			n <<= 12
		}
		switch w & 15 {
		case 9: // b.ls to the block: at most N
			bound[idx] = n + 1
			return
		case 3: // b.lo: below N
			bound[idx] = n
			return
		}
	}
}

// adrImm is the signed 21-bit immediate of adr and adrp.
func adrImm(w uint32) int64 {
	v := int64(w>>29&3 | w>>3&0x1FFFFC)
	return v << 43 >> 43
}

// arm64Targets reads the table of v and returns its targets, base +
// entry<<shift for each of the entries the window's bound on the index
// counts (a target outside the function, a case moved to a cold part, is
// left out). Without a bound it gives nil: every offset in range names an
// instruction (they are all 4 bytes), so a table's end cannot be told from
// its entries, and reading past it would walk blocks with the switch's
// state (LLVM's switch on an enum the type bounds stays not followed).
func arm64Targets(v arm64Val, bound map[uint8]int, start, size uint64, read func(uint64, int) []byte) []uint64 {
	n, ok := bound[v.idx]
	if !ok || n <= 0 || n > maxTable {
		return nil
	}
	var out []uint64
	for i := 0; i < n; i++ {
		b := read(v.table+uint64(i)*uint64(v.size), int(v.size))
		if len(b) < int(v.size) {
			return nil
		}
		var e int64
		switch v.size {
		case 1:
			e = int64(b[0])
			if v.signed {
				e = int64(int8(b[0]))
			}
		case 2:
			e = int64(binary.LittleEndian.Uint16(b))
			if v.signed {
				e = int64(int16(binary.LittleEndian.Uint16(b)))
			}
		case 4:
			e = int64(binary.LittleEndian.Uint32(b))
			if v.signed {
				e = int64(int32(binary.LittleEndian.Uint32(b)))
			}
		}
		t := v.base + uint64(e<<v.shift)
		if t < start || t-start >= size || (t-start)%4 != 0 {
			continue // a case outside (a cold part): left out
		}
		out = append(out, t)
	}
	return out
}
