package elfobj

import (
	"debug/elf"
	"errors"
	"fmt"
	"io"

	"github.com/sfdbg/sfdbg/sframe"
)

// SFrameData is where a file's SFrame data is and its bytes, relocated.
type SFrameData struct {
	// Data is the section's bytes, with an object's relocations applied
	// (Layout.Data).
	Data []byte
	// Addr is the address of the first byte in the layout; FDE start
	// addresses are based on it.
	Addr uint64
	// Off is the file offset of the first byte.
	Off int64
	// Section is the ELF section, nil when the data came from the
	// PT_GNU_SFRAME segment of a file without section headers for it.
	Section *elf.Section
	// CTFFrame is set when the data is a ".ctf_frame" section, the
	// pre-release CTF Frame format (sframe.ParseCTFAt).
	CTFFrame bool
}

// FindSFrame locates the SFrame data of the file: the section named
// ".sframe" or typed SHT_GNU_SFRAME (spec v2 errata 1; LLVM sets the type),
// else the PT_GNU_SFRAME segment, else a ".ctf_frame" section. Errors:
// an error wrapping sframe.ErrNoSection when there is none (or the
// section is SHT_NOBITS), errors reading the bytes (naming the size and
// file offset), and those of Data applying an object's relocations.
func (l *Layout) FindSFrame() (SFrameData, error) {
	f := l.f
	for i, sec := range f.Sections {
		if sec.Name == ".sframe" || sec.Type == sframe.SHT_GNU_SFRAME {
			return l.sframeSection(i)
		}
	}
	for _, p := range f.Progs {
		if p.Type != sframe.PT_GNU_SFRAME {
			continue
		}
		// io.ReadAll grows with what the file really holds, so a bogus
		// p_filesz cannot make us allocate without bound.
		data, err := io.ReadAll(p.Open())
		if err != nil {
			return SFrameData{}, fmt.Errorf("reading PT_GNU_SFRAME segment (%d bytes at file offset %#x): %w", p.Filesz, p.Off, err)
		}
		if uint64(len(data)) != p.Filesz {
			return SFrameData{}, fmt.Errorf("PT_GNU_SFRAME segment at file offset %#x: %d of %d bytes in the file", p.Off, len(data), p.Filesz)
		}
		return SFrameData{Data: data, Addr: p.Vaddr, Off: int64(p.Off)}, nil
	}
	for i, sec := range f.Sections {
		if sec.Name != sframe.CTFFrameSectionName || sec.Type == elf.SHT_NOBITS {
			continue
		}
		data, err := l.Data(sec)
		if err != nil {
			return SFrameData{}, err
		}
		return SFrameData{Data: data, Addr: l.addrs[i], Off: int64(sec.Offset), Section: sec, CTFFrame: true}, nil
	}
	return SFrameData{}, sframe.ErrNoSection
}

// FindSFrameNamed returns the SFrame data of the section called name,
// whatever its type, as objdump --sframe=NAME reads it. Errors: an error
// wrapping sframe.ErrNoSection when the file has no section of that name,
// else those of FindSFrame.
func (l *Layout) FindSFrameNamed(name string) (SFrameData, error) {
	for i, sec := range l.f.Sections {
		if sec.Name == name {
			return l.sframeSection(i)
		}
	}
	return SFrameData{}, fmt.Errorf("no section named %s: %w", name, sframe.ErrNoSection)
}

// sframeSection returns the relocated bytes of section i, which holds
// SFrame data. An empty section is an error wrapping sframe.ErrNoSection
// (a linker keeps an empty .sframe when no input had an FDE).
func (l *Layout) sframeSection(i int) (SFrameData, error) {
	sec := l.f.Sections[i]
	if sec.Type == elf.SHT_NOBITS {
		return SFrameData{}, fmt.Errorf("%s is SHT_NOBITS (stripped into a debug file?): %w", sec.Name, sframe.ErrNoSection)
	}
	if sec.Size == 0 {
		return SFrameData{}, &EmptySectionError{Name: sec.Name, Index: i, Off: int64(sec.Offset)}
	}
	data, pcrel32, err := l.relocated(sec)
	if err != nil {
		return SFrameData{}, err
	}
	if l.rel {
		fieldRelativeStarts(data, pcrel32)
	}
	return SFrameData{Data: data, Addr: l.addrs[i], Off: int64(sec.Offset), Section: sec}, nil
}

// EmptySectionError is an SFrame section of 0 bytes (GNU ld keeps an
// empty .sframe when its inputs had no FDE). It is an sframe.ErrNoSection
// for errors.Is: there is no SFrame data.
type EmptySectionError struct {
	Name  string // the section's name
	Index int    // its index in the section header table
	Off   int64  // its file offset
}

func (e *EmptySectionError) Error() string {
	return fmt.Sprintf("the SFrame section %s (section %d, at file offset %#x) is empty", e.Name, e.Index, e.Off)
}

// Is reports whether target is sframe.ErrNoSection.
func (e *EmptySectionError) Is(target error) bool { return target == sframe.ErrNoSection }

