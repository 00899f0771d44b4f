package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"

	"github.com/sfdbg/sfdbg/sframe"
	"github.com/sfdbg/sfdbg/sframe/elfobj"
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
	asJSON := fs.Bool("json", false, "print JSON (schema: sframe.Section.WriteJSON) instead of objdump's text form: one document, or one line per section of an lld sequence (JSON Lines)")
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
	if string(magic[:]) != "\x7fELF" {
		if !isSFrameMagic(magic[:]) {
			return nil, 0, fmt.Errorf("neither an ELF file nor an SFrame section (first bytes % x)", magic)
		}
		// A raw section: what its headers declare, which the file must hold.
		data, err := sframe.ReadRaw(file, size)
		if err != nil {
			return nil, 0, err
		}
		s, err := sframe.Parse(data)
		return s, 0, err
	}
	f, err := sframe.NewELFFile(file, size)
	if err != nil {
		return nil, 0, err
	}
	// Sections at their sh_addr: in an object every FDE start is its
	// offset in its own section, as objdump --sframe prints it.
	d, err := elfobj.AsIs(f).FindSFrame()
	if err != nil {
		return nil, 0, err
	}
	s, err := d.Parse()
	return s, d.Off, err
}

func isSFrameMagic(d []byte) bool {
	return len(d) >= 2 && ((d[0] == 0xde && d[1] == 0xe2) || (d[0] == 0xe2 && d[1] == 0xde))
}
