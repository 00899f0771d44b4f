package frames

import (
	"errors"
	"io"
	"sync"
)

// windowReader reads an io.ReaderAt (a section of a file) through a
// window of its bytes kept in memory: the small reads of records that
// come in order (a lazily indexed .eh_frame's CIEs and FDEs, read one at
// a time as check walks the functions) cost one read system call per
// window instead of one or two per record. A read as large as the window
// goes to the reader itself. Safe for concurrent use.
type windowReader struct {
	r    io.ReaderAt
	size int64 // the bytes r holds
	n    int   // the window's size

	mu  sync.Mutex
	buf []byte // the window: r's bytes at [off, off+len(buf))
	off int64
}

// newWindowReader reads r, which holds size bytes, n bytes at a time.
func newWindowReader(r io.ReaderAt, size int64, n int) *windowReader {
	return &windowReader{r: r, size: size, n: n}
}

// ReadAt implements io.ReaderAt.
func (w *windowReader) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, errors.New("negative offset")
	}
	if len(p) >= w.n {
		return w.r.ReadAt(p, off)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if off < w.off || off+int64(len(p)) > w.off+int64(len(w.buf)) {
		if off >= w.size {
			return 0, io.EOF
		}
		// Reads copy out of the window, so it is refilled in place.
		need := int(min(int64(w.n), w.size-off))
		if cap(w.buf) < need {
			w.buf = make([]byte, w.n)
		}
		buf := w.buf[:need]
		w.buf = w.buf[:0]
		k, err := w.r.ReadAt(buf, off)
		if k < len(buf) {
			if err == nil {
				err = io.ErrUnexpectedEOF
			}
			return copy(p, buf[:k]), err
		}
		w.buf, w.off = buf, off
	}
	k := copy(p, w.buf[off-w.off:])
	if k < len(p) {
		return k, io.EOF
	}
	return k, nil
}
