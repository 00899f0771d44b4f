package arch

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/sfdbg/sfdbg/sframe/rule"
	"golang.org/x/arch/arm64/arm64asm"
)

// ARM64 is the AArch64 Decoder of the code oracle. Instructions are 4 bytes,
// always little-endian (also on big-endian AArch64: Arm ARM B2.6, "Endian
// support", instruction fetches are little-endian).
//
// The stack-relevant forms are decoded from their encodings (Arm ARM C4.1,
// "A64 instruction set encoding"):
//   - stp/ldp (and their SIMD&FP D-register forms) with pre- or
//     post-index writeback or an offset: `stp x29, x30, [sp, #-32]!` is
//     OpAddSP -32, OpSave x29 [sp+0], OpSave x30 [sp+8];
//   - str/ldr (immediate: unsigned offset, pre/post index, unscaled) of
//     x19-x30 and d8-d15: OpSave/OpRestore against the base register (the
//     walk follows sp, x29 and their copies); a narrower load clobbers;
//   - mov xD, xM (orr xD, xzr, xM) with either register followed: OpSetReg
//     (mov x15, x30 keeps the RA in x15: glibc's rawmemchr);
//   - add/sub (immediate) writing sp or a callee-saved register: `sub sp,
//     sp, #k` is OpAddSP -k, `mov x29, sp` (add x29, sp, #0) and `add x29,
//     sp, #k` are OpSetReg, `mov sp, x29` and `sub sp, x29, #k` OpSetReg of
//     sp; `sub sp, sp, xN` (extended register) is OpSubSPReg, `add sp,
//     sp, xN` OpAddSPReg;
//   - movz, movn and movk set Inst.Const (a large frame's size);
//   - b, bl, blr, br, ret, b.cond, cbz/cbnz, tbz/tbnz, brk, hlt, udf and
//     the pointer-authenticating forms (retaa, braa, blraa, ...);
//   - the pointer-authentication hints paciasp, pacibsp, autiasp, autibsp
//     (and their -z forms): Class Other with no stack operation; Why says
//     that x30 is signed or authenticated (WhyPAuthSign, WhyPAuthAuth).
//
// Every other instruction is decoded with golang.org/x/arch's arm64asm: its
// first operand is the destination unless the mnemonic is a store, a
// compare or a system instruction; a destination is OpClobber, as is a
// base register written back. Every register write is reported, not only
// those of sp, x19-x30 and d8-d15: the walk also follows copies. A bl or blr
// clobbers x30 (the link register). An encoding arm64asm does not know is
// Class Unknown.
//
// Registers are DWARF numbers ("DWARF for the Arm 64-bit Architecture"
// §4.1): x0-x30 0-30, sp 31, v0-v31 (d0-d31) 64-95.
type ARM64 struct{}

// arm64V0 is the DWARF number of v0 (d0); arm64FP, arm64LR and arm64SP
// are arm64.go's.
const arm64V0 rule.Reg = 64

// Why strings of the AArch64 pointer-authentication instructions (Class
// Other, or Return for retaa/retab): the walk may read them to mark the RA
// as mangled (rule.Row.MangledRA) and its key.
const (
	WhyPAuthSignA = "pauth: x30 signed with key A"
	WhyPAuthSignB = "pauth: x30 signed with key B"
	WhyPAuthAuthA = "pauth: x30 authenticated with key A"
	WhyPAuthAuthB = "pauth: x30 authenticated with key B"
)

// arm64Tracked reports whether the decoder reports writes of DWARF register
// r: x0-x30, sp and v0-v31. The walk follows sp, x19-x30 and d8-d15, and
// also copies of them in other registers (mov x15, x30; mov x16, sp), so
// it must learn when any register is written.
func arm64Tracked(r rule.Reg) bool {
	return (r >= 0 && r <= 31) || (r >= arm64V0 && r <= arm64V0+31)
}

