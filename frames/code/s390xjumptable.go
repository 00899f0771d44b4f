package code

import (
	"encoding/binary"
	"slices"

	"github.com/sfdbg/sfdbg/sframe/arch"
)

// S390XJumpTables returns an Options.JumpTable for the s390x function
// whose code is text at address start. It recognises the switch form GCC
// emits, a table of offsets from its own start:
//
//	clfi %rI,N; jh default (or jle/jnh to the table: N+1 cases)
//	sllg %rX,%rI,3 (or risbgz %rX,%rI,..,3)   the index scaled
//	larl %rT,T
//	lg %rE,0(%rX,%rT) (lgf: 4-byte entries)
//	b 0(%rE,%rT)       or agr %rE,%rT; br %rE
//
// without the bound nothing is guessed. read returns size bytes at a
// link-time address (nil when they are not in the file).
func S390XJumpTables(text []byte, start uint64, read func(addr uint64, size int) []byte) func(pc uint64) []uint64 {
	return S390XJumpTablesRefs(text, start, read, nil)
}

// S390XJumpTablesRefs is S390XJumpTables, and it also reads the form LLVM
// emits, whose entries are added to the table's address in memory:
//
//	llgc %r0,D(%rS)         the index (a Rust enum's discriminant)
//	sllg %r1,%r0,2
//	larl %r2,T
//	agf %r2,0(%r2,%r1)
//	br %r2
//
// and, when nextRef is not nil, a table whose index no compare bounds:
// up to nextRef(T), the next address the module's code refers to, or 256
// entries, ending sooner at an entry that is no instruction of the
// function.
func S390XJumpTablesRefs(text []byte, start uint64, read func(addr uint64, size int) []byte, nextRef func(addr uint64) uint64) func(pc uint64) []uint64 {
	var full []int // the function's instruction offsets, decoded once
	return func(pc uint64) []uint64 {
		if pc < start || pc-start >= uint64(len(text)) {
			return nil
		}
		// s390x instructions say their length in their first byte: the
		// function is decoded from its start, and the window is the
		// s390xWindow instructions up to the jump.
		if full == nil {
			for o := 0; o < len(text); {
				n := arch.S390XLen(text[o])
				if o+n > len(text) {
					break // a truncated last instruction is none
				}
				full = append(full, o)
				o += n
			}
		}
		j, ok := slices.BinarySearch(full, int(pc-start))
		if !ok {
			return nil
		}
		offs := full[:j+1]
		lo := max(len(offs)-s390xWindow, 0)
		return s390xTable(text, start, offs[lo:], offs, full, uint64(len(text)), read, nextRef)
	}
}

// s390xWindow is how many instructions before an indirect jump are
// followed for its table, index and bound.
const s390xWindow = 16

// s390xVal is what the window knows of a register (kinds as arm64Val).
type s390xVal struct {
	kind  uint8 // 0, valConst, valEntry, valTarget, valScaled
	c     uint64
	size  uint8 // entry
	idx   uint8 // entry, scaled: the register scaled
	table uint64
}

const valScaled = valTarget + 1

