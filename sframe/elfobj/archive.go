package elfobj

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Archive format constants (the common ar format of System V and GNU ar,
// as described in binutils' include/aout/ar.h).
const (
	ArchiveMagic     = "!<arch>\n" // ARMAG
	thinArchiveMagic = "!<thin>\n" // ARMAGT: members are files elsewhere
	arHeaderSize     = 60          // struct ar_hdr
	arFmag           = "`\n"       // ARFMAG, the last two bytes of a header
)

// ArchiveError is a malformed ar archive: what is wrong and the file
// offset of the bad field.
type ArchiveError struct {
	Off int64
	Msg string
}

func (e *ArchiveError) Error() string {
	return fmt.Sprintf("ar archive: %s at file offset %#x", e.Msg, e.Off)
}

// Member is one file of an ar archive: its name and where its bytes are.
type Member struct {
	Name string // the file name, from the GNU long-name table "//" or BSD "#1/N" where used
	Off  int64  // file offset of the member's first byte
	Size int64  // its size in bytes
}

// IsArchive reports whether b starts with the ar magic (a thin archive's
// included, which ReadArchive refuses).
func IsArchive(b []byte) bool {
	return bytes.HasPrefix(b, []byte(ArchiveMagic)) || bytes.HasPrefix(b, []byte(thinArchiveMagic))
}

// ReadArchive lists the members of the ar archive in r, which is size
// bytes long: the common "!<arch>\n" format with GNU ("name/", "/N" into
// the "//" long-name table) and BSD ("#1/N") names. The symbol tables
// ("/", "/SYM64/", "__.SYMDEF") and the long-name table are not members.
// Every header is checked against size before anything is read for it,
// and at most size/60 members can exist, so a crafted archive cannot
// make it allocate more than the file holds. Errors are *ArchiveError
// (a thin archive, whose members live in other files, is one) or r's.
func ReadArchive(r io.ReaderAt, size int64) ([]Member, error) {
	var magic [8]byte
	if size < int64(len(magic)) {
		return nil, &ArchiveError{0, fmt.Sprintf("file of %d bytes is too short for the magic", size)}
	}
	if _, err := r.ReadAt(magic[:], 0); err != nil {
		return nil, err
	}
	switch string(magic[:]) {
	case ArchiveMagic:
	case thinArchiveMagic:
		return nil, &ArchiveError{0, "thin archive: its members are separate files, check those"}
	default:
		return nil, &ArchiveError{0, fmt.Sprintf("bad magic %q", magic[:])}
	}
	var members []Member
	var longNames []byte
	var hdr [arHeaderSize]byte
	for off := int64(len(magic)); off < size; {
		if off%2 == 1 { // members are 2-byte aligned; a newline pads
			off++
			if off == size {
				break
			}
		}
		if size-off < arHeaderSize {
			return nil, &ArchiveError{off, fmt.Sprintf("member header of %d bytes runs past the end of the %d-byte file", arHeaderSize, size)}
		}
		if _, err := r.ReadAt(hdr[:], off); err != nil {
			return nil, err
		}
		if string(hdr[58:60]) != arFmag {
			return nil, &ArchiveError{off + 58, fmt.Sprintf("bad header terminator %q (want %q)", hdr[58:60], arFmag)}
		}
		msize, err := strconv.ParseInt(strings.TrimRight(string(hdr[48:58]), " "), 10, 64)
		if err != nil || msize < 0 {
			return nil, &ArchiveError{off + 48, fmt.Sprintf("bad member size %q", hdr[48:58])}
		}
		data := off + arHeaderSize
		if msize > size-data {
			return nil, &ArchiveError{off + 48, fmt.Sprintf("member of %d bytes runs past the end of the %d-byte file", msize, size)}
		}
		next := data + msize
		raw := strings.TrimRight(string(hdr[:16]), " ")
		switch {
		case raw == "/" || raw == "/SYM64/" || raw == "__.SYMDEF" || raw == "__.SYMDEF SORTED":
			// symbol table
		case raw == "//":
			if longNames != nil {
				return nil, &ArchiveError{off, "a second long-name table"}
			}
			longNames = make([]byte, msize) // bounded: msize <= size-data
			if _, err := r.ReadAt(longNames, data); err != nil {
				return nil, err
			}
		case strings.HasPrefix(raw, "#1/"): // BSD: the name follows the header
			n, err := strconv.ParseInt(raw[3:], 10, 64)
			if err != nil || n < 0 || n > msize || n > 4096 {
				return nil, &ArchiveError{off, fmt.Sprintf("bad BSD name length %q", raw)}
			}
			name := make([]byte, n)
			if _, err := r.ReadAt(name, data); err != nil {
				return nil, err
			}
			members = append(members, Member{Name: string(bytes.TrimRight(name, "\x00")), Off: data + n, Size: msize - n})
		case strings.HasPrefix(raw, "/") && len(raw) > 1:
			n, err := strconv.ParseInt(raw[1:], 10, 64)
			if err != nil || n < 0 || n >= int64(len(longNames)) {
				return nil, &ArchiveError{off, fmt.Sprintf("long name %q is not an offset into the %d-byte name table", raw, len(longNames))}
			}
			name := longNames[n:]
			if i := bytes.IndexByte(name, '\n'); i >= 0 {
				name = name[:i]
			}
			members = append(members, Member{Name: strings.TrimSuffix(string(name), "/"), Off: data, Size: msize})
		default:
			members = append(members, Member{Name: strings.TrimSuffix(raw, "/"), Off: data, Size: msize})
		}
		off = next
	}
	return members, nil
}
