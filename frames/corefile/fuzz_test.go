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

// compactCore returns the 64-bit core b with each PT_LOAD segment cut to
// its first keep bytes (its memory size kept: the rest reads as zeros),
// the notes whole, and the segments packed after the program headers; nil
// when b is not such a core.
func compactCore(b []byte, keep uint64) []byte {
	if len(b) < 64 || string(b[:4]) != "\x7fELF" || b[4] != 2 {
		return nil
	}
	var bo binary.ByteOrder = binary.LittleEndian
	if b[5] == 2 {
		bo = binary.BigEndian
	}
	phoff, phnum := bo.Uint64(b[32:]), uint64(bo.Uint16(b[56:]))
	if phoff+56*phnum > uint64(len(b)) {
		return nil
	}
	out := append([]byte(nil), b[:phoff+56*phnum]...)
	bo.PutUint64(out[40:], 0) // no section headers
	bo.PutUint16(out[60:], 0)
	bo.PutUint16(out[62:], 0)
	for i := uint64(0); i < phnum; i++ {
		ph := out[phoff+56*i:]
		off, filesz := bo.Uint64(ph[8:]), bo.Uint64(ph[32:])
		if elf.ProgType(bo.Uint32(ph)) == elf.PT_LOAD {
			filesz = min(filesz, keep)
		}
		if off > uint64(len(b)) || filesz > uint64(len(b))-off {
			return nil
		}
		bo.PutUint64(ph[8:], uint64(len(out)))
		bo.PutUint64(ph[32:], filesz)
		out = append(out, b[off:off+filesz]...)
	}
	return out
}
