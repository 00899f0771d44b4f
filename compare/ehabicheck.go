package compare

import (
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/sfdbg/sfdbg/frames"
	"github.com/sfdbg/sfdbg/frames/ehabi"
	"github.com/sfdbg/sfdbg/sframe/arch"
	"github.com/sfdbg/sfdbg/sframe/elfobj"
)

// FormatEHABI is FileReport.Format for a file whose unwind tables checked
// were ARM EHABI's (.ARM.exidx/.ARM.extab), not SFrame.
const FormatEHABI = "ehabi"

// EHABISummary counts what an EHABI check covered: index entries by what
// became of them, and the call sites compared.
type EHABISummary struct {
	// Entries is the number of index entries; CantUnwind those marked
	// EXIDX_CANTUNWIND or refusing (0x80 0x00); NoOps those whose
	// personality routine is not GCC's (their data is not opcodes);
	// NoRow those whose opcodes give no row (reported as format
	// findings); Compared those compared with CFI at one call site or
	// more; NoCFI those CFI does not cover at any call site.
	Entries    int `json:"entries"`
	CantUnwind int `json:"cant_unwind"`
	NoOps      int `json:"no_opcodes"`
	NoRow      int `json:"no_row"`
	Compared   int `json:"compared"`
	NoCFI      int `json:"no_cfi"`
	// CallSites is the number of return addresses of calls (bl, blx) found
	// inside the functions of the entries with a row; Summary.Instructions
	// counts those compared with a CFI row.
	CallSites int `json:"call_sites"`
}

func (s *EHABISummary) add(o EHABISummary) {
	s.Entries += o.Entries
	s.CantUnwind += o.CantUnwind
	s.NoOps += o.NoOps
	s.NoRow += o.NoRow
	s.Compared += o.Compared
	s.NoCFI += o.NoCFI
	s.CallSites += o.CallSites
}

func (s *EHABISummary) String() string {
	return fmt.Sprintf("entries: %d (%d compared, %d cantunwind, %d without opcodes, %d without a row, %d without CFI at their call sites); call sites: %d",
		s.Entries, s.Compared, s.CantUnwind, s.NoOps, s.NoRow, s.NoCFI, s.CallSites)
}

// checkEHABIModule is checkModule for an ARM file with EHABI tables: its
// EHABI against its CFI (runEHABI).
func checkEHABIModule(name string, m *frames.Module, layout *elfobj.Layout, a *arch.Arch, rep *FileReport, opts CheckOptions) (*FileReport, error) {
	f := layout.File()
	c := &checker{name: m.Name, f: f, layout: layout, arch: a, rep: rep, cfi: opts.CFI, sym: opts.Symbolize}
	if c.cfi == nil {
		c.cfi = &moduleCFI{m: m}
	}
	for i, s := range f.Sections {
		if s.Flags&elf.SHF_EXECINSTR != 0 && s.Type == elf.SHT_PROGBITS && s.Flags&elf.SHF_COMPRESSED == 0 {
			c.text = append(c.text, textRange{addr: layout.Addr(i), size: s.Size, r: s})
		}
	}
	if err := c.runEHABI(); err != nil {
		err = fmt.Errorf("%s: %w", name, err)
		rep.Err = err.Error()
		return rep, err
	}
	return rep, nil
}

// hasEHABI reports whether f is an ARM file with an EHABI index section.
func hasEHABI(f *elf.File) bool {
	if f.Machine != elf.EM_ARM || f.Class != elf.ELFCLASS32 {
		return false
	}
	for _, s := range f.Sections {
		if s.Type == elf.SectionType(0x70000001) { // SHT_ARM_EXIDX
			return true
		}
	}
	return false
}

