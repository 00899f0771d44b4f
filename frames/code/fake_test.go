package code

import (
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/sfdbg/sfdbg/sframe/arch"
	"github.com/sfdbg/sfdbg/sframe/rule"
)

// A tiny scripted ISA, so that the walk is tested independently of any
// real decoder. Registers use AMD64's DWARF numbers (rsp 7, rbp 6, RA 16,
// rbx 3, r12-r15). Each instruction is an opcode byte and its operands:
//
//	00          nop
//	01 r        push r (8 bytes)
//	02 r        pop r
//	03 i        sp += int8(i)*8
//	04 d b i    d = b + int8(i)
//	05          sp &= -16
//	06 r        sp -= r
//	07 r b i    save r at [b + int8(i)]
//	08 r b i    restore r from [b + int8(i)]
//	09 r        clobber r
//	10 o        jmp pc+2+int8(o)
//	11 o        jcc pc+2+int8(o)
//	12 o        call pc+2+int8(o)
//	13          ret
//	14          jmp *reg
//	15          call *reg
//	16          ud2 (stop)
//	17          unknown
//	18 o o o o  jmp pc+5+int32(o) (a far jump, for tail calls)
//	19          paciasp (sign the RA with key A)
//	1a          autiasp (authenticate it)
//	1b          retaa (authenticate and return)
//	else        not an instruction
type fakeISA struct{}

var errFake = errors.New("fake: bad opcode")
var errShort = errors.New("fake: truncated")

func (fakeISA) Decode(code []byte, pc uint64, in *arch.Inst) error {
	if len(code) == 0 {
		return errShort
	}
	need := map[byte]int{0: 1, 1: 2, 2: 2, 3: 2, 4: 4, 5: 1, 6: 2, 7: 4, 8: 4, 9: 2,
		0x10: 2, 0x11: 2, 0x12: 2, 0x13: 1, 0x14: 1, 0x15: 1, 0x16: 1, 0x17: 1, 0x18: 5, 0x19: 1, 0x1a: 1, 0x1b: 1, 0x0f: 2}
	n, ok := need[code[0]]
	if !ok {
		return errFake
	}
	if len(code) < n {
		return errShort
	}
	*in = arch.Inst{Len: n}
	r := func(i int) rule.Reg { return rule.Reg(code[i]) }
	imm := func(i int) int64 { return int64(int8(code[i])) }
	switch code[0] {
	case 1:
		in.Add(arch.StackOp{Kind: arch.OpPush, Reg: r(1), Imm: 8})
	case 2:
		in.Add(arch.StackOp{Kind: arch.OpPop, Reg: r(1), Imm: 8})
	case 3:
		in.Add(arch.StackOp{Kind: arch.OpAddSP, Imm: imm(1) * 8})
	case 4:
		in.Add(arch.StackOp{Kind: arch.OpSetReg, Reg: r(1), Base: r(2), Imm: imm(3)})
	case 5:
		in.Add(arch.StackOp{Kind: arch.OpAndSP, Imm: -16})
	case 6:
		in.Add(arch.StackOp{Kind: arch.OpSubSPReg, Reg: r(1)})
	case 7:
		in.Add(arch.StackOp{Kind: arch.OpSave, Reg: r(1), Base: r(2), Imm: imm(3)})
	case 8:
		in.Add(arch.StackOp{Kind: arch.OpRestore, Reg: r(1), Base: r(2), Imm: imm(3)})
	case 9:
		in.Add(arch.StackOp{Kind: arch.OpClobber, Reg: r(1)})
	case 0x10:
		in.Class, in.Target = arch.Jump, pc+2+uint64(imm(1))
	case 0x11:
		in.Class, in.Target = arch.CondJump, pc+2+uint64(imm(1))
	case 0x12:
		in.Class, in.Target = arch.Call, pc+2+uint64(imm(1))
	case 0x13:
		in.Class = arch.Return
	case 0x14:
		in.Class = arch.JumpIndirect
	case 0x15:
		in.Class = arch.CallIndirect
	case 0x16:
		in.Class = arch.Stop
	case 0x17:
		in.Class, in.Why = arch.Unknown, "fake: unmodelled"
	case 0x18:
		in.Class, in.Target = arch.Jump, pc+5+uint64(int64(int32(binary.LittleEndian.Uint32(code[1:]))))
	case 0x19:
		in.Why = arch.WhyPAuthSignA
	case 0x1a:
		in.Why = arch.WhyPAuthAuthA
	case 0x1b:
		in.Class, in.Why = arch.Return, arch.WhyPAuthAuthA
	case 0x0f:
		in.Syscall = true
	}
	return nil
}

