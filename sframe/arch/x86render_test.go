package arch

import (
	"fmt"
	"strings"

	"github.com/sfdbg/sfdbg/sframe/rule"
)

// x86TestNames names AMD64's DWARF registers in test expectations.
var x86TestNames = [17]string{"rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp", "rsp",
	"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "ra"}

func x86TestReg(r rule.Reg) string {
	if r >= 0 && int(r) < len(x86TestNames) {
		return x86TestNames[r]
	}
	return fmt.Sprintf("r%d", r)
}

// renderInst renders a decoded instruction compactly for table tests:
// its class (with target), its stack operations and Why, separated by
// "; ". An instruction with no effect renders as "".
func renderInst(in *Inst) string {
	var parts []string
	switch in.Class {
	case Call:
		parts = append(parts, fmt.Sprintf("call %#x", in.Target))
	case CallIndirect:
		parts = append(parts, "call*")
	case Return:
		parts = append(parts, "ret")
	case Jump:
		parts = append(parts, fmt.Sprintf("jmp %#x", in.Target))
	case CondJump:
		parts = append(parts, fmt.Sprintf("jcc %#x", in.Target))
	case JumpIndirect:
		parts = append(parts, "jmp*")
	case Stop:
		parts = append(parts, "stop")
	case Unknown:
		parts = append(parts, "unknown")
	}
	for _, o := range in.Ops[:in.NOps] {
		switch o.Kind {
		case OpPush:
			parts = append(parts, fmt.Sprintf("push %s %d", x86TestReg(o.Reg), o.Imm))
		case OpPop:
			parts = append(parts, fmt.Sprintf("pop %s %d", x86TestReg(o.Reg), o.Imm))
		case OpAddSP:
			parts = append(parts, fmt.Sprintf("sp+=%d", o.Imm))
		case OpSetReg:
			parts = append(parts, fmt.Sprintf("%s=%s%+d", x86TestReg(o.Reg), x86TestReg(o.Base), o.Imm))
		case OpAndSP:
			parts = append(parts, fmt.Sprintf("sp&=%d", o.Imm))
		case OpSubSPReg:
			parts = append(parts, fmt.Sprintf("sp-=%s", x86TestReg(o.Reg)))
		case OpAddSPReg:
			parts = append(parts, fmt.Sprintf("sp+=%s", x86TestReg(o.Reg)))
		case OpSave:
			parts = append(parts, fmt.Sprintf("save %s@%s%+d", x86TestReg(o.Reg), x86TestReg(o.Base), o.Imm))
		case OpRestore:
			parts = append(parts, fmt.Sprintf("restore %s@%s%+d", x86TestReg(o.Reg), x86TestReg(o.Base), o.Imm))
		case OpClobber:
			parts = append(parts, "clobber "+x86TestReg(o.Reg))
		default:
			parts = append(parts, fmt.Sprintf("op%d", o.Kind))
		}
	}
	if in.Why != "" {
		parts = append(parts, "why: "+in.Why)
	}
	return strings.Join(parts, "; ")
}
