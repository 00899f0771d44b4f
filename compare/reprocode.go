package compare

import (
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"

	"github.com/sfdbg/sfdbg/frames"
	"github.com/sfdbg/sfdbg/sframe/arch"
	"github.com/sfdbg/sfdbg/sframe/rule"
)

// ReproCodeKind reports whether check --reproduce rebuilds findings of
// kind k from the function's machine code and its CFI: the code oracle's
// findings that mislead an unwinder (code-cfa, code-ra, code-fp,
// code-state).
func ReproCodeKind(k Kind) bool {
	switch k {
	case KindCodeCFA, KindCodeRA, KindCodeFP, KindCodeState:
		return true
	}
	return false
}

// AsmLine is one line of a code reproducer's body: a CFI directive
// (Directive set), or one instruction of the original function, as its
// bytes and objdump's text of it. Nop marks an instruction a reducer
// replaced by nops of the same length.
type AsmLine struct {
	Directive string
	Bytes     []byte
	Text      string
	Nop       bool
}

// CodeRepro is the function of a code finding as standalone assembly
// (ReproduceCode).
type CodeRepro struct {
	Arch *arch.Arch
	// Lines are the body, between .cfi_startproc and .cfi_endproc.
	Lines []AsmLine
	// Off is the finding's offset from the function's start: the
	// rebuilt function has its finding there.
	Off uint64
}

// ReproduceCode returns the function of code finding f (ReproCodeKind) of
// the ELF file at path as the body of a standalone assembly function:
// every instruction of its CFI FDE as its bytes, commented with objdump's
// text, and before each instruction where the CFI row changes, the
// directives that make the change (.cfi_escape for DWARF expressions).
// Assembled, it gives the code oracle the same instructions and the same
// CFI rows at the same offsets, so check finds f again, unless something
// outside the function decided it (a callee that does not return, a
// relocation, a jump table's entries): the caller checks that. The bytes
// keep every encoding; a branch out of the function lands elsewhere,
// which the oracle takes for a tail call or a call as before. It works on
// every machine check's code oracle knows (x86-64, AArch64, s390x).
// ErrNotAssemblers (wrapped) for another kind of finding; an error naming
// the file when it cannot be read.
func ReproduceCode(path string, f Finding) (*CodeRepro, error) {
	if !ReproCodeKind(f.Kind) {
		return nil, fmt.Errorf("%s finding: not the code oracle's: %w", f.Kind, ErrNotAssemblers)
	}
	m := pathModule(path)
	defer m.Close()
	layout, err := m.Layout()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, errors.Unwrap(err))
	}
	a, err := m.Arch()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if a.Decoder == nil {
		return nil, fmt.Errorf("%s: no instruction decoder for %s", path, a.Name)
	}
	cfi := &moduleCFI{m: m}
	ranges, err := cfi.FDERanges()
	if err != nil {
		return nil, fmt.Errorf("%s: reading CFI: %w", path, err)
	}
	var start, end uint64
	for _, r := range ranges {
		if r.Start <= f.PC && f.PC < r.End && r.Start <= f.FuncStart {
			start, end = r.Start, r.End
			break
		}
	}
	if end == 0 {
		return nil, fmt.Errorf("%s: no CFI FDE covers %#x", path, f.PC)
	}
	rows, err := cfi.Rows(start, end)
	if err != nil {
		return nil, fmt.Errorf("%s: CFI of [%#x, %#x): %w", path, start, end, err)
	}
	code, err := sectionBytes(path, layout.File(), layout.Addr, start, end)
	if err != nil {
		return nil, err
	}
	rep := &CodeRepro{Arch: a, Off: f.PC - start}
	prev := frames.Row{Row: a.Entry}
	if len(rows) > 0 && rows[0].CFA == a.Entry.CFA && rows[0].RA == a.Entry.RA {
		prev = rows[0] // the CIE's initial row, which .cfi_startproc gives
	}
	var in arch.Inst
	for off := uint64(0); off < uint64(len(code)); {
		pc := start + off
		if j := rowAt(rows, pc); j >= 0 {
			for _, d := range cfiDirectives(a, prev, rows[j], false) {
				rep.Lines = append(rep.Lines, AsmLine{Directive: d})
			}
			prev = rows[j]
		}
		n := 0
		if err := a.Decoder.Decode(code[off:], pc, &in); err == nil && in.Len > 0 && uint64(in.Len) <= uint64(len(code))-off {
			n = in.Len
		}
		text := ""
		if n == 0 {
			// Not an instruction: its bytes, one unit of the machine.
			n = min(instUnit(a), len(code)-int(off))
			text = "(not an instruction)"
		} else {
			text = a.Decoder.Text(code[off:off+uint64(n)], pc)
		}
		rep.Lines = append(rep.Lines, AsmLine{Bytes: code[off : off+uint64(n)], Text: text})
		off += uint64(n)
	}
	return rep, nil
}