func (d fakeISA) Text(code []byte, pc uint64) string {
	if len(code) == 0 {
		return "(bad)"
	}
	switch code[0] {
	case 0:
		return "nop"
	case 0x0f:
		return "syscall"
	}
	return fmt.Sprintf("op%02x", code[0])
}

const (
	rDX = 1 // DWARF 1: rdx
	rBX = 3
	rBP = 6
	rSP = 7
	r12 = 12
	rRA = 16
)

// fakeArch is an AMD64-like machine with the fake ISA.
var fakeArch = &arch.Arch{
	Name:    "fake",
	Machine: elf.EM_X86_64, // for the red zone

	PtrSize:     8,
	PC:          rRA,
	SP:          rSP,
	FP:          rBP,
	RA:          rRA,
	CalleeSaved: []rule.Reg{rBX, rBP, r12, 13, 14, 15},
	Entry: rule.Row{
		CFA: rule.Rule{Kind: rule.ValOffset, Reg: rSP, Offset: 8},
		RA:  rule.Rule{Kind: rule.Offset, Reg: rule.CFA, Offset: -8},
		FP:  rule.Rule{Kind: rule.SameValue},
	},
	RegNames: map[rule.Reg]string{rBX: "rbx", rBP: "rbp", rSP: "rsp", r12: "r12", rRA: "rip"},
	Decoder:  fakeISA{},
}

// fakeLR is an AArch64-like machine: the RA is in a register at entry
// (r30), CFA = sp+0.
var fakeLR = &arch.Arch{
	Name:        "fakelr",
	PtrSize:     8,
	PC:          32,
	SP:          31,
	FP:          29,
	RA:          30,
	CalleeSaved: []rule.Reg{19, 20, 29, 30},
	Entry: rule.Row{
		CFA: rule.Rule{Kind: rule.ValOffset, Reg: 31, Offset: 0},
		RA:  rule.Rule{Kind: rule.Register, Reg: 30},
		FP:  rule.Rule{Kind: rule.SameValue},
	},
	Decoder: fakeISA{},
}

// asm concatenates instructions given as byte slices.
func asm(ins ...[]byte) []byte {
	var b []byte
	for _, i := range ins {
		b = append(b, i...)
	}
	return b
}

func push(r byte) []byte               { return []byte{1, r} }
func pop(r byte) []byte                { return []byte{2, r} }
func addsp(n int8) []byte              { return []byte{3, byte(n)} }
func setreg(d, b byte, i int8) []byte  { return []byte{4, d, b, byte(i)} }
func andsp() []byte                    { return []byte{5} }
func subspreg(r byte) []byte           { return []byte{6, r} }
func save(r, b byte, i int8) []byte    { return []byte{7, r, b, byte(i)} }
func restore(r, b byte, i int8) []byte { return []byte{8, r, b, byte(i)} }
func clobber(r byte) []byte            { return []byte{9, r} }
func jmp(o int8) []byte                { return []byte{0x10, byte(o)} }
func jcc(o int8) []byte                { return []byte{0x11, byte(o)} }
func call(o int8) []byte               { return []byte{0x12, byte(o)} }
func ret() []byte                      { return []byte{0x13} }
func jmpind() []byte                   { return []byte{0x14} }
func stop() []byte                     { return []byte{0x16} }
func unknownOp() []byte                { return []byte{0x17} }
func nop() []byte                      { return []byte{0} }
func sysc() []byte                     { return []byte{0x0f, 0x05} }
func callind() []byte                  { return []byte{0x15} }
func farjmp(o int32) []byte {
	b := []byte{0x18, 0, 0, 0, 0}
	binary.LittleEndian.PutUint32(b[1:], uint32(o))
	return b
}
