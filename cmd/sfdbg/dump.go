package main

import (
	"bufio"
	"debug/elf"
	"errors"
	"fmt"
	"io"

	"github.com/sfdbg/sfdbg/sframe"
)

func init() {
	register(&command{
		name:    "dump",
		usage:   "dump [--json] FILE",
		summary: "print the .sframe section of FILE as objdump --sframe does, or as JSON",
		run:     runDump,
	})
}

// runDump implements "sfdbg dump [--json] FILE". FILE is an ELF file (its
// .sframe section, else its PT_GNU_SFRAME segment; relocatable objects get
// their .rela.sframe applied, as objdump does) or a raw SFrame section.
// Exit status 2 for a missing or unreadable file, anything but a regular
// file (a FIFO, a device), a file without SFrame data, or malformed ELF or
// SFrame data (the message names the file and the byte offset); 0
// otherwise.
func runDump(args []string, stdout, stderr io.Writer) int {
	c := commands["dump"]
	fs := newFlagSet(c, stderr)
	asJSON := fs.Bool("json", false, "print one JSON document (schema: sframe.Section.WriteJSON) instead of objdump's text form")
	if st, ok := parseFlags(fs, args); !ok {
		return st
	}
	if fs.NArg() != 1 {
		fmt.Fprintf(stderr, "sfdbg dump: want exactly one FILE, got %d arguments\n", fs.NArg())
		fs.Usage()
		return exitError
	}
	path := fs.Arg(0)
	sec, fileOff, err := dumpLoad(path)
	if err != nil {
		fmt.Fprintf(stderr, "sfdbg dump: %s: %v\n", path, err)
		return exitError
	}
	w := bufio.NewWriterSize(stdout, 64<<10)
	if *asJSON {
		err = sec.WriteJSON(w)
	} else {
		err = sec.WriteText(w)
	}
	if ferr := w.Flush(); err == nil {
		err = ferr
	}
	if err != nil {
		var fe *sframe.FormatError
		if errors.As(err, &fe) {
			fmt.Fprintf(stderr, "sfdbg dump: %s: %v (SFrame section at file offset %#x)\n", path, err, fileOff)
		} else {
			fmt.Fprintf(stderr, "sfdbg dump: %s: %v\n", path, err)
		}
		return exitError
	}
	return exitOK
}

// dumpLoad reads the SFrame section of the file at path and returns it with
// the file offset of its first byte. Only a regular file is read, and only
// the sections it needs, through the open file: a header claiming more
// than the file holds is an error before anything is allocated for it.
// Parse errors are returned with that offset in the message.
func dumpLoad(path string) (*sframe.Section, int64, error) {
	file, size, err := sframe.OpenFile(path)
	if err != nil {
		return nil, 0, err
	}
	defer file.Close()
	var magic [4]byte
	n, err := file.ReadAt(magic[:], 0)
	if n < len(magic) {
		if isSFrameMagic(magic[:n]) {
			_, err := sframe.Parse(magic[:n]) // too short: the parser says so, at its offset
			return nil, 0, err
		}
		if err != nil && err != io.EOF {
			return nil, 0, err
		}
		return nil, 0, fmt.Errorf("file of %d bytes is too short to be an ELF file or an SFrame section", size)
	}
	if string(magic[:]) != elf.ELFMAG {
		if !isSFrameMagic(magic[:]) {
			return nil, 0, fmt.Errorf("neither an ELF file nor an SFrame section (first bytes % x)", magic)
		}
		// A raw section: the whole file, which is a regular file of known size.
		data := make([]byte, size)
		if _, err := io.ReadFull(io.NewSectionReader(file, 0, size), data); err != nil {
			return nil, 0, fmt.Errorf("reading the %d-byte file: %w", size, err)
		}
		s, err := sframe.Parse(data)
		return s, 0, err
	}
	f, err := sframe.NewELFFile(file, size)
	if err != nil {
		return nil, 0, err
	}
	sdata, addr, off, err := dumpELFSection(f)
	parse := sframe.ParseAt
	if errors.Is(err, sframe.ErrNoSection) {
		// The pre-release CTF Frame format (.ctf_frame), printed as such.
		if cdata, caddr, ok, cerr := sframe.CTFFrameSection(f); ok || cerr != nil {
			if cerr != nil {
				return nil, 0, cerr
			}
			sdata, addr, off, err = cdata, caddr, int64(f.Section(sframe.CTFFrameSectionName).Offset), nil
			parse = sframe.ParseCTFAt
		}
	}
	if err != nil {
		return nil, 0, err
	}
	s, err := parse(sdata, addr)
	if err != nil {
		var fe *sframe.FormatError
		if errors.As(err, &fe) {
			return nil, off, fmt.Errorf("%w (SFrame section at file offset %#x)", err, off)
		}
		return nil, off, err
	}
	return s, off, nil
}

