package compare

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"golang.org/x/arch/x86/x86asm"

	"github.com/sfdbg/sfdbg/frames"
	"github.com/sfdbg/sfdbg/sframe/arch"
	"github.com/sfdbg/sfdbg/sframe/rule"
)

// ErrNotAssemblers says a finding cannot be rebuilt from assembly: the
// linker wrote the FDE (a PLT), or the finding is not about rows.
var ErrNotAssemblers = errors.New("not the assembler's")

// ReproKind reports whether check --reproduce rebuilds findings of kind k: check --reproduce rebuilds: the rows
// disagree at some PC.
func ReproKind(k Kind) bool {
	switch k {
	case KindCFA, KindRA, KindFP, KindOutermost, KindFREBoundary, KindPLT:
		return true
	}
	return false
}

// ReproduceAsm returns the body of a standalone x86-64 assembly function
// (the lines between .cfi_startproc and .cfi_endproc) that makes an
// assembler emit, from CFI directives, the SFrame the finding f of the
// file at path judged: the function's instructions up to the end of the
// finding, those that move the stack pointer or the frame pointer kept in
// GNU syntax and runs of the others as same-length `.nops`, and before
// each instruction where the CFI row changes the directives that make the
// change (cfiDirectives; .cfi_escape for DWARF expressions). An assembler builds
// SFrame from the directives and the offsets alone, so the instructions
// kept are for the reader. ErrNotAssemblers (wrapped) when the finding is
// in linker-written code or is not about rows; an error naming the file
// when it cannot be read.
func ReproduceAsm(path string, f Finding, splitCFA bool) ([]string, error) {
	if !ReproKind(f.Kind) {
		return nil, fmt.Errorf("%s finding: %w", f.Kind, ErrNotAssemblers)
	}
	if f.Kind == KindPLT || strings.HasPrefix(f.place, ".plt") || strings.HasPrefix(f.Section, ".plt") || strings.HasPrefix(f.KnownID, "gnu-ld") {
		return nil, fmt.Errorf("the linker wrote the FDE of %s: %w", orAddr(f.Function, f.FuncStart), ErrNotAssemblers)
	}
	side, err := loadDiffSide(path)
	if err != nil {
		return nil, err
	}
	var fn *diffFn
	for _, g := range side.funcs {
		if g.start == f.FuncStart {
			fn = g
		}
	}
	if fn == nil || len(fn.cfi) == 0 {
		return nil, fmt.Errorf("%s: no CFI FDE starts at %#x", path, f.FuncStart)
	}
	if !fn.decoded {
		return nil, fmt.Errorf("%s: the code of %s does not decode as x86-64", path, fn.name)
	}
	code, err := funcCode(path, fn)
	if err != nil {
		return nil, err
	}
	until := max(f.PCEnd, f.PC+1) - fn.start // offsets past the finding are dropped
	var lines []string
	prev := frames.Row{}
	prev.CFA = rule.Rule{Kind: rule.ValOffset, Reg: frames.RSP, Offset: 8}
	prev.RA = rule.Rule{Kind: rule.Offset, Reg: rule.CFA, Offset: -8}
	prev.FP = rule.Rule{Kind: rule.SameValue}
	if r0 := fn.cfi[0]; r0.CFA == prev.CFA && r0.RA == prev.RA {
		prev = r0 // the CIE's initial row, which .cfi_startproc gives
	} else if k := r0.FP.Kind; k == rule.Undefined || k == rule.SameValue {
		prev.FP = r0.FP // how the reader says "no rule" for FP
	}
	nops := 0
	flush := func() {
		if nops > 0 {
			lines = append(lines, fmt.Sprintf("\t.nops\t%d", nops))
			nops = 0
		}
	}
	for i, off := range fn.insts {
		if off >= until && i > 0 {
			break
		}
		pc := fn.start + off
		if j := rowAt(fn.cfi, pc); j >= 0 {
			if d := cfiDirectives(arch.AMD64Arch, prev, fn.cfi[j], splitCFA); len(d) > 0 {
				flush()
				lines = append(lines, d...)
				prev = fn.cfi[j]
			}
		}
		end := uint64(len(code))
		if i+1 < len(fn.insts) {
			end = fn.insts[i+1]
		}
		inst, err := x86asm.Decode(code[off:end], 64)
		if err == nil && stackInst(inst) {
			flush()
			lines = append(lines, "\t"+x86asm.GNUSyntax(inst, 0, nil))
			continue
		}
		nops += int(end - off)
	}
	flush()
	return lines, nil
}

