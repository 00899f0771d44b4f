package arch

import (
	"errors"

	"github.com/sfdbg/sfdbg/sframe/rule"
	"golang.org/x/arch/x86/x86asm"
)

// X86 is the x86-64 Decoder: instruction lengths (Len), GNU objdump -d
// text (Text, Format) and the code oracle's stack operations (Decode).
//
// Decode follows objtool (tools/objtool/arch/x86/decode.c) for the forms
// it models and is stricter everywhere else: an instruction has no stack
// operation only when its encoding proves that it writes no general
// register. Every register write is reported, the implicit ones too (mul
// and div write rax and rdx, cqo rdx, cpuid rax-rdx, syscall rax, rcx and
// r11, the string instructions rsi, rdi and rcx, ...), because the walk
// follows copies of SP, FP and the caller's registers in any register (as
// objtool's OP_SRC_REG/OP_DEST_REG stack ops do):
//
//	push %reg / pop %reg          OpPush / OpPop, Imm 8
//	push $imm, push mem, pushf    OpAddSP -8 (no register saved)
//	pop mem, popf                 OpAddSP +8
//	sub/add $k,%rsp; lea k(%rsp),%rsp   OpAddSP ∓k
//	and $k,%rsp                   OpAndSP k
//	sub %reg,%rsp                 OpSubSPReg reg
//	mov %a,%b; lea k(%a),%b       OpSetReg b = a + k (any registers)
//	add/sub $k,%reg (not rsp)     OpSetReg reg = reg ± k
//	leave                         OpSetReg rsp = rbp + 0; OpPop rbp
//	enter $k,$0                   OpPush rbp; OpSetReg rbp = rsp; OpAddSP -k
//	mov %reg,k(%base)             OpSave reg at [base + k]
//	mov k(%base),%reg             OpRestore (not rsp)
//	pop %rsp, mov k(%rsp),%rsp    OpClobber rsp
//	any other register write      OpClobber (Why says how, for rsp)
//
// OpSetReg, OpSave and OpRestore need 64-bit operands and a plain
// base+displacement address (no index, segment override or 32-bit
// addressing); anything else that writes a register is a clobber.
// An instruction has at most 4 operations (cpuid).
//
// Classes: call rel32 is Call, call through a register or memory
// CallIndirect; jmp rel8/rel32 Jump; jcc, loop, jrcxz and xbegin (whose
// target is its abort handler) CondJump; jmp through a register or memory
// JumpIndirect (Why "indirect jump"); ret and ret $n Return; ud0, ud1,
// ud2, hlt, int3 and int1 Stop; everything else Other. Targets are
// absolute: pc + length + displacement.
//
// Registers are DWARF numbers (System V psABI AMD64, figure 3.36: rax 0,
// rdx 1, rcx 2, rbx 3, rsi 4, rdi 5, rbp 6, rsp 7, r8-r15 8-15). An
// instruction whose effect is not modelled (a far call, jump or return,
// iret, sysret, sysenter, a 16-bit push or pop, enter with a nesting
// level, an opcode outside the tables) is Class Unknown with Why set.
// Decode allocates nothing.
type X86 struct{}

var _ Decoder = X86{}

// DWARF register numbers of AMD64 (psABI figure 3.36).
const (
	x86RSP rule.Reg = 7
	x86RBP rule.Reg = 6
)

// x86Dwarf maps x86 register numbers (the encoding's, with REX) to DWARF
// numbers.
var x86Dwarf = [16]rule.Reg{0, 2, 1, 3, 7, 6, 4, 5, 8, 9, 10, 11, 12, 13, 14, 15}

// Encoding register numbers.
const (
	xRAX = 0
	xRBX = 3
	xRSP = 4
	xRBP = 5
)

// x86Tracked is the set of registers whose writes Decode reports, by
// encoding number: all sixteen (the walk follows copies in any of them).
const x86Tracked = 0xffff

func tracked(r uint8) bool { return x86Tracked>>r&1 != 0 }

// ErrX86Invalid is returned by Decode for bytes that are no x86-64
// instruction (or are cut short).
var ErrX86Invalid = errors.New("not an x86-64 instruction")

