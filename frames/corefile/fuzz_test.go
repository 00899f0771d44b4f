package corefile

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/sfdbg/sfdbg/sframe/sframetest"
)

// FuzzNewCore checks that reading a core's headers, notes and memory never
// panics, that a failure to open is a *FormatError or ErrUnsupported, and
// that the work stays within coreAllocs. Seeded with the committed cores
// made compact (compactCore: the fuzzer mutates and minimizes small inputs
// many times faster than the 400 KiB cores) and their first 4 KiB
// (headers and notes).
func FuzzNewCore(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join(cores, "*.core"))
	for _, p := range seeds {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		if c := compactCore(b, 512); c != nil {
			f.Add(c)
		}
		f.Add(b[:min(len(b), 4096)])
	}
	// A 32-bit ARM core with every note a kernel writes (qemu-arm's has
	// no NT_FILE and no NT_SIGINFO).
	f.Add(armCore(armNotes()...))
	f.Fuzz(func(t *testing.T, b []byte) {
		coreAllocs.CheckAllocs(t, len(b), func() { fuzzNewCore(t, b) })
	})
}

// coreAllocs is the budget of FuzzNewCore, per byte of core: debug/elf
// keeps a Prog (about 100 bytes) per 56-byte program header and a Section
// (about 200 bytes and its name) per 64-byte section header; the notes
// are read once (PT_NOTE segments add up to at most the file's size) and
// a thread of about 1 KiB is kept per NT_PRSTATUS of at least 200 bytes,
// a mapping of 40 bytes and its path per 25 bytes of NT_FILE. The
// build-ID probe reads one note buffer of at most 64 KiB (AllocSlack).
// The seeds need at most about 5.
var coreAllocs = sframetest.AllocBudget(32)

func fuzzNewCore(t *testing.T, b []byte) {
	c, err := newCore(bytes.NewReader(b), int64(len(b)), "fuzz")
	if err != nil {
		var fe *FormatError
		if !errors.As(err, &fe) && !errors.Is(err, ErrUnsupported) {
			t.Fatalf("error %v (%T) is neither a FormatError nor ErrUnsupported", err, err)
		}
		return
	}
	defer c.Close()
	var buf [64]byte
	for _, th := range c.Threads {
		c.ReadAt(buf[:], th.Regs.SP())
		c.ReadAt(buf[:], th.Regs.PC())
	}
	for _, s := range c.Segments {
		c.ReadAt(buf[:], s.Addr)
		c.ReadAt(buf[:], s.Addr+s.MemSize-1)
	}
	c.mappedBuildID(c.mainPath())
}

// compactCore returns the core b (either ELF class) with each PT_LOAD
// segment cut to its first keep bytes (its memory size kept: the rest
// reads as zeros), the notes whole, and the segments packed after the
// program headers; nil when b is not such a core.
func compactCore(b []byte, keep uint64) []byte {
	if len(b) < 64 || string(b[:4]) != "\x7fELF" || b[4] != 1 && b[4] != 2 {
		return nil
	}
	var bo binary.ByteOrder = binary.LittleEndian
	if b[5] == 2 {
		bo = binary.BigEndian
	}
	// Offsets by class (gABI "ELF Header", "Program Header"): e_phoff,
	// e_phnum, e_shoff, e_shnum; a header's size, p_offset and p_filesz;
	// word reads and put writes an address-sized field.
	c64 := b[4] == 2
	phoffAt, phnumAt, shoffAt, shnumAt, phsize, offAt, fileszAt := 28, 44, 32, 48, uint64(32), 4, 16
	word := func(p []byte) uint64 { return uint64(bo.Uint32(p)) }
	put := func(p []byte, v uint64) { bo.PutUint32(p, uint32(v)) }
	if c64 {
		phoffAt, phnumAt, shoffAt, shnumAt, phsize, offAt, fileszAt = 32, 56, 40, 60, 56, 8, 32
		word, put = bo.Uint64, bo.PutUint64
	}
	phoff, phnum := word(b[phoffAt:]), uint64(bo.Uint16(b[phnumAt:]))
	if phoff > uint64(len(b)) || phsize*phnum > uint64(len(b))-phoff {
		return nil
	}
	out := append([]byte(nil), b[:phoff+phsize*phnum]...)
	put(out[shoffAt:], 0) // no section headers
	bo.PutUint16(out[shnumAt:], 0)
	bo.PutUint16(out[shnumAt+2:], 0)
	for i := uint64(0); i < phnum; i++ {
		ph := out[phoff+phsize*i:]
		off, filesz := word(ph[offAt:]), word(ph[fileszAt:])
		if elf.ProgType(bo.Uint32(ph)) == elf.PT_LOAD {
			filesz = min(filesz, keep)
		}
		if off > uint64(len(b)) || filesz > uint64(len(b))-off {
			return nil
		}
		put(ph[offAt:], uint64(len(out)))
		put(ph[fileszAt:], filesz)
		out = append(out, b[off:off+filesz]...)
	}
	return out
}
