package frames

// The DWARF sections of a module, read only as far as lookups need. A
// distribution's separate debug file keeps its DWARF in SHF_COMPRESSED
// sections (ELF gABI "Compression": an Elf64_Chdr, then one zlib or zstd
// stream), which cannot be read from the middle: libc6-dbg's .debug_info is
// 2.3 MB of zlib holding 5.8 MB. Decompressing all of it takes longer than
// the rest of a one-shot backtrace, and names two or three PCs. A
// lazySection keeps its stream open and decompresses it only up to the
// last byte asked for, once: the compilation unit of a PC halfway through
// .debug_info costs half of it, and a later lookup carries on from there.

import (
	"bytes"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/sirupsen/logrus"
	"golang.org/x/sys/unix"
)

// lazySectionChunk is the granularity of a lazySection's stream reads: a
// prefix is decompressed up to the next multiple of it (bytes).
const lazySectionChunk = 64 << 10

// maxCachedSection bounds the decompressed size of a section that is
// decompressed whole for the cache (bytes): a larger one, or a hostile
// ch_size, is read as a stream, only as far as lookups need.
const maxCachedSection = 512 << 20

// lazySection is one section of an ELF file, read (and decompressed) on
// demand. An uncompressed section, or a compressed one whose decompressed
// bytes a previous run left in the cache (DebugCacheDir), is read where
// asked; a compressed one from its start, as far as asked. It is safe for
// concurrent use.
type lazySection struct {
	sec *elf.Section // nil for a section the file lacks
	// ra reads the decompressed section at any offset: the section
	// itself when uncompressed, else its cache file; nil for a stream.
	ra io.ReaderAt
	// cachePath, when set, is where the decompressed section is to be
	// kept for later runs: its first read decompresses all of it.
	cachePath string
	// mapped is the cache file, mapped read-only (mapCacheFile;
	// unmapped by close), that ra reads; nil for a section read from the
	// ELF file. prefix and span return views of it.
	mapped []byte

	mu   sync.Mutex
	r    io.ReadSeeker // the section's stream from len(buf) on; nil before the first read
	buf  []byte        // the section's first len(buf) bytes
	err  error         // what stopped the stream before the section's size
	maps [][]byte      // mappings of zeroed, unmapped by close
}

// newLazySection returns the section name of f, or a lazySection that
// holds nothing when f has none (or it is SHT_NOBITS). id is f's build ID
// ("" if none): it names the cache files of its compressed sections.
func newLazySection(f *elf.File, name, id string) *lazySection {
	s := f.Section(name)
	if s == nil || s.Type == elf.SHT_NOBITS {
		return &lazySection{}
	}
	ls := &lazySection{sec: s}
	if s.Flags&elf.SHF_COMPRESSED == 0 {
		ls.ra = s.ReaderAt
		return ls
	}
	if dir := DebugCacheDir; dir != "" && len(id) > 2 && s.Size <= maxCachedSection {
		path := filepath.Join(dir, "dwarf", id[:2], fmt.Sprintf("%s%s-%x-%x", id[2:], name, s.FileSize, s.Size))
		// Mapped, not read: the sections read whole (strings, range
		// lists: 400 KB for libc) then cost no copy, and only the pages a
		// lookup touches are faulted in.
		if b := mapCacheFile(path, func(n int64) bool { return uint64(n) == s.Size }); b != nil {
			ls.mapped, ls.ra = b, bytes.NewReader(b)
			return ls
		}
		ls.cachePath = path
	}
	return ls
}

// shared reports whether span's results are views shared with other
// callers (a stream's prefix, a mapped cache file), which a caller that
// modifies them must copy first.
func (s *lazySection) shared() bool { return s.ra == nil || s.mapped != nil }

// present reports whether the file has the section.
func (s *lazySection) present() bool { return s.sec != nil && s.sec.Size > 0 }

// size is the section's size in bytes: decompressed, for an
// SHF_COMPRESSED section (its Elf_Chdr's ch_size); 0 when absent.
func (s *lazySection) size() uint64 {
	if s.sec == nil {
		return 0
	}
	return s.sec.Size
}