func (i *Inst) reset(n int) {
	i.Len = n
	i.Class = Other
	i.Target = 0
	i.NOps = 0
	i.Why = ""
	i.Syscall = false
	i.Const = false
	i.RetOther, i.RetJump = false, false
	i.CmpSP, i.Cond = false, CondOther
}

// clobber appends OpClobber of r when the oracle follows r.
func (i *Inst) clobberIf(r rule.Reg, tracked func(rule.Reg) bool) {
	if tracked(r) {
		i.Add(StackOp{Kind: OpClobber, Reg: r})
	}
}

func sext(v uint32, bits uint) int64 {
	return int64(int32(v<<(32-bits)) >> (32 - bits))
}

// Decode decodes the AArch64 instruction at code[0] (address pc). It
// returns an error only when code holds fewer than 4 bytes; an encoding
// that is not an instruction arm64asm knows is Class Unknown.
func (ARM64) Decode(code []byte, pc uint64, inst *Inst) error {
	if len(code) < 4 {
		return fmt.Errorf("aarch64: truncated instruction at %#x: %d of 4 bytes", pc, len(code))
	}
	w := binary.LittleEndian.Uint32(code)
	inst.reset(4)
	if arm64Branch(w, pc, inst) || arm64LoadStore(w, inst) || arm64AddSub(w, inst) {
		return nil
	}
	if (w>>26)&7 == 4 || (w>>25)&7 == 5 {
		// The rest of data processing (immediate: move wide, adr/adrp,
		// bitfield, extract, add/sub with tags; register: logical, data
		// processing with 1, 2 or 3 sources, conditional select and
		// compare, flag manipulation) writes Rd, bits 4:0, where 31 is
		// xzr (a conditional compare's nzcv is at most 15). The tagged
		// add/sub (addg, subg) alone reads 31 as sp.
		rd := rule.Reg(w & 31)
		if w&0x1F800000 == 0x12800000 && (w>>29)&3 != 1 && rd != 31 {
			// Move wide (Arm ARM C6.2: movn, movz, movk): imm16 at
			// hw*16; a W destination is zero-extended.
			shift := 16 * ((w >> 21) & 3)
			v := uint64((w>>5)&0xFFFF) << shift
			width := ^uint64(0)
			if w>>31 == 0 {
				width = 0xFFFFFFFF
			}
			switch (w >> 29) & 3 {
			case 0: // movn
				inst.SetConst(rd, int64(^v&width), 0)
			case 2: // movz
				inst.SetConst(rd, int64(v), 0)
			case 3: // movk
				inst.SetConst(rd, int64(v), width&^(0xFFFF<<shift))
			}
			inst.clobberIf(rd, arm64Tracked)
			return nil
		}
		if w&0x9F000000 == 0x10000000 && rd != 31 {
			// adr (Arm ARM C6.2.10): PC + immhi:immlo, 21 bits signed.
			imm := sext(((w>>5)&0x7FFFF)<<2|(w>>29)&3, 21)
			inst.SetAddress(rd, pc+uint64(imm))
			inst.clobberIf(rd, arm64Tracked)
			return nil
		}
		if w&0xFFE0FFE0 == 0xAA0003E0 && rd != 31 { // mov xD, xM (orr xD, xzr, xM)
			if rm := rule.Reg((w >> 16) & 31); rm != 31 && (arm64Tracked(rd) || arm64Tracked(rm)) {
				inst.Add(StackOp{Kind: OpSetReg, Reg: rd, Base: rm})
				return nil
			}
		}
		if rd == 31 && w&0x1F800000 == 0x11800000 {
			rd = arm64SP
		}
		if rd != 31 || w&0x1F800000 == 0x11800000 {
			inst.clobberIf(rd, arm64Tracked)
		}
		return nil
	}
	arm64Generic(w, code, inst)
	return nil
}

