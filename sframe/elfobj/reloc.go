package elfobj

import (
	"debug/elf"
	"encoding/binary"
	"fmt"
	"math"

	"github.com/sfdbg/sfdbg/sframe/arch"
)

// RelocError is a relocation of a relocatable object that cannot be
// applied: malformed, of a type sfdbg does not apply, or out of range.
type RelocError struct {
	Section string // the relocation section, ".rela.sframe"
	Entry   int    // index of the entry in it
	Off     int64  // file offset of the entry
	Msg     string // what is wrong
}

func (e *RelocError) Error() string {
	return fmt.Sprintf("%s: relocation %d at file offset %#x: %s", e.Section, e.Entry, e.Off, e.Msg)
}

// rela64Size and rela32Size are the sizes of an Elf64_Rela and an
// Elf32_Rela entry in bytes.
const (
	rela64Size = 24
	rela32Size = 12
)

// Data returns the contents of s, a section of File(). In a relocatable
// object the RELA relocations that apply to s (every SHT_RELA section
// whose sh_info is s's index) are applied, against this layout's section
// addresses: S+A for the absolute types, S+A-P for the PC-relative ones,
// with S a symbol's address (SymbolAddr) and P the address of the field
// (s's address plus r_offset). Types: AMD64 R_X86_64_PC32, PC64, 32, 32S,
// 64; AArch64 R_AARCH64_PREL32, PREL64, ABS32, ABS64; s390x R_390_PC32,
// PC64, 32, 64; and each machine's NONE. These are what assemblers emit in
// .sframe, .eh_frame and .debug_frame. A linked file's bytes are returned
// as they are.
//
// ELF32 objects (x32: AMD64 with 32-bit addresses, objcopy -O
// elf32-x86-64, gas --x32) have Elf32_Rela entries (r_info holds the
// symbol in its high 24 bits, the type in its low 8).
//
// Errors: reading the section or the symbol table (debug/elf's, wrapped),
// and a *RelocError for an SHT_REL section, an entry whose
// field lies outside s, a symbol index past the symbol table, a type not
// listed, or a value that does not fit its 32-bit field.
func (l *Layout) Data(s *elf.Section) ([]byte, error) {
	data, _, err := l.relocated(s)
	return data, err
}

// relocated is Data, also returning the offsets in s of the 32-bit fields
// a PC-relative relocation was applied to.
func (l *Layout) relocated(s *elf.Section) (data []byte, pcrel32 map[uint64]bool, err error) {
	data, err = s.Data()
	if err != nil {
		return nil, nil, fmt.Errorf("reading section %s (%d bytes at file offset %#x): %w", s.Name, s.FileSize, s.Offset, err)
	}
	if l.f.Type != elf.ET_REL {
		return data, nil, nil
	}
	idx := -1
	for i, t := range l.f.Sections {
		if t == s {
			idx = i
		}
	}
	for _, rs := range l.f.Sections {
		if (rs.Type != elf.SHT_RELA && rs.Type != elf.SHT_REL) || int(rs.Info) != idx || idx <= 0 {
			continue
		}
		if pcrel32 == nil {
			pcrel32 = map[uint64]bool{}
		}
		if err := l.relocate(rs, s, l.addrs[idx], data, pcrel32); err != nil {
			return nil, nil, err
		}
	}
	return data, pcrel32, nil
}

