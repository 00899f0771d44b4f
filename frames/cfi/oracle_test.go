package cfi

import (
	"debug/elf"
	"encoding/binary"
	"fmt"
	"path/filepath"
	"testing"

	dwframe "github.com/go-delve/delve/pkg/dwarf/frame"
	"github.com/sfdbg/sfdbg/sframe/arch"
	"github.com/sfdbg/sfdbg/sframe/rule"
)

// oracleFiles are the little-endian ELF files whose CFI is compared with
// Delve's pkg/dwarf/frame: the fixtures and the host's libc and ld.so.
// (None has a .debug_frame; TestTranscodedCFI covers it.)
func oracleFiles() []string {
	files := []string{}
	for _, n := range []string{"deep-v1-O0", "deep-v1-O2", "deep-v2-O0", "deep-v2-O2", "deep-v3-O0", "deep-v3-O2",
		"features-v1", "features-v2", "features-v3", "sqlite-v2", "sqlite-v3", "aarch64-v2", "aarch64-v3"} {
		files = append(files, filepath.Join("..", "..", "testdata", "bin", n))
	}
	return append(files, "/lib/x86_64-linux-gnu/libc.so.6", "/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2")
}

// cfiSections returns the .eh_frame and .debug_frame of f, those it has.
func cfiSections(t testing.TB, f *elf.File) []Section {
	t.Helper()
	var out []Section
	ptrSize := 8
	if f.Class == elf.ELFCLASS32 {
		ptrSize = 4
	}
	for _, k := range []Kind{EHFrame, DebugFrame} {
		s := f.Section(k.String())
		if s == nil || s.Type == elf.SHT_NOBITS {
			continue
		}
		data, err := s.Data()
		if err != nil {
			t.Fatalf("%v: %v", k, err)
		}
		out = append(out, Section{Kind: k, Addr: s.Addr, Order: f.ByteOrder, PtrSize: ptrSize, Data: data})
	}
	return out
}

// TestDelveOracle parses the CFI of every little-endian fixture, the
// host's libc and ld.so and this test binary with this package and with
// Delve's pkg/dwarf/frame, and checks that both find the same FDEs in the
// same order with the same ranges, and the same CFA and register rules at
// every instruction boundary of every FDE (found with arch.X86.Len on AMD64,
// every 4 bytes on AArch64) and at the first and last byte of every row.
//
// Delve is known to be wrong in four ways, which the test works around by
// rewriting the instructions Delve runs (delveCompat), so that the rest is
// still compared exactly:
//   - DW_CFA_restore and DW_CFA_restore_extended give "undefined" (Delve
//     never records the CIE's initial rules): they are rewritten as the
//     instruction that sets the CIE's rule, or, when the CIE has none, as a
//     DW_CFA_val_expression with a marker expression that stands for
//     "unspecified" (the register is absent from our row);
//   - DW_CFA_val_offset ignores the data alignment factor: rewritten as
//     DW_CFA_val_offset_sf;
//   - DW_CFA_AARCH64_negate_ra_state and DW_CFA_GNU_negative_offset_extended
//     are unknown to Delve (an error): the first becomes DW_CFA_nop (the RA
//     signing state is checked against GNU readelf instead, in
//     TestReadelfGolden), the second DW_CFA_offset_extended_sf;
//   - augmentation B (and G) makes Delve reject the CIE: the letters are
//     replaced by S, which carries no data either, in the bytes Delve reads.
func TestDelveOracle(t *testing.T) {
	var totalFDEs, totalPCs int
	for _, path := range oracleFiles() {
		name := filepath.Base(path)
		t.Run("the reader and Delve agree on every FDE and instruction of "+name, func(t *testing.T) {
			f, err := elf.Open(path)
			if err != nil {
				t.Skipf("cannot open %s: %v", path, err)
			}
			defer f.Close()
			if f.ByteOrder != binary.LittleEndian {
				t.Fatalf("%s is not little-endian", path)
			}
			secs := cfiSections(t, f)
			if len(secs) == 0 {
				t.Skipf("%s has no CFI", path)
			}
			text := newTextReader(f)
			for _, sec := range secs {
				nfde, npc := compareWithDelve(t, f.Machine, sec, text)
				t.Logf("%v: %d FDEs, %d PCs compared", sec.Kind, nfde, npc)
				totalFDEs += nfde
				totalPCs += npc
			}
		})
	}
	t.Logf("in all: %d FDEs, %d PCs compared with Delve", totalFDEs, totalPCs)
}

