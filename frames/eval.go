package frames

// This file is the one evaluator of unwind rules: the SFrame and DWARF CFI
// unwinders find a Row for a frame (sframe_unwind.go, cfi.go) and both
// compute the caller from it with stepRow.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	"github.com/go-delve/delve/pkg/dwarf/op"
	"github.com/sirupsen/logrus"

	"github.com/sfdbg/sfdbg/sframe/arch"
	"github.com/sfdbg/sfdbg/sframe/rule"
)

// Errors of rule evaluation, classified into Reasons by evalReason.
var (
	// errUnsafe: an SFrame rule reads a register other than SP and FP
	// outside the topmost frame (spec v3 Appendix A, ERR_SFRAME_UNSAFE_UNWIND).
	errUnsafe = errors.New("register only known in the topmost frame")
	// errBadExpr marks a DWARF expression Delve's evaluator panicked on.
	errBadExpr = errors.New("malformed DWARF expression")
)

// unknownRegError reports a rule that needs a register the frame does not
// know.
type unknownRegError struct {
	reg  rule.Reg
	arch *arch.Arch
}

func (e *unknownRegError) Error() string {
	return fmt.Sprintf("%s is not known in this frame", archOr(e.arch).RegName(e.reg))
}

// evalReason classifies an evaluation error.
func evalReason(err error) Reason {
	var me *MemoryError
	var ue *unknownRegError
	switch {
	case errors.As(err, &me):
		return ReasonMemory
	case errors.As(err, &ue), errors.Is(err, errUnsafe):
		return ReasonUnsafe
	case errors.Is(err, errBadExpr):
		return ReasonFormat
	}
	return ReasonUnsupported
}

// evaluator evaluates the rules of one row in frame f.
type evaluator struct {
	f   *Frame
	mem Memory
	// strict applies SFrame's rule (spec v3 Appendix A): outside the
	// topmost or an interrupted frame, only SP and FP may be read. DWARF
	// CFI may read any register the unwind has recovered.
	strict  bool
	cfa     uint64
	haveCFA bool // cfa is known (the CFA rule itself cannot use it)
}

// reg returns the value of register r in the frame; r may be RegCFA once
// the CFA is known. The PC register is the frame's PC.
func (e *evaluator) reg(r rule.Reg) (uint64, error) {
	if r == rule.CFA {
		if !e.haveCFA {
			return 0, errors.New("the CFA rule refers to the CFA")
		}
		return e.cfa, nil
	}
	regs := &e.f.Regs
	if e.strict && r != regs.SPReg && r != regs.FPReg && e.f.Level != 0 && !e.f.Interrupted {
		return 0, errUnsafe
	}
	if r == regs.PCReg {
		return e.f.PC, nil
	}
	if v, ok := regs.Get(r); ok {
		return v, nil
	}
	return 0, &unknownRegError{r, regs.Arch}
}

// value evaluates a rule that yields a value: offset, val-offset, register
// and the expression kinds.
func (e *evaluator) value(r rule.Rule) (uint64, error) {
	switch r.Kind {
	case rule.ValOffset, rule.Offset:
		base, err := e.reg(r.Reg)
		if err != nil {
			return 0, err
		}
		addr := base + uint64(r.Offset)
		if r.Kind == rule.ValOffset {
			return addr, nil
		}
		return ReadPtr(e.mem, addr, e.f.Regs.arch().PtrSize)
	case rule.Register:
		return e.reg(r.Reg)
	case rule.Expression, rule.ValExpression:
		// Register rules get the CFA pushed first (DWARF 5 §6.4.2.3); the
		// CFA rule does not.
		v, err := e.expr(r.Expr, e.haveCFA)
		if err != nil || r.Kind == rule.ValExpression {
			return v, err
		}
		return ReadPtr(e.mem, v, e.f.Regs.arch().PtrSize)
	}
	return 0, fmt.Errorf("a %v rule yields no value", r.Kind)
}

