package frames

import (
	"debug/dwarf"
	"slices"
	"sync"

	"github.com/sirupsen/logrus"
)

// inlinedEntries indexes a module's inlined copies of functions by name:
// link-time entry addresses, built on first use (InlinedEntries).
type inlinedEntries struct {
	once   sync.Once
	byName map[string][]uint64
}

// InlinedEntries returns the runtime entry addresses of the copies of the
// function called name that were inlined into other functions
// (DW_TAG_inlined_subroutine whose DW_AT_abstract_origin is named name;
// DWARF 5 section 3.3.8.2), sorted: where gdb also puts a location of
// "break name". An entry is the start of the copy's first non-empty
// range, as gdb 13 takes it. The module's DWARF is indexed once, on the
// first call; malformed DWARF ends the index where it was read (logged at
// debug level).
func (m *Module) InlinedEntries(name string) []uint64 {
	lt := m.lines()
	if lt == nil {
		return nil
	}
	lt.inlinedIdx.once.Do(func() {
		if d := lt.wholeData(); d != nil {
			lt.inlinedIdx.byName = indexInlined(d)
		}
	})
	var out []uint64
	for _, a := range lt.inlinedIdx.byName[name] {
		out = append(out, a+m.Bias)
	}
	return out
}

// indexInlined walks every entry of d for inlined subroutines.
func indexInlined(d *dwarf.Data) (idx map[string][]uint64) {
	idx = map[string][]uint64{}
	defer func() {
		if r := recover(); r != nil { // debug/dwarf on hostile input
			logrus.Debugf("frames: index of inlined subroutines: DWARF: %v", r)
		}
		for n, a := range idx {
			slices.Sort(a)
			idx[n] = slices.Compact(a)
		}
	}()
	names := map[dwarf.Offset]string{} // abstract origin -> DW_AT_name
	nameOf := func(off dwarf.Offset) string {
		if n, ok := names[off]; ok {
			return n
		}
		start := off
		r := d.Reader()
		n := ""
		for range maxOriginHops {
			r.Seek(off)
			e, err := r.Next()
			if err != nil || e == nil {
				break
			}
			if s, ok := e.Val(dwarf.AttrName).(string); ok {
				n = s
				break
			}
			next, ok := e.Val(dwarf.AttrAbstractOrigin).(dwarf.Offset)
			if !ok {
				if next, ok = e.Val(dwarf.AttrSpecification).(dwarf.Offset); !ok {
					break
				}
			}
			off = next
		}
		names[start] = n
		return n
	}
	r := d.Reader()
	for last := dwarf.Offset(0); ; {
		e, err := r.Next()
		if err != nil || e == nil {
			return idx
		}
		if e.Tag == 0 {
			continue // the end of an entry's children (no offset given)
		}
		if e.Offset < last || e.Offset == last && last != 0 {
			return idx // a malformed unit (see loadLines)
		}
		last = e.Offset
		if e.Tag != dwarf.TagInlinedSubroutine {
			continue
		}
		origin, ok := e.Val(dwarf.AttrAbstractOrigin).(dwarf.Offset)
		if !ok {
			continue
		}
		name := nameOf(origin)
		if name == "" {
			continue
		}
		ranges, err := d.Ranges(e)
		if err != nil {
			continue
		}
		// gdb 13's entry of a block: the start of its first range, in
		// DWARF order, empty ranges dropped (it does not read
		// DW_AT_entry_pc, which GCC may put in an empty range).
		i := slices.IndexFunc(ranges, func(rg [2]uint64) bool { return rg[1] > rg[0] })
		if i < 0 {
			continue
		}
		lo := ranges[i][0]
		idx[name] = append(idx[name], lo)
	}
}
