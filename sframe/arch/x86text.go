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
	if err != nil || in.Len == 0 || in.Op == 0 || // Op 0: a lone prefix
		in.Op == x86asm.RDRAND && in.Args[0] == nil {
		return substituted(code, pc, sym)
	}
	if n, ok := x.Len(code); ok && n != in.Len {
		return "(bad)", n
	}
	return insnText(in, code, pc, sym), in.Len
}

// insnText formats in at pc as gdb does: the mnemonic padded to 6
// columns, AT&T operands, a branch target followed by <sym+off>, and a
// RIP-relative operand's address and symbol after "#".
func insnText(in x86asm.Inst, code []byte, pc uint64, symbol func(uint64) string) string {
	if symbol == nil {
		symbol = func(uint64) string { return "" }
	}
	var f x86Insn
	scanned := x86Scan(code, &f)
	for i, a := range in.Args {
		m, ok := a.(x86asm.Mem)
		if !ok {
			continue
		}
		// x86asm drops the RIP base of some VEX and EVEX operands
		// (vmovdqa 0x4d429,%ymm10 for 0x4d429(%rip)).
		if scanned && f.enc != encLegacy && f.modrm>>6 == 0 && f.modrm&7 == 5 && m.Base == 0 && m.Index == 0 {
			m.Base = x86asm.RIP
		}
		// x86asm keeps a displacement unsigned; in 64-bit code every
		// displacement with a base or index register is a signed 32-bit
		// number (-0x8e(%rip), -0x8(,%rdx,8), not 0xffffff72(%rip)).
		if m.Base != 0 || m.Index != 0 {
			m.Disp = int64(int32(m.Disp))
		}
		in.Args[i] = m
	}
	text := x86asm.GNUSyntax(in, pc, nil)
	// Branch prefixes as objdump names them: bnd (F2) and, on an indirect
	// call or jump, notrack (3E), which x86asm prints as "ds" and as a
	// %ds: segment on a memory operand.
	var pfx []string
	branch := in.Op == x86asm.CALL || in.Op == x86asm.JMP || in.Op == x86asm.RET || in.Op >= x86asm.JA && in.Op <= x86asm.JS
	notrack := false
	if branch && (in.Op == x86asm.CALL || in.Op == x86asm.JMP) {
		if _, ok := in.Args[0].(x86asm.Rel); !ok {
			for _, p := range in.Prefix {
				if p&0xff == x86asm.PrefixDS {
					notrack = true
				}
			}
		}
	}
	for branch {
		w, rest, _ := strings.Cut(text, " ")
		if w != "bnd" && w != "ds" {
			break
		}
		if w == "bnd" {
			pfx = append(pfx, w)
		}
		text = rest
	}
	if notrack {
		pfx = append(pfx, "notrack")
		text = strings.Replace(text, "%ds:", "", 1)
	}
	// Other prefixes x86asm writes as words (data16 data16 callq, the
	// padding of a TLS call) stay in front of the mnemonic.
	for {
		w, rest, ok := strings.Cut(text, " ")
		if !ok || w != "data16" && w != "addr32" && w != "lock" {
			break
		}
		pfx = append(pfx, w)
		text = rest
	}
	if scanned && f.enc == encLegacy && f.rex == 0x48 && (in.Op == x86asm.CALL || in.Op == x86asm.JMP) {
		if _, ok := in.Args[0].(x86asm.Rel); ok {
			pfx = append(pfx, "rex.W") // a REX.W the branch ignores
		}
	}
	op, args, hasArgs := strings.Cut(text, " ")
	if gnu, ok := gnuMnemonic[op]; ok {
		op = gnu
	}
	if op == "lretq" && in.DataSize != 64 {
		op = "lret"
	}
	switch in.Op {
	case x86asm.ANDN, x86asm.BEXTR, x86asm.BLSI, x86asm.BLSMSK, x86asm.BLSR, x86asm.BZHI, x86asm.MULX,
		x86asm.PDEP, x86asm.PEXT, x86asm.RORX, x86asm.SARX, x86asm.SHLX, x86asm.SHRX, x86asm.XBEGIN:
		// The operand size is the registers': objdump writes no suffix.
		op = strings.TrimRight(op, "lq")
	case x86asm.VPCMPB, x86asm.VPCMPUB, x86asm.VPCMPW, x86asm.VPCMPUW, x86asm.VPCMPD, x86asm.VPCMPUD, x86asm.VPCMPQ, x86asm.VPCMPUQ:
		// objdump names the comparison: vpcmpb $0x0 is vpcmpeqb,
		// vpcmpub $0x4 vpcmpnequb.
		var last x86asm.Arg
		for _, a := range in.Args {
			if a != nil {
				last = a
			}
		}
		if imm, ok := last.(x86asm.Imm); ok && imm >= 0 && imm < 8 {
			if pred := [8]string{"eq", "lt", "le", "", "neq", "nlt", "nle", ""}[imm]; pred != "" {
				op = "vpcmp" + pred + strings.TrimPrefix(op, "vpcmp")
				args = strings.TrimPrefix(args, fmt.Sprintf("$%#x,", int64(imm)))
			}
		}
	}
	if scanned && f.enc != encLegacy && f.pfx&pfxSeg == 0 {
		// x86asm reads a VEX or EVEX byte 0x64/0x65 as a segment override.
		args = strings.Replace(strings.Replace(args, "%gs:", "", 1), "%fs:", "", 1)
	}
	// EVEX masking: objdump writes %zmm1{%k1}{z}, no space.
	args = strings.ReplaceAll(args, " {", "{")
	args = x87Args(code, args)
	if text == "rep retq" {
		op, hasArgs = "repz ret", false
	}
	if text == "rex.W lretq" {
		op, hasArgs = "lretq", false
	}
	if len(pfx) > 0 {
		// objdump writes a prefixed mnemonic unpadded: "bnd jmp *%rax".
		op, args = strings.Join(pfx, " ")+" "+op, strings.TrimLeft(args, " ")
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
			if a.Base == 0 && a.Index == 0 && int32(a.Disp) < 0 {
				// An absolute disp32 is sign-extended to 64 bits:
				// %fs:0xfffffffffffffff8, a TLS variable.
				args = strings.Replace(args, fmt.Sprintf("%#x", uint32(a.Disp)), fmt.Sprintf("%#x", uint64(int64(int32(a.Disp)))), 1)
			}
			if a.Disp == 0 && a.Base == 0 && a.Index != 0 {
				args = strings.Replace(args, "(,", "0x0(,", 1) // disp32 is always encoded
			}
			if a.Disp == 0 && (a.Base == x86asm.RBP || a.Base == x86asm.R13 || a.Base == x86asm.RIP) {
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

// substituted formats the instructions x86asm does not know whose
// operands are those of one it knows: adcx and adox (66/F3 0F 38 F6 /r)
// as add Gv,Ev (03 /r), rdrand and rdseed (0F C7 /6, /7, mod 3) as not Ev
// (F7 /2), with the mnemonic replaced. It returns "", 0 for anything else.
func substituted(code []byte, pc uint64, sym func(uint64) string) (string, int) {
	var f x86Insn
	if !x86Scan(code, &f) || f.enc != encLegacy {
		return "", 0
	}
	var name string
	var op []byte
	ext := -1
	dropRep := false // F2/F3/66 are part of the opcode, not prefixes
	switch {
	case f.m == 2 && f.op == 0xf6 && f.pfx&pfx66 != 0 && f.pfx&(pfxF2|pfxF3) == 0:
		name, op, dropRep = "adcx", []byte{0x03}, true
	case f.m == 2 && f.op == 0xf6 && f.pfx&pfxF3 != 0:
		name, op, dropRep = "adox", []byte{0x03}, true
	case f.m == 1 && f.op == 0xc7 && f.modrm>>6 == 3 && f.modrm>>3&7 >= 6 && f.pfx&(pfxF2|pfxF3) == 0:
		name, op, ext = "rdrand", []byte{0xf7}, 2
		if f.modrm>>3&7 == 7 {
			name = "rdseed"
		}
	default:
		return "", 0
	}
	// The bytes before the 0F escape are prefixes (and REX); the modrm
	// byte follows the opcode.
	esc := 0
	for esc < int(f.n) && code[esc] != 0x0f {
		esc++
	}
	rm := esc + 2
	if f.m == 2 {
		rm = esc + 3
	}
	if rm >= int(f.n) {
		return "", 0
	}
	var b []byte
	for _, c := range code[:esc] {
		if dropRep && (c == 0x66 || c == 0xf2 || c == 0xf3) {
			continue
		}
		b = append(b, c)
	}
	b = append(b, op...)
	modrm := code[rm]
	if ext >= 0 {
		modrm = modrm&^0x38 | byte(ext)<<3
	}
	b = append(b, modrm)
	b = append(b, code[rm+1:f.n]...)
	in, err := x86asm.Decode(b, 64)
	if err != nil || in.Len != len(b) {
		return "", 0
	}
	// The substitute is shorter: RIP-relative targets are from the
	// instruction's own end.
	text := insnText(in, b, pc+uint64(int(f.n)-len(b)), sym)
	_, args, _ := strings.Cut(text, " ")
	return fmt.Sprintf("%-6s %s", name, strings.TrimLeft(args, " ")), int(f.n)
}

// x87Args writes the register operand of an x87 register form (D8-DF,
// mod 3) as objdump does: %st(0) where it is the modrm register, %st
// where it is the implicit top of stack (x86asm writes %st for both).
func x87Args(code []byte, args string) string {
	if len(code) < 2 || code[0] < 0xd8 || code[0] > 0xdf || code[1]>>6 != 3 {
		return args
	}
	switch {
	case args == "%st":
		return "%st(0)"
	case args != "%st,%st":
		return args
	case code[0] == 0xdc || code[0] == 0xde: // fadd %st,%st(i)
		return "%st,%st(0)"
	}
	return "%st(0),%st" // fadd %st(i),%st
}

// gnuMnemonic maps the mnemonics x86asm's GNU syntax takes from older
// binutils or from Intel to those current objdump and gdb print.
var gnuMnemonic = map[string]string{
	"callq": "call", "retq": "ret", "jmpq": "jmp", "pushq": "push", "popq": "pop",
	"leaveq": "leave", "pushfq": "pushf", "popfq": "popf",
	"cdqe": "cltq", "cqo": "cqto", "cdq": "cltd", "cwde": "cwtl", "cbw": "cbtw", "cwd": "cwtd",
	"movsxd": "movslq", "icebp": "int1", "enterq": "enter",
}

// fixedInsn decodes the instructions x86asm does not know or misreads:
// endbr64 and endbr32 (which begin most functions of current
// distributions; x86asm sees a REP prefix) and the two-byte VEX vzeroupper
// and vzeroall (x86asm takes the next instruction's bytes into them, or
// fails). It returns their text and length, or 0.
func fixedInsn(b []byte) (string, int) {
	if len(b) >= 3 && b[0] == 0x0f && b[1] == 0x01 {
		switch b[2] {
		case 0xee:
			return "rdpkru", 3
		case 0xef:
			return "wrpkru", 3
		}
	}
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
