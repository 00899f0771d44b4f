package sframe_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/sfdbg/sfdbg/sframe"
)

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.ReaderAt
	n atomic.Int64
}

func (c *countingReader) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(p, off)
	c.n.Add(int64(n))
	return n, err
}

// rawFile writes data to a file, extended to size bytes (a sparse tail).
func rawFile(t *testing.T, data []byte, size int64) (*os.File, int64) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "raw.sframe")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if size > int64(len(data)) {
		if err := os.Truncate(p, size); err != nil {
			t.Fatal(err)
		}
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f, max(size, int64(len(data)))
}

func TestReadRawReadsOnlyWhatTheHeaderDeclares(t *testing.T) {
	fx := fixtureByName(t, "deep-v3-O2")
	sec := fx.data
	for _, tc := range []struct {
		name    string
		data    []byte
		size    int64
		wantErr int64 // the error's byte offset, or -1 for none
	}{
		{"a section alone is read whole", sec, 0, -1},
		{"a section with 100 bytes of padding is read with its padding", append(append([]byte(nil), sec...), make([]byte, 100)...), 0, -1},
		{"a sequence of two sections (lld) is read whole", func() []byte {
			b := append([]byte(nil), sec...)
			b = append(b, make([]byte, (8-len(b)%8)%8)...)
			return append(b, sec...)
		}(), 0, -1},
		{"a section with a 2 GiB sparse tail is refused at its end, the tail unread", sec, 2 << 30, int64(len(sec))},
		{"an FRE sub-section past the end of the file is refused at its field", func() []byte {
			b := append([]byte(nil), sec...)
			b[16], b[17], b[18], b[19] = 0xff, 0xff, 0xff, 0x7f // FRE length (little-endian)
			return b
		}(), 0, 24},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, size := rawFile(t, tc.data, tc.size)
			cr := &countingReader{r: f}
			data, err := sframe.ReadRaw(cr, size)
			if read := cr.n.Load(); read > int64(len(tc.data))+4*(sframe.HeaderSize+255) {
				t.Errorf("read %d bytes of a %d-byte file whose section has %d", read, size, len(sec))
			}
			if tc.wantErr >= 0 {
				var fe *sframe.FormatError
				if !errors.As(err, &fe) || fe.Off != tc.wantErr {
					t.Fatalf("got %v, want a *FormatError at byte %#x", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(data, tc.data) {
				t.Errorf("got %d bytes, want the file's %d", len(data), len(tc.data))
			}
			if _, err := sframe.Parse(data); err != nil {
				t.Error(err)
			}
		})
	}
}
