package sframe

import (
	"debug/elf"
	"fmt"
	"io"
)

// ELF constants for SFrame not (yet) defined by debug/elf.
const (
	SHT_GNU_SFRAME elf.SectionType = 0x6ffffff4 // section type of .sframe (spec v2 errata 1)
	PT_GNU_SFRAME  elf.ProgType    = 0x6474e554 // segment holding .sframe
)

// ELFSection locates the SFrame section of an ELF file: the section named
// ".sframe" or typed SHT_GNU_SFRAME, else the PT_GNU_SFRAME segment. It
// returns the section bytes and their virtual address, or ErrNoSection.
func ELFSection(f *elf.File) (data []byte, addr uint64, err error) {
	for _, sec := range f.Sections {
		if sec.Name == ".sframe" || sec.Type == SHT_GNU_SFRAME {
			if sec.Type == elf.SHT_NOBITS {
				return nil, 0, fmt.Errorf("%s: %w", sec.Name, ErrNoSection)
			}
			data, err := sec.Data()
			if err != nil {
				return nil, 0, fmt.Errorf("reading section %s: %w", sec.Name, err)
			}
			return data, sec.Addr, nil
		}
	}
	for _, p := range f.Progs {
		if p.Type == PT_GNU_SFRAME {
			// io.ReadAll grows with what the file really holds, so a bogus
			// p_filesz cannot make us allocate without bound.
			data, err := io.ReadAll(p.Open())
			if err != nil {
				return nil, 0, fmt.Errorf("reading PT_GNU_SFRAME segment: %w", err)
			}
			if uint64(len(data)) != p.Filesz {
				return nil, 0, fmt.Errorf("PT_GNU_SFRAME segment: %d of %d bytes in the file", len(data), p.Filesz)
			}
			return data, p.Vaddr, nil
		}
	}
	return nil, 0, ErrNoSection
}

// FromELF parses the SFrame section of an ELF file (see ELFSection and
// ParseAt). FDE start addresses are link-time virtual addresses; add the
// module's load bias for runtime PCs.
func FromELF(f *elf.File) (*Section, error) {
	data, addr, err := ELFSection(f)
	if err != nil {
		return nil, err
	}
	return ParseAt(data, addr)
}
