package compare

import (
	"debug/elf"
	"fmt"
	"path/filepath"

	"github.com/sfdbg/sfdbg/frames"
	"github.com/sfdbg/sfdbg/sframe"
	"github.com/sfdbg/sfdbg/sframe/arch"
	"github.com/sfdbg/sfdbg/sframe/rule"
)

// InsnRows is one instruction of a function with the row each witness
// gives before it: the picture a toolchain engineer draws by hand.
type InsnRows struct {
	PC   uint64 `json:"pc"`
	Text string `json:"insn"`
	// SFrame, CFI and Code are "CFA=rsp+16 RA=c-8 FP=u", or "" where the
	// witness has no row.
	SFrame string `json:"sframe,omitempty"`
	CFI    string `json:"cfi,omitempty"`
	Code   string `json:"code,omitempty"`
	// Differs is set where the witnesses that have a row disagree;
	// StackOp where the instruction moves SP (a push, a pop, an SP
	// adjust or realignment, SP set from another register).
	Differs bool `json:"differs,omitempty"`
	StackOp bool `json:"stack_op,omitempty"`
}

// FuncRows is a function of a file, instruction by instruction.
type FuncRows struct {
	File     string     `json:"file"`
	Function string     `json:"function"`
	Start    uint64     `json:"start"`
	End      uint64     `json:"end"`
	Arch     string     `json:"arch"`
	Insns    []InsnRows `json:"insns"`
}

// maxFuncRows bounds the bytes of a function FunctionRows decodes.
const maxFuncRows = 64 << 10

// FunctionRows decodes the function of the ELF file at path that starts
// at start (a finding's FuncStart: link-time, or the address check gives a
// relocatable object's section), with its SFrame, CFI and code rows at
// every instruction. Errors: the file or its machine cannot be read, or no
// function (symbol, SFrame or CFI FDE) starts there.
func FunctionRows(path string, start uint64) (*FuncRows, error) {
	m := &frames.Module{Name: filepath.Base(path), Path: path, OpenPath: path, Start: 0, End: 1 << 62}
	defer m.Close()
	a, err := m.Arch()
	if err != nil {
		return nil, err
	}
	if a.Decoder == nil {
		return nil, fmt.Errorf("%s: no instruction decoder for %s", path, a.Name)
	}
	name, _, _ := m.FuncName(start)
	end := uint64(0)
	if name != "" {
		if addr, size, ok := m.LookupSymbol(name); ok && addr == start && size > 0 {
			end = start + size
		}
	}
	sec, _ := m.SFrame()
	if end == 0 && sec != nil {
		if fde, err := sec.FindFDE(start); err == nil && fde.Start == start {
			end = fde.End()
		}
	}
	if end == 0 {
		if rows, err := m.CFIRows(start, start+1); err == nil && len(rows) > 0 && rows[0].Src.FDEStart == start {
			end = rows[0].Src.FDEEnd
		}
	}
	if end <= start || end-start > maxFuncRows {
		return nil, fmt.Errorf("%s: no function of at most %d bytes starts at %#x", path, maxFuncRows, start)
	}
	l, err := m.Layout()
	if err != nil {
		return nil, err
	}
	s, off, ok := l.Locate(start)
	if !ok || s.Type == elf.SHT_NOBITS || end-start > s.Size-off {
		return nil, fmt.Errorf("%s: the bytes of %#x-%#x are not in the file", path, start, end)
	}
	code := make([]byte, end-start)
	if _, err := s.ReadAt(code, int64(off)); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	fr := &FuncRows{File: path, Function: name, Start: start, End: end, Arch: a.Name}
	var walked interface {
		RowAt(pc uint64) (rule.Row, bool)
	}
	if an, err := m.CodeAnalyzer(); err == nil {
		if fn, _, _ := an.Analyze(code, start); fn != nil {
			walked = fn
		}
	}
	for pc := start; pc < end; {
		var in arch.Inst
		b := code[pc-start:]
		ir := InsnRows{PC: pc, Text: a.Decoder.Text(b, pc)}
		n := 1
		if a.Decoder.Decode(b, pc, &in) == nil && in.Len > 0 {
			n = in.Len
			for _, op := range in.Ops[:in.NOps] {
				switch op.Kind {
				case arch.OpPush, arch.OpPop, arch.OpAddSP, arch.OpAndSP, arch.OpSubSPReg, arch.OpAddSPReg:
					ir.StackOp = true
				case arch.OpSetReg, arch.OpRestore, arch.OpClobber:
					ir.StackOp = ir.StackOp || op.Reg == a.SP
				}
			}
		}
		if sec != nil {
			ir.SFrame = sframeRowText(a, sec, pc)
		}
		if r, err := m.CFIRow(pc); err == nil {
			ir.CFI = insnRowText(a, r.Row)
		}
		if walked != nil {
			if r, ok := walked.RowAt(pc); ok {
				ir.Code = insnRowText(a, r)
			}
		}
		var have []string
		for _, t := range []string{ir.SFrame, ir.CFI, ir.Code} {
			if t != "" {
				have = append(have, t)
			}
		}
		for _, t := range have[min(1, len(have)):] {
			ir.Differs = ir.Differs || t != have[0]
		}
		fr.Insns = append(fr.Insns, ir)
		pc += uint64(n)
	}
	return fr, nil
}

// sframeRowText is SFrame's row at link-time pc, or "".
func sframeRowText(a *arch.Arch, sec *sframe.Section, pc uint64) string {
	fde, err := sec.FindFDE(pc)
	if err != nil {
		return ""
	}
	var fre sframe.FRE
	if _, _, err := sec.FindFRERange(fde, pc, &fre); err != nil {
		return ""
	}
	var r rule.Row
	if err := sec.RowInto(&r, fde, &fre); err != nil {
		return ""
	}
	return insnRowText(a, r)
}

// insnRowText formats a row's CFA, RA and FP rules as dump prints them.
func insnRowText(a *arch.Arch, r rule.Row) string {
	return fmt.Sprintf("CFA=%s RA=%s FP=%s", frames.RuleStringFor(a, r.CFA), frames.RuleStringFor(a, r.RA), frames.RuleStringFor(a, r.FP))
}
