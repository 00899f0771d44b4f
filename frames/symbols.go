package frames

import (
	"debug/elf"
	"encoding/binary"
	"unsafe"
)

// The symbol tables are read here rather than with debug/elf's
// File.Symbols and DynamicSymbols: those build an elf.Symbol with its own
// name string for every entry and decode symbol versions, which for a
// one-shot backtrace costs more than the whole unwind (libc.so.6 has ~3,000
// dynamic symbols, of which a backtrace needs two or three). Entries are
// decoded in place (ELF gABI "Symbol Table": Elf32_Sym / Elf64_Sym) and
// names are views of the string table, which the module keeps.

// rawSymtab is one ELF symbol table section and its string table.
type rawSymtab struct {
	data  []byte // the entries, from entry 1 (entry 0 is the null symbol)
	strs  []byte // the string table the section links to
	is64  bool
	order binary.ByteOrder
}

// rawSym is one decoded entry of a rawSymtab.
type rawSym struct {
	name        uint32 // offset into the string table
	info        uint8
	shndx       uint16
	value, size uint64
}

// readSymtab returns the first section of type typ (SHT_SYMTAB or
// SHT_DYNSYM) and its linked string table; the zero rawSymtab when there is
// none or either cannot be read.
func readSymtab(f *elf.File, typ elf.SectionType) rawSymtab {
	for _, s := range f.Sections {
		if s.Type != typ {
			continue
		}
		if int(s.Link) >= len(f.Sections) {
			return rawSymtab{}
		}
		data, err := s.Data()
		if err != nil {
			return rawSymtab{}
		}
		strs, err := f.Sections[s.Link].Data()
		if err != nil {
			return rawSymtab{}
		}
		t := rawSymtab{strs: strs, is64: f.Class == elf.ELFCLASS64, order: f.ByteOrder}
		if n := t.entSize(); len(data) >= n {
			t.data = data[n : len(data)-len(data)%n]
		}
		return t
	}
	return rawSymtab{}
}

// entSize is the size of one entry: Elf64_Sym or Elf32_Sym.
func (t *rawSymtab) entSize() int {
	if t.is64 {
		return 24
	}
	return 16
}

// len is the number of entries after the null symbol.
func (t *rawSymtab) len() int {
	if t.data == nil {
		return 0
	}
	return len(t.data) / t.entSize()
}

// sym decodes entry i+1 (entry i of data).
func (t *rawSymtab) sym(i int) rawSym {
	o := t.order
	if t.is64 && o == binary.ByteOrder(binary.LittleEndian) { // the common case, inlined
		b := t.data[i*24 : i*24+24]
		le := binary.LittleEndian
		return rawSym{name: le.Uint32(b), info: b[4], shndx: le.Uint16(b[6:]), value: le.Uint64(b[8:]), size: le.Uint64(b[16:])}
	}
	if t.is64 {
		b := t.data[i*24 : i*24+24]
		return rawSym{name: o.Uint32(b), info: b[4], shndx: o.Uint16(b[6:]), value: o.Uint64(b[8:]), size: o.Uint64(b[16:])}
	}
	b := t.data[i*16 : i*16+16]
	return rawSym{name: o.Uint32(b), value: uint64(o.Uint32(b[4:])), size: uint64(o.Uint32(b[8:])), info: b[12], shndx: o.Uint16(b[14:])}
}

// name returns the NUL-terminated string at off in the string table,
// sharing its memory (the table is never modified), or "" when off is out
// of range or the string is unterminated.
func (t *rawSymtab) name(off uint32) string {
	if uint64(off) >= uint64(len(t.strs)) {
		return ""
	}
	b := t.strs[off:]
	n := 0
	for n < len(b) && b[n] != 0 {
		n++
	}
	if n == 0 || n == len(b) {
		return ""
	}
	return unsafe.String(&b[0], n)
}

// symRank orders symbols at the same address: the preferred one first
// (sized before zero-size, global before weak before local, typed before
// STT_NOTYPE).
func symRank(info uint8, size uint64) uint8 {
	r := uint8(0)
	if size == 0 {
		r += 8
	}
	switch elf.ST_BIND(info) {
	case elf.STB_GLOBAL:
	case elf.STB_WEAK:
		r++
	default:
		r += 2
	}
	if elf.ST_TYPE(info) == elf.STT_NOTYPE {
		r += 4
	}
	return r
}

