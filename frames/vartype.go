package frames

import (
	"debug/dwarf"
)

// GlobalType returns the DWARF type of the variable name defined at the
// top level of one of the module's compilation units (a C global or
// file-scope static: DW_TAG_variable with DW_AT_location, DWARF 5 section
// 4.1); ok is false when there is none, or its type cannot be read
// (malformed DWARF, a cycle of typedefs). It reads every unit's top-level
// entries: for a command, not for lookups in bulk.
func (m *Module) GlobalType(name string) (t dwarf.Type, ok bool) {
	d, err := m.load()
	if err != nil {
		return nil, false
	}
	lt := m.lineData(d)
	if lt == nil {
		return nil, false
	}
	defer func() {
		if r := recover(); r != nil { // debug/dwarf on hostile input
			t, ok = nil, false
		}
	}()
	dd := lt.wholeData()
	if dd == nil {
		return nil, false
	}
	r := dd.Reader()
	for last := dwarf.Offset(0); ; {
		e, err := r.Next()
		if err != nil || e == nil {
			return nil, false
		}
		if e.Tag == 0 {
			continue // the end of a unit's entries (no offset given)
		}
		if e.Offset < last || e.Offset == last && last != 0 {
			return nil, false // a malformed unit (see loadLines)
		}
		last = e.Offset
		if e.Tag == dwarf.TagCompileUnit || e.Tag == dwarf.TagPartialUnit {
			continue // into the unit's top-level entries
		}
		if e.Tag == dwarf.TagVariable && e.Val(dwarf.AttrLocation) != nil {
			// A definition after a declaration names neither itself nor
			// its type: its DW_AT_specification does.
			n, _ := e.Val(dwarf.AttrName).(string)
			off, has := e.Val(dwarf.AttrType).(dwarf.Offset)
			if spec, isDef := e.Val(dwarf.AttrSpecification).(dwarf.Offset); isDef {
				sr := dd.Reader()
				sr.Seek(spec)
				if se, err := sr.Next(); err == nil && se != nil {
					if n == "" {
						n, _ = se.Val(dwarf.AttrName).(string)
					}
					if !has {
						off, has = se.Val(dwarf.AttrType).(dwarf.Offset)
					}
				}
			}
			if n == name {
				if !has || !typeChainEnds(dd, off) {
					return nil, false
				}
				ty, err := dd.Type(off)
				return ty, err == nil
			}
		}
		if e.Children {
			r.SkipChildren()
		}
	}
}
