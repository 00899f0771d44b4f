package compare

import (
	"fmt"
	"strconv"

	"github.com/sfdbg/sfdbg/frames"
	"github.com/sfdbg/sfdbg/sframe"
	"github.com/sfdbg/sfdbg/sframe/rule"
)

// maxBoundaryShift bounds, in instructions, how far an FRE boundary may be
// from the CFI row boundary it mirrors to be reported as KindFREBoundary
// rather than as a plain CFA/RA/FP difference.
const maxBoundaryShift = 4

// maxFindingsPerFDE bounds the disagreements listed for one FDE; one more
// finding counts the rest. Real functions have a handful; a crafted FDE
// covering all of .text would otherwise list one per CFI row.
const maxFindingsPerFDE = 32

// run is a maximal sequence of instruction boundaries with the same
// difference between the subject's and the reference's row.
type run struct {
	start, end uint64 // [start, end) in bytes
	n          int    // instructions
	diff       RowDiff
	sf, cfi    int // subject and reference row indices at start
}

// witness is one method's rows for the function checked, sorted by Start
// (link-time ranges): the subject or the reference checkFunc judges.
type witness struct {
	m    frames.Method
	rows []frames.Row
	// none says that the method has no row for a PC ("no FRE").
	none string
	// unit names what a row boundary is in the method ("FRE").
	unit string
	// points names the PCs compared in messages ("" : "instructions").
	points string
	// regs is set for a subject whose rows say where every saved
	// register is (EHABI): the other registers are compared too
	// (DiffRegs) and findings show them (ruleTextRegs).
	regs bool
}

// fnRef names the function checked: its name ("" if unknown) and start.
type fnRef struct {
	name  string
	start uint64
}

// checkFDE compares an SFrame FDE, at every instruction boundary insts in
// the ranges own where lookups pick it (checker.owned), with the CFI rows
// cfiRows, and with the code oracle's states when the check has one
// (CheckOptions.Code) given as code (fdeCode; nil: not judged). It
// returns the number of instruction boundaries compared.
func (c *checker) checkFDE(fde *sframe.FDE, own []Range, cfiRows []frames.Row, insts []uint64, code CodeRows) int {
	fn := fnRef{name: c.funcName(fde.Start), start: fde.Start}
	if fde.PCType == sframe.PCTypeMask {
		// PLT stubs are checked, not judged by the code oracle, and not
		// counted in its share.
		return c.checkMaskFunc(fde, fn.name, cfiRows, insts)
	}
	sfRows, err := c.sfRows(fde)
	if err != nil {
		c.add(Finding{Kind: KindFormat, Function: fn.name, FuncStart: fde.Start, PC: fde.Start,
			Message: fmt.Sprintf("SFrame FDE %d: %v", fde.Index, err)})
		return 0
	}
	subj := witness{m: frames.MethodSFrame, rows: sfRows, none: "no FRE", unit: "FRE"}
	ref := witness{m: frames.MethodCFI, rows: cfiRows, none: "no CFI row", unit: "CFI row"}
	return c.checkFunc(fn, subj, ref, code, own, insts)
}

// fdeCode runs the code oracle on the function of an SFrame FDE whose
// lookups pick it in the ranges own (codeRows), or returns nil where the
// oracle does not judge it: without an oracle, and for PLT stubs (PC-mask
// FDEs) and PLT0, which is entered by a jump after the entry's push:
// checked, not judged, and not counted in the oracle's share.
func (c *checker) fdeCode(fde *sframe.FDE, own []Range) CodeRows {
	if c.oracle == nil || fde.PCType == sframe.PCTypeMask || c.inPLT(fde.Start) {
		return nil
	}
	return c.codeRows(fde.Start, own[len(own)-1].End)
}