// arm64Branch decodes the branch, exception and hint encodings.
func arm64Branch(w uint32, pc uint64, inst *Inst) bool {
	switch {
	case w&0xFFFFF01F == 0xD503201F: // hint #imm (nop, bti, pac*, aut*)
		switch (w >> 5) & 0x7F {
		case 24, 25: // paciaz, paciasp
			inst.Why = WhyPAuthSignA
		case 26, 27: // pacibz, pacibsp
			inst.Why = WhyPAuthSignB
		case 28, 29: // autiaz, autiasp
			inst.Why = WhyPAuthAuthA
		case 30, 31: // autibz, autibsp
			inst.Why = WhyPAuthAuthB
		}
		return true
	case w&0x7C000000 == 0x14000000: // b, bl
		inst.Target = pc + uint64(sext(w&0x3FFFFFF, 26)*4)
		if w>>31 == 0 {
			inst.Class = Jump
		} else {
			inst.Class = Call
			inst.Add(StackOp{Kind: OpClobber, Reg: arm64LR})
		}
		return true
	case w&0xFF000000 == 0x54000000: // b.cond, bc.cond
		inst.Target = pc + uint64(sext((w>>5)&0x7FFFF, 19)*4)
		if w&0xE == 0xE { // al, nv: always
			inst.Class = Jump
		} else {
			inst.Class = CondJump
		}
		return true
	case w&0x7E000000 == 0x34000000: // cbz, cbnz
		inst.Target = pc + uint64(sext((w>>5)&0x7FFFF, 19)*4)
		inst.Class = CondJump
		return true
	case w&0x7E000000 == 0x36000000: // tbz, tbnz
		inst.Target = pc + uint64(sext((w>>5)&0x3FFF, 14)*4)
		inst.Class = CondJump
		return true
	case w&0xFE000000 == 0xD6000000: // unconditional branch (register)
		opc := (w >> 21) & 0xF
		rn := (w >> 5) & 31
		switch opc {
		case 0, 8: // br, braaz/brabz; braa/brab
			if (w>>16)&0x1F != 0x1F {
				return false
			}
			inst.Class = JumpIndirect
			inst.Why = "br x" + strconv.Itoa(int(rn))
		case 1, 9: // blr, blraaz/blrabz; blraa/blrab
			if (w>>16)&0x1F != 0x1F {
				return false
			}
			inst.Class = CallIndirect
			inst.Add(StackOp{Kind: OpClobber, Reg: arm64LR})
		case 2: // ret, retaa, retab
			if (w>>16)&0x1F != 0x1F {
				return false
			}
			inst.Class = Return
			switch (w >> 10) & 0x3F {
			case 0:
				if rn != 30 {
					inst.Why = "ret x" + strconv.Itoa(int(rn))
					inst.RetOther, inst.RetReg = true, rule.Reg(rn)
				}
			case 2:
				inst.Why = WhyPAuthAuthA
			case 3:
				inst.Why = WhyPAuthAuthB
			default:
				return false
			}
		case 4, 5: // eret, drps
			inst.Class = Unknown
			inst.Why = "exception return"
		default:
			return false
		}
		return true
	case w&0xFFE0001F == 0xD4000001: // svc: the kernel returns in x0
		inst.Syscall = true
		inst.Add(StackOp{Kind: OpClobber, Reg: 0})
		return true
	case w&0xFFE0001F == 0xD4200000: // brk
		inst.Class = Stop
		return true
	case w&0xFFE0001F == 0xD4400000: // hlt
		inst.Class = Stop
		return true
	case w&0xFFFF0000 == 0: // udf
		inst.Class = Stop
		return true
	}
	return false
}

// arm64Reg is the DWARF number of register field n of a load or store's
// transfer register (v: a SIMD&FP register); 31 is xzr, untracked.
func arm64Reg(n uint32, v bool) (rule.Reg, bool) {
	if v {
		return arm64V0 + rule.Reg(n), true
	}
	if n == 31 {
		return 0, false
	}
	return rule.Reg(n), true
}