// Decode decodes the instruction at code[0], at address pc, into *inst
// (arch.Decoder). It returns ErrX86Invalid when neither the opcode tables
// nor x86asm delimit an instruction.
func (X86) Decode(code []byte, pc uint64, inst *Inst) error {
	inst.Class, inst.Target, inst.NOps, inst.Why, inst.Syscall = Other, 0, 0, "", false
	var in x86Insn
	if !x86Scan(code, &in) {
		x, err := x86asm.Decode(code, 64)
		if err != nil || x.Len == 0 || x.Op == 0 {
			inst.Len = 0
			return ErrX86Invalid
		}
		inst.Len = x.Len
		inst.Class, inst.Why = Unknown, "opcode outside the decoder's tables"
		return nil
	}
	inst.Len = int(in.n)
	d := x86Dec{in: &in, inst: inst, code: code}
	switch {
	case in.enc != encLegacy:
		d.vector()
	case in.m == 0:
		d.oneByte(pc)
	case in.m == 1:
		d.twoByte(pc)
	default:
		d.threeByte()
	}
	return nil
}

// x86Cond is the condition of the short jcc op (0x70-0x7f): je and jne
// (Intel SDM vol. 2, Jcc); loop and jrcxz are CondOther.
func x86Cond(op uint8) Cond {
	switch op {
	case 0x74:
		return CondEQ
	case 0x75:
		return CondNE
	}
	return CondOther
}

// x86Dec turns the fields of one instruction into inst.
type x86Dec struct {
	in   *x86Insn
	inst *Inst
	code []byte
}

func (d x86Dec) w() bool    { return d.in.rex&8 != 0 }
func (d x86Dec) mod() uint8 { return d.in.modrm >> 6 }

// op16 reports a 16-bit operand size: a 66 prefix that REX.W does not
// override (a 16-bit push or pop moves SP by 2).
func (d x86Dec) op16() bool { return d.in.pfx&pfx66 != 0 && !d.w() }

// regField is the modrm reg field with REX.R.
func (d x86Dec) regField() uint8 { return d.in.modrm>>3&7 | d.in.rex<<1&8 }

// ext is the modrm reg field as an opcode extension (/0-/7).
func (d x86Dec) ext() uint8 { return d.in.modrm >> 3 & 7 }

// rmField is the modrm rm field with REX.B (a register when mod is 3).
func (d x86Dec) rmField() uint8 { return d.in.modrm&7 | d.in.rex<<3&8 }

// opReg is the register in the opcode's low 3 bits with REX.B.
func (d x86Dec) opReg() uint8 { return d.in.op&7 | d.in.rex<<3&8 }

// byteReg maps an 8-bit register operand to the register it writes:
// without REX, 4-7 are ah, ch, dh, bh.
func (d x86Dec) byteReg(r uint8) uint8 {
	if d.in.rex == 0 && r >= 4 && r < 8 {
		return r & 3
	}
	return r
}

func (d x86Dec) op(k OpKind, reg, base rule.Reg, imm int64) {
	d.inst.Add(StackOp{Kind: k, Reg: reg, Base: base, Imm: imm})
}

func (d x86Dec) unknown(why string) { d.inst.Class, d.inst.Why = Unknown, why }

// clobber records a write of register r (encoding number) that the oracle
// does not follow; why says how rsp is written.
func (d x86Dec) clobber(r uint8, why string) {
	if r > 15 {
		return
	}
	if r == xRSP && d.inst.Why == "" {
		d.inst.Why = why
	}
	// No check for a clobber of r already there (an implicit and an
	// explicit write, cpuid's rbx): the walk applies either once.
	d.op(OpClobber, x86Dwarf[r], 0, 0)
}

// target sets a direct branch's class and target (the immediate is the
// displacement from the next instruction).
func (d x86Dec) target(c Class, pc uint64) {
	d.inst.Class = c
	d.inst.Target = pc + uint64(d.in.n) + uint64(d.in.imm(d.code))
}

// memBase returns the base register of a plain base+disp memory operand
// (no index, no RIP, no segment override, 64-bit addressing), or ok false.
func (d x86Dec) memBase() (base uint8, ok bool) {
	in := d.in
	if d.mod() == 3 || in.pfx&(pfx67|pfxSeg) != 0 {
		return 0, false
	}
	rm := in.modrm & 7
	switch {
	case rm == 4: // SIB
		if in.sib>>3&7 != 4 || in.rex&2 != 0 { // an index register
			return 0, false
		}
		if d.mod() == 0 && in.sib&7 == 5 { // disp32, no base
			return 0, false
		}
		return in.sib&7 | in.rex<<3&8, true
	case rm == 5 && d.mod() == 0: // RIP-relative
		return 0, false
	}
	return rm | in.rex<<3&8, true
}