func isSFrameMagic(d []byte) bool {
	return len(d) >= 2 && ((d[0] == 0xde && d[1] == 0xe2) || (d[0] == 0xe2 && d[1] == 0xde))
}

// dumpELFSection finds the SFrame data of f (sframe.ELFSection) and its file
// offset; in a relocatable object it applies the relocations of the section.
func dumpELFSection(f *elf.File) (data []byte, addr uint64, off int64, err error) {
	data, addr, err = sframe.ELFSection(f)
	if err != nil {
		return nil, 0, 0, err
	}
	var sec *elf.Section
	for _, s := range f.Sections {
		if s.Name == ".sframe" || s.Type == sframe.SHT_GNU_SFRAME {
			sec = s
			break
		}
	}
	if sec == nil {
		for _, p := range f.Progs {
			if p.Type == sframe.PT_GNU_SFRAME {
				off = int64(p.Off)
				break
			}
		}
		return data, addr, off, nil
	}
	off = int64(sec.Offset)
	if f.Type == elf.ET_REL {
		// Copy: the relocated bytes must not alias the section cache.
		data = append([]byte(nil), data...)
		if err := dumpRelocate(f, sec, data); err != nil {
			return nil, 0, 0, fmt.Errorf("relocating %s: %w", sec.Name, err)
		}
	}
	return data, addr, off, nil
}

// dumpRelocate applies the RELA relocations that target sec to data, the
// section's bytes, for the relocation types gas emits in .sframe on AMD64,
// AArch64 and s390x (PC-relative and absolute, 32 and 64 bits). Every
// section of a relocatable object is at address 0, so a symbol's value is
// its offset in its section and P is the offset of the field in .sframe.
func dumpRelocate(f *elf.File, sec *elf.Section, data []byte) error {
	var syms []elf.Symbol
	for _, rs := range f.Sections {
		if rs.Type != elf.SHT_RELA || int(rs.Info) >= len(f.Sections) || f.Sections[rs.Info] != sec {
			continue
		}
		if syms == nil {
			var err error
			if syms, err = f.Symbols(); err != nil {
				return err
			}
		}
		rd, err := rs.Data()
		if err != nil {
			return err
		}
		if f.Class != elf.ELFCLASS64 {
			return fmt.Errorf("%s: only ELF64 relocations are supported", rs.Name)
		}
		bo := f.ByteOrder
		for i := 0; i+24 <= len(rd); i += 24 {
			roff := bo.Uint64(rd[i:])
			info := bo.Uint64(rd[i+8:])
			add := int64(bo.Uint64(rd[i+16:]))
			symi, typ := uint32(info>>32), uint32(info)
			var sv uint64
			if symi > 0 {
				if int(symi) > len(syms) {
					return fmt.Errorf("%s: entry %d: symbol index %d out of range", rs.Name, i/24, symi)
				}
				sv = syms[symi-1].Value // f.Symbols omits symbol 0
			}
			size, pcrel, ok := dumpRelocKind(f.Machine, typ)
			if !ok {
				return fmt.Errorf("%s: entry %d: unsupported relocation type %d for %v", rs.Name, i/24, typ, f.Machine)
			}
			if roff > uint64(len(data)) || uint64(size) > uint64(len(data))-roff {
				return fmt.Errorf("%s: entry %d: offset %#x outside the %d-byte section", rs.Name, i/24, roff, len(data))
			}
			v := sv + uint64(add)
			if pcrel {
				v -= roff
			}
			if size == 8 {
				bo.PutUint64(data[roff:], v)
			} else {
				bo.PutUint32(data[roff:], uint32(v))
			}
		}
	}
	return nil
}

// dumpRelocKind returns the field size in bytes and whether a relocation
// type is PC-relative (S+A-P) rather than absolute (S+A).
func dumpRelocKind(m elf.Machine, typ uint32) (size int, pcrel, ok bool) {
	switch m {
	case elf.EM_X86_64:
		switch elf.R_X86_64(typ) {
		case elf.R_X86_64_PC32:
			return 4, true, true
		case elf.R_X86_64_PC64:
			return 8, true, true
		case elf.R_X86_64_32, elf.R_X86_64_32S:
			return 4, false, true
		case elf.R_X86_64_64:
			return 8, false, true
		}
	case elf.EM_AARCH64:
		switch elf.R_AARCH64(typ) {
		case elf.R_AARCH64_PREL32:
			return 4, true, true
		case elf.R_AARCH64_PREL64:
			return 8, true, true
		case elf.R_AARCH64_ABS32:
			return 4, false, true
		case elf.R_AARCH64_ABS64:
			return 8, false, true
		}
	case elf.EM_S390:
		switch elf.R_390(typ) {
		case elf.R_390_PC32:
			return 4, true, true
		case elf.R_390_PC64:
			return 8, true, true
		case elf.R_390_32:
			return 4, false, true
		case elf.R_390_64:
			return 8, false, true
		}
	}
	return 0, false, false
}