// span returns a slice b of the section's length up to end (at most its
// size) whose bytes [off, len(b)) are the section's; those before off are
// the section's too, or zeros where the section is read at random. When
// the section ends early or is corrupt it returns an error naming the
// section and the offset. The result is never modified afterwards.
func (s *lazySection) span(off, end uint64) ([]byte, error) {
	if s.sec == nil {
		return nil, nil
	}
	end = min(end, s.sec.Size)
	off = min(off, end)
	if s.mapped != nil {
		return s.mapped[:end:end], nil
	}
	s.mu.Lock()
	if s.ra == nil || uint64(len(s.buf)) >= end {
		s.mu.Unlock()
		return s.prefix(end)
	}
	s.mu.Unlock()
	b := s.zeroed(end)
	if n, err := s.ra.ReadAt(b[off:], int64(off)); uint64(n) < end-off {
		return nil, fmt.Errorf("section %s: reading bytes %#x-%#x: %w", s.sec.Name, off, end, err)
	}
	return b, nil
}

// zeroed returns n zero bytes. Past 64 KB they are an anonymous mapping
// outside the Go heap, unmapped by close (Module.Close; a module never
// closed keeps them to the end of the process): a span's bytes before its
// offset are never touched, so they cost neither memory nor clearing,
// and a few megabytes of them do not set off a garbage collection.
func (s *lazySection) zeroed(n uint64) []byte {
	if n <= 64<<10 || n > 1<<40 {
		return make([]byte, n)
	}
	b, err := unix.Mmap(-1, 0, int(n), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		return make([]byte, n)
	}
	s.mu.Lock()
	s.maps = append(s.maps, b)
	s.mu.Unlock()
	return b
}

// close unmaps the buffers of zeroed: nothing read from the section may
// be used afterwards.
func (s *lazySection) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, b := range s.maps {
		unix.Munmap(b)
	}
	s.maps = nil
	if s.mapped != nil {
		unix.Munmap(s.mapped)
		s.mapped, s.ra = nil, nil
	}
}

// prefix returns the section's first n bytes, or all of them when n is
// larger than the section. A stream is read and decompressed only as far
// as earlier calls did not, a chunk at a time (a section to be cached, all
// of it at once). When the section ends early or is corrupt it returns the
// bytes read and an error naming the section and the offset. The result
// is never modified afterwards: callers may keep it.
func (s *lazySection) prefix(n uint64) ([]byte, error) {
	if s.sec == nil {
		return nil, nil
	}
	n = min(n, s.sec.Size)
	if s.mapped != nil {
		return s.mapped[:n:n], nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if uint64(len(s.buf)) >= n {
		return s.buf[:n:n], nil
	}
	if s.err != nil {
		return s.buf[:len(s.buf):len(s.buf)], s.err
	}
	if s.r == nil {
		if s.ra != nil {
			s.r = io.NewSectionReader(s.ra, 0, int64(s.sec.Size))
		} else {
			s.r = s.sec.Open()
		}
	}
	want := min((n+lazySectionChunk-1)/lazySectionChunk*lazySectionChunk, s.sec.Size)
	if s.cachePath != "" {
		want = s.sec.Size
	}
	for uint64(len(s.buf)) < want {
		// At most 16 MB at a time, capacity doubling up to want: what
		// is allocated stays within twice what the stream really
		// held, whatever size the header declares.
		step := min(want-uint64(len(s.buf)), 16<<20)
		if uint64(cap(s.buf)) < uint64(len(s.buf))+step {
			nb := make([]byte, len(s.buf), min(max(uint64(len(s.buf))+step, 2*uint64(cap(s.buf))), want))
			copy(nb, s.buf)
			s.buf = nb
		}
		got, err := io.ReadFull(s.r, s.buf[len(s.buf):uint64(len(s.buf))+step])
		s.buf = s.buf[:len(s.buf)+got]
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			s.err = fmt.Errorf("section %s: ends at byte %#x of %#x: %w", s.sec.Name, len(s.buf), s.sec.Size, err)
			return s.buf[:len(s.buf):len(s.buf)], s.err
		}
	}
	if s.cachePath != "" {
		writeCacheFile(s.cachePath, s.buf)
		s.cachePath = ""
	}
	return s.buf[:n:n], nil
}

// all returns the whole section (prefix of its size).
func (s *lazySection) all() ([]byte, error) { return s.prefix(s.size()) }