// checkFunc compares, at every instruction boundary insts of the function
// fn in the ranges own, the subject's row with the reference's, and
// records findings; with code (the code oracle's states, nil for none) it
// also judges both tables against the code (codeJudge). It returns the
// number of instruction boundaries compared: those the reference covers.
func (c *checker) checkFunc(fn fnRef, subj, ref witness, code CodeRows, own []Range, insts []uint64) int {
	name, start := fn.name, fn.start
	sfRows, cfiRows := subj.rows, ref.rows
	S, R := subj.m.Title(), ref.m.Title()
	points := "instructions"
	if subj.points != "" {
		points = subj.points
	}
	text := ruleText
	if subj.regs {
		text = ruleTextRegs
	}
	var cj *codeJudge
	if code != nil {
		cj = c.newCodeJudge(fn, code, ref, subj)
	}
	compared, listed, unlisted := 0, 0, 0
	var more Finding // stands for the disagreements past maxFindingsPerFDE
	// report records the findings of one finished run.
	report := func(r run) {
		compared += r.n
		if !r.diff.Any() {
			return
		}
		if listed >= maxFindingsPerFDE {
			if unlisted == 0 {
				more = Finding{Kind: r.diff.Kinds()[0], Function: name, FuncStart: start, PC: r.start}
			}
			more.PCEnd, more.Instructions = r.end, more.Instructions+r.n
			unlisted++
			return
		}
		listed++
		f := Finding{Function: name, FuncStart: start, PC: r.start, PCEnd: r.end, Instructions: r.n}
		f.Rules[ref.m] = text(cfiRows[r.cfi])
		f.Rules[subj.m] = subj.none
		if r.sf >= 0 {
			f.Rules[subj.m] = text(sfRows[r.sf])
		}
		producerRows := subj.m == frames.MethodSFrame && ref.m == frames.MethodCFI
		if producerRows {
			// The known producer faults are patterns of SFrame rows
			// against CFI rows (known.go).
			f.ev = &evidence{cfi: cfiRows[r.cfi]}
			if r.sf >= 0 {
				f.ev.sf, f.ev.sfOK = sfRows[r.sf], true
			}
			if k := r.cfi; k > 0 && cfiRows[k].Start == r.start && cfiRows[k-1].End == r.start {
				f.ev.cfiPrev = &cfiRows[k-1]
			}
		}
		if shift, ok := boundaryShift(r, sfRows, cfiRows); ok && producerRows {
			f.Kind, f.Shift = KindFREBoundary, shift
			dir := "late"
			if shift < 0 {
				dir, shift = "early", -shift
			}
			f.Message = fmt.Sprintf("%s starts %d bytes %s: %s+%#x..+%#x has %s %s, %s %s", subj.unit, shift, dir,
				c.orLoc(name, start), r.start-start, r.end-start, S, f.Rules[subj.m], R, f.Rules[ref.m])
			c.add(f)
			return
		}
		for _, k := range r.diff.Kinds() {
			f.Kind = subjectKind(subj.m, k)
			f.Message = fmt.Sprintf("%s at %s+%#x..+%#x (%d %s): %s %s, %s %s", k.Title(),
				c.orLoc(name, start), r.start-start, r.end-start, r.n, points, S, f.Rules[subj.m], R, f.Rules[ref.m])
			c.add(f)
		}
	}
	var cur run      // the run being extended; cur.n == 0 before the first
	j := 0           // the range of own holding pc
	sk, ck := -1, -1 // the last subject and reference rows starting at or before pc (insts are sorted)
	for i, pc := range insts {
		for own[j].End <= pc {
			j++
		}
		next := own[j].End
		if i+1 < len(insts) && insts[i+1] < next {
			next = insts[i+1]
		}
		si, ci := rowCursor(sfRows, &sk, pc), rowCursor(cfiRows, &ck, pc)
		var d RowDiff
		switch {
		case ci < 0:
			continue // CFI does not cover this PC: reported per function
		case cur.n > 0 && cur.end == pc && cur.sf == si && cur.cfi == ci && si >= 0 && !pcDependent(cfiRows[ci].CFA):
			d = cur.diff // the same rows as the run's: the same differences
		case si < 0:
			d = RowDiff{CFA: true} // before the first FRE: one finding, not three
		default:
			d = DiffRows(sfRows[si], cfiRows[ci], pc)
			if subj.regs && !d.Outermost && !(sfRows[si].RA.Kind == rule.Undefined) {
				d.Regs = DiffRegs(sfRows[si], cfiRows[ci])
			}
		}
		if cj != nil {
			cj.judge(pc, next, si, ci)
		}
		if cur.n > 0 && cur.diff == d && cur.end == pc && cur.sf == si && cur.cfi == ci {
			cur.end, cur.n = next, cur.n+1
			continue
		}
		if cur.n > 0 {
			report(cur)
		}
		cur = run{start: pc, end: next, n: 1, diff: d, sf: si, cfi: ci}
	}
	if cur.n > 0 {
		report(cur)
	}
	if unlisted > 0 {
		more.Message = fmt.Sprintf("%d more disagreements at %s+%#x..+%#x (%d instructions), not listed: at most %d are listed per FDE",
			unlisted, c.orLoc(name, start), more.PC-start, more.PCEnd-start, more.Instructions, maxFindingsPerFDE)
		c.add(more)
	}
	if cj != nil {
		cj.finish()
	}
	return compared
}