// compareWithDelve compares one section; it returns the FDEs and PCs
// compared.
func compareWithDelve(t *testing.T, machine elf.Machine, sec Section, text *textReader) (nfde, npc int) {
	tab, err := Parse(sec)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	data := delvePatchAugmentations(t, sec, tab)
	addr := uint64(0)
	if sec.Kind == EHFrame {
		addr = sec.Addr
	}
	var entries dwframe.FrameDescriptionEntries
	func() {
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("Delve's parser panicked: %v", r)
			}
		}()
		entries, err = dwframe.Parse(data, binary.LittleEndian, 0, sec.PtrSize, addr)
	}()
	if err != nil {
		t.Fatalf("Delve's parser: %v", err)
	}
	if len(entries) != len(tab.all) {
		t.Fatalf("%d FDEs, Delve %d", len(tab.all), len(entries))
	}
	rewritten := map[*dwframe.CommonInformationEntry]bool{}
	for i := range tab.all {
		f, d := &tab.all[i], entries[i]
		if f.Start != d.Begin() || f.End != d.End() {
			t.Errorf("FDE at %#x: [%#x, %#x), Delve [%#x, %#x)", f.Off, f.Start, f.End, d.Begin(), d.End())
			continue
		}
		if f.End == f.Start {
			continue
		}
		if !rewritten[d.CIE] {
			d.CIE.InitialInstructions = delveCompat(t, f.CIE.Initial, f.CIE, nil)
			rewritten[d.CIE] = true
		}
		init, err := f.CIE.initialState()
		if err != nil {
			t.Fatalf("CIE at %#x: %v", f.CIE.Off, err)
		}
		d.Instructions = delveCompat(t, f.Instructions, f.CIE, init)
		rows, err := f.Rows()
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		nfde++
		pcs := text.boundaries(machine, f.Start, f.End)
		for _, r := range rows {
			pcs = append(pcs, r.Start, r.End-1)
		}
		for _, pc := range pcs {
			npc++
			mine, err := f.RowAt(pc)
			if err != nil {
				t.Fatalf("FDE at %#x: RowAt(%#x): %v", f.Off, pc, err)
			}
			if msg := delveDiff(d, pc, &mine); msg != "" {
				t.Errorf("FDE at %#x (CIE at %#x), PC %#x: %s", f.Off, f.CIE.Off, pc, msg)
				if t.Failed() && npc > 50 {
					t.FailNow()
				}
			}
		}
	}
	return nfde, npc
}

// delvePatchAugmentations returns the section's bytes with the
// augmentation letters B and G, which Delve rejects, replaced by S.
func delvePatchAugmentations(t *testing.T, sec Section, tab *Table) []byte {
	data := append([]byte(nil), sec.Data...)
	for i := range tab.all {
		c := tab.all[i].CIE
		h, err := sec.head(sec.Data[c.Off:], c.Off, int64(len(sec.Data)))
		if err != nil {
			t.Fatal(err)
		}
		at := h.body + 1 // after the version
		for j := range len(c.Augmentation) {
			if ch := data[at+int64(j)]; ch == 'B' || ch == 'G' {
				data[at+int64(j)] = 'S'
			}
		}
	}
	return data
}

// restoredMarker is the expression delveCompat gives a register that
// DW_CFA_restore leaves without a rule.
const restoredMarker = "\xff\xfe restored"

