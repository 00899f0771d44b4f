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
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"sync"
)

// lazySectionChunk is the granularity of a lazySection's reads: a prefix
// is read up to the next multiple of it (bytes).
const lazySectionChunk = 64 << 10

// lazySection is one section of an ELF file, read (and decompressed) from
// its start on demand. It is safe for concurrent use.
type lazySection struct {
	sec *elf.Section // nil for a section the file lacks

	mu  sync.Mutex
	r   io.ReadSeeker // the section's contents from len(buf) on; nil before the first read
	buf []byte
	err error // what stopped the stream before the section's size
}

// newLazySection returns the section name of f, or a lazySection that
// holds nothing when f has none (or it is SHT_NOBITS).
func newLazySection(f *elf.File, name string) *lazySection {
	s := f.Section(name)
	if s == nil || s.Type == elf.SHT_NOBITS {
		s = nil
	}
	return &lazySection{sec: s}
}

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

// prefix returns the section's first n bytes, or all of them when n is
// larger than the section. It reads and decompresses only what earlier
// calls did not, a chunk at a time. When the stream ends early or is
// corrupt it returns the bytes read and an error naming the section and
// the offset. The result is never modified afterwards: callers may keep it.
func (s *lazySection) prefix(n uint64) ([]byte, error) {
	if s.sec == nil {
		return nil, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	n = min(n, s.sec.Size)
	if uint64(len(s.buf)) >= n {
		return s.buf[:n:n], nil
	}
	if s.err != nil {
		return s.buf[:len(s.buf):len(s.buf)], s.err
	}
	if s.r == nil {
		s.r = s.sec.Open()
	}
	want := min((n+lazySectionChunk-1)/lazySectionChunk*lazySectionChunk, s.sec.Size)
	if uint64(cap(s.buf)) < want {
		// Grow by doubling, never past the section's size, and never
		// from the declared size alone: a hostile ch_size costs only
		// what its stream really holds.
		nb := make([]byte, len(s.buf), min(max(want, 2*uint64(cap(s.buf))), s.sec.Size))
		copy(nb, s.buf)
		s.buf = nb
	}
	got, err := io.ReadFull(s.r, s.buf[len(s.buf):want])
	s.buf = s.buf[:len(s.buf)+got]
	if err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		s.err = fmt.Errorf("section %s: ends at byte %#x of %#x: %w", s.sec.Name, len(s.buf), s.sec.Size, err)
		return s.buf[:len(s.buf):len(s.buf)], s.err
	}
	return s.buf[:n:n], nil
}

// all returns the whole section (prefix of its size).
func (s *lazySection) all() ([]byte, error) { return s.prefix(s.size()) }

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
	for i, n := range dwarfSectionNames {
		ds.sec[i] = newLazySection(f, ".debug_"+n)
	}
	return ds
}

// whole reads the given sections completely, in parallel (each stream is
// decompressed on its own core), and returns their bytes by index.
func (ds *dwarfSections) whole(which ...int) ([len(dwarfSectionNames)][]byte, error) {
	var data [len(dwarfSectionNames)][]byte
	var errs [len(dwarfSectionNames)]error
	var wg sync.WaitGroup
	for _, i := range which {
		if !ds.sec[i].present() {
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
