package corefile

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzNewCore checks that reading a core's headers, notes and memory never
// panics, and that a failure to open is a *FormatError or ErrUnsupported.
// Seeded with the committed cores and their first 4 KiB (headers and
// notes).
func FuzzNewCore(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join(cores, "*.core"))
	for _, p := range seeds {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		f.Add(b[:min(len(b), 4096)])
	}
	f.Fuzz(func(t *testing.T, b []byte) {
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
	})
}