// expr evaluates a DWARF expression with Delve's op package, the frame's
// known registers and the target's memory, behind recover.
func (e *evaluator) expr(expr string, pushCFA bool) (v uint64, err error) {
	prog := []byte(expr)
	if pushCFA {
		prog = make([]byte, 9+len(expr))
		prog[0] = byte(op.DW_OP_const8u)
		ByteOrder(e.mem).PutUint64(prog[1:], e.cfa)
		copy(prog[9:], expr)
	}
	x := exprEnv{regs: &e.f.Regs, pc: e.f.PC, mem: e.mem}
	if pushCFA {
		x.cfa = e.cfa
	}
	res, pieces, err := x.exec(prog)
	if err != nil {
		return 0, err
	}
	if pieces != nil {
		return 0, fmt.Errorf("DWARF expression %x names a location, not an address", expr)
	}
	return uint64(res), nil
}

// exprEnv is what a DWARF expression is evaluated with: a frame's known
// registers and PC, its CFA (0: unknown) and frame base, the module's
// load bias (DW_OP_addr's static base) and the target's memory.
type exprEnv struct {
	regs       *Regs
	pc         uint64
	cfa        uint64
	frameBase  int64
	staticBase uint64
	mem        Memory
}

// exec evaluates prog with Delve's op package (pkg/dwarf/op), behind
// recover: the one DWARF expression evaluator, for unwind rules and
// variable locations. It returns op.ExecuteStackProgram's address or
// pieces; errors are *MemoryError for unreadable memory, errBadExpr
// for an expression that made the evaluator panic, or op's own.
func (x *exprEnv) exec(prog []byte) (v int64, pieces []op.Piece, err error) {
	var memErr error
	defer func() {
		if r := recover(); r != nil {
			v, pieces, err = 0, nil, fmt.Errorf("%w: DWARF expression %x: evaluation panicked: %v", errBadExpr, prog, r)
		}
		if memErr != nil {
			err = memErr
		}
	}()
	regs := make([]*op.DwarfRegister, MaxReg)
	for r := range regs {
		if v, ok := x.regs.Get(rule.Reg(r)); ok {
			regs[r] = op.DwarfRegisterFromUint64(v)
		}
	}
	pcReg := x.regs.PCReg
	regs[pcReg] = op.DwarfRegisterFromUint64(x.pc)
	order := ByteOrder(x.mem)
	bigEndian := order == binary.BigEndian
	if bigEndian {
		// Delve's evaluator reads operands and memory words
		// little-endian: give it both in that order.
		le, err := littleEndianOperands(prog)
		if err != nil {
			return 0, nil, err
		}
		prog = le
	}
	dr := op.NewDwarfRegisters(x.staticBase, regs, order, uint64(pcReg), uint64(x.regs.SPReg), uint64(x.regs.FPReg), 0)
	dr.CFA = int64(x.cfa)
	dr.FrameBase = x.frameBase
	mem := x.mem // the closure must not capture x, which would escape
	read := func(buf []byte, addr uint64) (int, error) {
		n, err := mem.ReadAt(buf, addr)
		if err != nil || n < len(buf) {
			if err == nil {
				err = fmt.Errorf("short read (%d of %d bytes)", n, len(buf))
			}
			memErr = &MemoryError{Addr: addr, Err: err}
			return n, memErr
		}
		if bigEndian {
			slices.Reverse(buf) // a DW_OP_deref's word, read as little-endian
		}
		return n, nil
	}
	res, pieces, err := op.ExecuteStackProgram(*dr, prog, x.regs.arch().PtrSize, read)
	if err != nil {
		return 0, nil, fmt.Errorf("DWARF expression %x: %w", prog, err)
	}
	return res, pieces, nil
}

// apply sets register r of the caller's regs by rule. A rule that cannot
// be evaluated leaves the register unknown, as gdb reports such a register
// unavailable only when it is asked for.
func (e *evaluator) apply(regs *Regs, r rule.Reg, ru rule.Rule) {
	switch ru.Kind {
	case rule.Undefined:
		regs.Forget(r)
	case rule.SameValue:
		if v, ok := e.f.Regs.Get(r); ok {
			regs.Set(r, v)
		} else {
			regs.Forget(r)
		}
	default:
		v, err := e.value(ru)
		if err != nil {
			logrus.Debugf("frames: %s above frame %d at %#x: %v", regs.arch().RegName(r), e.f.Level, e.f.PC, err)
			regs.Forget(r)
			return
		}
		regs.Set(r, v)
	}
}