// runEHABI checks the ARM file's EHABI tables against its CFI. An EHABI
// entry describes the function's body, not its entry: each entry's rules
// become one row (frames.EHABIRow) covering its function, from its index
// entry's address to the next one's, and that row is compared with the
// CFI row at every return address of a call (bl, blx) inside the
// function, with checkFunc, as SFrame's rows are at every instruction.
func (c *checker) runEHABI() error {
	if c.f.Type == elf.ET_REL {
		return errors.New("relocatable object: EHABI is checked in linked files only")
	}
	ef, err := ehabi.ReadELF(c.f)
	if err != nil {
		return err
	}
	c.rep.Format, c.rep.ABI = FormatEHABI, c.arch.Name
	sum := &EHABISummary{}
	c.rep.Summary.EHABI = sum
	cfiRanges, err := c.cfi.FDERanges()
	if err != nil && !errors.Is(err, frames.ErrUnsupportedCFI) && !errors.Is(err, frames.ErrNoCFI) {
		return fmt.Errorf("reading CFI: %w", err)
	}
	if err == nil && len(cfiRanges) == 0 {
		err = frames.ErrNoCFI
	}
	for _, t := range ef.Tables {
		sum.Entries += len(t.Entries)
	}
	if err != nil {
		msg := fmt.Sprintf("EHABI decoded but not compared: CFI unusable: %v", err)
		if errors.Is(err, frames.ErrNoCFI) {
			msg = fmt.Sprintf("EHABI decoded but not compared: the file has no CFI (.debug_frame; build with -g): %v", err)
		}
		c.addFileWide(Finding{Kind: KindNoCFI, Message: msg})
		return nil
	}
	sum0 := &c.rep.Summary
	sum0.FunctionsCFI = len(cfiRanges)
	for _, r := range cfiRanges {
		sum0.BytesCFI += r.End - r.Start
	}
	modes := newARMModes(c.f)
	for _, t := range ef.Tables {
		for i := range t.Entries {
			e := &t.Entries[i]
			end := c.textEnd(e.Fn)
			name, _, _ := ef.Name(e.Fn)
			if i+1 < len(t.Entries) {
				if next := t.Entries[i+1].Fn; next <= e.Fn {
					// The function's extent is unknown; taking it to the
					// section's end would scan the code once per entry.
					sum.NoRow++
					c.add(Finding{Kind: KindFormat, Function: name, FuncStart: e.Fn, PC: e.Fn,
						Message: fmt.Sprintf("EHABI %s entry %#x: function %#x not below the next entry's %#x (the index must be sorted, EHABI 5); not compared",
							t.Index.Name, e.Off, e.Fn, next)})
					continue
				}
				end = min(end, t.Entries[i+1].Fn)
			}
			c.checkEntry(t, e, fnRef{name: name, start: e.Fn}, end, modes, sum)
		}
	}
	return nil
}

// textEnd is the end of the executable section holding addr (addr+1 when
// none does).
func (c *checker) textEnd(addr uint64) uint64 {
	for _, t := range c.text {
		if addr >= t.addr && addr-t.addr < t.size {
			return t.addr + t.size
		}
	}
	return addr + 1
}

// checkEntry compares one index entry, for the function [fn.start, end),
// with CFI at the function's call sites.
func (c *checker) checkEntry(t *ehabi.Table, e *ehabi.Entry, fn fnRef, end uint64, modes armModes, sum *EHABISummary) {
	loc := fmt.Sprintf("%s entry %#x", t.Index.Name, e.Off)
	switch {
	case e.Kind == ehabi.EntryCantUnwind:
		sum.CantUnwind++
		return
	case e.Err != nil:
		sum.NoRow++
		c.add(Finding{Kind: KindFormat, Function: fn.name, FuncStart: fn.start, PC: fn.start,
			Message: fmt.Sprintf("EHABI %s for %s: %v", loc, c.orLoc(fn.name, fn.start), e.Err)})
		return
	case e.Unwind == nil || e.Unwind.Generic && !e.Unwind.GCC:
		sum.NoOps++
		return
	}
	for _, op := range e.Unwind.Ops {
		if op.Kind == ehabi.OpRefuse {
			sum.CantUnwind++
			return
		}
	}
	row, err := frames.EHABIRow(c.arch, e.Unwind)
	if errors.Is(err, frames.ErrEHABINoRow) {
		// Valid EHABI beyond one row (a signal restorer's pop of r13).
		sum.NoRow++
		c.add(Finding{Kind: KindSkipped, Function: fn.name, FuncStart: fn.start, PC: fn.start,
			Message: fmt.Sprintf("EHABI %s for %s not compared: %v", loc, c.orLoc(fn.name, fn.start), err)})
		return
	}
	if err != nil {
		sum.NoRow++
		c.add(Finding{Kind: KindFormat, Function: fn.name, FuncStart: fn.start, PC: fn.start,
			Message: fmt.Sprintf("EHABI %s for %s: %v", loc, c.orLoc(fn.name, fn.start), err)})
		return
	}
	row.Src = frames.Source{Method: frames.MethodEHABI, Section: t.Index.Name, FDE: e.Off, CIE: -1, FRE: -1,
		FDEStart: fn.start, FDEEnd: end, Arch: c.arch, Ops: frames.EHABIOpsText(e.Unwind)}
	row.Start, row.End = fn.start, end
	code, ok := c.funcCode(fn.start, end)
	if !ok {
		return
	}
	sites := armCalls(code, fn.start, modes)
	if len(sites) == 0 {
		return
	}
	rows, err := c.cfi.Rows(fn.start, end)
	if err != nil {
		c.add(Finding{Kind: KindFormat, Function: fn.name, FuncStart: fn.start, PC: fn.start,
			Message: fmt.Sprintf("CFI for %s unreadable: %v", c.orLoc(fn.name, fn.start), err)})
		return
	}
	// A call's return address is kept where the CFI FDE that covers it
	// also covers the call: the return address of a call to a noreturn
	// function that ends one function is the next one's entry (entries
	// the linker merged cover both).
	calls := make([]uint64, 0, len(sites))
	for _, s := range sites {
		if i := rowAt(rows, s.ret); i < 0 || rows[i].Src.FDEStart > s.call {
			continue
		}
		calls = append(calls, s.ret)
	}
	sum.CallSites += len(calls)
	if len(calls) == 0 {
		return
	}
	subj := witness{m: frames.MethodEHABI, rows: []frames.Row{row}, none: "no entry", unit: "entry", points: "call sites", regs: true}
	ref := witness{m: frames.MethodCFI, rows: rows, none: "no CFI row", unit: "CFI row"}
	n := c.checkFunc(fn, subj, ref, nil, []Range{{fn.start, end}}, calls)
	c.rep.Summary.Instructions += n
	if n == 0 {
		sum.NoCFI++
		return
	}
	sum.Compared++
	c.rep.Summary.FunctionsBoth++
}