// DebugCacheDir is the directory where sfdbg keeps the decompressed DWARF
// sections of the files it reads (DIR/dwarf/xx/yyyy.debug_info-CSIZE-SIZE,
// by build ID, compressed and decompressed size), as debuginfod clients
// keep the files they fetch: the compressed sections of a distribution's
// debug files (libc6-dbg) can only be read from their start, which costs
// more than the rest of a one-shot backtrace, every run. The first run
// that needs a compressed section decompresses all of it and writes it
// there; later runs read only the bytes they need. It is
// $SFDBG_CACHE_DIR when set (set and empty: no cache), else
// $XDG_CACHE_HOME/sfdbg, else ~/.cache/sfdbg; in a test binary, unset.
// Set it before the first module is loaded.
var DebugCacheDir = defaultCacheDir()

func defaultCacheDir() string {
	if d, ok := os.LookupEnv("SFDBG_CACHE_DIR"); ok {
		return d
	}
	if testing.Testing() {
		return "" // a test binary leaves the user's cache alone unless told
	}
	if d := os.Getenv("XDG_CACHE_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "sfdbg")
	}
	if h, err := os.UserHomeDir(); err == nil && filepath.IsAbs(h) {
		return filepath.Join(h, ".cache", "sfdbg")
	}
	return ""
}

// mapCacheFile maps the cache file at path read-only when it is a regular
// file of a size ok accepts; nil otherwise. Cache files are never
// truncated in place (writeCacheFile renames a new one over the old), so
// a mapping's pages stay valid.
func mapCacheFile(path string, ok func(size int64) bool) []byte {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() || st.Size() <= 0 || st.Size() > maxCachedSection || !ok(st.Size()) {
		return nil
	}
	b, err := unix.Mmap(int(f.Fd()), 0, int(st.Size()), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil
	}
	return b
}

// writeCacheFile writes data to path through a temporary file renamed
// into place, so that a concurrent reader sees all of it or nothing. A
// failure (a read-only home, a full disk) is logged and otherwise ignored:
// the cache only saves time.
func writeCacheFile(path string, data []byte) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		logrus.Debugf("frames: cache: %v", err)
		return
	}
	tmp, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		logrus.Debugf("frames: cache: %v", err)
		return
	}
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		logrus.Debugf("frames: cache: %v", err)
		return
	}
	logrus.Debugf("frames: cache: wrote %s (%d bytes)", path, len(data))
}

// dwarfSectionNames are the sections lineTable reads, in the order
// debug/dwarf's New takes the first of them and AddSection the rest: the
// sections of units, names, line programs and ranges, not the location
// lists, types or macros.
var dwarfSectionNames = [...]string{"abbrev", "info", "line", "str", "ranges", "line_str", "rnglists", "str_offsets", "addr", "aranges"}

// Indices in dwarfSectionNames.
const (
	secAbbrev = iota
	secInfo
	secLine
	secStr
	secRanges
	secLineStr
	secRnglists
	secStrOffsets
	secAddr
	secAranges
)

// dwarfSections are the DWARF sections of one ELF file.
type dwarfSections struct {
	f   *elf.File
	sec [len(dwarfSectionNames)]*lazySection
}

func newDWARFSections(f *elf.File) *dwarfSections {
	ds := &dwarfSections{f: f}
	id := ""
	for _, s := range f.Sections {
		if s.Flags&elf.SHF_COMPRESSED != 0 && strings.HasPrefix(s.Name, ".debug_") {
			id = buildID(f)
			break
		}
	}
	for i, n := range dwarfSectionNames {
		ds.sec[i] = newLazySection(f, ".debug_"+n, id)
	}
	return ds
}

// close releases what the sections hold (lazySection.close).
func (ds *dwarfSections) close() {
	for _, s := range ds.sec {
		s.close()
	}
}

// whole reads the given sections completely, the streams in parallel
// (each decompressed on its own core), and returns their bytes by index.
func (ds *dwarfSections) whole(which ...int) ([len(dwarfSectionNames)][]byte, error) {
	var data [len(dwarfSectionNames)][]byte
	var errs [len(dwarfSectionNames)]error
	var wg sync.WaitGroup
	for _, i := range which {
		if !ds.sec[i].present() {
			continue
		}
		if ds.sec[i].ra != nil && ds.sec[i].cachePath == "" {
			// Read at random (uncompressed, or from the cache): a
			// copy, not worth a goroutine's hand-over.
			data[i], errs[i] = ds.sec[i].all()
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			data[i], errs[i] = ds.sec[i].all()
		}()
	}
	wg.Wait()
	return data, errors.Join(errs[:]...)
}