// SFrame finds the file's SFrame data (FindSFrame) and parses it at its
// address in the layout: sframe.ParseAt for SFrame, which also reads the
// several sections lld concatenates into one as a sequence,
// sframe.ParseCTFAt for CTF Frame. A parse error keeps its
// *sframe.FormatError (section, format and offset in the section) and adds
// where the section is in the file to the message.
func (l *Layout) SFrame() (*sframe.Section, error) {
	d, err := l.FindSFrame()
	if err != nil {
		return nil, err
	}
	return d.Parse()
}

// Parse parses d (see Layout.SFrame).
func (d SFrameData) Parse() (*sframe.Section, error) {
	var s *sframe.Section
	var err error
	if d.CTFFrame {
		s, err = sframe.ParseCTFAt(d.Data, d.Addr)
	} else {
		s, err = sframe.ParseAt(d.Data, d.Addr)
	}
	if err != nil {
		var fe *sframe.FormatError
		if errors.As(err, &fe) {
			where := "section"
			if d.Section == nil {
				where = "PT_GNU_SFRAME segment"
			}
			return nil, fmt.Errorf("%w (%s at file offset %#x)", err, where, d.Off)
		}
		return nil, err
	}
	if d.Section != nil {
		s.Name = d.Section.Name
	}
	return s, nil
}

// BFDTarget returns the name GNU BFD gives the format of f, which objdump
// prints in its "file format" line: elf64-x86-64, elf32-x86-64 (x32),
// elf32-i386, elf64-littleaarch64, elf64-bigaarch64, elf64-s390 and the
// like, else BFD's generic elf64-little, elf32-big, ... (bfd/elf64-x86-64.c
// TARGET_LITTLE_NAME, bfd/elfnn-aarch64.c, bfd/elf64-s390.c).
func BFDTarget(f *elf.File) string {
	bits := "32"
	if f.Class == elf.ELFCLASS64 {
		bits = "64"
	}
	endian := "little"
	if f.Data == elf.ELFDATA2MSB {
		endian = "big"
	}
	switch {
	case f.Machine == elf.EM_X86_64 && endian == "little":
		return "elf" + bits + "-x86-64"
	case f.Machine == elf.EM_386 && bits == "32" && endian == "little":
		return "elf32-i386"
	case f.Machine == elf.EM_AARCH64:
		return "elf" + bits + "-" + endian + "aarch64"
	case f.Machine == elf.EM_S390 && endian == "big":
		return "elf" + bits + "-s390"
	}
	return "elf" + bits + "-" + endian
}

// FromELF parses the SFrame data of f with the layout sfdbg checks files
// with (Link: an object's sections placed as a linker would, relocations
// applied). FDE start addresses are link-time addresses of that layout;
// add a module's load bias for runtime PCs. Errors are as for SFrame.
func FromELF(f *elf.File) (*sframe.Section, error) { return Link(f).SFrame() }

// fieldRelativeStarts rewrites the FDE function start fields of an SFrame
// v1 or v2 section of a relocatable object without
// SFRAME_F_FDE_FUNC_START_PCREL that got a PC-relative relocation
// (pcrel32 holds their offsets) from offsets from the field itself to
// offsets from the section start, which is what the header says they are
// (spec v2 errata 1, "SFrame Flags").
//
// GNU as 2.40 to 2.44 write the field with a PC-relative relocation
// (R_X86_64_PC32 and the like: S+A-P), so after relocation it holds the
// function's offset from the field, whatever the flags say; GNU ld reads it
// so (bfd/elf-sframe.c _bfd_elf_merge_section_sframe adds the field's
// offset, r_offset) and writes section-relative starts into the linked
// file. The errata's flag exists because of this. objdump 2.47 reads the
// object's field as the header says and prints starts off by the field's
// offset; dump (Layout AsIs) prints what objdump prints, check (Link)
// reads the starts as ld does. A section too short for what its header
// claims is left alone: sframe.ParseAt reports it.
func fieldRelativeStarts(data []byte, pcrel32 map[uint64]bool) {
	if len(data) < sframe.HeaderSize {
		return
	}
	bo := sframe.MagicOrder(data)
	if bo == nil {
		return
	}
	v, flags := sframe.Version(data[2]), sframe.Flags(data[3])
	var size uint64
	switch {
	case flags&sframe.FlagFDEFuncStartPCRel != 0:
		return
	case v == sframe.Version1:
		size = sframe.FDESizeV1
	case v == sframe.Version2:
		size = sframe.FDESizeV2
	default:
		return
	}
	start := uint64(sframe.HeaderSize) + uint64(data[7]) + uint64(bo.Uint32(data[20:]))
	n := uint64(bo.Uint32(data[8:]))
	if start > uint64(len(data)) || n > (uint64(len(data))-start)/size {
		return
	}
	for i := uint64(0); i < n; i++ {
		off := start + i*size
		if !pcrel32[off] {
			continue
		}
		bo.PutUint32(data[off:], uint32(int32(bo.Uint32(data[off:]))+int32(off)))
	}
}