// Write kinds of an opcode in x86OneByteW and x86TwoByteW: which register
// operand the instruction writes, beyond those the decoder handles by
// opcode. An opcode absent from the tables writes no general register
// other than rax, rcx, rdx, rsi, rdi and r11 (which are not tracked).
const (
	wNone    = iota
	wRM          // the rm register (mod 3)
	wReg         // the reg register
	wBoth        // rm (mod 3) and reg: xchg, xadd
	wOpReg       // the register in the opcode's low bits
	wSpecial     // decoded by opcode in oneByte/twoByte
	wUnknown     // not modelled
	wByte    = 8 // flag: an 8-bit operand (ah, ch, dh, bh without REX)
	wKind    = 7 // mask of the kind
)

var x86OneByteW = func() (t [256]uint8) {
	for op := 0; op < 0x40; op++ {
		if op&0xc0 == 0 && op>>3 != 7 { // ALU ops; 38-3D are cmp
			switch op & 7 {
			case 0:
				t[op] = wRM | wByte
			case 1:
				t[op] = wRM
			case 2:
				t[op] = wReg | wByte
			case 3:
				t[op] = wReg
			}
		}
	}
	for _, op := range []int{0x01, 0x03, 0x29, 0x2b, 0x50, 0x51, 0x52, 0x53, 0x54, 0x55, 0x56, 0x57,
		0x58, 0x59, 0x5a, 0x5b, 0x5c, 0x5d, 0x5e, 0x5f, 0x68, 0x6a, 0x70, 0x71, 0x72, 0x73, 0x74,
		0x75, 0x76, 0x77, 0x78, 0x79, 0x7a, 0x7b, 0x7c, 0x7d, 0x7e, 0x7f, 0x80, 0x81, 0x83, 0x89,
		0x8b, 0x8d, 0x8f, 0x90, 0x9c, 0x9d, 0xc2, 0xc3, 0xc6, 0xc7, 0xc8, 0xc9, 0xca, 0xcb, 0xcc,
		0xcd, 0xcf, 0xe0, 0xe1, 0xe2, 0xe3, 0xe8, 0xe9, 0xeb, 0xf1, 0xf4, 0xf6, 0xf7, 0xfe, 0xff} {
		t[op] = wSpecial
	}
	t[0x63], t[0x69], t[0x6b] = wReg, wReg, wReg
	t[0x86], t[0x87] = wBoth|wByte, wBoth
	t[0x88], t[0x8a], t[0x8c] = wRM|wByte, wReg|wByte, wRM
	for op := 0x91; op <= 0x97; op++ {
		t[op] = wOpReg // xchg %rax,%reg
	}
	for op := 0xb0; op <= 0xb7; op++ {
		t[op] = wOpReg | wByte
	}
	for op := 0xb8; op <= 0xbf; op++ {
		t[op] = wOpReg
	}
	t[0xc0], t[0xc1], t[0xd0], t[0xd1], t[0xd2], t[0xd3] = wRM|wByte, wRM, wRM|wByte, wRM, wRM|wByte, wRM
	return t
}()

var x86TwoByteW = func() (t [256]uint8) {
	for _, op := range []int{0x00, 0x01, 0x05, 0x06, 0x07, 0x0b, 0x1e, 0x2c, 0x2d, 0x34, 0x35, 0x78,
		0xa0, 0xa1, 0xa2, 0xa8, 0xa9, 0xaa, 0xae, 0xb8, 0xb9, 0xba, 0xc7, 0xff} {
		t[op] = wSpecial
	}
	for op := 0x80; op <= 0x8f; op++ {
		t[op] = wSpecial // jcc
	}
	for _, op := range []int{0x02, 0x03, 0x50, 0xaf, 0xb2, 0xb4, 0xb5, 0xb6, 0xb7, 0xbc, 0xbd, 0xbe, 0xbf, 0xc5, 0xd7} {
		t[op] = wReg
	}
	for op := 0x40; op <= 0x4f; op++ {
		t[op] = wReg // cmovcc
	}
	for op := 0x90; op <= 0x9f; op++ {
		t[op] = wRM | wByte // setcc
	}
	for _, op := range []int{0x20, 0x21, 0x7e, 0xa4, 0xa5, 0xab, 0xac, 0xad, 0xb1, 0xb3, 0xbb} {
		t[op] = wRM
	}
	t[0xb0] = wRM | wByte
	t[0xc0], t[0xc1] = wBoth|wByte, wBoth
	for op := 0xc8; op <= 0xcf; op++ {
		t[op] = wOpReg // bswap
	}
	// Opcodes the length table accepts that are no instruction in 64-bit
	// mode, or that the decoder does not model.
	// getsec (0F 37) writes rbx for some leaves.
	for _, op := range []int{0x04, 0x0a, 0x0c, 0x24, 0x25, 0x26, 0x27, 0x36, 0x37, 0x39, 0x3b, 0x3c,
		0x3d, 0x3e, 0x3f, 0x7a, 0x7b, 0xa6, 0xa7} {
		t[op] = wUnknown
	}
	return t
}()