// delveCompat rewrites call frame instructions so that Delve's interpreter
// gives what DWARF 5 says (see TestDelveOracle). init is the CIE's initial
// state (nil for the CIE's own instructions).
func delveCompat(t *testing.T, instr []byte, cie *CIE, init *initial) []byte {
	t.Helper()
	c := cursor{b: instr, order: cie.order, sec: "test"}
	var out []byte
	copyFrom := func(at int) { out = append(out, instr[at:c.i]...) }
	restore := func(reg uint64) {
		var r rule.Rule
		ok := false
		if init != nil {
			r, ok = init.get(rule.Reg(reg))
		}
		factor := func(off int64) []byte {
			if off%cie.DataAlign != 0 {
				t.Fatalf("CIE at %#x: offset %d is not a multiple of %d", cie.Off, off, cie.DataAlign)
			}
			return sleb(off / cie.DataAlign)
		}
		switch {
		case !ok:
			out = append(out, in(cfaValExpression, uleb(reg), uleb(uint64(len(restoredMarker))), []byte(restoredMarker))...)
		case r.Kind == rule.Offset:
			out = append(out, in(cfaOffsetExtendedSF, uleb(reg), factor(r.Offset))...)
		case r.Kind == rule.ValOffset:
			out = append(out, in(cfaValOffsetSF, uleb(reg), factor(r.Offset))...)
		case r.Kind == rule.Undefined:
			out = append(out, in(cfaUndefined, uleb(reg))...)
		case r.Kind == rule.SameValue:
			out = append(out, in(cfaSameValue, uleb(reg))...)
		case r.Kind == rule.Register:
			out = append(out, in(cfaRegister, uleb(reg), uleb(uint64(r.Reg)))...)
		case r.Kind == rule.Expression:
			out = append(out, in(cfaExpression, uleb(reg), uleb(uint64(len(r.Expr))), []byte(r.Expr))...)
		case r.Kind == rule.ValExpression:
			out = append(out, in(cfaValExpression, uleb(reg), uleb(uint64(len(r.Expr))), []byte(r.Expr))...)
		}
	}
	for c.i < len(instr) && c.err == nil {
		at := c.i
		op := cfaOp(c.u8("op"))
		switch op & 0xc0 {
		case cfaAdvanceLoc:
			copyFrom(at)
			continue
		case cfaOffset:
			c.uleb("")
			copyFrom(at)
			continue
		case cfaRestore:
			restore(uint64(op & 0x3f))
			continue
		}
		switch op {
		case cfaNop, cfaRememberState, cfaRestoreState:
			copyFrom(at)
		case cfaSetLoc:
			c.bytes(uint64(cie.AddressSize), "")
			copyFrom(at)
		case cfaAdvanceLoc1, cfaAdvanceLoc2, cfaAdvanceLoc4:
			c.bytes(map[cfaOp]uint64{cfaAdvanceLoc1: 1, cfaAdvanceLoc2: 2, cfaAdvanceLoc4: 4}[op], "")
			copyFrom(at)
		case cfaOffsetExtended, cfaRegister, cfaDefCFA:
			c.uleb("")
			c.uleb("")
			copyFrom(at)
		case cfaOffsetExtendedSF, cfaDefCFASF, cfaValOffsetSF:
			c.uleb("")
			c.sleb("")
			copyFrom(at)
		case cfaValOffset:
			reg, off := c.uleb(""), c.uleb("")
			out = append(out, in(cfaValOffsetSF, uleb(reg), sleb(int64(off)))...)
		case cfaGNUNegativeOffsetExtended:
			reg, off := c.uleb(""), c.uleb("")
			out = append(out, in(cfaOffsetExtendedSF, uleb(reg), sleb(-int64(off)))...)
		case cfaRestoreExtended:
			restore(c.uleb(""))
		case cfaUndefined, cfaSameValue, cfaDefCFARegister, cfaDefCFAOffset, cfaGNUArgsSize:
			c.uleb("")
			copyFrom(at)
		case cfaDefCFAOffsetSF:
			c.sleb("")
			copyFrom(at)
		case cfaDefCFAExpression:
			c.bytes(c.uleb(""), "")
			copyFrom(at)
		case cfaExpression, cfaValExpression:
			c.uleb("")
			c.bytes(c.uleb(""), "")
			copyFrom(at)
		case cfaAArch64NegateRAState:
			out = append(out, byte(cfaNop))
		default:
			t.Fatalf("CIE at %#x: instruction %v the test cannot rewrite for Delve", cie.Off, op)
		}
	}
	if c.err != nil {
		t.Fatalf("rewriting for Delve: %v", c.err)
	}
	return out
}

// delveRule converts one of Delve's rules into package sframe's form;
// restored reports the marker of delveCompat.
func delveRule(r dwframe.DWRule) (ru rule.Rule, restored bool, ok bool) {
	switch r.Rule {
	case dwframe.RuleUndefined:
		return ruleUndefined, false, true
	case dwframe.RuleSameVal:
		return ruleSame, false, true
	case dwframe.RuleOffset:
		return atCFA(r.Offset), false, true
	case dwframe.RuleValOffset:
		return valCFA(r.Offset), false, true
	case dwframe.RuleRegister:
		return rule.Rule{Kind: rule.Register, Reg: rule.Reg(r.Reg)}, false, true
	case dwframe.RuleExpression:
		return rule.Rule{Kind: rule.Expression, Reg: rule.CFA, Expr: string(r.Expression)}, false, true
	case dwframe.RuleValExpression:
		if string(r.Expression) == restoredMarker {
			return rule.Rule{}, true, true
		}
		return rule.Rule{Kind: rule.ValExpression, Reg: rule.CFA, Expr: string(r.Expression)}, false, true
	}
	return rule.Rule{}, false, false
}

