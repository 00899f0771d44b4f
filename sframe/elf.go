package sframe

import (
	"debug/elf"
	"encoding/binary"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// ELF constants for SFrame not (yet) defined by debug/elf.
const (
	SHT_GNU_SFRAME elf.SectionType = 0x6ffffff4 // section type of .sframe (spec v2 errata 1)
	PT_GNU_SFRAME  elf.ProgType    = 0x6474e554 // segment holding .sframe
)

// Finding the SFrame data of an ELF file and applying a relocatable
// object's relocations to it is package sframe/elfobj's (FindSFrame,
// FromELF): this package reads sections, not ELF files.

// OpenFile opens the file at path for reading and returns it with its
// size in bytes. Anything but a regular file is refused, with an error
// saying what it is: a FIFO is opened without waiting for a writer, and a
// device such as /dev/zero, which has no end, is not read.
func OpenFile(path string) (*os.File, int64, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, 0, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, 0, fmt.Errorf("not a regular file but %s", fileKind(fi.Mode()))
	}
	return f, fi.Size(), nil
}

// fileKind names the type of a file that is not a regular file.
func fileKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m.IsDir():
		return "a directory"
	}
	return fmt.Sprintf("a file of type %v", m.Type())
}

// maxELFSections bounds the section count of an ELF file with extended
// section numbering (section 0's sh_size), whose headers debug/elf reads
// all at once: 262,144 sections, 16 MiB of 64-bit section headers.
const maxELFSections = 1 << 18

// NewELFFile reads the ELF file in r, which is size bytes long, with
// debug/elf, first checking what debug/elf would read or allocate from
// unchecked fields: the ELF header, the program and section header tables
// (with extended section numbering, gABI "Sections") and the section name
// table must lie within size; afterwards every section and segment with
// file contents must too, and a compressed section may not claim more
// than zlib's greatest ratio allows. So a header claiming gigabytes is an
// error before anything is allocated for it. Errors name what is wrong and
// its file offset; debug/elf's own are wrapped.
func NewELFFile(r io.ReaderAt, size int64) (*elf.File, error) {
	within, err := checkELFTables(r, size)
	if err != nil {
		return nil, err
	}
	f, err := elf.NewFile(r)
	if err != nil {
		return nil, fmt.Errorf("reading ELF headers: %w", err)
	}
	for i, s := range f.Sections {
		// debug/elf reads the string table a symbol table links to
		// whatever its type: an SHT_NOBITS one of 16 TiB made Symbols
		// allocate 10 MiB per call, in every reader of symbols.
		if (s.Type == elf.SHT_SYMTAB || s.Type == elf.SHT_DYNSYM) && int(s.Link) < len(f.Sections) && f.Sections[s.Link].Type == elf.SHT_NOBITS {
			return nil, fmt.Errorf("the string table of symbol table %s (index %d) is section %d, which is SHT_NOBITS: it has no bytes in the file",
				s.Name, i, s.Link)
		}
		if s.Type == elf.SHT_NOBITS || s.FileSize == 0 {
			continue
		}
		if !within(s.Offset, s.FileSize, 1) {
			return nil, fmt.Errorf("section %s (index %d, %d bytes at file offset %#x) runs past the end of the %d-byte file",
				s.Name, i, s.FileSize, s.Offset, size)
		}
		// zlib expands at most 1032:1; zstd can do more, but not for
		// sections a linker writes. debug/elf allocates the size the
		// header claims (up to 10 MiB at once) before it inflates, so the
		// claim is bounded by the compressed bytes, plus 64 KiB for tiny
		// sections (it was 1032 × (bytes + 1 MiB): 10 MiB per read of a
		// 2 KB file's section).
		if s.Flags&elf.SHF_COMPRESSED != 0 && s.Size > 1032*s.FileSize+64<<10 {
			return nil, fmt.Errorf("compressed section %s (index %d, %d bytes at file offset %#x) claims %d bytes uncompressed",
				s.Name, i, s.FileSize, s.Offset, s.Size)
		}
	}
	for i, p := range f.Progs {
		if p.Filesz > 0 && !within(p.Off, p.Filesz, 1) {
			return nil, fmt.Errorf("segment %d (%v, %d bytes at file offset %#x) runs past the end of the %d-byte file",
				i, p.Type, p.Filesz, p.Off, size)
		}
	}
	return f, nil
}

// CheckELFHeaders checks what debug/elf's NewFile reads or allocates from
// unchecked fields of the ELF file in r, size bytes long: the ELF header,
// the program and section header tables (with extended section
// numbering) and the section name table must lie within size. It does not
// check sections and segments, as NewELFFile does after debug/elf has
// read them: for a reader that reports those itself (a core file's
// segments). Errors are as for NewELFFile.
func CheckELFHeaders(r io.ReaderAt, size int64) error {
	_, err := checkELFTables(r, size)
	return err
}