// generic applies a write-kind table entry.
func (d x86Dec) generic(kind uint8) {
	r := uint8(0xff)
	switch kind & wKind {
	case wNone:
		return
	case wRM:
		if d.mod() == 3 {
			r = d.rmField()
		}
	case wReg:
		r = d.regField()
	case wBoth:
		if d.mod() == 3 {
			d.write(d.rmField(), kind)
		}
		r = d.regField()
	case wOpReg:
		r = d.opReg()
	default:
		d.unknown("opcode not modelled")
		return
	}
	if r != 0xff {
		d.write(r, kind)
	}
}

// write records a write of register r by an instruction of write kind
// kind (for its operand size).
func (d x86Dec) write(r uint8, kind uint8) {
	if kind&wByte != 0 {
		r = d.byteReg(r)
	}
	d.clobber(r, "writes rsp")
}

// Encoding-number masks of implicit register writes.
const (
	mRAX = 1 << 0
	mRCX = 1 << 1
	mRDX = 1 << 2
	mRBX = 1 << 3
	mRSI = 1 << 6
	mRDI = 1 << 7
	mR11 = 1 << 11
)

// x86OneByteImplicit gives the registers a one-byte opcode writes
// implicitly, besides its operands (Intel SDM vol. 2 per instruction): the
// ALU forms on al/eax/rax with an immediate, cbw/cwde/cdqe, cwd/cdq/cqo,
// lahf, mov from moffs, the string instructions (rcx in case of a rep
// prefix, counted always), xlat, in, loop, xchg with rax and int.
var x86OneByteImplicit = func() (t [256]uint16) {
	for op := 0x04; op < 0x38; op += 8 {
		t[op], t[op+1] = mRAX, mRAX // add, or, adc, sbb, and, sub, xor al/eax, imm
	}
	t[0x98], t[0x99], t[0x9f], t[0xa0], t[0xa1] = mRAX, mRDX, mRAX, mRAX, mRAX
	t[0x6c], t[0x6d], t[0x6e], t[0x6f] = mRDI|mRCX, mRDI|mRCX, mRSI|mRCX, mRSI|mRCX // ins, outs
	t[0xa4], t[0xa5], t[0xa6], t[0xa7] = mRSI|mRDI|mRCX, mRSI|mRDI|mRCX, mRSI|mRDI|mRCX, mRSI|mRDI|mRCX
	t[0xaa], t[0xab], t[0xae], t[0xaf] = mRDI|mRCX, mRDI|mRCX, mRDI|mRCX, mRDI|mRCX // stos, scas
	t[0xac], t[0xad] = mRAX|mRSI|mRCX, mRAX|mRSI|mRCX                               // lods
	t[0xd7], t[0xe4], t[0xe5], t[0xec], t[0xed] = mRAX, mRAX, mRAX, mRAX, mRAX
	t[0xe0], t[0xe1], t[0xe2] = mRCX, mRCX, mRCX // loop
	for op := 0x91; op <= 0x97; op++ {
		t[op] = mRAX // xchg %reg,%rax
	}
	t[0xcd] = mRAX | mRCX | mR11 // int $n: a system call at least
	return t
}()

// implicit clobbers the registers of mask m (encoding numbers).
func (d x86Dec) implicit(m uint16) {
	for r := uint8(0); m != 0; r, m = r+1, m>>1 {
		if m&1 != 0 {
			d.clobber(r, "writes rsp implicitly")
		}
	}
}