// loadSymbols merges the function symbols of .symtab and .dynsym (plus
// synthetic "name@plt" entries for the PLT), drops duplicates, sorts them by
// address and gives zero-size symbols the size up to the next symbol or the
// end of their section. At one address the lowest symRank wins, then the
// first in .symtab, .dynsym, PLT order.
func loadSymbols(f *elf.File) []elfSymbol {
	tabs := [2]rawSymtab{readSymtab(f, elf.SHT_SYMTAB), readSymtab(f, elf.SHT_DYNSYM)}
	// cand is kept small (24 bytes) for the sort: libc has thousands.
	type cand struct {
		addr uint64
		key  uint64 // rank<<56 | source<<48 | index: the order at one address
		size uint64
	}
	cands := make([]cand, 0, tabs[0].len()+tabs[1].len())
	for ti := range tabs {
		t := &tabs[ti]
		for i, n := 0, t.len(); i < n; i++ {
			s := t.sym(i)
			switch elf.ST_TYPE(s.info) {
			case elf.STT_FUNC, elf.STT_GNU_IFUNC, elf.STT_NOTYPE:
			default:
				continue
			}
			sec := elf.SectionIndex(s.shndx)
			if sec == elf.SHN_UNDEF || sec >= elf.SHN_LORESERVE || int(sec) >= len(f.Sections) ||
				f.Sections[sec].Flags&elf.SHF_EXECINSTR == 0 {
				continue
			}
			if uint64(s.name) >= uint64(len(t.strs)) {
				continue
			}
			if c := t.strs[s.name]; c == 0 || c == '$' || c == '.' && s.name+1 < uint32(len(t.strs)) && t.strs[s.name+1] == 'L' {
				continue // unnamed, mapping symbol, assembler-local label
			}
			cands = append(cands, cand{s.value, uint64(symRank(s.info, s.size))<<56 | uint64(ti)<<48 | uint64(i), s.size})
		}
	}
	plt := pltSymbols(f, &tabs[1])
	for i, p := range plt {
		cands = append(cands, cand{p.addr, uint64(symRank(elf.ST_INFO(elf.STB_LOCAL, elf.STT_FUNC), p.size))<<56 | 2<<48 | uint64(i), p.size})
	}
	sortCands(cands, func(c *cand) uint64 { return c.addr }, func(c *cand) uint64 { return c.key })
	out := make([]elfSymbol, 0, len(cands))
	for _, c := range cands {
		if n := len(out); n > 0 && out[n-1].addr == c.addr {
			continue // a less preferred alias
		}
		src, idx := int(c.key>>48&0xff), int(c.key&(1<<48-1))
		var name string
		end := c.addr + c.size
		if src == 2 {
			name = plt[idx].name
		} else {
			t := &tabs[src]
			s := t.sym(idx)
			name = t.name(s.name)
			sec := f.Sections[s.shndx]
			end = sec.Addr + sec.Size
		}
		if name == "" {
			continue // unterminated name
		}
		out = append(out, elfSymbol{addr: c.addr, size: c.size, name: name, sized: c.size != 0, end: end})
	}
	for i := range out {
		if out[i].sized {
			continue
		}
		end := out[i].end
		if i+1 < len(out) && out[i+1].addr < end {
			end = out[i+1].addr
		}
		if end > out[i].addr {
			out[i].size = end - out[i].addr
		} else {
			out[i].size = 1
		}
	}
	return out
}

// sortCands sorts s by (addr, key) with a stable least-significant-digit
// radix sort, given that s is already in ascending order of key's low 56
// bits: one pass over key's top byte, then one over each byte of addr that
// is not the same in every element. For symbol tables (a few thousand
// entries whose addresses differ in three or four bytes) this is several
// times faster than a comparison sort, and the result is the same total
// order, keys being unique.
func sortCands[T any](s []T, addr, key func(*T) uint64) {
	if len(s) < 2 {
		return
	}
	or, and := uint64(0), ^uint64(0)
	kor, kand := uint64(0), ^uint64(0)
	for i := range s {
		a, k := addr(&s[i]), key(&s[i])>>56
		or, and, kor, kand = or|a, and&a, kor|k, kand&k
	}
	src, dst := s, make([]T, len(s))
	pass := func(digit func(*T) uint64) {
		var count [257]int
		for i := range src {
			count[digit(&src[i])+1]++
		}
		for b := 1; b < len(count); b++ {
			count[b] += count[b-1]
		}
		for i := range src {
			d := digit(&src[i])
			dst[count[d]] = src[i]
			count[d]++
		}
		src, dst = dst, src
	}
	if kor != kand {
		pass(func(t *T) uint64 { return key(t) >> 56 })
	}
	for shift := uint(0); shift < 64; shift += 8 {
		if (or^and)>>shift&0xff != 0 {
			pass(func(t *T) uint64 { return addr(t) >> shift & 0xff })
		}
	}
	if &src[0] != &s[0] {
		copy(s, src)
	}
}

// pltSymbol is a synthetic symbol for one PLT entry.
type pltSymbol struct {
	addr, size uint64
	name       string
}

// pltSymbols names the AMD64 PLT entries after the functions they call:
// relocation i of .rela.plt (R_X86_64_JUMP_SLOT or R_X86_64_IRELATIVE) is
// served by entry i of .plt.sec when the file has one (IBT PLT), else by
// entry i+1 of .plt (entry 0 is the resolver stub).
func pltSymbols(f *elf.File, dyn *rawSymtab) []pltSymbol {
	if f.Machine != elf.EM_X86_64 || f.Class != elf.ELFCLASS64 {
		return nil
	}
	rela := f.Section(".rela.plt")
	if rela == nil || rela.Type != elf.SHT_RELA {
		return nil
	}
	data, err := rela.Data()
	if err != nil {
		return nil
	}
	const entSize = 16
	plt, first := f.Section(".plt.sec"), uint64(0)
	if plt == nil {
		plt, first = f.Section(".plt"), 1
	}
	if plt == nil {
		return nil
	}
	n := uint64(len(data) / 24)
	var out []pltSymbol
	for i := uint64(0); i < n; i++ {
		info := binary.LittleEndian.Uint64(data[i*24+8:])
		symIdx := info >> 32
		if symIdx == 0 || symIdx > uint64(dyn.len()) {
			continue
		}
		addr := plt.Addr + (first+i)*entSize
		if addr+entSize > plt.Addr+plt.Size {
			break
		}
		name := dyn.name(dyn.sym(int(symIdx - 1)).name)
		if name == "" {
			continue
		}
		out = append(out, pltSymbol{addr: addr, size: entSize, name: name + "@plt"})
	}
	return out
}
