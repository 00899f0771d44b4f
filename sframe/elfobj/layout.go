// Package elfobj is sfdbg's one piece of ELF glue for unwind data: it
// finds a file's SFrame data (the ".sframe" section, a section of type
// SHT_GNU_SFRAME, else the PT_GNU_SFRAME segment, else the pre-release
// ".ctf_frame"), gives the sections of a relocatable object (ET_REL) the
// addresses a linker would (Layout), applies the relocations of the
// unwind sections (.sframe, .eh_frame, .debug_frame) against them, maps
// addresses back to "section+offset", and reads ar archives of objects
// (Archive). Package frames loads modules through it, cmd/sfdbg's dump
// prints what it finds; nothing else reads these sections from ELF.
//
// Every size and offset taken from the file is checked before use;
// malformed input is an error naming the byte offset (in the file, or in
// the section for SFrame's own *sframe.FormatError), never a panic.
package elfobj

import (
	"cmp"
	"debug/elf"
	"fmt"
	"math"
	"slices"
	"sort"
	"sync"
)

// maxAlign bounds the alignment a synthetic layout honours, in bytes: a
// crafted sh_addralign of 2^63 must not push addresses past 2^64.
const maxAlign = 1 << 16

// Layout assigns an address to every section of an ELF file. For a linked
// file (ET_EXEC, ET_DYN, ET_CORE) that is the section's sh_addr. For a
// relocatable object (ET_REL), whose sections are all at address 0, Link
// places the allocated sections one after another as a linker would:
// executable sections first, in section header order, each aligned to its
// sh_addralign (at most 64 KiB), from address 0; then the other allocated
// sections with contents (.sframe, .eh_frame, data). Sections without
// SHF_ALLOC (.debug_frame, .symtab) and SHT_NOBITS sections stay at 0, as
// in a linked file. So the first executable section, usually .text, keeps
// the addresses objdump -d shows, and every function of an object made
// with -ffunction-sections, .text.startup or .text.unlikely gets an
// address of its own.
//
// A Layout is safe for concurrent use.
type Layout struct {
	f     *elf.File
	addrs []uint64 // by section index
	rel   bool     // addresses are synthetic (ET_REL laid out by Link)
	alloc []int    // allocated sections with contents, sorted by address, for Locate

	symOnce sync.Once
	syms    []elf.Symbol // .symtab, for relocations
	symErr  error

	codeRelOnce sync.Once
	codeRels    []CodeReloc // relocations of executable sections, by address (CodeRelocIn)
}

// Link returns the layout sfdbg checks a file with: sh_addr for a linked
// file, the synthetic placement described at Layout for an ET_REL object.
func Link(f *elf.File) *Layout {
	l := &Layout{f: f, addrs: make([]uint64, len(f.Sections))}
	if f.Type != elf.ET_REL {
		for i, s := range f.Sections {
			l.addrs[i] = s.Addr
		}
		l.index()
		return l
	}
	l.rel = true
	var next uint64
	place := func(exec bool) {
		for i, s := range f.Sections {
			if s.Flags&elf.SHF_ALLOC == 0 || s.Type == elf.SHT_NOBITS || (s.Flags&elf.SHF_EXECINSTR != 0) != exec {
				continue
			}
			a := s.Addralign
			if a == 0 || a&(a-1) != 0 {
				a = 1
			}
			a = min(a, maxAlign)
			at := (next + a - 1) &^ (a - 1)
			if at < next || at+s.Size < at {
				continue // past 2^64: left at 0 (only crafted files get here)
			}
			l.addrs[i], next = at, at+s.Size
		}
	}
	place(true)
	place(false)
	l.index()
	return l
}

// AsIs returns the layout in which every section is at its sh_addr: for
// an object, every section at 0. That is the view objdump --sframe prints
// (each FDE start is its offset in its own section); relocations are
// applied against it all the same.
func AsIs(f *elf.File) *Layout {
	l := &Layout{f: f, addrs: make([]uint64, len(f.Sections))}
	for i, s := range f.Sections {
		l.addrs[i] = s.Addr
	}
	l.index()
	return l
}

// index sorts the allocated sections with contents by address for Locate.
func (l *Layout) index() {
	for i, s := range l.f.Sections {
		if s.Flags&elf.SHF_ALLOC != 0 && s.Type != elf.SHT_NOBITS && s.Size > 0 {
			l.alloc = append(l.alloc, i)
		}
	}
	sort.SliceStable(l.alloc, func(a, b int) bool { return l.addrs[l.alloc[a]] < l.addrs[l.alloc[b]] })
}