// arm64LoadStore decodes load/store pair and load/store register
// (immediate, register offset, literal, exclusive, atomic).
func arm64LoadStore(w uint32, inst *Inst) bool {
	switch {
	case w&0x3A000000 == 0x28000000:
		// load/store pair: no-allocate offset (idx 0), post (1), offset
		// (2), pre (3).
		opc := w >> 30
		v := (w>>26)&1 == 1
		idx := (w >> 23) & 3
		load := (w>>22)&1 == 1
		var scale int64
		full := false // the transfer registers are whole tracked values
		switch {
		case !v && opc == 0:
			scale = 4
		case !v && opc == 2:
			scale, full = 8, true
		case !v && opc == 1 && load: // ldpsw
			scale = 4
		case !v && opc == 1: // stgp (MTE): stores tags and two registers
			scale = 16
		case v && opc == 0:
			scale = 4
		case v && opc == 1:
			scale, full = 8, true
		case v && opc == 2:
			scale = 16
		default:
			return false
		}
		off := sext((w>>15)&0x7F, 7) * scale
		rn := (w >> 5) & 31
		rt1, ok1 := arm64Reg(w&31, v)
		rt2, ok2 := arm64Reg((w>>10)&31, v)
		if !v && opc == 1 && !load {
			scale = 8 // stgp: the two registers at [a], [a+8]
		}
		arm64Transfer(inst, load, full, rn, idx, off, []rule.Reg{rt1, rt2}, []bool{ok1, ok2}, scale)
		return true
	case w&0x3B000000 == 0x39000000, w&0x3B200000 == 0x38000000:
		// load/store register: unsigned offset; unscaled, post, pre,
		// unprivileged.
		size := w >> 30
		v := (w>>26)&1 == 1
		opc := (w >> 22) & 3
		unsigned := w&0x3B000000 == 0x39000000
		var scale uint32
		if v {
			scale = size | (opc>>1)<<2
			if scale > 4 {
				return false
			}
		} else {
			scale = size
		}
		var off int64
		idx := uint32(2) // offset
		if unsigned {
			off = int64((w>>10)&0xFFF) << scale
		} else {
			off = sext((w>>12)&0x1FF, 9)
			switch (w >> 10) & 3 {
			case 0, 2: // unscaled, unprivileged: offset
			case 1:
				idx = 1
			case 3:
				idx = 3
			}
		}
		var load, full bool
		if v {
			load = opc&1 == 1
			full = scale == 3
		} else {
			switch opc {
			case 0:
				full = size == 3
			case 1:
				load = true
				full = size == 3
			default:
				if size == 3 && opc == 2 { // prfm, prfum: no register written
					if idx != 2 {
						return false
					}
					return true
				}
				load = true // ldrs*: sign-extending loads
			}
		}
		rn := (w >> 5) & 31
		rt, ok := arm64Reg(w&31, v)
		arm64Transfer(inst, load, full, rn, idx, off, []rule.Reg{rt}, []bool{ok}, 0)
		return true
	case w&0x3B200C00 == 0x38200800: // load/store register (register offset)
		v := (w>>26)&1 == 1
		opc := (w >> 22) & 3
		load := opc != 0
		if v {
			load = opc&1 == 1
		} else if w>>30 == 3 && opc == 2 { // prfm (register)
			return true
		}
		if rt, ok := arm64Reg(w&31, v); ok && load {
			inst.clobberIf(rt, arm64Tracked)
		}
		return true
	case w&0x3B200C00 == 0x38200000 && (w>>26)&1 == 0: // atomic memory operations
		if rt, ok := arm64Reg(w&31, false); ok {
			inst.clobberIf(rt, arm64Tracked)
		}
		return true
	case w&0x3B000000 == 0x18000000: // load register (literal)
		v := (w>>26)&1 == 1
		if !v && w>>30 == 3 { // prfm (literal)
			return true
		}
		if rt, ok := arm64Reg(w&31, v); ok {
			inst.clobberIf(rt, arm64Tracked)
		}
		return true
	case w&0x3F000000 == 0x08000000: // load/store exclusive, ordered, cas
		// Conservatively, every register field that may be written: Rs
		// (status or compare value), Rt and Rt2.
		for _, f := range [...]uint32{(w >> 16) & 31, w & 31, (w >> 10) & 31} {
			if r, ok := arm64Reg(f, false); ok {
				inst.clobberIf(r, arm64Tracked)
			}
		}
		return true
	}
	return false
}