// relocate applies the relocation section rs to data, the bytes of s,
// which is at address base, and adds the offsets of the 32-bit fields it
// applied a PC-relative relocation to to pcrel32.
func (l *Layout) relocate(rs, s *elf.Section, base uint64, data []byte, pcrel32 map[uint64]bool) error {
	entSize := rela64Size
	if l.f.Class == elf.ELFCLASS32 {
		entSize = rela32Size
	}
	fail := func(i int, format string, args ...any) error {
		return &RelocError{Section: rs.Name, Entry: i, Off: int64(rs.Offset) + int64(i)*int64(entSize), Msg: fmt.Sprintf(format, args...)}
	}
	if rs.Type == elf.SHT_REL {
		return fail(0, "SHT_REL relocations (implicit addends) are not applied; AMD64, AArch64 and s390x objects use SHT_RELA")
	}
	rd, err := rs.Data() // its size was checked against the file by sframe.NewELFFile
	if err != nil {
		return fmt.Errorf("reading section %s (%d bytes at file offset %#x): %w", rs.Name, rs.FileSize, rs.Offset, err)
	}
	if len(rd)%entSize != 0 {
		return fail(len(rd)/entSize, "section of %d bytes is not a whole number of %d-byte entries", len(rd), entSize)
	}
	bo := l.f.ByteOrder
	var syms []elf.Symbol
	for i := 0; i < len(rd)/entSize; i++ {
		roff, add, symi, typ := relaEntry(bo, rd[i*entSize:], entSize)
		size, pcrel, ok := relocKind(l.f.Machine, l.f.ByteOrder, typ)
		switch {
		case !ok:
			return fail(i, "relocation type %d is not applied for %v (against %s at offset %#x)", typ, l.f.Machine, s.Name, roff)
		case size == 0:
			continue // R_*_NONE
		case roff > uint64(len(data)) || uint64(size) > uint64(len(data))-roff:
			return fail(i, "offset %#x is outside the %d-byte section %s", roff, len(data), s.Name)
		}
		var sv uint64
		if symi > 0 {
			if syms == nil {
				if syms, err = l.symbols(); err != nil {
					return fail(i, "reading the symbol table: %v", err)
				}
			}
			if int(symi) > len(syms) {
				return fail(i, "symbol index %d is past the %d symbols of the symbol table", symi, len(syms)+1)
			}
			sym := syms[symi-1] // elf.File.Symbols omits symbol 0
			sv = l.SymbolAddr(sym.Value, sym.Section)
		}
		v := sv + uint64(add)
		if pcrel {
			v -= base + roff
		}
		if size == 8 {
			bo.PutUint64(data[roff:], v)
			continue
		}
		// Absolute 32-bit fields take either signedness (R_X86_64_32
		// is unsigned, 32S signed; ABS32 and R_390_32 both), PC-relative
		// ones are signed.
		if sv := int64(v); sv < math.MinInt32 || (pcrel && sv > math.MaxInt32) || (!pcrel && sv > math.MaxUint32) {
			return fail(i, "value %#x does not fit the 32-bit field at offset %#x of %s", v, roff, s.Name)
		}
		bo.PutUint32(data[roff:], uint32(v))
		if pcrel {
			pcrel32[roff] = true
		}
	}
	return nil
}

// relocKind returns the field size in bytes (0 for a NONE relocation) and
// whether a relocation type of machine m (byte order order) is PC-relative
// (S+A-P) rather than absolute (S+A) (arch.Arch.Relocs); ok is false for a
// type Data does not apply, or a machine sfdbg does not know.
func relocKind(m elf.Machine, order binary.ByteOrder, typ uint32) (size int, pcrel, ok bool) {
	a, err := arch.For(m, order)
	if err != nil {
		return 0, false, false
	}
	r, ok := a.Relocs[typ]
	return r.Size, r.PCRel, ok
}

// relaEntry decodes one Elf32_Rela or Elf64_Rela entry (entSize
// rela32Size or rela64Size bytes at e): the offset it patches, its addend,
// its symbol index and its type (ELF gABI, "Relocation Entries").
func relaEntry(bo binary.ByteOrder, e []byte, entSize int) (roff uint64, add int64, symi, typ uint32) {
	if entSize == rela32Size {
		info := bo.Uint32(e[4:])
		return uint64(bo.Uint32(e)), int64(int32(bo.Uint32(e[8:]))), info >> 8, info & 0xff
	}
	info := bo.Uint64(e[8:])
	return bo.Uint64(e), int64(bo.Uint64(e[16:])), uint32(info >> 32), uint32(info)
}