// File returns the ELF file laid out.
func (l *Layout) File() *elf.File { return l.f }

// Synthetic reports whether the addresses are sfdbg's placement of an
// ET_REL object's sections (Link) rather than the file's own.
func (l *Layout) Synthetic() bool { return l.rel }

// Addr returns the address of section i (an index into File().Sections),
// 0 for an index out of range.
func (l *Layout) Addr(i int) uint64 {
	if i < 0 || i >= len(l.addrs) {
		return 0
	}
	return l.addrs[i]
}

// SectionAddr returns the address of s, a section of File(), and false
// when s is not one of them.
func (l *Layout) SectionAddr(s *elf.Section) (uint64, bool) {
	for i, t := range l.f.Sections {
		if t == s {
			return l.addrs[i], true
		}
	}
	return 0, false
}

// Locate returns the allocated section holding addr and addr's offset in
// it in bytes ("section+offset", as Location formats it); ok is false when
// no section holds addr. Where sections overlap (AsIs on an object), the
// first in section header order wins.
func (l *Layout) Locate(addr uint64) (s *elf.Section, off uint64, ok bool) {
	i := sort.Search(len(l.alloc), func(k int) bool { return l.addrs[l.alloc[k]] > addr })
	for k := i - 1; k >= 0; k-- {
		sec := l.f.Sections[l.alloc[k]]
		if base := l.addrs[l.alloc[k]]; addr-base < sec.Size {
			return sec, addr - base, true
		}
		if !l.rel {
			break // linked sections do not nest: the one below is the only candidate
		}
	}
	return nil, 0, false
}

// Location formats addr as "section+0xoff" ("section" at offset 0), or
// as "0x..." when no allocated section holds it.
func (l *Layout) Location(addr uint64) string {
	s, off, ok := l.Locate(addr)
	switch {
	case !ok:
		return fmt.Sprintf("%#x", addr)
	case off == 0:
		return s.Name
	}
	return fmt.Sprintf("%s+%#x", s.Name, off)
}

// symbols returns .symtab's symbols (elf.File.Symbols: index i is symbol
// i+1), read once.
func (l *Layout) symbols() ([]elf.Symbol, error) {
	l.symOnce.Do(func() { l.syms, l.symErr = l.f.Symbols() })
	return l.syms, l.symErr
}

// SymbolAddr returns the address of a symbol's value in this layout:
// st_value plus, in an object, the address of the section st_shndx names
// (a linked file's values are addresses already). Undefined and absolute
// symbols keep st_value.
func (l *Layout) SymbolAddr(value uint64, shndx elf.SectionIndex) uint64 {
	if !l.rel || shndx == elf.SHN_UNDEF || shndx >= elf.SHN_LORESERVE || int(shndx) >= len(l.addrs) {
		return value
	}
	return value + l.addrs[shndx]
}

// ExecRanges returns the address ranges [start, end) of the file's code,
// sorted by start: its executable sections (SHF_EXECINSTR, not NOBITS, at
// their laid-out addresses) or, for a file without section headers, its
// executable PT_LOAD segments' file-backed parts. A compressed section,
// whose declared size is its uncompressed size, counts the bytes it has
// in the file; a range that would wrap around the address space ends at
// its top. Every declared range an input gives (an FDE's) is clipped to
// these before anything iterates over it.
func (l *Layout) ExecRanges() [][2]uint64 {
	f := l.f
	span := func(addr, size uint64) [2]uint64 {
		if addr+size < addr {
			return [2]uint64{addr, math.MaxUint64}
		}
		return [2]uint64{addr, addr + size}
	}
	var r [][2]uint64
	for i, s := range f.Sections {
		if s.Flags&elf.SHF_EXECINSTR == 0 || s.Type == elf.SHT_NOBITS || s.Size == 0 {
			continue
		}
		size := s.Size
		if s.Flags&elf.SHF_COMPRESSED != 0 {
			size = min(size, s.FileSize)
		}
		r = append(r, span(l.Addr(i), size))
	}
	if len(r) == 0 {
		for _, p := range f.Progs {
			if p.Type == elf.PT_LOAD && p.Flags&elf.PF_X != 0 && p.Filesz > 0 {
				r = append(r, span(p.Vaddr, min(p.Filesz, p.Memsz)))
			}
		}
	}
	slices.SortFunc(r, func(a, b [2]uint64) int { return cmp.Compare(a[0], b[0]) })
	return r
}
