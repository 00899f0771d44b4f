package elfobj

import (
	"debug/elf"
	"sort"
)

// CodeReloc is a relocation of a relocatable object's code: the field at
// Addr (an address in this layout) is filled at link time from the symbol
// Sym plus Addend. In an object, a call to a function of another file
// (call abort@PLT: R_X86_64_PLT32 against abort; AArch64 R_AARCH64_CALL26;
// s390x R_390_PLT32DBL) holds no target of its own, only this.
type CodeReloc struct {
	Addr   uint64
	Type   uint32
	Sym    elf.Symbol
	Addend int64
}

// CodeRelocIn returns the relocation of an executable section whose field
// starts in [start, end) (link-time addresses of this layout), the first
// one by address; ok is false in a linked file, where none is found, and
// where the relocations cannot be read (a malformed entry is skipped, not
// reported: Data reports it). The relocations of the file's executable
// sections are read once, on first use (memory linear in their sections'
// sizes); each lookup is O(log n).
func (l *Layout) CodeRelocIn(start, end uint64) (r CodeReloc, ok bool) {
	if !l.rel || end <= start {
		return CodeReloc{}, false
	}
	l.codeRelOnce.Do(l.readCodeRelocs)
	rs := l.codeRels
	i := sort.Search(len(rs), func(i int) bool { return rs[i].Addr >= start })
	if i < len(rs) && rs[i].Addr < end {
		return rs[i], true
	}
	return CodeReloc{}, false
}

// readCodeRelocs fills l.codeRels from the SHT_RELA sections that apply to
// executable sections, sorted by address. Entries are bounded by the
// bytes of their sections; an entry whose symbol index is past the symbol
// table or whose field is outside its section is skipped.
func (l *Layout) readCodeRelocs() {
	f := l.f
	entSize := rela64Size
	if f.Class == elf.ELFCLASS32 {
		entSize = rela32Size
	}
	syms, err := l.symbols()
	if err != nil {
		return
	}
	bo := f.ByteOrder
	for _, rs := range f.Sections {
		if rs.Type != elf.SHT_RELA || rs.Info == 0 || int(rs.Info) >= len(f.Sections) {
			continue
		}
		s := f.Sections[rs.Info]
		if s.Flags&elf.SHF_EXECINSTR == 0 || s.Type == elf.SHT_NOBITS {
			continue
		}
		rd, err := rs.Data()
		if err != nil {
			continue
		}
		base := l.addrs[rs.Info]
		for e := rd; len(e) >= entSize; e = e[entSize:] {
			roff, add, symi, typ := relaEntry(bo, e, entSize)
			if roff >= s.Size || symi == 0 || int(symi) > len(syms) {
				continue
			}
			l.codeRels = append(l.codeRels, CodeReloc{Addr: base + roff, Type: typ, Sym: syms[symi-1], Addend: add})
		}
	}
	sort.SliceStable(l.codeRels, func(i, j int) bool { return l.codeRels[i].Addr < l.codeRels[j].Addr })
}
