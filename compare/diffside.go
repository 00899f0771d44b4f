package compare

import (
	"debug/elf"
	"errors"
	"fmt"
	"sort"

	"github.com/sfdbg/sfdbg/frames"
	"github.com/sfdbg/sfdbg/sframe"
)

// One build's side of a diff: its named functions, their rows and their
// instructions, and how two sides' instructions are paired.

// diffFn is one named function of a build: its SFrame and CFI rows (at
// link-time addresses) and its instruction boundaries.
type diffFn struct {
	name       string
	nth        int // how many functions of that name come before it
	start, end uint64
	hasSF      bool
	hasCFI     bool
	sfErr      error // an FRE of the SFrame FDE does not decode; sf holds those before it
	sf, cfi    []frames.Row
	insts      []uint64 // offsets from start
	decoded    bool     // insts are every instruction (AMD64), not row starts
	nop        []bool   // when decoded: whether each instruction is a nop (padding)
}

type diffSide struct {
	funcs  []*diffFn
	byName map[string][]*diffFn
}

// loadDiffSide reads the named functions of the ELF file at path.
func loadDiffSide(path string) (s *diffSide, err error) {
	m := pathModule(path)
	defer m.Close()
	defer func() {
		if p := recover(); p != nil {
			s, err = nil, fmt.Errorf("%s: internal error: %v", path, p)
		}
	}()
	layout, err := m.Layout()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, errors.Unwrap(err))
	}
	f := layout.File()
	c := &checker{name: m.Name, f: f, layout: layout}
	c.arch, _ = m.Arch() // nil for a machine sfdbg does not know: SFrame refuses it below
	for i, sec := range f.Sections {
		if sec.Flags&elf.SHF_EXECINSTR != 0 && sec.Type == elf.SHT_PROGBITS && sec.Flags&elf.SHF_COMPRESSED == 0 {
			c.text = append(c.text, textRange{addr: layout.Addr(i), size: sec.Size, r: sec})
		}
	}
	byStart := map[uint64]*diffFn{}
	get := func(start, end uint64) *diffFn {
		fn := byStart[start]
		if fn == nil {
			fn = &diffFn{start: start, end: end}
			byStart[start] = fn
		}
		fn.end = max(fn.end, end)
		return fn
	}
	sec, err := m.SFrame()
	switch {
	case errors.Is(err, sframe.ErrNoSection):
	case err != nil:
		return nil, fmt.Errorf("%s: %w", path, err)
	default:
		c.sec = sec
		c.freLeft = newFREBudget(sec)
		fdes := sec.FDEs()
		for i := range fdes {
			fde := &fdes[i]
			if fde.Size == 0 || fdeEnd(fde) != fde.End() {
				continue
			}
			fn := get(fde.Start, fde.End())
			// FDEs that share FRE data would make the reads FDEs x FREs:
			// the check's budget bounds them (newFREBudget).
			if cost := c.freCost(fde); cost > c.freLeft {
				fn.hasSF = true
				if fn.sfErr == nil {
					fn.sfErr = fmt.Errorf("SFrame FDE %d not read: the FDEs list more FREs than the %d-byte FRE sub-section holds", fde.Index, sec.FRELen)
				}
				continue
			} else {
				c.freLeft -= cost
			}
			rows, err := c.sfRows(fde)
			if err != nil && fn.sfErr == nil {
				fn.sfErr = fmt.Errorf("SFrame FDE %d: %w", fde.Index, err)
			}
			fn.hasSF = true
			fn.sf = append(fn.sf, rows...)
		}
	}
	cfi := &moduleCFI{m: m}
	ranges, err := cfi.FDERanges()
	if err != nil && !errors.Is(err, frames.ErrNoCFI) && !errors.Is(err, frames.ErrUnsupportedCFI) {
		return nil, fmt.Errorf("%s: reading CFI: %w", path, err)
	}
	for _, r := range ranges {
		if r.End <= r.Start {
			continue
		}
		fn := get(r.Start, r.End)
		rows, err := cfi.Rows(r.Start, r.End)
		if err != nil {
			return nil, fmt.Errorf("%s: CFI of [%#x, %#x): %w", path, r.Start, r.End, err)
		}
		fn.hasCFI = true
		for _, row := range rows {
			row.Start, row.End = max(row.Start, r.Start), min(row.End, r.End)
			fn.cfi = append(fn.cfi, row)
		}
	}
	// The code decoded is bounded by the executable bytes (twice, for
	// functions whose FDEs overlap), not by the FDEs' declared sizes.
	var decodeLeft uint64 = 1 << 16
	for _, t := range c.text {
		decodeLeft += 2 * t.size
	}
	sym := moduleSymbolizer(m)
	s = &diffSide{byName: map[string][]*diffFn{}}
	for _, fn := range byStart {
		if fn.name = sym(fn.start); fn.name != "" {
			s.funcs = append(s.funcs, fn)
		}
	}
	sort.Slice(s.funcs, func(i, j int) bool { return s.funcs[i].start < s.funcs[j].start })
	for _, fn := range s.funcs {
		sort.Slice(fn.sf, func(i, j int) bool { return fn.sf[i].Start < fn.sf[j].Start })
		fn.nth = len(s.byName[fn.name])
		s.byName[fn.name] = append(s.byName[fn.name], fn)
		fn.insts, fn.decoded = c.diffBoundaries(fn, &decodeLeft)
		if fn.decoded {
			// insnBoundaries left the function's bytes in c.code.
			fn.nop = make([]bool, len(fn.insts))
			for i, off := range fn.insts {
				fn.nop[i] = x86Nop(c.code[off:])
			}
		}
	}
	return s, nil
}

