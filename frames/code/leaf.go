package code

import (
	"golang.org/x/arch/x86/x86asm"

	"github.com/sfdbg/sfdbg/sframe/arch"
)

// maxLeaf bounds the instructions LeafKeeps reads.
const maxLeaf = 64

// leafPlain reports whether the x86-64 instruction at code[0] is one of
// the plain integer instructions a stack-probe helper is made of, whose
// register writes the stack-effect decoder reports all of: not a vector,
// transactional or system instruction (cmpbexadd writes its ModRM.reg
// register, xbegin's abort path eax; the decoder reports neither).
func leafPlain(code []byte) bool {
	in, err := x86asm.Decode(code, 64)
	if err != nil {
		return false
	}
	switch in.Op {
	case x86asm.PUSH, x86asm.POP, x86asm.MOV, x86asm.MOVZX, x86asm.MOVSX, x86asm.MOVSXD, x86asm.LEA,
		x86asm.ADD, x86asm.SUB, x86asm.AND, x86asm.OR, x86asm.XOR, x86asm.CMP, x86asm.TEST,
		x86asm.SHL, x86asm.SHR, x86asm.SAR, x86asm.INC, x86asm.DEC, x86asm.NEG, x86asm.NOT,
		x86asm.NOP, x86asm.LEAVE, x86asm.RET, x86asm.JMP,
		x86asm.JA, x86asm.JAE, x86asm.JB, x86asm.JBE, x86asm.JE, x86asm.JNE, x86asm.JG, x86asm.JGE,
		x86asm.JL, x86asm.JLE, x86asm.JS, x86asm.JNS, x86asm.JO, x86asm.JNO, x86asm.JP, x86asm.JNP:
		return true
	}
	return false
}

// LeafKeeps returns the registers (a bit per DWARF number below 64) that
// the function whose code starts with text, at address pc, leaves as they
// were when it returns, if it is a small leaf: at most 64 instructions up
// to its first return, no call, system call, indirect jump or instruction
// whose effect is unknown, and every branch within those instructions.
// The registers are those no instruction writes (arch.Inst's operations),
// and every instruction must be a plain integer one (leafPlain).
// Otherwise, and on other machines (whose decoders report only the writes
// the oracle follows), it returns 0.
//
// It is what a stack-probe helper called with its size in a register
// needs: LLVM's __rust_probestack and __chkstk-like helpers preserve
// every register but r11 (the probe-stack function's contract, LLVM
// X86FrameLowering::emitStackProbeCall), so the size the caller loaded
// in rax is still there for its `sub %rax,%rsp`.
func LeafKeeps(a *arch.Arch, text []byte, pc uint64) uint64 {
	if a != arch.AMD64Arch {
		return 0
	}
	var written uint64
	var in arch.Inst
	off := 0
	maxTarget := pc
	for n := 0; n < maxLeaf && off < len(text); n++ {
		if a.Decoder.Decode(text[off:], pc+uint64(off), &in) != nil || in.Syscall || !leafPlain(text[off:]) {
			return 0
		}
		for k := 0; k < in.NOps && k < len(in.Ops); k++ {
			switch op := in.Ops[k]; op.Kind {
			case arch.OpClobber, arch.OpSetReg, arch.OpPop, arch.OpRestore:
				if op.Reg >= 0 && op.Reg < 64 {
					written |= 1 << op.Reg
				}
			}
		}
		if in.Const && in.ConstReg >= 0 && in.ConstReg < 64 {
			written |= 1 << in.ConstReg
		}
		off += in.Len
		switch in.Class {
		case arch.Other:
		case arch.Jump, arch.CondJump:
			if in.Target < pc {
				return 0
			}
			maxTarget = max(maxTarget, in.Target)
		case arch.Return:
			if maxTarget >= pc+uint64(off) {
				return 0 // a branch past the return: more code than read
			}
			return ^written
		default:
			return 0
		}
	}
	return 0
}
