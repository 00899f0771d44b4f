package frames

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"unsafe"

	"github.com/sfdbg/sfdbg/sframe/elfobj"
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
	data []byte // the entries, from entry 1 (entry 0 is the null symbol)
	strs []byte // the string table the section links to
	// lastNUL is the index of the last NUL byte of strs (-1 if none): the
	// string at off is terminated if and only if off <= lastNUL.
	lastNUL int
	is64    bool
	le64    bool // is64 and little-endian: the common case, decoded inline
	order   binary.ByteOrder
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
		t := rawSymtab{strs: strs, lastNUL: bytes.LastIndexByte(strs, 0), is64: f.Class == elf.ELFCLASS64, order: f.ByteOrder}
		t.le64 = t.is64 && f.ByteOrder == binary.ByteOrder(binary.LittleEndian)
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
	if t.le64 {
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

// name returns the NUL-terminated string at off in the string table (see
// cstring).
func (t *rawSymtab) name(off uint32) string { return cstring(t.strs, off) }

// cstring returns the NUL-terminated string at off in strs, sharing its
// memory (string tables are never modified), or "" when off is out of
// range or the string is unterminated.
func cstring(strs []byte, off uint32) string {
	if uint64(off) >= uint64(len(strs)) {
		return ""
	}
	b := strs[off:]
	n := 0
	for n < len(b) && b[n] != 0 {
		n++
	}
	if n == 0 || n == len(b) {
		return ""
	}
	return unsafe.String(&b[0], n)
}

// symTable is a module's merged function symbol table, at link-time
// addresses, in parallel arrays without pointers (cheap to build and
// invisible to the garbage collector): entry i covers [addrs[i],
// addrs[i]+sizes[i]). Names are resolved on use from the string tables,
// and share their memory: a name a caller keeps keeps its table alive.
type symTable struct {
	addrs []uint64 // sorted, distinct
	sizes []uint64 // never 0: zero-size symbols extend to the next symbol or the end of their section
	refs  []uint64 // where the name is: source<<32 | offset, see name
	strs  [2][]byte
	plt   []string // names of the synthetic PLT symbols (source 2)
}

// Name sources of symTable.refs.
const (
	symFromSymtab = iota // offset into the .symtab string table
	symFromDynsym        // offset into .dynstr
	symFromPLT           // index into plt
)

// name returns the name of entry i.
func (t *symTable) name(i int) string {
	src, off := t.refs[i]>>32, uint32(t.refs[i])
	if src == symFromPLT {
		return t.plt[off]
	}
	return cstring(t.strs[src], off)
}

// find returns the index of the symbol covering the link-time address a,
// or -1. When symbols nest (a smaller one inside a larger one), the few
// entries below a are searched for one that covers it.
func (t *symTable) find(a uint64) int {
	lo, hi := 0, len(t.addrs)
	for lo < hi { // the first entry above a
		m := int(uint(lo+hi) >> 1)
		if t.addrs[m] <= a {
			lo = m + 1
		} else {
			hi = m
		}
	}
	for k := lo - 1; k >= 0 && k >= lo-4; k-- {
		if a-t.addrs[k] < t.sizes[k] {
			return k
		}
	}
	return -1
}

// versionedName reports whether the NUL-terminated name at the start of b
// carries a symbol version ("memcpy@GLIBC_2.2.5", "memcpy@@GLIBC_2.14").
func versionedName(b []byte) bool {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return bytes.IndexByte(b, '@') > 0
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
// .dynsym's (the exported name), then the first in .symtab, PLT order.
//
// The .symtab comes from symtab, l's file itself or its separate debug
// file (whose section headers are the file's: objcopy --only-keep-debug
// keeps them). Addresses are those of the layout l: in a relocatable
// object a symbol's value is an offset into its section, placed by
// elfobj.Link.
func loadSymbols(l *elfobj.Layout, symtab *elf.File) *symTable {
	f := l.File()
	tabs := [2]rawSymtab{readSymtab(symtab, elf.SHT_SYMTAB), readSymtab(f, elf.SHT_DYNSYM)}
	// Which sections hold code, and where they end.
	exec := make([]bool, len(f.Sections))
	for i, sec := range f.Sections {
		exec[i] = sec.Flags&elf.SHF_EXECINSTR != 0
	}
	cands := make([]symCand, 0, tabs[0].len()+tabs[1].len())
	for ti := range tabs {
		t := &tabs[ti]
		for i, n := 0, t.len(); i < n; i++ {
			s := t.sym(i)
			switch elf.ST_TYPE(s.info) {
			case elf.STT_FUNC, elf.STT_GNU_IFUNC, elf.STT_NOTYPE:
			default:
				continue
			}
			if sec := int(s.shndx); sec == int(elf.SHN_UNDEF) || sec >= len(exec) || !exec[sec] {
				continue // also SHN_ABS and the other reserved indices, all >= len(exec)
			}
			if int64(s.name) >= int64(t.lastNUL) {
				continue // no name, or an unterminated one
			}
			if c := t.strs[s.name]; c == 0 || c == '$' || c == '.' && t.strs[s.name+1] == 'L' {
				continue // unnamed, mapping symbol, assembler-local label
			}
			rank := symRank(s.info, s.size)
			if versionedName(t.strs[s.name:]) {
				rank += 16 // a symbol version's alias (clock_nanosleep@GLIBC_2.2.5): a plain name wins
			}
			// At equal rank the exported name (.dynsym: clock_gettime)
			// wins over the internal one (.symtab: __clock_gettime).
			rank <<= 1
			if ti == 0 {
				rank |= 1
			}
			value := s.value
			if f.Machine == elf.EM_ARM && elf.ST_TYPE(s.info) == elf.STT_FUNC {
				// A Thumb function's value is its address with bit 0 set
				// (ELF for the Arm Architecture, "Symbol Values").
				value &^= 1
			}
			cands = append(cands, symCand{l.SymbolAddr(value, elf.SectionIndex(s.shndx)), uint64(rank)<<56 | uint64(ti)<<48 | uint64(i), s.size, s.name, s.shndx})
		}
	}
	plt := pltSymbols(f, &tabs[1])
	for i, p := range plt {
		cands = append(cands, symCand{p.addr, uint64(symRank(elf.ST_INFO(elf.STB_LOCAL, elf.STT_FUNC), p.size)<<1)<<56 | symFromPLT<<48 | uint64(i), p.size, uint32(i), 0})
	}
	sortCands(cands)
	t := &symTable{strs: [2][]byte{tabs[0].strs, tabs[1].strs}}
	t.addrs = make([]uint64, 0, len(cands))
	t.sizes = make([]uint64, 0, len(cands))
	t.refs = make([]uint64, 0, len(cands))
	var ends []uint64 // section ends of zero-size symbols, in order
	for _, c := range cands {
		if n := len(t.addrs); n > 0 && t.addrs[n-1] == c.addr {
			continue // a less preferred alias
		}
		src := c.key >> 48 & 0xff
		if src == symFromPLT {
			t.plt = append(t.plt, plt[c.name].name)
			c.name = uint32(len(t.plt) - 1)
		} else if c.size == 0 {
			ends = append(ends, l.Addr(int(c.shndx))+f.Sections[c.shndx].Size)
		}
		ref := src<<32 | uint64(c.name)
		t.addrs = append(t.addrs, c.addr)
		t.sizes = append(t.sizes, c.size)
		t.refs = append(t.refs, ref)
	}
	// Zero-size symbols (PLT entries are sized) extend to the next symbol
	// or the end of their section, whichever comes first.
	k := 0
	for i, size := range t.sizes {
		if size != 0 {
			continue
		}
		end := ends[k]
		k++
		if i+1 < len(t.addrs) && t.addrs[i+1] < end {
			end = t.addrs[i+1]
		}
		t.sizes[i] = 1
		if end > t.addrs[i] {
			t.sizes[i] = end - t.addrs[i]
		}
	}
	return t
}

// symCand is a candidate symbol while the table is built, kept small (32
// bytes) for the sort: libc has thousands.
type symCand struct {
	addr  uint64
	key   uint64 // rank<<56 | source<<48 | index: the order at one address
	size  uint64
	name  uint32 // offset into the source's string table, or PLT index
	shndx uint16 // section index
}

// sortCands sorts s by (addr, key) with a stable least-significant-digit
// radix sort, given that s is already in ascending order of key's low 56
// bits: one pass over key's top byte (the rank), then one over each byte of
// addr that is not the same in every element. For symbol tables (a few
// thousand entries whose addresses differ in three or four bytes) this is
// several times faster than a comparison sort, and the result is the same
// total order, keys being unique.
func sortCands(s []symCand) {
	if len(s) < 2 {
		return
	}
	or, and := uint64(0), ^uint64(0)
	kor, kand := uint64(0), ^uint64(0)
	for i := range s {
		or, and, kor, kand = or|s[i].addr, and&s[i].addr, kor|s[i].key, kand&s[i].key
	}
	src, dst := s, make([]symCand, len(s))
	// pass sorts src into dst by the byte of the field at shift.
	pass := func(key bool, shift uint) {
		var count [256]int
		for i := range src {
			v := src[i].addr
			if key {
				v = src[i].key
			}
			count[v>>shift&0xff]++
		}
		pos := 0
		for b, n := range count {
			count[b] = pos
			pos += n
		}
		for i := range src {
			v := src[i].addr
			if key {
				v = src[i].key
			}
			d := v >> shift & 0xff
			dst[count[d]] = src[i]
			count[d]++
		}
		src, dst = dst, src
	}
	if (kor^kand)>>56 != 0 {
		pass(true, 56)
	}
	for shift := uint(0); shift < 64; shift += 8 {
		if (or^and)>>shift&0xff != 0 {
			pass(false, shift)
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

// pltSymbols names the AMD64 PLT entries after the functions they call, as
// objdump does ("puts@plt"): each entry of .plt.sec (IBT PLT), of .plt
// (lazy binding; entry 0 is the resolver stub) and of .plt.got holds a
// "jmp *disp32(%rip)" (ff 25, after an endbr64 or a bnd prefix) through a
// GOT slot, and the relocation that fills that slot (.rela.plt's
// R_X86_64_JUMP_SLOT or R_X86_64_IRELATIVE, .rela.dyn's GLOB_DAT for
// .plt.got: __cxa_finalize in most executables) names it. Entries are
// matched by slot, not by position: in libc the IRELATIVE relocations come
// last in .rela.plt but fill early slots. An IRELATIVE slot, which names
// no symbol, is "*ABS*+0xADDEND@plt", as objdump prints it.
func pltSymbols(f *elf.File, dyn *rawSymtab) []pltSymbol {
	if f.Machine != elf.EM_X86_64 || f.Class != elf.ELFCLASS64 {
		return nil
	}
	bySlot := map[uint64]string{}
	for _, name := range []string{".rela.dyn", ".rela.plt"} {
		rela := f.Section(name)
		if rela == nil || rela.Type != elf.SHT_RELA || rela.Size > 1<<26 {
			continue
		}
		relocs, err := rela.Data()
		if err != nil {
			continue
		}
		for i := 0; i+24 <= len(relocs); i += 24 {
			if name := pltRelaSymbol(relocs[i:], dyn); name != "" {
				bySlot[binary.LittleEndian.Uint64(relocs[i:])] = name
			}
		}
	}
	var out []pltSymbol
	for _, sec := range []string{".plt", ".plt.sec", ".plt.got"} {
		out = append(out, pltEntrySymbols(f.Section(sec), bySlot)...)
	}
	return out
}

// pltRelaSymbol returns the name of the dynamic symbol relocation entry r
// (24 bytes of a .rela section) refers to, "*ABS*+0xADDEND" for an
// R_X86_64_IRELATIVE, "" when none.
func pltRelaSymbol(r []byte, dyn *rawSymtab) string {
	info := binary.LittleEndian.Uint64(r[8:])
	symIdx := info >> 32
	if symIdx == 0 {
		if elf.R_X86_64(info&0xffffffff) == elf.R_X86_64_IRELATIVE {
			return fmt.Sprintf("*ABS*+%#x", binary.LittleEndian.Uint64(r[16:]))
		}
		return ""
	}
	if symIdx > uint64(dyn.len()) {
		return ""
	}
	return dyn.name(dyn.sym(int(symIdx - 1)).name)
}

// pltEntrySymbols names the entries of one PLT section (pltSymbols):
// sh_entsize bytes each (16 for .plt and .plt.sec, 8 or 16 for .plt.got),
// each named by the relocation of the GOT slot its jump reads.
func pltEntrySymbols(plt *elf.Section, bySlot map[uint64]string) []pltSymbol {
	if plt == nil || plt.Type != elf.SHT_PROGBITS || plt.Size > 1<<24 {
		return nil
	}
	code, err := plt.Data()
	if err != nil {
		return nil
	}
	ent := plt.Entsize
	if ent == 0 || ent > 32 || uint64(len(code))%ent != 0 {
		ent = 16
		if plt.Name == ".plt.got" {
			ent = 8
		}
	}
	var out []pltSymbol
	for off := uint64(0); off+ent <= uint64(len(code)); off += ent {
		e := code[off : off+ent]
		i := bytes.Index(e, []byte{0xff, 0x25})
		if i < 0 || i+6 > len(e) {
			continue
		}
		disp := int32(binary.LittleEndian.Uint32(e[i+2:]))
		slot := plt.Addr + off + uint64(i+6) + uint64(int64(disp))
		if name, ok := bySlot[slot]; ok {
			out = append(out, pltSymbol{addr: plt.Addr + off, size: ent, name: name + "@plt"})
		}
	}
	return out
}