// arm64Transfer emits the operations of a load or store of regs at base rn
// with addressing idx (1 post-index, 2 offset, 3 pre-index; 0 is an offset
// too) and immediate off; regs[k] is at address+k*step.
func arm64Transfer(inst *Inst, load, full bool, rn, idx uint32, off int64, regs []rule.Reg, ok []bool, step int64) {
	base := rule.Reg(rn) // 31 is sp in the base field
	at := off            // offset of the first register from base, after writeback
	if idx == 1 || idx == 3 {
		at = 0
	}
	// Any base: the walk follows sp, x29 and their copies, and takes a
	// load from a base it does not know for a clobber.
	const stack = true
	if idx == 3 {
		arm64Writeback(inst, base, off)
	}
	if stack && full {
		kind := OpSave
		if load {
			kind = OpRestore
		}
		for k, r := range regs {
			if ok[k] && arm64Tracked(r) && r != base {
				inst.Add(StackOp{Kind: kind, Reg: r, Base: base, Imm: at + int64(k)*step})
			}
		}
	} else if load {
		for k, r := range regs {
			if ok[k] && r != base {
				inst.clobberIf(r, arm64Tracked)
			}
		}
	}
	if idx == 1 {
		arm64Writeback(inst, base, off)
	}
	// A load into the base register itself (ldr x29, [x29]) is last.
	if load {
		for k, r := range regs {
			if ok[k] && r == base {
				if stack && full {
					inst.Add(StackOp{Kind: OpRestore, Reg: r, Base: base, Imm: at + int64(k)*step})
				} else {
					inst.clobberIf(r, arm64Tracked)
				}
			}
		}
	}
}

// arm64Writeback emits base += off.
func arm64Writeback(inst *Inst, base rule.Reg, off int64) {
	switch {
	case base == arm64SP:
		inst.Add(StackOp{Kind: OpAddSP, Imm: off})
	case arm64Tracked(base):
		inst.Add(StackOp{Kind: OpSetReg, Reg: base, Base: base, Imm: off})
	}
}

// arm64AddSub decodes add/sub (immediate), add/sub (extended register),
// add/sub (shifted register) and logical (immediate), the forms that can
// write sp or move it into x29.
func arm64AddSub(w uint32, inst *Inst) bool {
	sf := w>>31 == 1
	sub := (w>>30)&1 == 1
	setFlags := (w>>29)&1 == 1
	rn := rule.Reg((w >> 5) & 31)
	rd := rule.Reg(w & 31)
	switch {
	case w&0x1F800000 == 0x11000000: // add/sub (immediate)
		imm := int64((w >> 10) & 0xFFF)
		if (w>>22)&1 == 1 {
			imm <<= 12
		}
		if sub {
			imm = -imm
		}
		if setFlags && rd == 31 { // cmp, cmn
			return true
		}
		if !sf {
			inst.clobberIf(rd, arm64Tracked) // a W register (wsp as 31)
			return true
		}
		switch {
		case rd == arm64SP && rn == arm64SP:
			inst.Add(StackOp{Kind: OpAddSP, Imm: imm})
		case arm64Tracked(rd):
			inst.Add(StackOp{Kind: OpSetReg, Reg: rd, Base: rn, Imm: imm})
		}
		return true
	case w&0x1FE00000 == 0x0B200000: // add/sub (extended register)
		rm := rule.Reg((w >> 16) & 31)
		if setFlags && rd == 31 {
			return true
		}
		option := (w >> 13) & 7
		shift := (w >> 10) & 7
		if sf && !setFlags && rd == arm64SP && rn == arm64SP && (option == 3 || option == 7) && shift == 0 && rm != 31 {
			if sub {
				inst.Add(StackOp{Kind: OpSubSPReg, Reg: rm})
			} else {
				inst.Add(StackOp{Kind: OpAddSPReg, Reg: rm})
			}
			return true
		}
		inst.clobberIf(rd, arm64Tracked)
		return true
	case w&0x1F200000 == 0x0B000000: // add/sub (shifted register): 31 is xzr
		if rd != 31 {
			inst.clobberIf(rd, arm64Tracked)
		}
		return true
	case w&0x1F800000 == 0x12000000: // logical (immediate): 31 is sp unless ands
		if (w>>29)&3 == 3 && rd == 31 { // tst
			return true
		}
		inst.clobberIf(rd, arm64Tracked)
		return true
	}
	return false
}

