package sframe

import (
	"fmt"
	"io"
)

// maxRawTrailer bounds, in bytes, what a raw section file may hold after
// its last SFrame section (padding, which Validate then reports).
const maxRawTrailer = 64 << 10

// ReadRaw reads a raw SFrame section file (the section's bytes alone, as
// objcopy -O binary --only-section=.sframe writes them) of size bytes
// from r, reading only what the headers declare: the section, the further
// sections of a sequence (ParseAt) that follow it, and at most 64 KiB
// after them. The data returned is for Parse, which reports any problem
// in the headers. A section whose sub-sections run past the end of the
// file, or more than 64 KiB after the last section (a file that is not a
// section, or a sparse tail), is a *FormatError at the byte offset of the
// field or of the first byte past the section, and nothing more is read.
func ReadRaw(r io.ReaderAt, size int64) ([]byte, error) {
	if size < 0 {
		return nil, fmt.Errorf("negative file size %d", size)
	}
	read := func(off, n int64) ([]byte, error) {
		b := make([]byte, n)
		if _, err := r.ReadAt(b, off); err != nil && !(err == io.EOF && off+n == size) {
			return nil, fmt.Errorf("reading %d bytes at byte %#x: %w", n, off, err)
		}
		return b, nil
	}
	var end int64 // just past the last section declared
	var order []byte
	for pos := int64(0); ; {
		hdr, err := read(pos, min(size-pos, HeaderSize+255))
		if err != nil {
			return nil, err
		}
		if pos == 0 {
			if len(hdr) < HeaderSize || MagicOrder(hdr) == nil || hdr[2] < byte(Version1) || hdr[2] > byte(Version3) {
				return hdr, nil // too short or not a header: Parse says why, at its offset
			}
			order = hdr[:2]
		}
		bo := MagicOrder(hdr)
		h := Header{Version: Version(hdr[2]), AuxHdrLen: hdr[7]}
		hl := int64(h.HeaderLen())
		fdeEnd := hl + int64(bo.Uint32(hdr[20:])) + int64(bo.Uint32(hdr[8:]))*int64(h.FDESize())
		freEnd := hl + int64(bo.Uint32(hdr[24:])) + int64(bo.Uint32(hdr[16:]))
		switch {
		case pos+fdeEnd > size:
			return nil, formatErr(pos+20, "FDE sub-section of the SFrame section at byte %#x ends at byte %#x, past the end of the %d-byte file", pos, pos+fdeEnd, size)
		case pos+freEnd > size:
			return nil, formatErr(pos+24, "FRE sub-section of the SFrame section at byte %#x ends at byte %#x, past the end of the %d-byte file", pos, pos+freEnd, size)
		}
		end = pos + max(fdeEnd, freEnd, hl)
		// A further section of a sequence: zero padding to the next
		// 8-byte boundary, then the magic in the same byte order.
		next := (end + seqAlign - 1) &^ (seqAlign - 1)
		if next+HeaderSize > size {
			break
		}
		gap, err := read(end, next-end+2)
		if err != nil {
			return nil, err
		}
		if !allZero(gap[:next-end]) || gap[next-end] != order[0] || gap[next-end+1] != order[1] {
			break
		}
		pos = next
	}
	if size-end > maxRawTrailer {
		return nil, formatErr(end, "%d bytes of the file follow the end of its last SFrame section (a raw section file holds the section alone, with at most %d bytes of padding)", size-end, maxRawTrailer)
	}
	return read(0, size)
}