// pcDependent reports whether comparing a CFA rule depends on the PC
// (DiffRows evaluates a DWARF expression at it: the PLT's).
func pcDependent(cfa rule.Rule) bool {
	return cfa.Kind == rule.Expression || cfa.Kind == rule.ValExpression
}

// rowCursor returns the index of the row of rows (sorted by Start)
// covering pc, or -1, for PCs visited in increasing order: *k is the last
// row starting at or before the previous PC, advanced here. It gives
// rowAt's answer in amortized constant time.
func rowCursor(rows []frames.Row, k *int, pc uint64) int {
	for *k+1 < len(rows) && rows[*k+1].Start <= pc {
		*k++
	}
	if *k >= 0 && pc < rows[*k].End {
		return *k
	}
	return -1
}

// checkMaskFunc compares a PC-mask FDE (PLT entries): each instruction of
// the FDE is looked up the way a stack tracer would (PC offset modulo the
// repetition size) and compared with CFI at that PC.
//
// The lookup depends only on the offset into the block, so it is made once
// per range of offsets with one answer (sframe.Section.FindFRERange): at
// most one lookup per byte of the block, however many repetitions the FDE
// declares.
func (c *checker) checkMaskFunc(fde *sframe.FDE, name string, cfiRows []frames.Row, insts []uint64) int {
	compared := 0
	var bad []uint64
	var first Finding
	type answer struct {
		done, ok bool
		row      frames.Row
	}
	block := make([]answer, max(int(fde.RepSize), 1))
	lookup := func(pc uint64) *answer {
		o := uint64(0)
		if fde.RepSize > 0 {
			o = (pc - fde.Start) % uint64(fde.RepSize)
		}
		if a := &block[o]; a.done {
			return a
		}
		var fre sframe.FRE
		_, limit, err := c.sec.FindFRERange(fde, fde.Start+o, &fre)
		a := answer{done: true}
		if err == nil {
			if row, err := frames.SFrameRow(nil, c.sec, fde, &fre, -1); err == nil {
				a.ok, a.row = true, row
			}
		} else {
			limit = uint32(o) + 1
		}
		for k := o; k < uint64(len(block)) && k < uint64(limit); k++ {
			block[k] = a
		}
		block[o] = a
		return &block[o]
	}
	for _, pc := range insts {
		ci := rowAt(cfiRows, pc)
		if ci < 0 {
			continue
		}
		compared++
		var d RowDiff
		var row frames.Row
		sfText, sfOK := "no FRE", false
		if a := lookup(pc); !a.ok {
			d = RowDiff{CFA: true}
		} else {
			row = a.row
			sfText, sfOK = ruleText(row), true
			d = DiffRows(row, cfiRows[ci], pc)
		}
		if d.Any() {
			if len(bad) == 0 {
				first = Finding{Kind: KindPLT, Function: name, FuncStart: fde.Start, PC: pc,
					ev: &evidence{sf: row, sfOK: sfOK, cfi: cfiRows[ci]}}
				first.Rules[frames.MethodSFrame], first.Rules[frames.MethodCFI] = sfText, ruleText(cfiRows[ci])
			}
			bad = append(bad, pc)
		}
	}
	if len(bad) > 0 {
		first.PCEnd = bad[len(bad)-1] + 1
		first.Instructions = len(bad)
		first.Message = fmt.Sprintf("PLT stub (PC-mask FDE, rep size %d) disagrees with CFI at %d instructions, first at %s+%#x: SFrame %s, CFI %s",
			fde.RepSize, len(bad), c.orLoc(name, fde.Start), first.PC-fde.Start, first.Rules[frames.MethodSFrame], first.Rules[frames.MethodCFI])
		c.add(first)
	}
	return compared
}