// funcCode reads the bytes of fn.
func funcCode(path string, fn *diffFn) ([]byte, error) {
	m := pathModule(path)
	defer m.Close()
	layout, err := m.Layout()
	if err != nil {
		return nil, err
	}
	return sectionBytes(path, layout.File(), layout.Addr, fn.start, fn.end)
}

// stackInst reports whether inst moves or reads the stack pointer or the
// frame pointer: push, pop, leave, ret, enter, and an instruction with
// rsp or rbp as an operand. Branches and calls are not (their targets
// would not assemble alone; they leave the CFA as it is).
func stackInst(inst x86asm.Inst) bool {
	switch inst.Op {
	case x86asm.PUSH, x86asm.POP, x86asm.LEAVE, x86asm.RET, x86asm.ENTER:
		return true
	case x86asm.CALL, x86asm.JMP, x86asm.LCALL, x86asm.LJMP:
		return false
	}
	for _, a := range inst.Args {
		if _, rel := a.(x86asm.Rel); rel {
			return false
		}
		if m, ok := a.(x86asm.Mem); ok && m.Base == x86asm.RIP {
			return false
		}
	}
	for _, a := range inst.Args {
		if a == x86asm.RSP || a == x86asm.RBP {
			return true
		}
	}
	return false
}

// x86RegName is the assembler name of an x86-64 DWARF register.
func x86RegName(r rule.Reg) string {
	names := [...]string{"%rax", "%rdx", "%rcx", "%rbx", "%rsi", "%rdi", "%rbp", "%rsp",
		"%r8", "%r9", "%r10", "%r11", "%r12", "%r13", "%r14", "%r15", "%rip"}
	if r >= 0 && int(r) < len(names) {
		return names[r]
	}
	return fmt.Sprint(int(r))
}

// cfiDirectives returns the directives that turn row a into row b on
// machine m (registers named by regNamer). A CFA whose register and
// offset both change is one .cfi_def_cfa, or with splitCFA
// .cfi_def_cfa_offset then .cfi_def_cfa_register (assemblers have treated
// the two forms differently).
func cfiDirectives(m *arch.Arch, a, b frames.Row, splitCFA bool) []string {
	regName := regNamer(m)
	var out []string
	if a.CFA != b.CFA {
		switch b.CFA.Kind {
		case rule.ValOffset:
			if a.CFA.Kind != rule.ValOffset || !splitCFA && a.CFA.Reg != b.CFA.Reg && a.CFA.Offset != b.CFA.Offset {
				out = append(out, fmt.Sprintf("\t.cfi_def_cfa\t%s, %d", regName(b.CFA.Reg), b.CFA.Offset))
				break
			}
			if a.CFA.Offset != b.CFA.Offset {
				out = append(out, fmt.Sprintf("\t.cfi_def_cfa_offset\t%d", b.CFA.Offset))
			}
			if a.CFA.Reg != b.CFA.Reg {
				out = append(out, fmt.Sprintf("\t.cfi_def_cfa_register\t%s", regName(b.CFA.Reg)))
			}
		case rule.ValExpression:
			out = append(out, escape(0x0f, -1, b.CFA.Expr)) // DW_CFA_def_cfa_expression
		}
	}
	type regRule struct {
		reg  rule.Reg
		a, b rule.Rule
		hasB bool // b has a rule for reg (FP and RA always do)
	}
	regs := []regRule{{m.RA, a.RA, b.RA, true}, {m.FP, a.FP, b.FP, true}}
	seen := map[rule.Reg]int{}
	a.Other.Each(func(reg rule.Reg, r rule.Rule) {
		seen[reg] = len(regs)
		regs = append(regs, regRule{reg: reg, a: r})
	})
	b.Other.Each(func(reg rule.Reg, r rule.Rule) {
		if i, ok := seen[reg]; ok {
			regs[i].b, regs[i].hasB = r, true
		} else {
			regs = append(regs, regRule{reg, rule.Rule{Kind: rule.SameValue}, r, true})
		}
	})
	sort.SliceStable(regs[2:], func(i, j int) bool { return regs[2+i].reg < regs[2+j].reg })
	for _, r := range regs {
		if r.hasB && r.a == r.b {
			continue
		}
		name := regName(r.reg)
		switch {
		case !r.hasB, r.b.Kind == rule.SameValue, r.reg == m.FP && r.b.Kind == rule.Undefined:
			// No rule any more: back to the CIE's (same value).
			out = append(out, fmt.Sprintf("\t.cfi_restore\t%s", name))
		case r.b.Kind == rule.Offset:
			out = append(out, fmt.Sprintf("\t.cfi_offset\t%s, %d", name, r.b.Offset))
		case r.b.Kind == rule.ValOffset:
			out = append(out, fmt.Sprintf("\t.cfi_val_offset\t%s, %d", name, r.b.Offset))
		case r.b.Kind == rule.Register:
			out = append(out, fmt.Sprintf("\t.cfi_register\t%s, %s", name, regName(r.b.Reg)))
		case r.b.Kind == rule.Undefined:
			out = append(out, fmt.Sprintf("\t.cfi_undefined\t%s", name))
		case r.b.Kind == rule.Expression:
			out = append(out, escape(0x10, r.reg, r.b.Expr)) // DW_CFA_expression
		case r.b.Kind == rule.ValExpression:
			out = append(out, escape(0x16, r.reg, r.b.Expr)) // DW_CFA_val_expression
		}
	}
	return out
}

