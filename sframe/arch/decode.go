package arch

import "github.com/sfdbg/sfdbg/sframe/rule"

// The code oracle's vocabulary, modelled on the Linux kernel's objtool
// (include/objtool/arch.h: struct stack_op, enum insn_type): a decoder
// turns each instruction into its control-flow class and a short list of
// stack operations, with no unwinding logic in it; one machine-neutral walk
// (frames/code) applies them.

// Decoder decodes one machine's instructions.
type Decoder interface {
	// Decode decodes the instruction at code[0], whose address is pc, into
	// *inst (reused by the caller to avoid allocation). It returns an error
	// only when the bytes are not an instruction (invalid or truncated);
	// an instruction whose stack effect is not modelled is Class Unknown
	// with Why set.
	Decode(code []byte, pc uint64, inst *Inst) error
	// Text formats the instruction at code[0] as GNU objdump -d does, for
	// messages ("push %rbx", "stp x29, x30, [sp, #-32]!").
	Text(code []byte, pc uint64) string
}

// Class is an instruction's control-flow class.
type Class uint8

// Instruction classes.
const (
	// Other: falls through to the next instruction.
	Other Class = iota
	// Call: a direct call to Target; falls through after it (unless the
	// callee does not return, which the walk decides).
	Call
	// CallIndirect: a call through a register or memory.
	CallIndirect
	// Return: a function return.
	Return
	// Jump: an unconditional direct jump to Target.
	Jump
	// CondJump: a conditional direct jump to Target, or fall through.
	CondJump
	// JumpIndirect: a jump through a register or memory (a jump table or
	// an indirect tail call).
	JumpIndirect
	// Stop: execution does not continue (ud2, hlt, a trap).
	Stop
	// CondReturn: a conditional return (s390x bcr M,%r14 with M other
	// than 0 and 15): returns when taken, falls through otherwise.
	CondReturn
	// Unknown: the instruction's stack effect is not modelled; Why says
	// why ("writes rsp from memory", "unsupported instruction").
	Unknown
)

// OpKind is the kind of one stack operation.
type OpKind uint8

// Stack operations. Reg, Base and Imm are the operands; registers are DWARF
// numbers of the machine.
const (
	// OpPush: SP -= Imm, then Reg is saved at [SP].
	OpPush OpKind = iota + 1
	// OpPop: Reg is restored from [SP], then SP += Imm.
	OpPop
	// OpAddSP: SP += Imm (Imm negative to allocate).
	OpAddSP
	// OpSetReg: Reg = Base + Imm (mov %rsp,%rbp; lea 16(%rbp),%rsp;
	// mov x29, sp; lgr %r11,%r15; add x29, sp, #16).
	OpSetReg
	// OpAndSP: SP &= Imm (stack realignment).
	OpAndSP
	// OpSubSPReg: SP -= Reg: alloca, or a large frame whose size a
	// constant loaded into Reg gives (Inst.Const).
	OpSubSPReg
	// OpSave: Reg is saved at [Base + Imm] (mov %rbx,8(%rsp); stp's two
	// halves; stmg's registers, one op each).
	OpSave
	// OpRestore: Reg is restored from [Base + Imm].
	OpRestore
	// OpClobber: Reg gets a value the oracle does not follow (any other
	// write to SP or FP, or to a callee-saved register).
	OpClobber
	// OpAddSPReg: SP += Reg (add sp, sp, x13 freeing a large frame whose
	// size a constant in Reg gives; else an amount unknown statically).
	OpAddSPReg
)

// StackOp is one stack operation of an instruction.
type StackOp struct {
	Kind OpKind
	Reg  rule.Reg
	Base rule.Reg
	Imm  int64
}

// MaxOps bounds the stack operations of one instruction (s390x stmg saves
// up to 16 registers; AArch64 stp with writeback is three operations).
const MaxOps = 18

// Inst is one decoded instruction.
type Inst struct {
	// Len is the instruction's length in bytes.
	Len int
	// Class is its control-flow class; Target is the branch or call target
	// of Call, Jump and CondJump.
	Class  Class
	Target uint64
	// Ops are the stack operations, in the order they take effect; NOps
	// says how many of Ops are used.
	Ops  [MaxOps]StackOp
	NOps int
	// Why says why the stack effect is not known (Class Unknown), or why
	// an indirect jump cannot be followed.
	Why string
	// Syscall is set for a system call (x86-64 syscall, AArch64 and s390x
	// svc): the kernel returns to the next instruction, unless the call
	// ends the thread (exit), which the encoding does not say.
	Syscall bool
	// Const says the instruction loads a constant into register
	// ConstReg (besides its OpClobber of it): the register becomes
	// (old & ConstKeep) | Const, ConstKeep 0 for a whole value (x86 mov
	// $imm,%reg; AArch64 movz, movn; s390x lghi, lgfi) and the bits to
	// keep for an insertion (AArch64 movk). The walk follows it to the
	// next `sub sp, sp, xN` (OpSubSPReg) of a large frame.
	Const     bool
	ConstReg  rule.Reg
	Const64   int64
	ConstKeep uint64
	// ConstPC marks a Const that is an address computed from the PC
	// (AArch64 adr): not a size, and in the function when the register
	// is the link register of a continuation (glibc's swapcontext: adr
	// x30, 2f).
	ConstPC bool
	// RetOther marks a Return that goes through RetReg rather than the
	// machine's RA register (AArch64 `ret x15`).
	RetOther bool
	RetReg   rule.Reg
	// RetJump marks a Return or CondReturn that is also the machine's
	// indirect jump through that register (s390x br %r14, a jump table
	// after larl %r14 when r14 no longer holds the RA): the walk takes it
	// for a jump when the register does not hold the RA.
	RetJump bool
	// CmpSP marks a compare of SP with register CmpReg (x86-64 cmp
	// %r11,%rsp, the end test of LLVM's inline stack probe loop); a
	// CondJump right after it with Cond CondEQ or CondNE tells the walk
	// that SP equals CmpReg on one of its two ways.
	CmpSP  bool
	CmpReg rule.Reg
	// Cond is a CondJump's condition where the walk may use it.
	Cond Cond
}

// Cond is a conditional jump's condition, as far as the walk uses it.
type Cond uint8

// Conditions.
const (
	CondOther Cond = iota
	CondEQ         // taken when the operands compared were equal (je, b.eq)
	CondNE         // taken when they differed (jne, b.ne)
)

// SetConst records that the instruction sets reg to (old & keep) | v
// (Inst.Const).
func (i *Inst) SetConst(reg rule.Reg, v int64, keep uint64) {
	i.Const, i.ConstReg, i.Const64, i.ConstKeep, i.ConstPC = true, reg, v, keep, false
}

// SetAddress records that the instruction sets reg to the address addr,
// computed from the PC (Inst.ConstPC).
func (i *Inst) SetAddress(reg rule.Reg, addr uint64) {
	i.SetConst(reg, int64(addr), 0)
	i.ConstPC = true
}

// Add appends a stack operation; it reports false when Ops is full.
func (i *Inst) Add(op StackOp) bool {
	if i.NOps == len(i.Ops) {
		return false
	}
	i.Ops[i.NOps] = op
	i.NOps++
	return true
}