func (d x86Dec) oneByte(pc uint64) {
	in := d.in
	op := in.op
	if m := x86OneByteImplicit[op]; m != 0 {
		d.implicit(m)
	}
	if op == 0xdf && in.modrm == 0xe0 { // fnstsw %ax
		d.implicit(mRAX)
	}
	if (op == 0x39 || op == 0x3b) && d.mod() == 3 && d.w() {
		// cmp between two 64-bit registers: one of them rsp?
		switch a, b := d.rmField(), d.regField(); {
		case a == xRSP && b != xRSP:
			d.inst.CmpSP, d.inst.CmpReg = true, x86Dwarf[b]
		case b == xRSP && a != xRSP:
			d.inst.CmpSP, d.inst.CmpReg = true, x86Dwarf[a]
		}
	}
	kind := x86OneByteW[op]
	if kind != wSpecial {
		d.generic(kind)
		if op >= 0xb8 && op <= 0xbf && !d.op16() {
			// mov $imm32,%r32 (zero-extended) or movabs $imm64,%r64.
			v := in.imm(d.code)
			if !d.w() {
				v &= 0xffffffff
			}
			d.inst.SetConst(x86Dwarf[d.opReg()], v, 0)
		}
		return
	}
	switch {
	case op >= 0x50 && op <= 0x57: // push %reg
		if d.op16() {
			d.unknown("16-bit push")
			return
		}
		d.op(OpPush, x86Dwarf[d.opReg()], 0, 8)
	case op >= 0x58 && op <= 0x5f: // pop %reg
		d.pop(d.opReg())
	case op == 0x68 || op == 0x6a || op == 0x9c: // push $imm, pushf
		d.pushNoReg()
	case op == 0x9d: // popf
		d.popNoReg()
	case op >= 0x70 && op <= 0x7f, op >= 0xe0 && op <= 0xe3: // jcc, loop, jrcxz
		d.target(CondJump, pc)
		d.inst.Cond = x86Cond(op)
	case op == 0xe8:
		d.target(Call, pc)
	case op == 0xe9 || op == 0xeb:
		d.target(Jump, pc)
	case op == 0xc2 || op == 0xc3:
		d.inst.Class = Return
	case op == 0xca || op == 0xcb:
		d.unknown("far return")
	case op == 0xcf:
		d.unknown("interrupt return")
	case op == 0xcc || op == 0xf1 || op == 0xf4: // int3, int1, hlt
		d.inst.Class = Stop
	case op == 0xcd: // int $n
	case op == 0x90:
		if in.rex&1 != 0 { // xchg %eax,%r8d
			d.write(d.opReg(), 0)
			d.write(xRAX, 0)
		}
	case op == 0xc8: // enter
		if d.op16() || in.immByte2(d.code) != 0 {
			d.unknown("enter with a nesting level or 16-bit frame")
			return
		}
		d.op(OpPush, x86RBP, 0, 8)
		d.op(OpSetReg, x86RBP, x86RSP, 0)
		d.op(OpAddSP, 0, 0, -int64(uint16(in.imm(d.code))))
	case op == 0xc9: // leave
		if d.op16() {
			d.unknown("16-bit leave")
			return
		}
		d.op(OpSetReg, x86RSP, x86RBP, 0)
		d.op(OpPop, x86RBP, 0, 8)
	case op == 0x80 || op == 0x81 || op == 0x83:
		d.group1()
	case op == 0x01 || op == 0x03 || op == 0x29 || op == 0x2b:
		d.addSubReg()
	case op == 0x89 || op == 0x8b:
		d.mov()
	case op == 0x8d:
		d.lea()
	case op == 0x8f: // pop Ev
		if d.ext() != 0 {
			d.unknown("opcode not modelled")
			return
		}
		if d.mod() == 3 {
			d.pop(d.rmField())
			return
		}
		d.popNoReg()
	case op == 0xc6 || op == 0xc7: // mov Eb/Ev, imm; xabort; xbegin
		switch {
		case in.modrm == 0xf8 && op == 0xc7:
			d.target(CondJump, pc) // xbegin: on abort, to its target
		case in.modrm == 0xf8: // xabort
		case d.ext() == 0:
			if op == 0xc6 {
				d.generic(wRM | wByte)
			} else {
				d.generic(wRM)
				if d.mod() == 3 && !d.op16() {
					// mov $imm32,%r64 (sign-extended) or %r32 (zero-extended).
					v := in.imm(d.code)
					if !d.w() {
						v &= 0xffffffff
					}
					d.inst.SetConst(x86Dwarf[d.rmField()], v, 0)
				}
			}
		default:
			d.unknown("opcode not modelled")
		}
	case op == 0xf6 || op == 0xf7: // group 3
		switch d.ext() {
		case 2, 3: // not, neg
			if op == 0xf6 {
				d.generic(wRM | wByte)
			} else {
				d.generic(wRM)
			}
		case 4, 5, 6, 7: // mul, imul, div, idiv: ax, or rdx:rax
			if op == 0xf6 {
				d.implicit(mRAX)
			} else {
				d.implicit(mRAX | mRDX)
			}
		}
		// test writes no register.
	case op == 0xfe: // inc, dec Eb
		if d.ext() > 1 {
			d.unknown("opcode not modelled")
			return
		}
		d.generic(wRM | wByte)
	case op == 0xff:
		d.group5()
	}
}