// escape writes a DWARF CFA instruction with an expression block as
// .cfi_escape: op, the register (reg >= 0) and the block's length
// (ULEB128), then the expression's bytes.
func escape(op byte, reg rule.Reg, expr string) string {
	b := []byte{op}
	if reg >= 0 {
		b = appendULEB(b, uint64(reg))
	}
	b = appendULEB(b, uint64(len(expr)))
	b = append(b, expr...)
	parts := make([]string, len(b))
	for i, x := range b {
		parts[i] = fmt.Sprintf("%#02x", x)
	}
	return "\t.cfi_escape\t" + strings.Join(parts, ", ")
}

func appendULEB(b []byte, v uint64) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if v != 0 {
			b = append(b, c|0x80)
			continue
		}
		return append(b, c)
	}
}

// ReproFinding returns the finding of check on the object at path in the
// function named fn of kind k, if check still makes it.
func ReproFinding(path, fn string, k Kind) (Finding, bool, error) {
	rep, err := CheckFile(path, CheckOptions{})
	if err != nil {
		return Finding{}, false, err
	}
	for _, f := range rep.Findings {
		if f.Function == fn && f.Kind == k {
			return f, true, nil
		}
	}
	return Finding{}, false, nil
}

// ReproRows returns, for the function fn of the object at path, its CFI
// rows (what SFrame should say) and its SFrame rows, one line per row as
// objdump --sframe prints an FRE: start PC, CFA, FP and RA.
func ReproRows(path, fn string) (expected, actual []string, err error) {
	side, err := loadDiffSide(path)
	if err != nil {
		return nil, nil, err
	}
	for _, g := range side.byName[fn] {
		for _, r := range g.cfi {
			expected = append(expected, objdumpRow(r))
		}
		for _, r := range g.sf {
			actual = append(actual, objdumpRow(r))
		}
	}
	return expected, actual, nil
}

// objdumpRow formats a row as objdump --sframe prints an FRE.
func objdumpRow(r frames.Row) string {
	cfa := "u"
	if r.CFA.Kind == rule.ValOffset {
		base := "sp"
		if r.CFA.Reg == frames.RBP {
			base = "fp"
		} else if r.CFA.Reg != frames.RSP {
			base = x86RegName(r.CFA.Reg)[1:]
		}
		cfa = fmt.Sprintf("%s%+d", base, r.CFA.Offset)
	} else if r.CFA.Kind != rule.Undefined {
		cfa = frames.RuleStringFor(arch.AMD64Arch, r.CFA)
	}
	off := func(x rule.Rule, fixed string) string {
		switch {
		case x.Kind == rule.Offset && x.Reg == rule.CFA:
			if fixed != "" && x.Offset == -8 {
				return fixed
			}
			return fmt.Sprintf("c%+d", x.Offset)
		case x.Kind == rule.Undefined:
			return "u"
		case x.Kind == rule.SameValue:
			return "u"
		}
		return frames.RuleStringFor(arch.AMD64Arch, x)
	}
	return fmt.Sprintf("%016x  %-9s %-9s %s", r.Start, cfa, off(r.FP, ""), off(r.RA, "f"))
}
