package frames

import (
	"errors"
	"fmt"
	"strings"

	"github.com/sfdbg/sfdbg/frames/cfi"
	"github.com/sfdbg/sfdbg/frames/ehabi"
	"github.com/sfdbg/sfdbg/sframe/arch"
	"github.com/sfdbg/sfdbg/sframe/rule"
)

// ARM registers the EHABI unwinding instructions name (DWARF numbers).
const (
	armSP rule.Reg = 13
	armLR rule.Reg = 14
	armPC rule.Reg = 15
)

// ErrEHABINoRow is wrapped by EHABIRow's error for valid instructions that
// no row can express: a pop of r13 (the caller's SP loaded from the
// stack, as glibc's signal restorers do).
var ErrEHABINoRow = errors.New("not expressible as a row")

// EHABIRow interprets the ARM unwinding instructions of u (EHABI 9.3, as
// libgcc's __gnu_unwind_execute runs them: the virtual SP, vsp, starts at
// the frame's SP; "finish" or the end of the list ends the program; the
// caller's PC is r14's value unless r15 was popped) as one row in the
// common form, for the machine a (arch.ARMArch or ARMBEArch): the CFA is
// the vsp at the end (the caller's SP), as a base register plus an offset
// in bytes; RA is where r15, else r14, was popped (at the CFA minus so
// many bytes), or r14 itself when neither was; FP is r11's rule; Other
// holds every other register popped, sorted by DWARF number (VFP D[n] for
// n < 16 as s[2n] and s[2n+1], the numbers GCC's CFI uses; d16-d31 as
// 256+n). The row describes the function's body (its call sites), never
// its entry; Src, Start and End are left to the caller.
//
// Errors: a row cannot be built for an instruction EHABI reserves or
// leaves spare, a truncated list, a refusal (0x80 0x00), a pop of r13, a
// "vsp = r[n]" whose register was popped before, or pops relative to a
// base register the program then replaces: the error names the opcode
// and its byte offset in its section.
func EHABIRow(a *arch.Arch, u *ehabi.Unwind) (Row, error) { return ehabiRow(a, u, false) }

// ehabiRow is EHABIRow; with popSP a pop of r13 is a rule of r13 among
// Other (the caller's SP loaded from the stack, as libgcc's unwinder
// loads it), which the evaluator applies after the CFA: the unwinder's
// row of glibc's signal restorers, whose entries pop r0-r15 from the
// kernel's frame.
func ehabiRow(a *arch.Arch, u *ehabi.Unwind, popSP bool) (Row, error) {
	base, off := armSP, int64(0) // vsp = base + off
	type slot struct {
		base rule.Reg
		off  int64
	}
	saved := map[rule.Reg]slot{}
	pop := func(r rule.Reg, size int64) {
		saved[r] = slot{base, off}
		off += size
	}
	bad := func(op *ehabi.Op, why string) (Row, error) {
		return Row{}, fmt.Errorf("%s byte %#x: opcode %s: %s", op.Section, op.Off, strings.TrimSpace(op.Text(ehabi.ARM)), why)
	}
loop:
	for i := range u.Ops {
		op := &u.Ops[i]
		switch op.Kind {
		case ehabi.OpVSPAdd:
			off += int64(op.Arg)
		case ehabi.OpVSPSub:
			off -= int64(op.Arg)
		case ehabi.OpPopMask, ehabi.OpPopLow:
			first := rule.Reg(4)
			if op.Kind == ehabi.OpPopLow {
				first = 0
			}
			for b := rule.Reg(0); b < 12; b++ {
				if op.Arg&(1<<b) == 0 {
					continue
				}
				if first+b == armSP && !popSP {
					r, err := bad(op, "pops r13: the caller's SP is loaded from the stack, not a base register plus an offset")
					return r, fmt.Errorf("%w: %w", err, ErrEHABINoRow)
				}
				pop(first+b, 4)
			}
		case ehabi.OpPopRange:
			for r := rule.Reg(4); r <= 4+rule.Reg(op.Arg); r++ {
				pop(r, 4)
			}
			if op.LR {
				pop(armLR, 4)
			}
		case ehabi.OpVSPReg:
			n := rule.Reg(op.Arg)
			if _, ok := saved[n]; ok {
				return bad(op, "vsp is set from a register popped before")
			}
			if len(saved) > 0 {
				return bad(op, "registers were popped relative to the vsp it replaces")
			}
			base, off = n, 0
		case ehabi.OpFinish:
			break loop
		case ehabi.OpPopVFP:
			// 0xb3 and 0xb8-0xbf are the FSTMFDX forms: one pad word after
			// the registers.
			fstmfdx := op.Bytes[0] == 0xb3 || op.Bytes[0]&0xf8 == 0xb8
			for d := op.First; d <= op.First+op.Count; d++ {
				if d < 16 {
					pop(arch.ARMS0+rule.Reg(2*d), 4)
					pop(arch.ARMS0+rule.Reg(2*d+1), 4)
				} else {
					pop(arch.ARMD0+rule.Reg(d), 8)
				}
			}
			if fstmfdx {
				off += 4
			}
		case ehabi.OpPopWR:
			off += 8 * int64(op.Count+1) // iWMMXt registers: not tracked
		case ehabi.OpPopWCGR:
			for b := 0; b < 4; b++ {
				if op.Arg&(1<<b) != 0 {
					off += 4
				}
			}
		case ehabi.OpPopPAC:
			off += 4 // ra_auth_code: not tracked
		case ehabi.OpPACModifier:
		default:
			return bad(op, op.Kind.String()+": no row")
		}
	}
	same := rule.Rule{Kind: rule.SameValue, Reg: rule.CFA}
	row := Row{Row: rule.Row{CFA: rule.Rule{Kind: rule.ValOffset, Reg: base, Offset: off}, RA: same, FP: same,
		SPOffset: a.SPOffset}}
	at := func(r rule.Reg) (rule.Rule, error) {
		s := saved[r]
		if s.base != base {
			return rule.Rule{}, fmt.Errorf("%s byte %#x: %s is popped relative to r%d, the CFA is r%d-based", u.Section, u.Off, a.RegName(r), s.base, base)
		}
		return rule.Rule{Kind: rule.Offset, Reg: rule.CFA, Offset: s.off - off}, nil
	}
	var other []cfi.RegRule
	for r := range saved {
		ru, err := at(r)
		if err != nil {
			return Row{}, err
		}
		switch r {
		case armPC:
			row.RA = ru
		case armLR:
			if _, pc := saved[armPC]; !pc {
				row.RA = ru
			} else {
				other = append(other, cfi.RegRule{Reg: r, Rule: ru})
			}
		case a.FP:
			row.FP = ru
		default:
			other = append(other, cfi.RegRule{Reg: r, Rule: ru})
		}
	}
	row.Other = NewOtherRules(other, armPC, a.FP)
	return row, nil
}

// EHABIOpsText is the unwinding instructions of u as readelf -u prints
// them, one after the other: "0x84 0x08 pop {r4, r14}; 0xb0 finish".
func EHABIOpsText(u *ehabi.Unwind) string {
	parts := make([]string, 0, len(u.Ops))
	for i := range u.Ops {
		parts = append(parts, strings.Join(strings.Fields(u.Ops[i].Text(ehabi.ARM)), " "))
	}
	return strings.Join(parts, "; ")
}