// pushNoReg is a push that saves no register: SP -= 8.
func (d x86Dec) pushNoReg() {
	if d.op16() {
		d.unknown("16-bit push")
		return
	}
	d.op(OpAddSP, 0, 0, -8)
}

// popNoReg is a pop to memory or the flags: SP += 8.
func (d x86Dec) popNoReg() {
	if d.op16() {
		d.unknown("16-bit pop")
		return
	}
	d.op(OpAddSP, 0, 0, 8)
}

// pop is pop %r.
func (d x86Dec) pop(r uint8) {
	switch {
	case d.op16():
		d.unknown("16-bit pop")
	case r == xRSP:
		d.clobber(r, "loads rsp from memory (pop %rsp)")
	default:
		d.op(OpPop, x86Dwarf[r], 0, 8)
	}
}

// group1 is 80, 81, 83: add, or, adc, sbb, and, sub, xor, cmp with an
// immediate.
func (d x86Dec) group1() {
	ext := d.ext()
	if ext == 7 { // cmp
		return
	}
	if d.mod() != 3 {
		return // memory
	}
	r := d.rmField()
	if d.in.op == 0x80 {
		d.write(r, wByte)
		return
	}
	if r != xRSP {
		if d.w() && (ext == 0 || ext == 5) { // add, sub $k,%reg
			k := d.in.imm(d.code)
			if ext == 5 {
				k = -k
			}
			d.op(OpSetReg, x86Dwarf[r], x86Dwarf[r], k)
			return
		}
		d.write(r, 0)
		return
	}
	if !d.w() {
		d.clobber(r, "32- or 16-bit arithmetic on esp")
		return
	}
	switch ext {
	case 0: // add
		d.op(OpAddSP, 0, 0, d.in.imm(d.code))
	case 5: // sub
		d.op(OpAddSP, 0, 0, -d.in.imm(d.code))
	case 4: // and
		d.op(OpAndSP, 0, 0, d.in.imm(d.code))
	default:
		d.clobber(r, "or, adc, sbb or xor on rsp")
	}
}

// addSubReg is add/sub between registers or memory (01, 03, 29, 2B).
func (d x86Dec) addSubReg() {
	op := d.in.op
	var dst, src uint8
	srcReg := true
	if op == 0x01 || op == 0x29 { // Ev, Gv
		if d.mod() != 3 {
			return // memory destination
		}
		dst, src = d.rmField(), d.regField()
	} else { // Gv, Ev
		dst, src = d.regField(), d.rmField()
		srcReg = d.mod() == 3
	}
	if dst != xRSP {
		d.write(dst, 0)
		return
	}
	sub := op == 0x29 || op == 0x2b
	if d.w() && srcReg && src != xRSP {
		if sub {
			d.op(OpSubSPReg, x86Dwarf[src], 0, 0)
		} else {
			d.op(OpAddSPReg, x86Dwarf[src], 0, 0)
		}
		return
	}
	if sub {
		d.clobber(dst, "subtracts memory or a 32-bit value from rsp")
	} else {
		d.clobber(dst, "adds a register or memory to rsp")
	}
}

// mov is 89 (mov Gv to Ev) and 8B (mov Ev to Gv).
func (d x86Dec) mov() {
	store := d.in.op == 0x89
	reg := d.regField()
	if d.mod() == 3 {
		dst, src := d.rmField(), reg
		if !store {
			dst, src = reg, d.rmField()
		}
		if d.w() {
			d.op(OpSetReg, x86Dwarf[dst], x86Dwarf[src], 0)
			return
		}
		d.clobber(dst, "copies 32 or 16 bits of a register to rsp")
		return
	}
	base, plain := d.memBase()
	if store {
		if d.w() && plain {
			d.op(OpSave, x86Dwarf[reg], x86Dwarf[base], d.in.disp(d.code))
		}
		return
	}
	if reg != xRSP && d.w() && plain {
		d.op(OpRestore, x86Dwarf[reg], x86Dwarf[base], d.in.disp(d.code))
		return
	}
	d.clobber(reg, "loads rsp from memory")
}

// lea is 8D.
func (d x86Dec) lea() {
	if d.mod() == 3 {
		d.unknown("lea with a register source (invalid)")
		return
	}
	dst := d.regField()
	base, plain := d.memBase()
	if plain && d.w() {
		if dst == xRSP && base == xRSP {
			d.op(OpAddSP, 0, 0, d.in.disp(d.code))
		} else {
			d.op(OpSetReg, x86Dwarf[dst], x86Dwarf[base], d.in.disp(d.code))
		}
		return
	}
	d.clobber(dst, "computes rsp from an address that is not a register plus a constant")
}

