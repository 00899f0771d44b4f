package arch

import (
	"fmt"
	"strings"

	"golang.org/x/arch/x86/x86asm"
)

// Text formats the x86-64 instruction at code[0], at address pc, as GNU
// objdump -d and gdb print it (AT&T syntax, current binutils mnemonics:
// call, ret, cltq, movabs, -0x8e(%rip), (%rdi,%rax,1), endbr64), without
// symbols; "(bad)" when it does not decode.
func (x X86) Text(code []byte, pc uint64) string {
	text, n := x.Format(code, pc, nil)
	if n == 0 {
		return "(bad)"
	}
	return text
}

// Format formats the x86-64 instruction at code[0], at address pc, as Text
// does, and returns its length in bytes (0 when it does not decode). sym,
// when not nil, gives the suffix printed after an address (a branch target,
// a RIP-relative operand's address): " <sym+off>", or "" when the address
// has no symbol.
//
// The length is Len's, which objdump's boundaries hold on every fixture:
// where x86asm delimits an instruction otherwise (it takes the bytes after
// vzeroupper as part of it), the instruction is "(bad)" rather than a
// text that swallows its neighbour.
func (x X86) Format(code []byte, pc uint64, sym func(addr uint64) string) (text string, n int) {
	if text, n := fixedInsn(code); n > 0 {
		return text, n
	}
	in, err := x86asm.Decode(code, 64)
	if err != nil || in.Len == 0 {
		return "", 0
	}
	if n, ok := x.Len(code); ok && n != in.Len {
		return "(bad)", n
	}
	return insnText(in, pc, sym), in.Len
}

// insnText formats in at pc as gdb does: the mnemonic padded to 6
// columns, AT&T operands, a branch target followed by <sym+off>, and a
// RIP-relative operand's address and symbol after "#".
func insnText(in x86asm.Inst, pc uint64, symbol func(uint64) string) string {
	if symbol == nil {
		symbol = func(uint64) string { return "" }
	}
	for i, a := range in.Args {
		// x86asm keeps a RIP-relative displacement unsigned; in 64-bit
		// code every displacement with a base register is a signed 32-bit
		// number (-0x8e(%rip), not 0xffffff72(%rip)).
		if m, ok := a.(x86asm.Mem); ok && m.Base != 0 {
			m.Disp = int64(int32(m.Disp))
			in.Args[i] = m
		}
	}
	text := x86asm.GNUSyntax(in, pc, nil)
	op, args, hasArgs := strings.Cut(text, " ")
	if gnu, ok := gnuMnemonic[op]; ok {
		op = gnu
	}
	if in.Op == x86asm.MOV && in.DataSize == 64 && in.Opcode>>24&^7 == 0xB8 {
		op = "movabs" // a 64-bit immediate
	}
	for _, a := range in.Args {
		switch a := a.(type) {
		case x86asm.Mem:
			reg := func(r x86asm.Reg) string { return "%" + strings.ToLower(r.String()) }
			if a.Index != 0 && a.Scale == 1 {
				// objdump writes a scale of 1: (%rdi,%rax,1).
				idx := "," + reg(a.Index) + ")"
				args = strings.Replace(args, idx, idx[:len(idx)-1]+",1)", 1)
			}
			if a.Index == 0 && a.Scale == 1 {
				// No index: objdump writes (%r12), not (%r12,%riz).
				args = strings.Replace(args, ",%riz)", ")", 1)
			}
			if a.Disp == 0 && a.Base == 0 && a.Index == 0 {
				// Absolute address 0 (a TLS or unrelocated reference):
				// x86asm leaves the operand empty.
				ops := splitOperands(args)
				for i, o := range ops {
					if o == "" || strings.HasSuffix(o, ":") {
						ops[i] = o + "0x0"
						break
					}
				}
				args = strings.Join(ops, ",")
			}
			if a.Disp == 0 && a.Base == 0 && a.Index != 0 {
				args = strings.Replace(args, "(,", "0x0(,", 1) // disp32 is always encoded
			}
			if a.Disp == 0 && (a.Base == x86asm.RBP || a.Base == x86asm.R13) {
				// These bases always encode a displacement: 0x0(%rbp,...).
				args = strings.Replace(args, "("+reg(a.Base), "0x0("+reg(a.Base), 1)
			}
		case x86asm.Imm:
			if int64(a) < 0 && in.DataSize >= 16 {
				// objdump shows an immediate unsigned, in the operand size
				// (push: the stack slot's 64 bits).
				u := uint64(a)
				if in.DataSize < 64 && in.Op != x86asm.PUSH {
					u &= 1<<in.DataSize - 1
				}
				args = strings.Replace(args, fmt.Sprintf("$%#x", int64(a)), fmt.Sprintf("$%#x", u), 1)
			}
		}
	}
	if text == "data16 nop" {
		op, args, hasArgs = "xchg", "%ax,%ax", true
	}
	switch {
	case hasArgs && !strings.Contains(args, " "):
		text = fmt.Sprintf("%-6s %s", op, args)
	case hasArgs:
		text = op + " " + args
	default:
		text = op
	}
	next := pc + uint64(in.Len)
	for _, a := range in.Args {
		switch a := a.(type) {
		case x86asm.Rel:
			text += symbol(next + uint64(int64(a)))
		case x86asm.Mem:
			if a.Base == x86asm.RIP && a.Index == 0 {
				t := next + uint64(a.Disp)
				text += fmt.Sprintf("        # %#x%s", t, symbol(t))
			}
		}
	}
	return text
}

// gnuMnemonic maps the mnemonics x86asm's GNU syntax takes from older
// binutils or from Intel to those current objdump and gdb print.
var gnuMnemonic = map[string]string{
	"callq": "call", "retq": "ret", "jmpq": "jmp", "pushq": "push", "popq": "pop",
	"leaveq": "leave", "pushfq": "pushf", "popfq": "popf",
	"cdqe": "cltq", "cqo": "cqto", "cdq": "cltd", "cwde": "cwtl", "cbw": "cbtw", "cwd": "cwtd",
	"movsxd": "movslq",
}

// fixedInsn decodes the instructions x86asm does not know or misreads:
// endbr64 and endbr32 (which begin most functions of current
// distributions; x86asm sees a REP prefix) and the two-byte VEX vzeroupper
// and vzeroall (x86asm takes the next instruction's bytes into them, or
// fails). It returns their text and length, or 0.
func fixedInsn(b []byte) (string, int) {
	if len(b) >= 4 && b[0] == 0xf3 && b[1] == 0x0f && b[2] == 0x1e {
		switch b[3] {
		case 0xfa:
			return "endbr64", 4
		case 0xfb:
			return "endbr32", 4
		}
	}
	// C5 with vvvv 1111 and pp 00 (R is free), opcode 77.
	if len(b) >= 3 && b[0] == 0xc5 && b[1]&0x7b == 0x78 && b[2] == 0x77 {
		if b[1]&4 != 0 {
			return "vzeroall", 3
		}
		return "vzeroupper", 3
	}
	return "", 0
}

// splitOperands splits AT&T operands at the commas outside parentheses.
func splitOperands(args string) []string {
	var ops []string
	depth, start := 0, 0
	for i, c := range args {
		switch c {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				ops = append(ops, args[start:i])
				start = i + 1
			}
		}
	}
	return append(ops, args[start:])
}