// sectionBytes reads [start, end) of the file's code.
func sectionBytes(path string, f *elf.File, addr func(int) uint64, start, end uint64) ([]byte, error) {
	for i, s := range f.Sections {
		a := addr(i)
		if s.Type != elf.SHT_NOBITS && start >= a && end <= a+s.Size {
			b := make([]byte, end-start)
			if _, err := s.ReadAt(b, int64(start-a)); err != nil {
				return nil, fmt.Errorf("%s: reading [%#x, %#x) of %s: %w", path, start, end, s.Name, err)
			}
			return b, nil
		}
	}
	return nil, fmt.Errorf("%s: [%#x, %#x) is in no section", path, start, end)
}

// instUnit is the smallest instruction length of a: 1 on x86-64, 4 on
// AArch64, 2 on s390x.
func instUnit(a *arch.Arch) int {
	switch a.Machine {
	case elf.EM_AARCH64:
		return 4
	case elf.EM_S390:
		return 2
	}
	return 1
}

// regNamer names DWARF registers in directives: x86-64 by GNU as's names,
// other machines by number (which GNU as takes on every machine).
func regNamer(a *arch.Arch) func(rule.Reg) string {
	if a.Machine == elf.EM_X86_64 {
		return x86RegName
	}
	return func(r rule.Reg) string { return fmt.Sprint(int(r)) }
}

// Render writes the body of a code reproducer: an instruction as `.byte`
// (`.inst` on AArch64, so that the assembler marks it code) with its
// text as a comment, runs of instructions replaced by nops as one line.
func (rep *CodeRepro) Render() []string {
	var out []string
	nops := 0
	flush := func() {
		if nops == 0 {
			return
		}
		switch rep.Arch.Machine {
		case elf.EM_AARCH64:
			out = append(out, fmt.Sprintf("\t.rept\t%d; nop; .endr", nops/4))
		case elf.EM_S390:
			out = append(out, fmt.Sprintf("\t.rept\t%d; nopr; .endr", nops/2))
		default:
			out = append(out, fmt.Sprintf("\t.nops\t%d", nops))
		}
		nops = 0
	}
	comment := "#"
	if rep.Arch.Machine == elf.EM_AARCH64 {
		comment = "//"
	}
	for _, l := range rep.Lines {
		switch {
		case l.Directive != "":
			flush()
			out = append(out, l.Directive)
		case l.Nop:
			nops += len(l.Bytes)
		case rep.Arch.Machine == elf.EM_AARCH64 && len(l.Bytes) == 4:
			flush()
			out = append(out, fmt.Sprintf("\t.inst\t%#08x\t%s %s", binary.LittleEndian.Uint32(l.Bytes), comment, l.Text))
		default:
			flush()
			parts := make([]string, len(l.Bytes))
			for i, b := range l.Bytes {
				parts[i] = fmt.Sprintf("%#02x", b)
			}
			out = append(out, fmt.Sprintf("\t.byte\t%s\t%s %s", strings.Join(parts, ", "), comment, l.Text))
		}
	}
	flush()
	return out
}

// ReproCodeFinding returns check's finding (with the code oracle) in the
// function named fn of the object at path that is f again: the same kind
// at the same offset from the function's start (off), with the same
// rules of the code and of the table where f has them.
func ReproCodeFinding(path, fn string, f Finding, off uint64) (Finding, bool, error) {
	rep, err := CheckFile(path, CheckOptions{Code: FramesCode})
	if err != nil {
		return Finding{}, false, err
	}
	for _, g := range rep.Findings {
		if g.Function != fn || g.Kind != f.Kind || g.PC-g.FuncStart != off {
			continue
		}
		if g.Rules[frames.MethodCode] != f.Rules[frames.MethodCode] || g.Rules[frames.MethodCFI] != f.Rules[frames.MethodCFI] {
			continue
		}
		return g, true, nil
	}
	return Finding{}, false, nil
}

// Window returns the instructions of rep around its finding, before any
// reduction: up to before instructions ahead of the finding's and after
// behind it, each as "+OFF  TEXT", with the CFI directives between them.
func (rep *CodeRepro) Window(before, after int) []string {
	at := -1 // the finding's instruction line
	var offs []uint64
	off := uint64(0)
	for i, l := range rep.Lines {
		offs = append(offs, off)
		if l.Directive == "" {
			if at < 0 && off <= rep.Off && rep.Off < off+uint64(len(l.Bytes)) {
				at = i
			}
			off += uint64(len(l.Bytes))
		}
	}
	if at < 0 {
		return nil
	}
	lo, n := at, 0
	for lo > 0 && n < before {
		lo--
		if rep.Lines[lo].Directive == "" {
			n++
		}
	}
	var out []string
	n = 0
	for i := lo; i < len(rep.Lines) && n <= after; i++ {
		l := rep.Lines[i]
		switch {
		case l.Directive != "":
			out = append(out, "\t"+strings.TrimSpace(l.Directive))
		default:
			mark := "  "
			if i == at {
				mark = "=>"
			}
			out = append(out, fmt.Sprintf("%s +%#x\t%s", mark, offs[i], l.Text))
			if i > at {
				n++
			}
		}
	}
	return out
}