// group5 is FF: inc, dec, call, jmp, push.
func (d x86Dec) group5() {
	switch d.ext() {
	case 0, 1:
		d.generic(wRM)
	case 2:
		d.inst.Class = CallIndirect
	case 3:
		d.unknown("far call")
	case 4:
		d.inst.Class = JumpIndirect
		d.inst.Why = "indirect jump"
	case 5:
		d.unknown("far jump")
	case 6:
		if d.mod() == 3 {
			if d.op16() {
				d.unknown("16-bit push")
				return
			}
			d.op(OpPush, x86Dwarf[d.rmField()], 0, 8)
			return
		}
		d.pushNoReg()
	default:
		d.unknown("invalid opcode ff /7")
	}
}

// x86TwoByteImplicit gives the registers a 0F opcode writes implicitly:
// syscall (rax, rcx, r11), rdtsc, rdmsr, rdpmc (rax, rdx), cpuid (rax,
// rbx, rcx, rdx), cmpxchg (rax).
var x86TwoByteImplicit = func() (t [256]uint16) {
	t[0x05] = mRAX | mRCX | mR11
	t[0x31], t[0x32], t[0x33] = mRAX|mRDX, mRAX|mRDX, mRAX|mRDX
	t[0xa2] = mRAX | mRBX | mRCX | mRDX
	t[0xb0], t[0xb1] = mRAX, mRAX
	return t
}()

func (d x86Dec) twoByte(pc uint64) {
	in := d.in
	op := in.op
	if m := x86TwoByteImplicit[op]; m != 0 {
		d.implicit(m)
	}
	kind := x86TwoByteW[op]
	if kind != wSpecial {
		if op == 0x7e && in.pfx&pfxF3 != 0 { // movq xmm, xmm/m64
			return
		}
		d.generic(kind)
		return
	}
	switch {
	case op >= 0x80 && op <= 0x8f:
		d.target(CondJump, pc)
		d.inst.Cond = x86Cond(op - 0x10)
	case op == 0x0b || op == 0xb9 || op == 0xff: // ud2, ud1, ud0
		d.inst.Class = Stop
	case op == 0x05: // syscall: rax, rcx and r11 (x86TwoByteImplicit)
		d.inst.Syscall = true
	case op == 0x07 || op == 0x34 || op == 0x35:
		d.unknown("context switch (sysret, sysenter, sysexit)")
	case op == 0x06: // clts
	case op == 0xa0 || op == 0xa8: // push fs, gs
		d.pushNoReg()
	case op == 0xa1 || op == 0xa9: // pop fs, gs
		d.popNoReg()
	case op == 0xa2: // cpuid: x86TwoByteImplicit
	case op == 0xaa:
		d.unknown("rsm")
	case op == 0x00: // sldt, str Ev
		if d.ext() <= 1 {
			d.generic(wRM)
		}
	case op == 0x01:
		d.group7()
	case op == 0x1e: // endbr64, endbr32, rdssp; hint nops
		if in.pfx&pfxF3 != 0 && d.mod() == 3 && d.ext() == 1 {
			d.generic(wRM) // rdsspd, rdsspq
		}
	case op == 0x2c || op == 0x2d: // cvt(t)ss2si, cvt(t)sd2si
		if in.pfx&(pfxF2|pfxF3) != 0 {
			d.generic(wReg)
		}
	case op == 0x78: // vmread (no prefix); extrq, insertq
		if in.pfx&(pfx66|pfxF2) == 0 {
			d.generic(wRM)
		}
	case op == 0xae: // group 15
		if in.pfx&pfxF3 != 0 && d.mod() == 3 && d.ext() <= 1 {
			d.generic(wRM) // rdfsbase, rdgsbase
		}
	case op == 0xb8: // popcnt
		if in.pfx&pfxF3 == 0 {
			d.unknown("jmpe")
			return
		}
		d.generic(wReg)
	case op == 0xba: // bt, bts, btr, btc Ev, imm8
		switch {
		case d.ext() < 4:
			d.unknown("invalid opcode 0f ba")
		case d.ext() > 4:
			d.generic(wRM)
		}
	case op == 0xc7: // group 9
		if d.mod() == 3 && d.ext() >= 6 {
			d.generic(wRM) // rdrand, rdseed, rdpid
		}
		if d.mod() != 3 && d.ext() == 1 {
			d.implicit(mRAX | mRDX) // cmpxchg8b, cmpxchg16b
		}
	}
}

