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
	_, v, ok := m.LookupGlobal(name)
	if !ok || v.Type == nil {
		return nil, false
	}
	return v.Type, true
}
