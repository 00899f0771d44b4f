package compare

import (
	"debug/elf"
	"fmt"
	"math"
	"slices"

	"github.com/sfdbg/sfdbg/sframe"
	"github.com/sfdbg/sfdbg/sframe/elfobj"
)

// Bounded work. A check iterates over address ranges and FRE lists that the
// file declares (an FDE's size, a PC-mask FDE's repetitions, an FDE's FRE
// count); a damaged field can declare gigabytes. Before anything iterates,
// every declared range is clipped to the bytes that hold it: an FDE's
// range to the executable section (segment, in a file without section
// headers) that contains its start, and the FREs decoded for the whole
// file to a budget the FRE sub-section pays for. The work of a check is
// then linear in the file's size plus the code it covers.

// execRanges returns the link-time address ranges of the file's executable
// code whose bytes are in the file, sorted by start: its SHF_EXECINSTR
// sections that are not SHT_NOBITS, or, when it has none (no section
// headers), its executable PT_LOAD segments' file-backed parts. The sizes
// are bounded by the file's (sframe.NewELFFile checked every section and
// segment against it); a compressed section, whose declared size is its
// uncompressed size, counts its bytes in the file.
func execRanges(f *elf.File, layout *elfobj.Layout) []Range {
	if layout == nil {
		layout = elfobj.AsIs(f)
	}
	rs := layout.ExecRanges()
	out := make([]Range, len(rs))
	for i, r := range rs {
		out[i] = Range{r[0], r[1]}
	}
	return out
}

// addrRange returns [addr, addr+size), ending at the top of the address space
// when addr+size wraps around it.
func addrRange(addr, size uint64) Range {
	if addr+size < addr {
		return Range{addr, math.MaxUint64}
	}
	return Range{addr, addr + size}
}

// execAt returns the executable range of c.exec that contains addr: the
// one starting last at or below it, if it reaches addr.
func (c *checker) execAt(addr uint64) (Range, bool) {
	i, _ := slices.BinarySearchFunc(c.exec, addr, func(r Range, a uint64) int {
		if r.Start <= a {
			return -1
		}
		return 1
	})
	// c.exec[:i] start at or below addr; sections may overlap (a
	// relocatable object's do not, segments of a damaged file may).
	for k := i - 1; k >= 0 && k >= i-4; k-- {
		if addr < c.exec[k].End {
			return c.exec[k], true
		}
	}
	return Range{}, false
}

// clipFDEs sets c.clips: for each FDE in section order, its range clipped
// to the executable range containing its start, or an empty range at its
// start when none does (then c.outside is set for it). It finds c.exec
// first if it is not set.
func (c *checker) clipFDEs() {
	if c.exec == nil {
		c.exec = execRanges(c.f, c.layout)
	}
	fdes := c.sec.FDEs()
	c.clips = make([]Range, len(fdes))
	c.outside = make([]bool, len(fdes))
	for i := range fdes {
		fde := &fdes[i]
		x, ok := c.execAt(fde.Start)
		if !ok {
			c.clips[i], c.outside[i] = Range{fde.Start, fde.Start}, true
			continue
		}
		c.clips[i] = Range{fde.Start, min(fdeEnd(fde), x.End)}
	}
}

// clipFindings reports an FDE that starts outside every executable range
// (not compared), or that runs past the end of the one holding its start
// (compared up to it). It returns false for the former.
func (c *checker) clipFindings(fde *sframe.FDE, name string) bool {
	cl := c.clips[fde.Index]
	if c.outside[fde.Index] {
		c.add(Finding{Kind: KindBounds, Function: name, FuncStart: fde.Start, PC: fde.Start, PCEnd: fde.End(),
			Message: fmt.Sprintf("SFrame FDE %d for %s %s starts outside every executable section: not compared",
				fde.Index, c.orLoc(name, fde.Start), c.span(fde.Start, fde.End()))})
		return false
	}
	if cl.End < fdeEnd(fde) {
		where := fmt.Sprintf("%#x", cl.End)
		if s, _, ok := c.layout.Locate(fde.Start); ok {
			where = s.Name + " at " + where
		}
		c.add(Finding{Kind: KindBounds, Function: name, FuncStart: fde.Start, PC: cl.End, PCEnd: fde.End(),
			Message: fmt.Sprintf("SFrame FDE %d for %s %s (size %d) runs past the end of its executable section (%s): compared up to there",
				fde.Index, c.orLoc(name, fde.Start), c.span(fde.Start, fde.End()), fde.Size, where)})
	}
	return true
}

// freCost returns the most FREs reading fde's FREs once can decode: its
// FRE count, bounded by what the FRE sub-section holds from its first FRE
// (sframe.Section.MaxFREs).
func (c *checker) freCost(fde *sframe.FDE) int64 {
	return int64(min(uint64(fde.NumFREs), uint64(c.sec.MaxFREs(fde))))
}

// spendFREs charges n FRE decodes to the file's FRE budget (newFREBudget)
// and reports whether it allowed them. When it does not, the FDE is
// reported as not compared.
func (c *checker) spendFREs(fde *sframe.FDE, name string, n int64) bool {
	if n <= c.freLeft {
		c.freLeft -= n
		return true
	}
	c.add(Finding{Kind: KindFormat, Function: name, FuncStart: fde.Start, PC: fde.Start,
		Message: fmt.Sprintf("SFrame FDE %d for %s not compared: the FDEs list more FREs than the %d-byte FRE sub-section holds (their FRE data overlaps), and reading its %d FREs would exceed the check's budget",
			fde.Index, c.orLoc(name, fde.Start), c.sec.FRELen, n)})
	return false
}

// newFREBudget returns the number of FRE decodes a check may make: every
// FRE of a well-formed section twice (rows, then boundaries), each PC-mask
// FDE's lookups (at most one per FRE range of its repeated block, each a
// scan of its FREs), and a constant per FDE. FDEs whose FRE data does not
// overlap never exhaust it; FDEs that share FRE data (the validator
// reports it) would otherwise make the work FDEs x FREs.
func newFREBudget(sec *sframe.Section) int64 {
	perFDE := int64(64)
	return 4*int64(sec.MaxFREs(nil)) + perFDE*int64(len(sec.FDEs()))
}
