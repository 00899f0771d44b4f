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
}

// Machines reports whether f's machine has EHABI tables (EM_ARM,
// EM_TI_C6000).
func Machines(f *elf.File) bool {
	return f.Class == elf.ELFCLASS32 && (f.Machine == elf.EM_ARM || f.Machine == elf.EM_TI_C6000)
}

// ReadELF decodes every index section of f (sh_type SHT_ARM_EXIDX or
// SHT_C6000_UNWIND) and the .extab entries they point to. The file must
// be linked (ET_EXEC or ET_DYN): in a relocatable object the prel31
// words are relocated by R_ARM_PREL31 relocations this package does not
// apply. Errors: ErrNoTables; a *DecodeError for a section that cannot
// be read; problems of single entries are in their Entry.Err.
func ReadELF(f *elf.File) (*File, error) {
	if !Machines(f) {
		return nil, fmt.Errorf("machine %v: no EHABI tables", f.Machine)
	}
	if f.Type == elf.ET_REL {
		return nil, fmt.Errorf("relocatable object: EHABI tables of objects (with R_ARM_PREL31 relocations) are not decoded")
	}
	ef := &File{Machine: Machine(f.Machine)}
	ef.readFuncs(f)
	cache := map[*elf.Section]*Section{}
	load := func(s *elf.Section) (*Section, error) {
		if c, ok := cache[s]; ok {
			return c, nil
		}
		data, err := s.Data()
		if err != nil {
			return nil, malformed(s.Name, -1, "%d bytes at file offset %#x: %v", s.Size, s.Offset, err)
		}
		c := &Section{Name: s.Name, Addr: s.Addr, Off: int64(s.Offset), Data: data, Order: f.ByteOrder}
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
		IsGCC: func(addr uint64) bool {
			name, _, ok := ef.Name(addr)
			return ok && isGCCPersonality(name)
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
// table order).
func (ef *File) readFuncs(f *elf.File) {
	syms, err := f.Symbols()
	if err != nil {
		return
	}
	for _, s := range syms {
		if s.Value != 0 && elf.ST_TYPE(s.Info) == elf.STT_FUNC {
			ef.funcs = append(ef.funcs, funcSym{s.Name, s.Value})
		}
	}
	sort.SliceStable(ef.funcs, func(i, j int) bool { return ef.funcs[i].value < ef.funcs[j].value })
}

// Name returns the function symbol at or below addr within 1 MiB and the
// distance to it, found as readelf finds it (a binary search over the
// sorted symbols that keeps the closest one it passes; on ARM the Thumb
// bit of both is ignored).
func (ef *File) Name(addr uint64) (string, uint64, bool) {
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
		if ef.funcs[mid].name != "" && addr >= v && addr-v < dist {
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
