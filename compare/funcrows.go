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
	// The code's rows are the check's own (FramesCode), and a table's row
	// differs from them where the check's judge says so (diffCode: by
	// value, with the code's alternatives, such as FP still in its
	// register before the table records its save).
	var walked CodeRows
	if fs, err := FramesCode(m); err == nil {
		walked = fs(code, start)
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
		var tables []rule.Row
		if sec != nil {
			if r, ok := sframeRow(sec, pc); ok {
				ir.SFrame = insnRowText(a, r)
				tables = append(tables, r)
			}
		}
		if r, err := m.CFIRow(pc); err == nil {
			ir.CFI = insnRowText(a, r.Row)
			if ir.SFrame != "" {
				ir.Differs = ir.SFrame != ir.CFI
			}
			tables = append(tables, r.Row)
		}
		if walked != nil {
			if st := walked.At(pc); st.Known {
				ir.Code = insnRowText(a, st.Row)
				for _, t := range tables {
					d := diffCode(walked, &st, frames.Row{Row: t}, pc)
					ir.Differs = ir.Differs || d.CFA || d.RA || d.FP
				}
			}
		}
		fr.Insns = append(fr.Insns, ir)
		pc += uint64(n)
	}
	return fr, nil
}

// sframeRow is SFrame's row at link-time pc.
func sframeRow(sec *sframe.Section, pc uint64) (rule.Row, bool) {
	var r rule.Row
	fde, err := sec.FindFDE(pc)
	if err != nil {
		return r, false
	}
	var fre sframe.FRE
	if _, _, err := sec.FindFRERange(fde, pc, &fre); err != nil {
		return r, false
	}
	return r, sec.RowInto(&r, fde, &fre) == nil
}

// insnRowText formats a row's CFA, RA and FP rules as dump prints them.
func insnRowText(a *arch.Arch, r rule.Row) string {
	return fmt.Sprintf("CFA=%s RA=%s FP=%s", frames.RuleStringFor(a, r.CFA), frames.RuleStringFor(a, r.RA), frames.RuleStringFor(a, r.FP))
}