// s390xTable follows the instructions at offs (the last the jump) and
// returns the jump's targets in the function, or nil. all are the
// function's instruction offsets up to the jump, full all of them.
func s390xTable(text []byte, start uint64, offs, all, full []int, size uint64, read func(uint64, int) []byte, nextRef func(uint64) uint64) []uint64 {
	// block is where the jump's block starts in the window: after its
	// last unconditional branch (the case before it ends so), or the
	// window's start.
	block := offs[0]
	var regs [16]s390xVal
	bound := map[uint8]int{}
	cmpReg, cmpN := -1, 0
	for k, o := range offs {
		b := text[o:]
		pc := start + uint64(o)
		r1, r2 := b[1]>>4, b[1]&15
		cmp := -1
		switch {
		case b[0] == 0xC0 && r2 == 0: // larl
			regs[r1] = s390xVal{kind: valConst, c: pc + uint64(int64(int32(binary.BigEndian.Uint32(b[2:])))*2)}
		case b[0] == 0xEB && b[5] == 0x0D && b[2]>>4 == 0: // sllg r1,r3,d2
			r3 := b[1] & 15
			if sh := int(b[2]&15)<<8 | int(b[3]); sh == 3 || sh == 2 {
				regs[r1] = s390xVal{kind: valScaled, idx: r3, size: uint8(1) << sh}
			} else {
				regs[r1] = s390xVal{}
			}
		case b[0] == 0xEC && b[5] == 0x55: // risbg(z) r1,r2,I3,I4,I5
			if sh := int(b[4]); (sh == 3 || sh == 2) && int(b[3]&63) == 63-sh {
				regs[r1] = s390xVal{kind: valScaled, idx: r2, size: uint8(1) << sh}
			} else {
				regs[r1] = s390xVal{}
			}
		case b[0] == 0xE3 && (b[5] == 0x04 || b[5] == 0x14): // lg, lgf r1,d2(x2,b2)
			t, x, d2 := s390xTableAddr(&regs, b)
			sz := uint8(8)
			if b[5] == 0x14 {
				sz = 4
			}
			if d2 == 0 && t.kind == valConst && x.kind == valScaled && x.size == sz {
				regs[r1] = s390xVal{kind: valEntry, table: t.c, size: sz, idx: x.idx}
			} else {
				regs[r1] = s390xVal{}
			}
		case b[0] == 0xE3 && b[5] == 0x18: // agf r1,d2(x2,b2): r1 += the 4-byte entry
			t, x, d2 := s390xTableAddr(&regs, b)
			if d := regs[r1]; d2 == 0 && d.kind == valConst && t.kind == valConst && t.c == d.c && x.kind == valScaled && x.size == 4 {
				regs[r1] = s390xVal{kind: valTarget, table: d.c, size: 4, idx: x.idx}
			} else {
				regs[r1] = s390xVal{}
			}
		case b[0] == 0xB9 && b[1] == 0x08: // agr r1,r2
			d, s := b[3]>>4, b[3]&15
			if e, t := regs[d], regs[s]; e.kind == valEntry && t.kind == valConst && t.c == e.table {
				regs[d] = s390xVal{kind: valTarget, table: e.table, size: e.size, idx: e.idx}
			} else {
				regs[d] = s390xVal{}
			}
		case b[0] == 0xC2 && (r2 == 0xF || r2 == 0xE): // clfi, clgfi r1,I2
			cmp, cmpN = int(r1), int(binary.BigEndian.Uint32(b[2:]))
		case b[0] == 0xA7 && r2 == 4 && r1 == 15 || b[0] == 0xC0 && r2 == 4 && r1 == 15 || b[0] == 0x07 && r1 == 15 && k < len(offs)-1:
			// j, jg, br: the jump's block starts after it.
			if k+1 < len(offs) {
				block = offs[k+1]
			}
			regs = [16]s390xVal{}
		case b[0] == 0xA7 && r2 == 4 || b[0] == 0xC0 && r2 == 4: // brc, brcl M1
			if cmpReg >= 0 && cmpN >= 0 {
				switch r1 {
				case 2, 0xC, 0xD: // jh out, jnh/jle in: at most N
					bound[uint8(cmpReg)] = cmpN + 1
				case 0xA, 4, 5: // jhe out, jl in: below N
					bound[uint8(cmpReg)] = cmpN
				}
			}
		case k == len(offs)-1 && b[0] == 0x47 && r1 == 15: // b d2(x2,b2): the jump
			x2, b2 := r2, b[2]>>4
			if d2 := int(b[2]&15)<<8 | int(b[3]); d2 != 0 {
				return nil
			}
			e, t := regs[x2], regs[b2]
			if x2 == 0 || b2 == 0 { // register 0 as base or index is none
				return nil
			}
			if e.kind != valEntry || t.kind != valConst || t.c != e.table {
				return nil
			}
			if _, ok := bound[e.idx]; !ok {
				s390xFarBound(text, all, block, e.idx, bound)
			}
			return s390xTargets(e, bound, start, size, read, full, nextRef)
		case k == len(offs)-1 && b[0] == 0x07 && r1 == 15: // br r2: the jump
			if e := regs[r2]; e.kind == valTarget {
				if _, ok := bound[e.idx]; !ok {
					s390xFarBound(text, all, block, e.idx, bound)
				}
				return s390xTargets(e, bound, start, size, read, full, nextRef)
			}
			return nil
		case b[0] == 0xC0 && r2 == 5, b[0] == 0xA7 && r2 == 5, b[0] == 0x0D, b[0] == 0x4D: // brasl, bras, basr, bas
			regs = [16]s390xVal{} // a call may change any of them
		case b[0] == 0xEB && b[5] == 0x04, b[0] == 0x98, b[0] == 0xEB && b[5] == 0x98: // lmg, lm, lmy
			regs = [16]s390xVal{}
		case b[0] == 0xB2 || b[0] == 0xB3 || b[0] == 0xB9: // RRE, RRF: R1 in the fourth byte
			regs[b[3]>>4] = s390xVal{}
		default:
			// Anything else may write R1 (stores and compares do not:
			// that only costs a table not resolved).
			regs[r1] = s390xVal{}
		}
		if k == len(offs)-1 {
			return nil
		}
		cmpReg = cmp
	}
	return nil
}