// diffBoundaries returns the offsets to compare a function at: every
// instruction boundary where the machine's decoder delimits instructions
// (insnBoundaries, as check decodes: AMD64) while decodeLeft bytes of
// code may still be decoded, else the starts of its rows.
func (c *checker) diffBoundaries(fn *diffFn, decodeLeft *uint64) ([]uint64, bool) {
	if _, ok := c.archDecoder().(lengther); ok && fn.end-fn.start <= *decodeLeft {
		*decodeLeft -= fn.end - fn.start
		if b, ok := c.insnBoundaries(fn.start, fn.end, nil, nil); ok {
			for i := range b {
				b[i] -= fn.start
			}
			return b, true
		}
	}
	var b []uint64
	for _, rows := range [][]frames.Row{fn.sf, fn.cfi} {
		for _, r := range rows {
			if r.Start >= fn.start && r.Start < fn.end {
				b = append(b, r.Start-fn.start)
			}
		}
	}
	b = append(b, 0)
	sort.Slice(b, func(i, j int) bool { return b[i] < b[j] })
	out := b[:0]
	for i, v := range b {
		if i == 0 || v != b[i-1] {
			out = append(out, v)
		}
	}
	return out, false
}

// instPair is an instruction of both builds: its offsets in each.
type instPair struct{ a, b uint64 }

// pairInsts pairs the instructions of two functions: by index when both
// were decoded into as many instructions, or into as many once padding
// nops are left out (the assemblers align loop heads differently); by
// offset when either was not decoded. sameCode is false when the decoded
// code differs in more than padding: then pairs is nil.
func pairInsts(fa, fb *diffFn) (pairs []instPair, sameCode bool) {
	if fa.decoded && fb.decoded {
		if len(fa.insts) == len(fb.insts) {
			for i := range fa.insts {
				pairs = append(pairs, instPair{fa.insts[i], fb.insts[i]})
			}
			return pairs, true
		}
		i, j := 0, 0
		for {
			for i < len(fa.insts) && fa.nop[i] {
				i++
			}
			for j < len(fb.insts) && fb.nop[j] {
				j++
			}
			if i == len(fa.insts) || j == len(fb.insts) {
				if i != len(fa.insts) || j != len(fb.insts) {
					return nil, false
				}
				return pairs, true
			}
			pairs = append(pairs, instPair{fa.insts[i], fb.insts[j]})
			i++
			j++
		}
	}
	// Row starts on one side at least: compare at every offset either has.
	i, j := 0, 0
	for i < len(fa.insts) || j < len(fb.insts) {
		switch {
		case j >= len(fb.insts) || (i < len(fa.insts) && fa.insts[i] < fb.insts[j]):
			pairs = append(pairs, instPair{fa.insts[i], fa.insts[i]})
			i++
		case i >= len(fa.insts) || fb.insts[j] < fa.insts[i]:
			pairs = append(pairs, instPair{fb.insts[j], fb.insts[j]})
			j++
		default:
			pairs = append(pairs, instPair{fa.insts[i], fb.insts[j]})
			i++
			j++
		}
	}
	return pairs, true
}

// x86Nop reports whether the x86-64 instruction at the start of code is a
// nop: 0x90 or 0x0f 0x1f /0 (nopw/nopl), after any 0x66 and segment
// (0x2e) prefixes, as assemblers pad with.
func x86Nop(code []byte) bool {
	for len(code) > 0 && (code[0] == 0x66 || code[0] == 0x2e) {
		code = code[1:]
	}
	switch {
	case len(code) >= 1 && code[0] == 0x90:
		return true
	case len(code) >= 2 && code[0] == 0x0f && code[1] == 0x1f:
		return true
	}
	return false
}
