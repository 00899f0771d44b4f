package compare

import (
	"math"
	"path/filepath"
	"sort"
	"sync"

	"github.com/sfdbg/sfdbg/frames"
	"github.com/sfdbg/sfdbg/sframe/elfobj"
)

// moduleCFI is a CFISource over a frames.Module's CFI, at link-time
// addresses (the module's less its Bias: a live module is checked as its
// file). Rows are those of the FDE a lookup picks at each PC
// (frames.Module.CFIRow: the greatest start at or below the PC), so that
// overlapping CFI FDEs cost each PC one row, not one per FDE. The rows of
// a range are built when asked and not kept (frames.Module.CFIRowsOfFDE):
// a check holds one function's rows at a time.
type moduleCFI struct {
	m    *frames.Module
	once sync.Once
	// own[k] is where the k-th FDE of the module (CFIFDEs's order,
	// sorted by start) is the one a lookup picks: its range up to the
	// next FDE's start, link-time; disjoint and sorted. nil when the
	// module's FDEs cannot be listed.
	own []Range
}

func (c *moduleCFI) FDERanges() ([]Range, error) {
	fdes, err := c.m.CFIFDEs()
	if err != nil {
		return nil, err
	}
	out := make([]Range, len(fdes))
	for i, f := range fdes {
		out[i] = Range{f.Start - c.m.Bias, f.End - c.m.Bias}
	}
	return out, nil
}

// linkRows returns the module's rows that overlap the link-time range
// [start, end), at link-time addresses.
func (c *moduleCFI) linkRows(start, end uint64) ([]frames.Row, error) {
	bias := c.m.Bias
	if bias == 0 {
		return c.m.CFIRows(start, end)
	}
	rows, err := c.m.CFIRows(start+bias, min(end, math.MaxUint64-bias)+bias)
	for i := range rows { // a fresh slice of copies: the module's cache is not touched
		r := &rows[i]
		r.Start, r.End, r.Src.FDEStart, r.Src.FDEEnd = r.Start-bias, r.End-bias, r.Src.FDEStart-bias, r.Src.FDEEnd-bias
	}
	return rows, err
}

// Rows returns the picked rows that overlap [start, end), clipped to
// the range where their FDE is the one picked. When the module's FDEs
// cannot be listed it asks the module for the range's rows instead, so
// that the error stays with the functions it concerns.
func (c *moduleCFI) Rows(start, end uint64) ([]frames.Row, error) {
	c.once.Do(c.resolve)
	if c.own == nil {
		return c.linkRows(start, end)
	}
	bias := c.m.Bias
	var out []frames.Row
	for k := sort.Search(len(c.own), func(k int) bool { return c.own[k].End > start }); k < len(c.own) && c.own[k].Start < end; k++ {
		own := c.own[k]
		if own.End <= own.Start {
			continue
		}
		rows, err := c.m.CFIRowsOfFDE(k)
		if err != nil {
			return nil, err
		}
		for _, r := range rows {
			r.Start, r.End, r.Src.FDEStart, r.Src.FDEEnd = r.Start-bias, r.End-bias, r.Src.FDEStart-bias, r.Src.FDEEnd-bias
			if r.Start >= own.End || r.End <= own.Start {
				continue
			}
			r.Start, r.End = max(r.Start, own.Start), min(r.End, own.End)
			out = append(out, r)
		}
	}
	return out, nil
}

// resolve lists where each FDE is the one picked (own).
func (c *moduleCFI) resolve() {
	fdes, err := c.m.CFIFDEs()
	if err != nil {
		return
	}
	own := make([]Range, len(fdes))
	for k, f := range fdes {
		own[k] = Range{f.Start - c.m.Bias, f.End - c.m.Bias}
		if k+1 < len(fdes) {
			// Sorted by start: an FDE nested in this one, or starting
			// inside it, is the one picked from its start on.
			own[k].End = min(own[k].End, fdes[k+1].Start-c.m.Bias)
		}
	}
	c.own = own
}

// pathModule returns a module for the ELF file at path, opened on first
// use (diff and the linker and reproducer reports, which read few parts of
// a file).
func pathModule(path string) *frames.Module {
	return &frames.Module{Name: filepath.Base(path), Path: path, OpenPath: path, Start: 0, End: ^uint64(0)}
}

// fileModule returns a module for the ELF file f, already open, at
// link-time addresses (bias 0). The module reads f and does not close it.
func fileModule(f *elfobj.File) *frames.Module {
	return &frames.Module{Name: filepath.Base(f.Path), Path: f.Path, OpenPath: f.Path, Opened: f, Start: 0, End: ^uint64(0)}
}

// moduleSymbolizer names functions from a module's symbol tables, at
// link-time addresses.
func moduleSymbolizer(m *frames.Module) Symbolizer {
	return func(addr uint64) string {
		name, _, ok := m.FuncName(addr + m.Bias)
		if !ok {
			return ""
		}
		return name
	}
}

// staticCheck is the key of a module's static check on it
// (frames.Module.Memo): a *moduleReport.
type staticCheck struct{}

// moduleReport is the static check of a live module's file, made once on
// the module itself: its file, SFrame, CFI and symbols, already read for
// the trace, are neither opened nor read again.
type moduleReport struct {
	rep *FileReport
	// bounds are rep's FRE-boundary findings, sorted by PC.
	bounds []Finding
}

// staticReport returns the static check of mod (checkModule, at its
// file's link-time addresses), made on first use and kept on the module.
// The check is bounded by the file's size and code (clip.go), however
// damaged its SFrame section.
func staticReport(mod *frames.Module) *moduleReport {
	return mod.Memo(staticCheck{}, func() any {
		r := &moduleReport{}
		rep, err := checkModule(mod.Name, mod, CheckOptions{})
		if err != nil {
			return r
		}
		r.rep = rep
		for _, f := range rep.Findings {
			if f.Kind == KindFREBoundary {
				r.bounds = append(r.bounds, f)
			}
		}
		sort.Slice(r.bounds, func(i, j int) bool { return r.bounds[i].PC < r.bounds[j].PC })
		return r
	}).(*moduleReport)
}

// boundaryAt returns the FRE-boundary finding of the static check of a
// live module (staticReport) that covers the runtime pc, if any.
func boundaryAt(mod *frames.Module, runtimePC uint64) (Finding, bool) {
	bs := staticReport(mod).bounds
	pc := runtimePC - mod.Bias
	// The findings' ranges are disjoint (each PC is compared once): the
	// last starting at or below pc is the only one that can cover it.
	if i := sort.Search(len(bs), func(i int) bool { return bs[i].PC > pc }) - 1; i >= 0 && pc < bs[i].PCEnd {
		return bs[i], true
	}
	return Finding{}, false
}