// stepRow computes into caller the caller of frame f from f.Row, which the
// SFrame or the DWARF CFI unwinder has filled in, and sets f.CFA. The
// caller's SP is the CFA plus SPOffset, its PC the RA; the FP follows its
// rule (same-value: the callee's). For a DWARF CFI row (Src.Method
// MethodCFI), the code's (MethodCode) and an EHABI entry's (MethodEHABI,
// whose unwinding instructions leave the registers they do not pop as they
// are) the callee-saved registers without a rule keep their value and
// every rule of Other is applied, as gdb does; on 32-bit ARM the caller's
// PC is the return address without its Thumb bit, which sets the caller's
// CPSR T bit (arch.Thumb); an SFrame row recovers PC,
// SP and FP only, and a failure to read the FP fails the step (spec v3
// Appendix A). A signal trampoline's DWARF CFI row marks the caller
// Interrupted. Errors are *StopError: ReasonOutermost (RA undefined),
// ReasonFormat (no CFA rule), ReasonUnsafe (a register not known here),
// ReasonMemory, ReasonUnsupported, ReasonBadFrame (RA not saved). The row
// is read in place and the caller written through a pointer: this runs at
// every frame of every method.
func stepRow(f *Frame, space *Space, caller *Frame) error {
	row := &f.Row
	method := row.Src.Method
	if row.Outermost || row.RA.Kind == rule.Undefined {
		return stepStop(f, ReasonOutermost, nil, "outermost frame: the return address is undefined at %s", stepWhere(f))
	}
	if row.CFA.Kind == rule.Undefined {
		return stepStop(f, ReasonFormat, nil, "no CFA rule at %s", stepWhere(f))
	}
	if row.MangledRA && !f.Regs.arch().PAuth {
		return stepStop(f, ReasonUnsupported, nil, "mangled (signed) RA at %s, outside AArch64", stepWhere(f))
	}
	e := evaluator{f: f, mem: space.Mem, strict: method == MethodSFrame}
	cfa, err := e.value(row.CFA)
	if err != nil {
		return stepStop(f, evalReason(err), err, "cannot compute the CFA (%s) at %s: %v", RuleStringFor(row.Src.Arch, row.CFA), stepWhere(f), err)
	}
	e.cfa, e.haveCFA = cfa, true
	f.CFA = cfa
	raRule := row.RA
	if raRule.Kind == rule.SameValue {
		// The RA is still in its register: AArch64's LR, s390x's r14.
		// On AMD64 the RA column is the PC itself: not saved anywhere.
		ra := f.Regs.arch().RA
		if ra == f.Regs.PCReg {
			return stepStop(f, ReasonBadFrame, nil, "the return address is not saved at %s", stepWhere(f))
		}
		raRule = rule.Rule{Kind: rule.Register, Reg: ra}
	}
	pc, err := e.value(raRule)
	if err != nil {
		return stepStop(f, evalReason(err), err, "cannot read the return address (%s) at %s: %v",
			RuleStringFor(row.Src.Arch, row.RA), stepWhere(f), err)
	}
	if row.MangledRA {
		// A signed return address (AArch64 PAuth: SFrame's mangled-RA bit,
		// DWARF's negate_ra_state): the caller's PC is the address
		// without its PAC, as gdb computes it.
		pc = space.StripPAC(pc)
	}
	raw := pc
	thumb := f.Regs.arch().Thumb
	if thumb != nil {
		// 32-bit ARM: bit 0 of the return address is the caller's
		// instruction set (arch.Thumb).
		pc &^= 1
	}
	caller.Level, caller.PC, caller.Method = f.Level+1, pc, method
	caller.Regs = f.Regs.empty()
	caller.Regs.Set(caller.Regs.SPReg, uint64(int64(cfa)+row.SPOffset))
	if ra := f.Regs.arch().RA; ra != f.Regs.PCReg {
		// The RA column's register (x30, r14) holds the return address in
		// the caller too: its rule is the RA's.
		caller.Regs.Set(ra, raw)
	}
	if thumb != nil {
		caller.Regs.Set(thumb.CPSR, (raw&1)*arch.CPSRT)
	}
	if method == MethodCFI || method == MethodCode || method == MethodEHABI {
		caller.Interrupted = row.Signal
		for _, r := range f.Regs.arch().CalleeSaved {
			if v, ok := f.Regs.Get(r); ok {
				caller.Regs.Set(r, v)
			}
		}
	}
	switch {
	case row.FP.Kind == rule.SameValue:
		if v, ok := f.Regs.FP(); ok {
			caller.Regs.Set(caller.Regs.FPReg, v)
		}
	case method == MethodSFrame:
		fp, err := e.value(row.FP)
		if err != nil {
			return stepStop(f, evalReason(err), err, "cannot read the FP (%s) at %s: %v", RuleStringFor(row.Src.Arch, row.FP), stepWhere(f), err)
		}
		caller.Regs.Set(caller.Regs.FPReg, fp)
	default:
		e.apply(&caller.Regs, caller.Regs.FPReg, row.FP)
	}
	row.Other.each(func(reg rule.Reg, r rule.Rule) {
		if reg != caller.Regs.PCReg {
			e.apply(&caller.Regs, reg, r)
		}
	})
	caller.Regs.Set(caller.Regs.PCReg, pc)
	caller.locate(space.Modules)
	return nil
}