// delveDiff runs Delve's EstablishFrame at pc and describes how its rules
// differ from row's ("" when they do not).
func delveDiff(d *dwframe.FrameDescriptionEntry, pc uint64, row *Row) (msg string) {
	defer func() {
		if r := recover(); r != nil {
			msg = fmt.Sprintf("Delve panicked: %v", r)
		}
	}()
	fc, err := d.EstablishFrame(pc)
	if err != nil {
		return fmt.Sprintf("Delve: %v", err)
	}
	var cfa rule.Rule
	switch fc.CFA.Rule {
	case dwframe.RuleCFA:
		cfa = cfaRule(rule.Reg(fc.CFA.Reg), fc.CFA.Offset)
	case dwframe.RuleExpression:
		cfa = rule.Rule{Kind: rule.ValExpression, Reg: rule.CFA, Expr: string(fc.CFA.Expression)}
	case dwframe.RuleUndefined:
		cfa = ruleUndefined
	default:
		return fmt.Sprintf("Delve's CFA rule %v", fc.CFA.Rule)
	}
	if cfa != row.CFA {
		return fmt.Sprintf("CFA %v, Delve %v", row.CFA, cfa)
	}
	if fc.RetAddrReg != uint64(row.RAReg) {
		return fmt.Sprintf("RA column %d, Delve %d", row.RAReg, fc.RetAddrReg)
	}
	seen := 0
	for reg, dr := range fc.Regs {
		want, restored, ok := delveRule(dr)
		if !ok {
			return fmt.Sprintf("r%d: Delve's rule %v", reg, dr.Rule)
		}
		got, have := row.Rule(rule.Reg(reg))
		switch {
		case restored && have:
			return fmt.Sprintf("r%d: %v, Delve none (restored)", reg, got)
		case restored:
			continue
		case !have:
			return fmt.Sprintf("r%d: none, Delve %v", reg, want)
		case got != want:
			return fmt.Sprintf("r%d: %v, Delve %v", reg, got, want)
		}
		seen++
	}
	if seen != row.Regs.Len() {
		return fmt.Sprintf("%d registers with rules, Delve %d: %v", row.Regs.Len(), seen, row.Regs.Append(nil))
	}
	return ""
}

// textReader gives the bytes of a file's executable sections, to find
// instruction boundaries.
type textReader struct {
	secs []*elf.Section
	data map[*elf.Section][]byte
}

func newTextReader(f *elf.File) *textReader {
	r := &textReader{data: map[*elf.Section][]byte{}}
	for _, s := range f.Sections {
		if s.Flags&elf.SHF_EXECINSTR != 0 && s.Type == elf.SHT_PROGBITS {
			r.secs = append(r.secs, s)
		}
	}
	return r
}

// boundaries returns the instruction boundaries in [start, end): decoded
// with arch.X86.Len on AMD64 (a byte that does not decode counts as one
// instruction), every 4 bytes on AArch64, none when the bytes are not in
// an executable section.
func (r *textReader) boundaries(m elf.Machine, start, end uint64) []uint64 {
	var sec *elf.Section
	for _, s := range r.secs {
		if start >= s.Addr && end <= s.Addr+s.Size {
			sec = s
		}
	}
	if sec == nil {
		return nil
	}
	var pcs []uint64
	switch m {
	case elf.EM_AARCH64:
		for pc := start; pc < end; pc += 4 {
			pcs = append(pcs, pc)
		}
	case elf.EM_X86_64:
		data, ok := r.data[sec]
		if !ok {
			data, _ = sec.Data()
			r.data[sec] = data
		}
		code := data[start-sec.Addr : end-sec.Addr]
		for i := 0; i < len(code); {
			pcs = append(pcs, start+uint64(i))
			n := 1
			if k, ok := (arch.X86{}).Len(code[i:]); ok {
				n = k
			}
			i += n
		}
	}
	return pcs
}
