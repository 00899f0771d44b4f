package elfobj

import (
	"fmt"
	"io"
	"os"

	"github.com/sfdbg/sfdbg/sframe"
)

// Kind is what a file holds, as its first bytes say.
type Kind uint8

// File kinds.
const (
	// KindOther: neither an ELF file nor an ar archive (a raw SFrame
	// section, a text file, a file too short for a magic).
	KindOther Kind = iota
	// KindELF: the file starts with the ELF magic.
	KindELF
	// KindArchive: the file starts with the ar magic (IsArchive).
	KindArchive
)

func (k Kind) String() string {
	switch k {
	case KindELF:
		return "ELF"
	case KindArchive:
		return "ar archive"
	}
	return "other"
}

// File is a regular file opened once and classified once by its first
// bytes (Open): whoever reads it next (a check of the file, of each member
// of an archive, a module) reads it through R rather than opening Path
// again.
type File struct {
	// Path is the path the file was opened at.
	Path string
	// Kind is what its first bytes say it is.
	Kind Kind
	// R reads the file; Size is its size in bytes.
	R    *os.File
	Size int64
}

// Open opens the regular file at path (sframe.OpenFile: anything else is
// refused, and a FIFO is not waited on) and classifies it by its first 8
// bytes. Errors are those of opening the file or of reading its first
// bytes; the file is then closed.
func Open(path string) (*File, error) {
	f, size, err := sframe.OpenFile(path)
	if err != nil {
		return nil, err
	}
	var magic [8]byte
	n, err := f.ReadAt(magic[:min(size, int64(len(magic)))], 0)
	if err != nil && err != io.EOF {
		f.Close()
		return nil, fmt.Errorf("reading the first bytes of %s: %w", path, err)
	}
	k := KindOther
	switch {
	case n >= 4 && string(magic[:4]) == "\x7fELF":
		k = KindELF
	case IsArchive(magic[:n]):
		k = KindArchive
	}
	return &File{Path: path, Kind: k, R: f, Size: size}, nil
}

// Close closes the file.
func (f *File) Close() error { return f.R.Close() }
