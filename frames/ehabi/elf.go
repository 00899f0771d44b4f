package ehabi

import (
	"debug/elf"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// SHT_ARM_EXIDX and SHT_C6000_UNWIND: the index section's type (both
// SHT_LOPROC + 1).
const shtExidx = elf.SectionType(0x70000001)

// ErrNoTables: the file has no index section of its machine's type.
var ErrNoTables = errors.New("no EHABI index section")

// File is the EHABI unwind data of an ELF file: one Table per index
// section (in section header order, as readelf lists them), and the
// function symbols that name addresses.
type File struct {
	Machine Machine
	Tables  []*Table
	funcs   []funcSym
}

type funcSym struct {
	name  string
	value uint64
	shndx int
}

// IsEHABIMachine reports whether f's machine has EHABI tables (EM_ARM,
// EM_TI_C6000).
func IsEHABIMachine(f *elf.File) bool {
	return f.Class == elf.ELFCLASS32 && (f.Machine == elf.EM_ARM || f.Machine == elf.EM_TI_C6000)
}

// ReadELF decodes every index section of f (sh_type SHT_ARM_EXIDX or
// SHT_C6000_UNWIND) and the .extab entries they point to. In an ARM
// relocatable object (ET_REL) the R_ARM_PREL31 relocations of the index
// and table sections are applied as readelf applies them (the table entry
// is found in the section of the relocation's symbol, an undefined
// personality routine is named by its symbol); C6000 objects are refused.
// Errors: ErrNoTables; a *DecodeError for a section that cannot be read;
// problems of single entries are in their Entry.Err.
func ReadELF(f *elf.File) (*File, error) {
	if !IsEHABIMachine(f) {
		return nil, fmt.Errorf("machine %v: no EHABI tables", f.Machine)
	}
	if f.Type == elf.ET_REL && f.Machine != elf.EM_ARM {
		return nil, fmt.Errorf("relocatable object: C6000 relocations (R_C6000_PREL31) are not applied")
	}
	ef := &File{Machine: Machine(f.Machine)}
	syms := ef.readFuncs(f)
	var relocs map[*elf.Section]map[uint64]Reloc
	if f.Type == elf.ET_REL {
		relocs = readRelocs(f, syms)
	}
	cache := map[*elf.Section]*Section{}
	load := func(s *elf.Section) (*Section, error) {
		if c, ok := cache[s]; ok {
			return c, nil
		}
		data, err := s.Data()
		if err != nil {
			return nil, malformed(s.Name, -1, "%d bytes at file offset %#x: %v", s.Size, s.Offset, err)
		}
		c := &Section{Name: s.Name, Addr: s.Addr, Off: int64(s.Offset), Data: data, Order: f.ByteOrder, Relocs: relocs[s]}
		cache[s] = c
		return c, nil
	}
	d := &Decoder{
		Machine: ef.Machine,
		SectionAt: func(addr uint64) *Section {
			for _, s := range f.Sections {
				// A SHT_NOBITS section has no bytes in the file: its
				// declared size is never read (nor allocated).
				if s.Type != elf.SHT_NOBITS && addr >= s.Addr && addr-s.Addr < s.Size {
					c, err := load(s)
					if err != nil {
						return nil
					}
					return c
				}
			}
			return nil
		},
		IsGCC: func(addr uint64, t Target) bool {
			name, _, ok := ef.personalityName(addr, t)
			return ok && isGCCPersonality(name)
		},
		SectionByIndex: func(i int) *Section {
			if i <= 0 || i >= len(f.Sections) || f.Sections[i].Type == elf.SHT_NOBITS {
				return nil
			}
			c, err := load(f.Sections[i])
			if err != nil {
				return nil
			}
			return c
		},
	}
	for _, s := range f.Sections {
		if s.Type != shtExidx {
			continue
		}
		sec, err := load(s)
		if err != nil {
			return ef, err
		}
		t, err := d.Decode(sec)
		if err != nil {
			return ef, err
		}
		ef.Tables = append(ef.Tables, t)
	}
	if len(ef.Tables) == 0 {
		return ef, ErrNoTables
	}
	return ef, nil
}

// isGCCPersonality: GCC's personality routines, whose data starts with the
// compact opcodes (readelf compares these prefixes).
func isGCCPersonality(name string) bool {
	for _, p := range []string{"__gcc_personality_v0", "__gxx_personality_v0", "__gcj_personality_v0", "__gnu_objc_personality_v0"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// readFuncs keeps the STT_FUNC symbols of .symtab with a non-zero value,
// sorted by value (a stable sort: readelf's qsort keeps equal values in
// table order), and returns the whole table (index i+1 at i).
func (ef *File) readFuncs(f *elf.File) []elf.Symbol {
	syms, err := f.Symbols()
	if err != nil {
		return nil
	}
	for _, s := range syms {
		if s.Value != 0 && elf.ST_TYPE(s.Info) == elf.STT_FUNC {
			ef.funcs = append(ef.funcs, funcSym{s.Name, s.Value, int(s.Section)})
		}
	}
	sort.SliceStable(ef.funcs, func(i, j int) bool { return ef.funcs[i].value < ef.funcs[j].value })
	return syms
}

// rPREL31 and rNone: R_ARM_PREL31 and R_ARM_NONE.
const (
	rNone   = 0
	rPREL31 = 42
)

// readRelocs returns, per section of the relocatable object f, its
// R_ARM_PREL31 relocations by offset (the first at each 4-aligned offset,
// as readelf takes it; others are skipped as readelf skips them).
// Entries are read from the relocation sections' own bytes: their count
// is what those bytes hold.
func readRelocs(f *elf.File, syms []elf.Symbol) map[*elf.Section]map[uint64]Reloc {
	out := map[*elf.Section]map[uint64]Reloc{}
	for _, rs := range f.Sections {
		if (rs.Type != elf.SHT_REL && rs.Type != elf.SHT_RELA) || int(rs.Info) >= len(f.Sections) || rs.Info == 0 {
			continue
		}
		target := f.Sections[rs.Info]
		if _, done := out[target]; done || len(syms) == 0 {
			continue // readelf takes the first relocation section of each
		}
		data, err := rs.Data()
		if err != nil {
			continue
		}
		size := 8
		if rs.Type == elf.SHT_RELA {
			size = 12
		}
		m := map[uint64]Reloc{}
		for i := 0; i+size <= len(data); i += size {
			roff := uint64(f.ByteOrder.Uint32(data[i:]))
			info := f.ByteOrder.Uint32(data[i+4:])
			typ, sym := info&0xff, int(info>>8)
			if typ == rNone || typ != rPREL31 || roff&3 != 0 || sym >= len(syms)+1 {
				continue
			}
			if _, dup := m[roff]; dup {
				continue
			}
			r := Reloc{RELA: size == 12}
			if r.RELA {
				r.Addend = int64(int32(f.ByteOrder.Uint32(data[i+8:])))
			}
			if sym > 0 {
				s := syms[sym-1]
				r.SymValue, r.SymShndx, r.SymName = s.Value, int(s.Section), s.Name
				if s.Section >= elf.SHN_LORESERVE {
					r.SymShndx = 0
				}
			}
			m[roff] = r
		}
		out[target] = m
	}
	return out
}

// Name returns the function symbol at or below addr within 1 MiB and the
// distance to it, found as readelf finds it (a binary search over the
// sorted symbols that keeps the closest one it passes; on ARM the Thumb
// bit of both is ignored).
func (ef *File) Name(addr uint64) (string, uint64, bool) { return ef.nameIn(addr, 0) }

// nameIn is Name among the symbols of section shndx (0: any).
func (ef *File) nameIn(addr uint64, shndx int) (string, uint64, bool) {
	clear := func(v uint64) uint64 {
		if ef.Machine == ARM {
			return v &^ 1
		}
		return v
	}
	addr = clear(addr)
	dist := uint64(0x100000)
	best := -1
	lo, hi := 0, len(ef.funcs)
	for lo < hi {
		mid := lo + (hi-lo)/2
		v := clear(ef.funcs[mid].value)
		if ef.funcs[mid].name != "" && (shndx == 0 || shndx == ef.funcs[mid].shndx) && addr >= v && addr-v < dist {
			best, dist = mid, addr-v
			if dist == 0 {
				break
			}
		}
		if addr < v {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	if best < 0 {
		return "", 0, false
	}
	return ef.funcs[best].name, dist, true
}

// targetName names addr as readelf's arm_print_vma_and_name does: in an
// object, the symbol is looked up at the relocation's S+A among the
// symbols of its section.
func (ef *File) targetName(addr uint64, t Target) (string, uint64, bool) {
	if t.Relocated && t.Shndx != 0 {
		return ef.nameIn(t.Offset, t.Shndx)
	}
	return ef.nameIn(addr, 0)
}

// personalityName names a personality routine: in an object, an
// undefined routine (address 0) is named by its relocation's symbol.
func (ef *File) personalityName(addr uint64, t Target) (string, uint64, bool) {
	if addr == 0 && t.Relocated && t.Shndx == 0 && t.Offset == 0 {
		return t.Name, 0, true
	}
	return ef.targetName(addr, t)
}