// stepWhere names where a step of f failed: "PC 0x.. in libc.so.6
// (.eh_frame FDE 0x1c8 (CIE 0x0))".
func stepWhere(f *Frame) string {
	if f.Row.Src.Module == nil {
		return fmt.Sprintf("PC %#x", f.PC)
	}
	return fmt.Sprintf("PC %#x in %s (%v)", f.PC, f.Row.Src.Module.Name, f.Row.Src)
}

// stepStop builds the *StopError of a step of f with its row's method.
func stepStop(f *Frame, r Reason, err error, format string, args ...any) error {
	se := &StopError{Method: f.Row.Src.Method, Reason: r, PC: f.PC, Err: err, Msg: fmt.Sprintf(format, args...)}
	if f.Row.Src.Module != nil {
		se.Module = f.Row.Src.Module.Name
	}
	return se
}

// EvalRule evaluates a value rule (offset, val-offset, register or a DWARF
// expression) in frame f, reading mem, with the CFA unknown: the one
// evaluator, for callers outside an unwind (the static checker evaluates
// CFA expressions with symbolic register values and a memory that fails).
// Errors are *MemoryError for unreadable memory, or describe a rule that
// needs an unknown register or yields no value.
func EvalRule(r rule.Rule, f *Frame, mem Memory) (uint64, error) {
	e := evaluator{f: f, mem: mem}
	return e.value(r)
}

// littleEndianOperands returns a copy of a big-endian target's DWARF
// expression with its fixed-size integer operands in little-endian order,
// the order in which Delve's op package reads them whatever the target
// (pkg/dwarf/op: binary.LittleEndian for DW_OP_addr, DW_OP_constNu/s,
// DW_OP_skip and DW_OP_bra, DW_OP_call2/4). The block of a DW_OP_entry_value
// is converted too. Errors: an operation opLen does not know, a truncated
// one.
func littleEndianOperands(prog []byte) ([]byte, error) {
	out := slices.Clone(prog)
	for pc := 0; pc < len(out); {
		n, err := opLen(out, pc)
		if err != nil {
			return nil, err
		}
		switch o := out[pc]; o {
		case 0x03, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x28, 0x2f, 0x98, 0x99, 0x9a, 0xfa, 0xfd:
			// addr, const2u/s, const4u/s, const8u/s, bra, skip, call2,
			// call4, call_ref, GNU_parameter_ref, GNU_variable_value: one
			// operand, the rest of the operation.
			slices.Reverse(out[pc+1 : pc+n])
		case opEntryValue, opGNUEntryValue:
			r := &locReader{b: out, off: pc + 1, ls: &locSections{}}
			l := r.uleb()
			start := r.off
			block, err := littleEndianOperands(out[start : start+int(l)])
			if err != nil {
				return nil, err
			}
			copy(out[start:], block)
		}
		pc += n
	}
	return out, nil
}