// s390xTableAddr reads the address d2(x2,b2) of the RXY instruction b (lg,
// lgf, agf) as a table's address t and a scaled index x (either register
// may hold either) and the displacement d2 (20 bits, signed); register 0
// as base or index is none, which gives no table.
func s390xTableAddr(regs *[16]s390xVal, b []byte) (t, x s390xVal, d2 int) {
	x2, b2 := b[1]&15, b[2]>>4
	d2 = int(b[2]&15)<<8 | int(b[3]) | int(int8(b[4]))<<12
	if x2 == 0 || b2 == 0 {
		return s390xVal{}, s390xVal{}, d2
	}
	t, x = regs[b2], regs[x2]
	if x.kind == valConst && t.kind == valScaled {
		t, x = x, t
	}
	return t, x, d2
}

// s390xFarBound finds the bound of the index register idx where the
// table's block is entered by a branch from elsewhere in the function
// (clfi %rI,N; jle block: GCC places the table after other cases), the
// compare right before it, and records it in bound. block is the block's
// offset; all the function's instruction offsets.
func s390xFarBound(text []byte, all []int, block int, idx uint8, bound map[uint8]int) {
	if block < 0 {
		return
	}
	for k := 1; k < len(all); k++ {
		b, c := text[all[k]:], text[all[k-1]:]
		var t int64
		switch {
		case b[0] == 0xA7 && b[1]&15 == 4: // brc M,I2
			t = int64(int16(binary.BigEndian.Uint16(b[2:]))) * 2
		case b[0] == 0xC0 && b[1]&15 == 4: // brcl M,I2
			t = int64(int32(binary.BigEndian.Uint32(b[2:]))) * 2
		default:
			continue
		}
		if all[k]+int(t) != block || c[0] != 0xC2 || (c[1]&15 != 0xF && c[1]&15 != 0xE) || c[1]>>4 != idx {
			continue
		}
		n := int(binary.BigEndian.Uint32(c[2:]))
		switch b[1] >> 4 {
		case 0xC, 0xD: // jle/jnh to the block: at most N
			bound[idx] = n + 1
			return
		case 4, 5: // jl: below N
			bound[idx] = n
			return
		}
	}
}

// s390xTargets reads the bounded table of e: table + entry for each of the
// entries the compare counts, targets outside the function left out. With
// no bound, and nextRef, it reads the open table (s390xOpenTargets).
func s390xTargets(e s390xVal, bound map[uint8]int, start, size uint64, read func(uint64, int) []byte, all []int, nextRef func(uint64) uint64) []uint64 {
	n, ok := bound[e.idx]
	if !ok && nextRef != nil {
		return s390xOpenTargets(e, start, size, read, all, nextRef(e.table))
	}
	if !ok || n <= 0 || n > maxTable {
		return nil
	}
	var out []uint64
	for i := 0; i < n; i++ {
		b := read(e.table+uint64(i)*uint64(e.size), int(e.size))
		if len(b) < int(e.size) {
			return nil
		}
		v := int64(binary.BigEndian.Uint64(append(make([]byte, 8-len(b)), b...)))
		if e.size == 4 {
			v = int64(int32(binary.BigEndian.Uint32(b)))
		}
		t := e.table + uint64(v)
		if t < start || t-start >= size || (t-start)%2 != 0 {
			continue
		}
		out = append(out, t)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// s390xOpenTargets reads the table of e, which no compare bounds, up to
// end (the next address the module's code refers to; 0: none known, then
// nothing is read) or 256 entries: each entry must give an instruction of
// the function (all: its instruction offsets); the first that does not
// ends the table. nil when no entry does.
func s390xOpenTargets(e s390xVal, start, size uint64, read func(uint64, int) []byte, all []int, end uint64) []uint64 {
	if end <= e.table {
		return nil
	}
	limit := min(uint64(256), (end-e.table)/uint64(e.size))
	var out []uint64
	whole := read(e.table, int(limit)*int(e.size)) // one read; entry by entry where the section ends sooner
	for i := uint64(0); i < limit; i++ {
		var b []byte
		if whole != nil {
			b = whole[i*uint64(e.size) : (i+1)*uint64(e.size)]
		} else if b = read(e.table+i*uint64(e.size), int(e.size)); len(b) < int(e.size) {
			break
		}
		v := int64(binary.BigEndian.Uint64(append(make([]byte, 8-len(b)), b...)))
		if e.size == 4 {
			v = int64(int32(binary.BigEndian.Uint32(b)))
		}
		t := e.table + uint64(v)
		if t < start || t-start >= size || !isOffset(all, int(t-start)) {
			break
		}
		out = append(out, t)
	}
	return out
}

// isOffset reports whether o is in the sorted offsets all.
func isOffset(all []int, o int) bool {
	_, ok := slices.BinarySearch(all, o)
	return ok
}