// arm64NoDest lists arm64asm mnemonics whose first operand is not written,
// built on first use: naming arm64asm's 4096 op codes costs most of a
// millisecond, which every sfdbg command would pay at start-up (a one-shot
// bt takes a few).
var arm64NoDest = sync.OnceValue(func() map[arm64asm.Op]bool {
	noDest := map[arm64asm.Op]bool{}
	names := map[string]bool{}
	for _, name := range strings.Fields(`CMP CMN TST CCMP CCMN FCMP FCMPE FCCMP FCCMPE
		MSR SYS DC IC AT TLBI DMB DSB ISB SB CLREX NOP YIELD WFE WFI SEV SEVL HINT
		PRFM PRFUM SVC HVC SMC BRK HLT DCPS1 DCPS2 DCPS3 CFINV AXFLAG XAFLAG SETF8
		SETF16 RMIF ESB PSB CSDB BTI TSB`) {
		names[name] = true
	}
	// arm64asm's Op values are dense from 1 (its tables.go); 4096 covers them.
	for op := arm64asm.Op(1); op < 4096; op++ {
		if names[op.String()] {
			noDest[op] = true
		}
	}
	return noDest
})

// arm64Generic decodes the rest with arm64asm: the first operand is the
// destination (two for loads of pairs), unless the mnemonic is a store or
// has no destination; a written-back base is written too.
func arm64Generic(w uint32, code []byte, inst *Inst) {
	d, err := arm64asm.Decode(code[:4])
	if err != nil {
		inst.Class = Unknown
		inst.Why = fmt.Sprintf("unknown instruction %#08x", w)
		return
	}
	name := d.Op.String()
	store := strings.HasPrefix(name, "ST")
	if !store && !arm64NoDest()[d.Op] {
		n := 1
		if strings.HasPrefix(name, "LD") && strings.Contains(name, "P") {
			n = 2 // ldp-like: two destinations
		}
		for k := 0; k < n && k < len(d.Args); k++ {
			if r, ok := arm64asmReg(d.Args[k]); ok {
				inst.clobberIf(r, arm64Tracked)
			}
		}
	}
	for _, a := range d.Args {
		if m, ok := a.(arm64asm.MemImmediate); ok && m.Mode != arm64asm.AddrOffset {
			if r, ok := arm64asmReg(m.Base); ok {
				inst.clobberIf(r, arm64Tracked)
			}
		}
	}
}

