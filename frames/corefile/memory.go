package corefile

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"sort"

	"github.com/sfdbg/sfdbg/frames"
)

// ErrNotDumped is the error of reading memory the process had mapped but
// the core left out (a segment's bytes past its p_filesz, such as the
// text of a file mapping the kernel does not dump) where no mapped file
// backs it either. Such bytes are unreadable, not zero: gdb reads them
// from the mapped file too, and reports them unavailable otherwise.
var ErrNotDumped = errors.New("not in the core")

// errUnmapped is the error of reading an address no segment holds.
var errUnmapped = errors.New("not mapped in the core")

// backing is a mapped file that supplies the bytes a segment left out.
type backing struct {
	start, end, off uint64 // [start, end) is the file from byte off
	f               *os.File
}

// ReadAt reads len(p) bytes of the dumped process's memory at addr, from
// the core's PT_LOAD segments and, past a segment's p_filesz, from the
// file NT_FILE says is mapped there (once Space has found it). It returns
// the number of bytes read and a *frames.MemoryError for the first byte
// it could not read.
func (c *Core) ReadAt(p []byte, addr uint64) (int, error) {
	n := 0
	for n < len(p) {
		a := addr + uint64(n)
		i := sort.Search(len(c.Segments), func(i int) bool { return c.Segments[i].Addr+c.Segments[i].MemSize > a })
		if i == len(c.Segments) || c.Segments[i].Addr > a {
			return n, &frames.MemoryError{Addr: a, Err: errUnmapped}
		}
		s := &c.Segments[i]
		rel := a - s.Addr
		var k int
		var err error
		if rel < s.FileSize {
			want := min(uint64(len(p)-n), s.FileSize-rel)
			k, err = c.f.ReadAt(p[n:n+int(want)], int64(s.Off+rel))
		} else {
			want := min(uint64(len(p)-n), s.MemSize-rel)
			k, err = c.readBacking(p[n:n+int(want)], a)
		}
		n += k
		if err != nil || k == 0 {
			if err == nil {
				err = ErrNotDumped
			}
			return n, &frames.MemoryError{Addr: addr + uint64(n), Err: err}
		}
	}
	return n, nil
}

// ReadUint64 reads a 64-bit word at addr in the core's byte order
// (frames.WordReader).
func (c *Core) ReadUint64(addr uint64) (uint64, error) {
	var b [8]byte
	if n, err := c.ReadAt(b[:], addr); n < len(b) {
		return 0, err
	}
	return c.Order.Uint64(b[:]), nil
}

// BigEndian reports whether the core is big-endian (frames.BigEndianMemory).
func (c *Core) BigEndian() bool { return c.Order == binary.BigEndian }

// readBacking reads p at a from the mapped file covering a.
func (c *Core) readBacking(p []byte, a uint64) (int, error) {
	for _, b := range c.backing {
		if a < b.start || a >= b.end {
			continue
		}
		want := min(uint64(len(p)), b.end-a)
		k, err := b.f.ReadAt(p[:want], int64(b.off+a-b.start))
		if k > 0 {
			return k, nil
		}
		return 0, fmt.Errorf("%w (reading %s: %v)", ErrNotDumped, b.f.Name(), err)
	}
	return 0, ErrNotDumped
}
