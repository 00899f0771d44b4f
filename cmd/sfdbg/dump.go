package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"

	"github.com/sfdbg/sfdbg/sframe"
	"github.com/sfdbg/sfdbg/sframe/arch"
	"github.com/sfdbg/sfdbg/sframe/elfobj"
)

func init() {
	register(&command{
		name:    "dump",
		usage:   "dump [--json] [--section NAME] FILE",
		summary: "print the .sframe section of FILE (an ELF file, an ar archive of objects or a raw section) as objdump --sframe does, or as JSON",
		run:     runDump,
	})
}

// runDump implements "sfdbg dump [--json] [--section NAME] FILE". FILE is
// an ELF file (its .sframe section or the section of type SHT_GNU_SFRAME,
// else its PT_GNU_SFRAME segment; with --section, the section called
// NAME; relocatable objects get their relocations applied, as objdump
// does), an ar archive of such files, or a raw SFrame section. For ELF
// input the text form starts with objdump's lines naming the file and its
// BFD target ("\nFILE:     file format elf64-x86-64\n\n"); an archive's
// starts with "In archive FILE:" and gives each member those lines, then
// its section or "No .sframe section present", as objdump does. An empty
// section is "Section '.sframe' has no debugging data.", as readelf says
// it (exit status 0).
// A 32-bit ARM or TI C6000 ELF file (no SFrame ABI exists for them) is
// dumped as readelf -u prints its EHABI tables instead (dumpEHABI), unless
// --section, --sframe or --json asks for an SFrame section.
// Exit status 2 for a missing or unreadable file, anything but a regular
// file (a FIFO, a device), a file without SFrame data (an archive none of
// whose members has any), or malformed ELF or SFrame data (the message
// names the file and the byte offset); 0 otherwise.
func runDump(args []string, stdout, stderr io.Writer) int {
	c := commands["dump"]
	fs := newFlagSet(c, stderr)
	asJSON := fs.Bool("json", false, "print JSON (schema: sframe.Section.WriteJSON) instead of objdump's text form: one document, or one line per section of an lld sequence (JSON Lines)")
	var section string
	fs.StringVar(&section, "section", "", "dump the ELF section called `NAME` (after objcopy --rename-section, say) instead of .sframe")
	fs.Var(objdumpSFrameFlag{&section}, "sframe", "as objdump's --sframe[=NAME]: alone, the .sframe section; with =`NAME`, the same as --section")
	if st, ok := parseFlags(fs, args); !ok {
		return st
	}
	if fs.NArg() != 1 {
		fmt.Fprintf(stderr, "sfdbg dump: want exactly one FILE, got %d arguments\n", fs.NArg())
		fs.Usage()
		return exitError
	}
	path := fs.Arg(0)
	w := bufio.NewWriterSize(stdout, 64<<10)
	defer w.Flush()
	// The file is opened and classified once; every reader below reads it
	// through file.
	file, err := elfobj.Open(path)
	if err != nil {
		fmt.Fprintf(stderr, "sfdbg dump: %s: %v\n", path, err)
		return exitError
	}
	defer file.Close()
	if file.Kind == elfobj.KindArchive {
		if *asJSON {
			fmt.Fprintf(stderr, "sfdbg dump: %s: an ar archive: --json dumps one file (the text form dumps every member)\n", path)
			return exitError
		}
		return dumpArchive(file, section, w, stderr)
	}
	if section == "" && !*asJSON {
		// ARM and C6000 files: their EHABI tables, as readelf -u prints them.
		if st, ok := dumpEHABI(file, w, stderr); ok {
			return st
		}
	}
	sec, fileOff, target, err := dumpLoad(file, section)
	var empty *elfobj.EmptySectionError
	if errors.As(err, &empty) && !*asJSON {
		// As readelf --sframe says it (objdump fails to decode it).
		fmt.Fprintf(w, "\n%s:     file format %s\n\nSection '%s' has no debugging data.\n", path, target, empty.Name)
		return exitOK
	}
	if err != nil {
		fmt.Fprintf(stderr, "sfdbg dump: %s: %v\n", path, err)
		return exitError
	}
	if *asJSON {
		err = sec.WriteJSON(w)
	} else {
		if target != "" {
			fmt.Fprintf(w, "\n%s:     file format %s\n\n", path, target)
		}
		err = sec.WriteText(w)
	}
	if ferr := w.Flush(); err == nil {
		err = ferr
	}
	if err != nil {
		dumpError(stderr, path, err, fileOff)
		return exitError
	}
	return exitOK
}

// objdumpSFrameFlag is objdump's --sframe[=NAME]: a flag that may be
// given alone (the default section) or with =NAME (IsBoolFlag makes the
// flag package accept both).
type objdumpSFrameFlag struct{ section *string }

func (f objdumpSFrameFlag) String() string {
	if f.section == nil {
		return ""
	}
	return *f.section
}

func (f objdumpSFrameFlag) Set(v string) error {
	if v != "true" {
		*f.section = v
	}
	return nil
}

func (f objdumpSFrameFlag) IsBoolFlag() bool { return true }

// dumpError prints err, an error dumping the section at file offset
// fileOff of the file called name.
func dumpError(stderr io.Writer, name string, err error, fileOff int64) {
	var fe *sframe.FormatError
	if errors.As(err, &fe) {
		fmt.Fprintf(stderr, "sfdbg dump: %s: %v (section at file offset %#x)\n", name, err, fileOff)
	} else {
		fmt.Fprintf(stderr, "sfdbg dump: %s: %v\n", name, err)
	}
}

