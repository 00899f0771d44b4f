package frames

// Separate debug information, found the way gdb and eu-stack find it:
// distributions strip symbols and DWARF from their libraries and ship them
// in debug packages (libc6-dbg: /usr/lib/debug/.build-id/xx/yyyy.debug).

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/sirupsen/logrus"

	"github.com/sfdbg/sfdbg/sframe"
)

// DebugDirs are the directories separate debug files are looked up in,
// gdb's debug-file-directory. Set it before the first module is loaded.
var DebugDirs = []string{"/usr/lib/debug"}

// maxDebuglinkCRCSize bounds the size of a file whose CRC is computed to
// check a .gnu_debuglink: larger files are taken on their name.
const maxDebuglinkCRCSize = 1 << 30

// buildID returns the GNU build ID of f (NT_GNU_BUILD_ID in a note
// section), hex-encoded, or "".
func buildID(f *elf.File) string {
	for _, s := range f.Sections {
		if s.Type != elf.SHT_NOTE || s.Size > 1<<16 {
			continue
		}
		b, err := s.Data()
		if err != nil {
			continue
		}
		if id := GNUBuildID(b, f.ByteOrder); id != nil {
			return fmt.Sprintf("%x", id)
		}
	}
	return ""
}

// GNUBuildID returns the descriptor of the first non-empty "GNU" note of
// type NT_GNU_BUILD_ID (3) in notes, the bytes of a note section or
// segment (ELF gABI "Note Section": namesz, descsz, type, then name and
// descriptor, each padded to 4 bytes), or nil. The result aliases notes.
func GNUBuildID(notes []byte, bo binary.ByteOrder) []byte {
	for off := uint64(0); off+12 <= uint64(len(notes)); {
		namesz, descsz, typ := uint64(bo.Uint32(notes[off:])), uint64(bo.Uint32(notes[off+4:])), bo.Uint32(notes[off+8:])
		desc := off + 12 + (namesz+3)&^3
		if desc+descsz > uint64(len(notes)) {
			return nil
		}
		if typ == 3 && namesz == 4 && string(notes[off+12:off+15]) == "GNU" && descsz > 0 {
			return notes[desc : desc+descsz]
		}
		off = desc + (descsz+3)&^3
	}
	return nil
}

// debuglink returns the file name and CRC of f's .gnu_debuglink.
func debuglink(f *elf.File) (name string, crc uint32, ok bool) {
	s := f.Section(".gnu_debuglink")
	if s == nil || s.Size > 4096 {
		return "", 0, false
	}
	b, err := s.Data()
	if err != nil {
		return "", 0, false
	}
	i := bytes.IndexByte(b, 0)
	if i <= 0 {
		return "", 0, false
	}
	at := (i + 4) &^ 3
	if at+4 > len(b) {
		return "", 0, false
	}
	return string(b[:i]), f.ByteOrder.Uint32(b[at:]), true
}

// findDebugFile returns the separate debug file of f, whose path (as
// sfdbg opens it) is path and whose path in the target is target: by
// build ID under each of DebugDirs (DIR/.build-id/xx/yyyy.debug), in
// $DEBUGINFOD_CACHE_PATH (BUILDID/debuginfo), then by .gnu_debuglink next
// to the file, in its .debug directory and under each of DebugDirs, as
// gdb does. A candidate must have the same build ID (or, for a debuglink
// without one, the CRC the link names). It returns nil when there is none.
func findDebugFile(f *elf.File, path, target string) *elf.File {
	id := buildID(f)
	// A module of another mount namespace is opened through
	// /proc/PID/root: its debug files are there too.
	root := ""
	if target != "" && strings.HasSuffix(path, target) {
		root = strings.TrimSuffix(path, target)
	}
	var cands []string
	if len(id) > 2 {
		for _, d := range DebugDirs {
			cands = append(cands, filepath.Join(root+d, ".build-id", id[:2], id[2:]+".debug"))
		}
		if c := os.Getenv("DEBUGINFOD_CACHE_PATH"); c != "" {
			cands = append(cands, filepath.Join(c, id, "debuginfo"))
		}
	}
	name, crc, hasLink := debuglink(f)
	if hasLink {
		dir := filepath.Dir(path)
		cands = append(cands, filepath.Join(dir, name), filepath.Join(dir, ".debug", name))
		for _, d := range DebugDirs {
			cands = append(cands, filepath.Join(root+d, filepath.Dir(target), name))
		}
	}
	for _, c := range cands {
		if c == path {
			continue
		}
		df, err := openDebugFile(c, id, crc, hasLink && id == "")
		if err != nil {
			if !os.IsNotExist(err) {
				logrus.Debugf("frames: debug file %s: %v", c, err)
			}
			continue
		}
		logrus.Debugf("frames: %s: separate debug file %s", path, c)
		return df
	}
	return nil
}

// openDebugFile opens a candidate debug file and checks that it belongs to
// the file with build ID id (when id is set) or, with checkCRC, that its
// CRC-32 is crc.
func openDebugFile(path, id string, crc uint32, checkCRC bool) (*elf.File, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := fh.Stat()
	if err != nil || !st.Mode().IsRegular() {
		fh.Close()
		return nil, os.ErrNotExist
	}
	if checkCRC && st.Size() <= maxDebuglinkCRCSize {
		h := crc32.NewIEEE()
		if _, err := io.Copy(h, fh); err != nil || h.Sum32() != crc {
			fh.Close()
			return nil, os.ErrNotExist
		}
	}
	df, err := sframe.NewELFFile(fh, st.Size()) // header tables checked against the size first
	if err != nil {
		fh.Close()
		return nil, err
	}
	if id != "" && buildID(df) != id {
		fh.Close()
		return nil, os.ErrNotExist
	}
	return df, nil
}

// debugFile returns the module's separate debug file (findDebugFile),
// looked up once when the module's own file lacks what is asked for; nil
// when there is none.
func (m *Module) debugFile(d *moduleData) *elf.File {
	d.debugOnce.Do(func() {
		path := m.OpenPath
		if path == "" {
			path = m.Path
		}
		if path != "" {
			d.debug = findDebugFile(d.file, path, m.Path)
		}
	})
	return d.debug
}

// hasSection reports whether f has a section name with contents.
func hasSection(f *elf.File, name string) bool {
	s := f.Section(name)
	return s != nil && s.Type != elf.SHT_NOBITS && s.Size > 0
}
