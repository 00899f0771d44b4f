package frames

import (
	"bytes"
	"io"
	"math/rand"
	"testing"
)

// countingReader counts the reads that reach it.
type countingReader struct {
	r     io.ReaderAt
	reads int
}

func (c *countingReader) ReadAt(p []byte, off int64) (int, error) {
	c.reads++
	return c.r.ReadAt(p, off)
}

// TestWindowReaderReadsAsItsReader: every read through the window gives
// the reader's bytes and errors (at the end, past the end, spanning
// windows, as large as the window), the caller's buffer of an earlier
// read is not changed by a later one, and reads in order reach the reader
// once per window.
func TestWindowReaderReadsAsItsReader(t *testing.T) {
	data := make([]byte, 10000)
	rand.New(rand.NewSource(1)).Read(data)
	src := bytes.NewReader(data)
	for _, n := range []int{1, 7, 64, 4096} {
		c := &countingReader{r: src}
		w := newWindowReader(c, int64(len(data)), n)
		rng := rand.New(rand.NewSource(int64(n)))
		for range 2000 {
			off := rng.Int63n(int64(len(data)) + 10)
			p := make([]byte, rng.Intn(2*n+3))
			q := make([]byte, len(p))
			k, err := w.ReadAt(p, off)
			kk, err2 := src.ReadAt(q, off)
			if k != kk || !bytes.Equal(p[:k], q[:kk]) || (err == nil) != (err2 == nil) {
				t.Fatalf("window %d: ReadAt(%d bytes, %d) = %d, %v; the reader's %d, %v", n, len(p), off, k, err, kk, err2)
			}
		}
	}
	c := &countingReader{r: src}
	w := newWindowReader(c, int64(len(data)), 1000)
	first := make([]byte, 10)
	w.ReadAt(first, 0)
	kept := append([]byte(nil), first...)
	p := make([]byte, 100)
	for off := int64(0); off+100 <= int64(len(data)); off += 100 {
		w.ReadAt(p, off)
	}
	if !bytes.Equal(first, kept) {
		t.Error("a later read changed an earlier read's bytes")
	}
	if c.reads > 11 {
		t.Errorf("%d reads of the reader for 100 in-order reads through a 1000-byte window, want about 10", c.reads)
	}
}