// dumpArchive prints the SFrame section of every ELF member of the ar
// archive at path as objdump --sframe does: "In archive PATH:", then for
// each member its "file format" lines and its section, or "No .sframe
// section present" (section, when not empty, names the section). Members
// that are not ELF are named on stderr, as objdump does. Exit status 2
// when the archive cannot be read, no member has the section, or a
// member's SFrame data is malformed; 0 otherwise.
func dumpArchive(af *elfobj.File, section string, w *bufio.Writer, stderr io.Writer) int {
	path, file := af.Path, af.R
	members, err := elfobj.ReadArchive(file, af.Size)
	if err != nil {
		fmt.Fprintf(stderr, "sfdbg dump: %s: %v\n", path, err)
		return exitError
	}
	name := section
	if name == "" {
		name = ".sframe"
	}
	status, found := exitOK, 0
	var empty *elfobj.EmptySectionError
	fmt.Fprintf(w, "In archive %s:\n", path)
	for _, m := range members {
		mname := fmt.Sprintf("%s(%s)", path, m.Name)
		f, err := sframe.NewELFFile(io.NewSectionReader(file, m.Off, m.Size), m.Size)
		if err != nil {
			w.Flush()
			fmt.Fprintf(stderr, "sfdbg dump: %s: file format not recognized: %v\n", mname, err)
			continue
		}
		fmt.Fprintf(w, "\n%s:     file format %s\n\n", m.Name, elfobj.BFDTarget(f))
		if _, err := arch.For(f.Machine, f.ByteOrder); err != nil {
			w.Flush()
			fmt.Fprintf(stderr, "sfdbg dump: %s: %v\n", mname, err)
			status = exitError
			continue
		}
		d, err := findSFrame(elfobj.AsIs(f), section)
		if errors.As(err, &empty) {
			fmt.Fprintf(w, "Section '%s' has no debugging data.\n", empty.Name)
			continue
		}
		if errors.Is(err, sframe.ErrNoSection) {
			fmt.Fprintf(w, "No %s section present\n\n", name)
			continue
		}
		var sec *sframe.Section
		if err == nil {
			sec, err = d.Parse()
		}
		if err == nil {
			found++
			err = sec.WriteText(w)
		}
		if err != nil {
			w.Flush()
			dumpError(stderr, mname, err, m.Off+d.Off)
			status = exitError
		}
	}
	if err := w.Flush(); err != nil {
		fmt.Fprintf(stderr, "sfdbg dump: %v\n", err)
		return exitError
	}
	if found == 0 && status == exitOK {
		fmt.Fprintf(stderr, "sfdbg dump: %s: none of its %d members has a %s section\n", path, len(members), name)
		return exitError
	}
	return status
}

// findSFrame returns the section called section, or the file's SFrame
// data when section is empty (elfobj.Layout.FindSFrame).
func findSFrame(l *elfobj.Layout, section string) (elfobj.SFrameData, error) {
	if section != "" {
		return l.FindSFrameNamed(section)
	}
	return l.FindSFrame()
}

// dumpLoad reads the SFrame section of file (the section called section,
// when not empty) and returns it with the file offset of
// its first byte and, for an ELF file, its BFD target name (empty for a
// raw section). Only a regular file is read, and only the sections it
// needs, through the open file: a header claiming more than the file
// holds is an error before anything is allocated for it. Parse errors are
// returned with that offset in the message.
func dumpLoad(of *elfobj.File, section string) (*sframe.Section, int64, string, error) {
	file, size := of.R, of.Size
	var magic [4]byte
	n, err := file.ReadAt(magic[:], 0)
	if n < len(magic) {
		if isSFrameMagic(magic[:n]) {
			_, err := sframe.Parse(magic[:n]) // too short: the parser says so, at its offset
			return nil, 0, "", err
		}
		if err != nil && err != io.EOF {
			return nil, 0, "", err
		}
		return nil, 0, "", fmt.Errorf("file of %d bytes is too short to be an ELF file or an SFrame section", size)
	}
	if string(magic[:]) != "\x7fELF" {
		if !isSFrameMagic(magic[:]) {
			return nil, 0, "", fmt.Errorf("neither an ELF file nor an SFrame section (first bytes % x)", magic)
		}
		// A raw section: what its headers declare, which the file must hold.
		data, err := sframe.ReadRaw(file, size)
		if err != nil {
			return nil, 0, "", err
		}
		s, err := sframe.Parse(data)
		if s != nil {
			s.Name = section
		}
		return s, 0, "", err
	}
	f, err := sframe.NewELFFile(file, size)
	if err != nil {
		return nil, 0, "", err
	}
	// SFrame's data is read by its machine's rules: a machine sfdbg does
	// not know is refused, never taken for another.
	if _, err := arch.For(f.Machine, f.ByteOrder); err != nil {
		return nil, 0, elfobj.BFDTarget(f), err
	}
	// Sections at their sh_addr: in an object every FDE start is its
	// offset in its own section, as objdump --sframe prints it.
	d, err := findSFrame(elfobj.AsIs(f), section)
	if err != nil {
		return nil, 0, elfobj.BFDTarget(f), err
	}
	s, err := d.Parse()
	return s, d.Off, elfobj.BFDTarget(f), err
}

func isSFrameMagic(d []byte) bool {
	return len(d) >= 2 && ((d[0] == 0xde && d[1] == 0xe2) || (d[0] == 0xe2 && d[1] == 0xde))
}