// group7 is 0F 01: descriptor tables and, with mod 3, single instructions.
func (d x86Dec) group7() {
	if d.mod() != 3 {
		return // sgdt, sidt, lgdt, lidt, smsw, lmsw, invlpg to or from memory
	}
	switch d.in.modrm {
	case 0xd0, 0xd1, 0xd5, 0xd6, 0xca, 0xcb, 0xe8, 0xea, 0xee, 0xef, 0xf9, 0xc8, 0xc9, 0xfa, 0xfb:
		// xgetbv, xsetbv, xend, xtest, clac, stac, serialize,
		// saveprevssp, rdpkru, wrpkru, rdtscp, monitor, mwait, monitorx,
		// mwaitx: rax, rcx and rdx only (xgetbv, rdpkru and rdtscp write
		// them).
		switch d.in.modrm {
		case 0xd0, 0xee:
			d.implicit(mRAX | mRDX)
		case 0xf9:
			d.implicit(mRAX | mRCX | mRDX)
		}
		return
	}
	if d.ext() == 4 { // smsw %reg
		d.generic(wRM)
		return
	}
	d.unknown("system instruction (0f 01)")
}

// threeByte is the legacy 0F 38 and 0F 3A maps (SSE, AES, SHA, CRC32,
// MOVBE, ADCX/ADOX).
func (d x86Dec) threeByte() {
	in := d.in
	if in.m == 3 {
		if in.op >= 0x14 && in.op <= 0x17 { // pextrb, pextrw, pextrd/q, extractps
			d.generic(wRM)
		}
		if in.op >= 0x60 && in.op <= 0x63 { // pcmpestri, pcmpistri: ecx
			d.implicit(mRCX)
		}
		return
	}
	switch in.op {
	case 0xf0: // movbe Gv, Mv; crc32 Gd, Eb
		d.generic(wReg)
	case 0xf1: // movbe Mv, Gv; crc32 Gd, Ev
		if in.pfx&pfxF2 != 0 {
			d.generic(wReg)
		}
	case 0xf6: // adcx, adox; wrss (memory)
		if in.pfx&(pfx66|pfxF3) != 0 {
			d.generic(wReg)
		}
	}
}

// vector is the VEX and EVEX maps: vector registers, except for the BMI
// instructions and the moves to general registers.
func (d x86Dec) vector() {
	in := d.in
	switch in.m {
	case 1:
		switch in.op {
		case 0x50, 0xc5, 0xd7: // vmovmskps/pd, vpextrw, vpmovmskb
			d.generic(wReg)
		case 0x93: // kmov r32, k
			if in.enc == encVEX {
				d.generic(wReg)
			}
		case 0x7e: // vmovd/q xmm to r/m (66); vmovq xmm (F3)
			if in.vexPP == 1 {
				d.generic(wRM)
			}
		case 0x2c, 0x2d, 0x78, 0x79: // vcvt(t)ss/sd2si, 2usi
			if in.vexPP >= 2 && (in.enc == encEVEX || in.op < 0x78) {
				d.generic(wReg)
			}
		}
	case 2:
		if in.enc != encVEX {
			return
		}
		switch in.op {
		case 0xf2, 0xf5, 0xf7: // andn; bzhi, pdep, pext; bextr, shlx, sarx, shrx
			d.generic(wReg)
		case 0xf3: // blsr, blsmsk, blsi: the vvvv register
			d.write(in.vvvv, 0)
		case 0xf6: // mulx: reg and vvvv
			d.generic(wReg)
			d.write(in.vvvv, 0)
		}
	case 3:
		switch {
		case in.op >= 0x14 && in.op <= 0x17: // vpextr*, vextractps
			d.generic(wRM)
		case in.op >= 0x60 && in.op <= 0x63: // vpcmpestri, vpcmpistri: ecx
			d.implicit(mRCX)
		case in.op == 0xf0 && in.enc == encVEX: // rorx
			d.generic(wReg)
		}
	case 5: // EVEX AVX512-FP16
		switch in.op {
		case 0x2c, 0x2d, 0x78, 0x79: // vcvt(t)sh2si, 2usi
			d.generic(wReg)
		case 0x7e: // vmovw xmm to r/m
			d.generic(wRM)
		}
	case 6:
	default:
		d.unknown("VEX or EVEX opcode map not modelled")
	}
}