// boundaryShift recognizes a disagreement that is an FRE boundary placed a
// few bytes away from the CFI row boundary it mirrors. Late: CFI changed at
// the run's start, SFrame still gives the previous CFI row and its next FRE,
// starting inside the run or at its end, gives the new one. Early: the FRE
// covering the run already gives the CFI row that starts where the run
// ends. The shift is the FRE start minus the CFI row start, in bytes.
func boundaryShift(r run, sfRows, cfiRows []frames.Row) (int64, bool) {
	if r.n > maxBoundaryShift || r.sf < 0 || r.cfi < 0 {
		return 0, false
	}
	sf, cfi := sfRows[r.sf], cfiRows[r.cfi]
	if cfi.Start == r.start && r.cfi > 0 && !DiffRows(sf, cfiRows[r.cfi-1], r.start).Any() {
		if n := r.sf + 1; n < len(sfRows) && sfRows[n].Start > r.start && sfRows[n].Start <= r.end &&
			!DiffRows(sfRows[n], cfi, r.end).Any() {
			return int64(sfRows[n].Start - r.start), true
		}
	}
	if r.cfi+1 < len(cfiRows) && cfiRows[r.cfi+1].Start == r.end && sf.Start >= cfi.Start && sf.Start <= r.start &&
		!DiffRows(sf, cfiRows[r.cfi+1], r.end).Any() {
		return int64(sf.Start) - int64(r.end), true
	}
	return 0, false
}

// ruleText formats a row's CFA, RA and FP rules ("cfa=rsp+16 ra=c-8 fp=u").
func ruleText(r frames.Row) string {
	a := r.Src.Arch
	return "cfa=" + frames.RuleStringFor(a, r.CFA) + " ra=" + frames.RuleStringFor(a, r.RA) + " fp=" + frames.RuleStringFor(a, r.FP)
}

// ruleTextRegs is ruleText followed by the other registers' rules and,
// for an EHABI row, its unwinding instructions: "cfa=sp+8 ra=c-4 fp=u
// r4=c-8 [0x84 0x08 pop {r4, r14}]".
func ruleTextRegs(r frames.Row) string {
	a := r.Src.Arch
	s := ruleText(r)
	r.Other.Each(func(reg rule.Reg, ru rule.Rule) {
		name := "r" + strconv.Itoa(int(reg))
		if a != nil {
			name = a.RegName(reg)
		}
		s += " " + name + "=" + frames.RuleStringFor(a, ru)
	})
	if r.Src.Ops != "" {
		s += " [" + r.Src.Ops + "]"
	}
	return s
}

// orLoc is orAddr for a function of the file checked: in a relocatable
// object an unnamed function is "section+0xoff".
func (c *checker) orLoc(name string, addr uint64) string {
	if name == "" && c.layout != nil && c.layout.Synthetic() {
		return c.layout.Location(addr)
	}
	return orAddr(name, addr)
}

// span formats the address range [start, end): "[0x401000, 0x401040)",
// and in a relocatable object "[.text.foo+0x0, .text.foo+0x40)" when
// start is in a section.
func (c *checker) span(start, end uint64) string {
	if c.layout != nil && c.layout.Synthetic() {
		if sec, off, ok := c.layout.Locate(start); ok {
			return fmt.Sprintf("[%s+%#x, %s+%#x)", sec.Name, off, sec.Name, off+(end-start))
		}
	}
	return fmt.Sprintf("[%#x, %#x)", start, end)
}

func orAddr(name string, addr uint64) string {
	if name != "" {
		return name
	}
	return fmt.Sprintf("%#x", addr)
}