// arm64asmReg maps an arm64asm register operand to its DWARF number.
func arm64asmReg(a arm64asm.Arg) (rule.Reg, bool) {
	switch r := a.(type) {
	case arm64asm.RegSP:
		switch x := arm64asm.Reg(r); {
		case x == arm64asm.SP || x == arm64asm.WSP:
			return arm64SP, true
		case x >= arm64asm.W0 && x < arm64asm.WZR:
			return rule.Reg(x - arm64asm.W0), true
		case x >= arm64asm.X0 && x < arm64asm.XZR:
			return rule.Reg(x - arm64asm.X0), true
		}
	case arm64asm.Reg:
		switch {
		case r >= arm64asm.W0 && r < arm64asm.WZR:
			return rule.Reg(r - arm64asm.W0), true
		case r >= arm64asm.X0 && r < arm64asm.XZR:
			return rule.Reg(r - arm64asm.X0), true
		case r >= arm64asm.B0 && r <= arm64asm.B31:
			return arm64V0 + rule.Reg(r-arm64asm.B0), true
		case r >= arm64asm.H0 && r <= arm64asm.H31:
			return arm64V0 + rule.Reg(r-arm64asm.H0), true
		case r >= arm64asm.S0 && r <= arm64asm.S31:
			return arm64V0 + rule.Reg(r-arm64asm.S0), true
		case r >= arm64asm.D0 && r <= arm64asm.D31:
			return arm64V0 + rule.Reg(r-arm64asm.D0), true
		case r >= arm64asm.Q0 && r <= arm64asm.Q31:
			return arm64V0 + rule.Reg(r-arm64asm.Q0), true
		case r >= arm64asm.V0 && r <= arm64asm.V31:
			return arm64V0 + rule.Reg(r-arm64asm.V0), true
		}
	}
	return 0, false
}

// Text formats the instruction at code[0] (address pc) in GNU syntax, as
// objdump -d does but without symbols: "stp x29, x30, [sp, #-32]!",
// "bl 40010c", "paciasp"; ".inst 0x........" for an encoding arm64asm does
// not know.
func (ARM64) Text(code []byte, pc uint64) string {
	if len(code) < 4 {
		return "(bad)"
	}
	w := binary.LittleEndian.Uint32(code)
	if w&0xFFFFF01F == 0xD503201F {
		switch (w >> 5) & 0x7F {
		case 24:
			return "paciaz"
		case 25:
			return "paciasp"
		case 26:
			return "pacibz"
		case 27:
			return "pacibsp"
		case 28:
			return "autiaz"
		case 29:
			return "autiasp"
		case 30:
			return "autibz"
		case 31:
			return "autibsp"
		case 7:
			return "xpaclri"
		case 32:
			return "bti"
		case 34:
			return "bti c"
		case 36:
			return "bti j"
		case 38:
			return "bti jc"
		}
	}
	if w&0xFFFF0000 == 0 {
		return "udf #" + strconv.Itoa(int(w))
	}
	switch w {
	case 0xD65F0BFF:
		return "retaa"
	case 0xD65F0FFF:
		return "retab"
	}
	d, err := arm64asm.Decode(code[:4])
	if err != nil {
		return fmt.Sprintf(".inst 0x%08x", w)
	}
	s, ok := arm64GNU(d)
	if !ok {
		return fmt.Sprintf(".inst 0x%08x", w)
	}
	for _, a := range d.Args {
		if p, ok := a.(arm64asm.PCRel); ok {
			s = strings.Replace(s, p.String(), strconv.FormatUint(pc+uint64(p), 16), 1)
		}
	}
	// objdump puts a space after each comma inside brackets: [sp, #16].
	if i := strings.IndexByte(s, '['); i >= 0 {
		s = s[:i] + strings.ReplaceAll(strings.ReplaceAll(s[i:], ", ", ","), ",", ", ")
	}
	return s
}

// arm64GNU is arm64asm.GNUSyntax, with a panic of the library on an
// encoding it mishandles (as s390xasm has, s390xGNU) turned into ok false.
func arm64GNU(d arm64asm.Inst) (s string, ok bool) {
	defer func() {
		if recover() != nil {
			s, ok = "", false
		}
	}()
	return strings.TrimSpace(arm64asm.GNUSyntax(d)), true
}