// armModes says which instruction set (ARM or Thumb) the code at an
// address is in, and where literal data lies: from the mapping symbols
// ($a, $t, $d; ELF for the Arm Architecture 5.5.5) and the function
// symbols' Thumb bit, sorted by address.
type armModes struct {
	at   []uint64
	mode []byte // 'a', 't' or 'd'
	def  byte   // the mode where nothing says (most functions')
}

func newARMModes(f *elf.File) armModes {
	type mark struct {
		addr uint64
		mode byte
	}
	var marks []mark
	thumb, arm := 0, 0
	add := func(syms []elf.Symbol) {
		for _, s := range syms {
			switch {
			case elf.ST_TYPE(s.Info) == elf.STT_FUNC && s.Value != 0:
				m := byte('a')
				if s.Value&1 != 0 {
					m, thumb = 't', thumb+1
				} else {
					arm++
				}
				marks = append(marks, mark{s.Value &^ 1, m})
			case elf.ST_TYPE(s.Info) == elf.STT_NOTYPE && len(s.Name) >= 2 && s.Name[0] == '$' &&
				(len(s.Name) == 2 || s.Name[2] == '.') && strings.ContainsRune("atd", rune(s.Name[1])):
				marks = append(marks, mark{s.Value, s.Name[1]})
			}
		}
	}
	if syms, err := f.Symbols(); err == nil {
		add(syms)
	}
	if syms, err := f.DynamicSymbols(); err == nil {
		add(syms)
	}
	sort.SliceStable(marks, func(i, j int) bool { return marks[i].addr < marks[j].addr })
	m := armModes{def: 't'}
	if arm > thumb {
		m.def = 'a'
	}
	for _, k := range marks {
		m.at = append(m.at, k.addr)
		m.mode = append(m.mode, k.mode)
	}
	return m
}

// span returns the mode at addr and the address where the next mark
// starts (^0 for none).
func (m armModes) span(addr uint64) (byte, uint64) {
	i := sort.Search(len(m.at), func(i int) bool { return m.at[i] > addr })
	next := ^uint64(0)
	if i < len(m.at) {
		next = m.at[i]
	}
	if i == 0 {
		return m.def, next
	}
	return m.mode[i-1], next
}

// armCall is a call instruction's address and its return address.
type armCall struct{ call, ret uint64 }

// armCalls returns, sorted, the calls in code (the bytes at start): ARM BL, BLX (immediate) and BLX (register),
// Thumb-2 BL and BLX (immediate), 32-bit, and Thumb BLX (register),
// 16-bit (ARM Architecture Reference Manual ARMv7-A/R, A8.8.25-26).
// Instructions are little-endian (BE-8 images too). Data
// ($d) is skipped; the return address of a call that ends the code is
// not kept (it belongs to the next function).
func armCalls(code []byte, start uint64, modes armModes) []armCall {
	// ARMv6 and later big-endian images are BE-8: code stays
	// little-endian (BE-32 images are not read).
	order := binary.LittleEndian
	var out []armCall
	for off := uint64(0); off < uint64(len(code)); {
		pc := start + off
		mode, next := modes.span(pc)
		lim := uint64(len(code))
		if next > pc && next-start < lim {
			lim = next - start
		}
		switch mode {
		case 'd':
			off = lim
			continue
		case 'a':
			off = (off + 3) &^ 3
			for ; off+4 <= lim; off += 4 {
				w := order.Uint32(code[off:])
				cond := w >> 28
				if (w&0x0f000000 == 0x0b000000 && cond != 0xf) || w&0xfe000000 == 0xfa000000 ||
					(w&0x0ffffff0 == 0x012fff30 && cond != 0xf) {
					out = append(out, armCall{start + off, start + off + 4})
				}
			}
		default:
			off = (off + 1) &^ 1
			for off+2 <= lim {
				h := order.Uint16(code[off:])
				if h>>11 >= 0x1d {
					if off+4 > lim {
						off += 2
						break
					}
					h2 := order.Uint16(code[off+2:])
					if h&0xf800 == 0xf000 && (h2&0xd000 == 0xd000 || h2&0xd001 == 0xc000) {
						out = append(out, armCall{start + off, start + off + 4})
					}
					off += 4
					continue
				}
				if h&0xff87 == 0x4780 {
					out = append(out, armCall{start + off, start + off + 2})
				}
				off += 2
			}
		}
		if off < lim {
			off = lim
		}
	}
	// A call that ends the code returns into the next function.
	for len(out) > 0 && out[len(out)-1].ret >= start+uint64(len(code)) {
		out = out[:len(out)-1]
	}
	return out
}