// checkELFTables is CheckELFHeaders; it also returns the bounds check it
// used, within(off, n, entsize): n entries of entsize bytes at off lie in
// the file.
func checkELFTables(r io.ReaderAt, size int64) (within func(off, n, entsize uint64) bool, err error) {
	var ident [elf.EI_NIDENT]byte
	if size < 4 {
		return nil, fmt.Errorf("file of %d bytes is too short for an ELF header", size)
	}
	if _, err := r.ReadAt(ident[:min(size, elf.EI_NIDENT)], 0); err != nil {
		return nil, fmt.Errorf("reading the ELF header at file offset 0x0: %w", err)
	}
	if string(ident[:4]) != elf.ELFMAG {
		return nil, fmt.Errorf("not an ELF file: magic % x at file offset 0x0", ident[:4])
	}
	var bo binary.ByteOrder
	switch elf.Data(ident[elf.EI_DATA]) {
	case elf.ELFDATA2LSB:
		bo = binary.LittleEndian
	case elf.ELFDATA2MSB:
		bo = binary.BigEndian
	default:
		return nil, fmt.Errorf("unknown ELF data encoding %d at file offset %#x", ident[elf.EI_DATA], elf.EI_DATA)
	}
	// Offsets of e_phoff, e_shoff, e_phentsize; their size; ELF header and
	// section header sizes.
	var phoffAt, shoffAt, entAt, wordSize, ehsize, shdrSize int
	switch elf.Class(ident[elf.EI_CLASS]) {
	case elf.ELFCLASS64:
		phoffAt, shoffAt, entAt, wordSize, ehsize, shdrSize = 0x20, 0x28, 0x36, 8, 64, 64
	case elf.ELFCLASS32:
		phoffAt, shoffAt, entAt, wordSize, ehsize, shdrSize = 0x1c, 0x20, 0x2a, 4, 52, 40
	default:
		return nil, fmt.Errorf("unknown ELF class %d at file offset %#x", ident[elf.EI_CLASS], elf.EI_CLASS)
	}
	if size < int64(ehsize) {
		return nil, fmt.Errorf("the %d-byte ELF header at file offset 0x0 runs past the end of the %d-byte file", ehsize, size)
	}
	hdr := make([]byte, ehsize)
	if _, err := r.ReadAt(hdr, 0); err != nil {
		return nil, fmt.Errorf("reading the ELF header at file offset 0x0: %w", err)
	}
	word := func(b []byte) uint64 {
		if wordSize == 8 {
			return bo.Uint64(b)
		}
		return uint64(bo.Uint32(b))
	}
	phoff, shoff := word(hdr[phoffAt:]), word(hdr[shoffAt:])
	phentsize, phnum := uint64(bo.Uint16(hdr[entAt:])), uint64(bo.Uint16(hdr[entAt+2:]))
	shentsize, shnum := uint64(bo.Uint16(hdr[entAt+4:])), uint64(bo.Uint16(hdr[entAt+6:]))
	shstrndx := uint64(bo.Uint16(hdr[entAt+8:]))
	within = func(off, n, entsize uint64) bool {
		return off <= uint64(size) && (entsize == 0 || n <= (uint64(size)-off)/entsize)
	}
	if phnum > 0 && !within(phoff, phnum, phentsize) {
		return nil, fmt.Errorf("the program header table (%d entries of %d bytes at file offset %#x) runs past the end of the %d-byte file",
			phnum, phentsize, phoff, size)
	}
	var sh0 []byte // section header 0, which holds extended numbering
	if shoff > 0 && shentsize >= uint64(shdrSize) {
		if !within(shoff, 1, shentsize) {
			return nil, fmt.Errorf("the section header table at file offset %#x starts past the end of the %d-byte file", shoff, size)
		}
		sh0 = make([]byte, shdrSize)
		if _, err := r.ReadAt(sh0, int64(shoff)); err != nil {
			return nil, fmt.Errorf("reading section header 0 at file offset %#x: %w", shoff, err)
		}
	}
	ext := ""
	if sh0 != nil && shnum == 0 {
		// gABI: e_shnum 0 means the count is section 0's sh_size.
		shnum, ext = word(sh0[wordSize*3+8:]), " (extended section numbering)"
		if shnum > maxELFSections {
			return nil, fmt.Errorf("section 0 at file offset %#x gives %d sections (extended section numbering), more than the %d sfdbg reads",
				shoff, shnum, maxELFSections)
		}
	}
	if sh0 != nil && shstrndx == uint64(elf.SHN_XINDEX) {
		shstrndx = uint64(bo.Uint32(sh0[wordSize*4+8:])) // section 0's sh_link
	}
	if shnum > 0 && !within(shoff, shnum, shentsize) {
		return nil, fmt.Errorf("the section header table (%d entries%s of %d bytes at file offset %#x) runs past the end of the %d-byte file",
			shnum, ext, shentsize, shoff, size)
	}
	if sh0 != nil && shstrndx > 0 && shstrndx < shnum {
		// debug/elf reads the section name table while parsing headers.
		h := make([]byte, shdrSize)
		at := shoff + shstrndx*shentsize
		if _, err := r.ReadAt(h, int64(at)); err != nil {
			return nil, fmt.Errorf("reading section header %d at file offset %#x: %w", shstrndx, at, err)
		}
		typ := elf.SectionType(bo.Uint32(h[4:]))
		flags := word(h[8:])
		off, n := word(h[wordSize*2+8:]), word(h[wordSize*3+8:])
		if typ != elf.SHT_NOBITS && n > 0 && !within(off, n, 1) {
			return nil, fmt.Errorf("the section name table (section %d, %d bytes at file offset %#x) runs past the end of the %d-byte file",
				shstrndx, n, off, size)
		}
		// debug/elf inflates a compressed name table to the size its
		// compression header claims, 10 MiB at a time, before checking
		// anything (a 2 KB file allocated 20 MiB); no tool writes one.
		if flags&uint64(elf.SHF_COMPRESSED) != 0 {
			return nil, fmt.Errorf("the section name table (section %d, header at file offset %#x) is compressed (SHF_COMPRESSED): no linker writes one, and debug/elf would inflate it to the size it claims before anything is checked",
				shstrndx, at)
		}
	}
	return within, nil
}
