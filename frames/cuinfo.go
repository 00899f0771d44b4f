package frames

import (
	"debug/dwarf"
	"debug/elf"
	"encoding/binary"
	"io"
)

// CompUnit describes the DWARF compilation unit holding a PC, what gdb's
// "info source" prints of it (DWARF 5 section 3.1.1 for the attributes,
// 7.5.1 for the unit header).
type CompUnit struct {
	Name     string // DW_AT_name
	CompDir  string // DW_AT_comp_dir, "" when absent
	Producer string // DW_AT_producer, "" when absent
	Language int64  // DW_AT_language (DW_LANG_*, section 7.12), 0 when absent
	Version  int    // the unit header's DWARF version (2 to 5), 0 when unread
	Macros   bool   // DW_AT_macros, DW_AT_macro_info or DW_AT_GNU_macros is present
}

// attrGNUMacros is DW_AT_GNU_macros, which debug/dwarf does not name.
const attrGNUMacros dwarf.Attr = 0x2119

// CompUnitAt returns the compilation unit whose line table covers runtime
// address pc; ok is false when the module has no DWARF line table or no
// unit covers pc.
func (m *Module) CompUnitAt(pc uint64) (cu CompUnit, ok bool) {
	d, err := m.load()
	if err != nil {
		return CompUnit{}, false
	}
	lt := m.lineData(d)
	if lt == nil {
		return CompUnit{}, false
	}
	link := pc - m.Bias
	for u := range lt.units(link) {
		if _, _, found := u.table().find(link); !found {
			continue
		}
		e := u.cu
		cu.Name, _ = e.Val(dwarf.AttrName).(string)
		cu.CompDir, _ = e.Val(dwarf.AttrCompDir).(string)
		cu.Producer, _ = e.Val(dwarf.AttrProducer).(string)
		cu.Language, _ = e.Val(dwarf.AttrLanguage).(int64)
		cu.Macros = e.Val(dwarf.AttrMacros) != nil || e.Val(dwarf.AttrMacroInfo) != nil || e.Val(attrGNUMacros) != nil
		f := d.file
		if !hasSection(f, ".debug_info") {
			f = m.debugFile(d)
		}
		if f != nil {
			cu.Version = unitVersion(f, e.Offset)
		}
		return cu, true
	}
	return CompUnit{}, false
}

// unitVersion returns the version of the .debug_info unit holding the DIE
// at off, walking the unit headers (unit_length, then version: DWARF 5
// section 7.5.1.1; 64-bit DWARF's 0xffffffff escape, 7.4). It reads 14
// bytes per unit; 0 when a header cannot be read or runs past the section.
func unitVersion(f *elf.File, off dwarf.Offset) int {
	sec := f.Section(".debug_info")
	if sec == nil || sec.Type == elf.SHT_NOBITS {
		return 0
	}
	r := sec.Open()
	bo := f.ByteOrder
	var hdr [14]byte
	for pos := uint64(0); ; {
		if _, err := r.Seek(int64(pos), io.SeekStart); err != nil {
			return 0
		}
		if _, err := io.ReadFull(r, hdr[:6]); err != nil {
			return 0
		}
		length, size := uint64(bo.Uint32(hdr[:4])), uint64(4)
		ver := hdr[4:6]
		if length == 0xffffffff {
			if _, err := io.ReadFull(r, hdr[6:14]); err != nil {
				return 0
			}
			length, size = bo.Uint64(hdr[4:12]), 12
			ver = hdr[12:14]
		} else if length >= 0xfffffff0 {
			return 0 // reserved lengths (7.4)
		}
		end := pos + size + length
		if length < 2 || end < pos {
			return 0
		}
		if uint64(off) < end {
			return int(binary.ByteOrder(bo).Uint16(ver))
		}
		pos = end
	}
}
