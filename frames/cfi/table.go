package cfi

import (
	"cmp"
	"slices"
)

// Table is every FDE of one CFI section, parsed at once, for the offline
// checks that walk a whole module and for sections without a usable
// .eh_frame_hdr. It is immutable after Parse and safe for concurrent use
// (FDEs build their rows on first use, see FDE.Rows).
type Table struct {
	all      []FDE  // in section order, empty ones included
	sorted   []*FDE // non-empty, by Start, then End, then Off descending
	overlaps []Overlap
}

// Overlap is a pair of FDEs whose ranges overlap: First starts at or below
// Second and ends above Second's start. Lookups in the overlap find the
// FDE with the greatest start at or below the PC (Table.FDEForPC).
type Overlap struct {
	First, Second *FDE
}

// Parse reads every CIE and FDE of sec (DWARF 5 §6.4.1, LSB Core 5.0
// §10.6.1): records are walked from the start; in .eh_frame a zero length
// word ends the walk (LSB §10.6.1: the terminator), in .debug_frame it is
// skipped as 4 bytes of padding, as readelf does. Each FDE's CIE pointer
// must lead to the start of a CIE of the section. Call frame instructions
// are interpreted later, per FDE (FDE.Rows).
//
// The error is the first problem found, an *Error (ErrMalformed or
// ErrUnsupported) at its offset; or a plain error for a bad Section
// description or a failed read through sec.Reader.
func Parse(sec Section) (*Table, error) {
	if err := sec.check(); err != nil {
		return nil, err
	}
	if sec.Data == nil && sec.Reader != nil {
		data, err := sec.readAt(0, sec.Size)
		if err != nil {
			return nil, err
		}
		sec.Data, sec.Reader = data, nil
	}
	data, size := sec.Data, int64(len(sec.Data))
	t := &Table{}
	// Pass 1: every CIE, and the number of FDEs.
	cies := map[int64]*CIE{}
	nfde := 0
	err := sec.walk(func(h recHead) *Error {
		if !h.cie {
			nfde++
			return nil
		}
		c, err := sec.parseCIE(h, data[h.off:h.end:h.end])
		cies[h.off] = c
		return err
	})
	if err != nil {
		return nil, err
	}
	// Pass 2: the FDEs, whose CIEs may follow them in .debug_frame.
	t.all = make([]FDE, 0, nfde)
	err = sec.walk(func(h recHead) *Error {
		if h.cie {
			return nil
		}
		c := cies[h.cieOff]
		if c == nil {
			return sec.badCIEPointer(h, size)
		}
		t.all = t.all[:len(t.all)+1]
		return sec.parseFDE(h, data[h.off:h.end:h.end], c, &t.all[len(t.all)-1])
	})
	if err != nil {
		return nil, err
	}
	t.sorted = make([]*FDE, 0, len(t.all))
	for i := range t.all {
		if f := &t.all[i]; f.End > f.Start {
			t.sorted = append(t.sorted, f)
		}
	}
	slices.SortFunc(t.sorted, func(a, b *FDE) int {
		if c := cmp.Compare(a.Start, b.Start); c != 0 {
			return c
		}
		if c := cmp.Compare(a.End, b.End); c != 0 {
			return c
		}
		return cmp.Compare(b.Off, a.Off)
	})
	var reach *FDE // the FDE reaching highest so far
	for _, f := range t.sorted {
		if reach != nil && f.Start < reach.End {
			t.overlaps = append(t.overlaps, Overlap{First: reach, Second: f})
		}
		if reach == nil || f.End > reach.End {
			reach = f
		}
	}
	return t, nil
}

// walk calls fn with the header of every record of the section, stopping
// at the first error.
func (s *Section) walk(fn func(recHead) *Error) *Error {
	size := int64(len(s.Data))
	for off := int64(0); off < size; {
		h, err := s.head(s.Data[off:], off, size)
		if err != nil {
			return err
		}
		if h.zero {
			if s.Kind == EHFrame {
				return nil
			}
			off = h.end
			continue
		}
		if err := fn(h); err != nil {
			return err
		}
		off = h.end // > off: a record has at least a length and an id
	}
	return nil
}

// badCIEPointer explains why the CIE pointer of the FDE h does not lead to
// a CIE of the section.
func (s *Section) badCIEPointer(h recHead, size int64) *Error {
	c, _, err := s.record(h.cieOff, size)
	if err == nil {
		if cerr := s.cieCheck(c, h.off); cerr != nil {
			return cerr
		}
	}
	return malformed(s.Kind.String(), h.off, "CIE pointer leads to %#x, which is not the start of a CIE", h.cieOff)
}

// FDEs returns the FDEs with a non-empty range, sorted by start address
// (then by end address; among equal ranges, the one later in the
// section first). The slice is shared and must not be modified.
func (t *Table) FDEs() []*FDE { return t.sorted }

// Overlaps lists the pairs of FDEs whose ranges overlap, in address order.
// Overlaps are not errors: lookups follow the rule of FDEForPC.
func (t *Table) Overlaps() []Overlap { return t.overlaps }

// FDEForPC returns the FDE that covers the link-time address pc. As in
// libgcc's lookup through .eh_frame_hdr, and so that Index.FDEForPC gives
// the same answer, it is the FDE with the greatest start at or below pc
// (among equal starts the one reaching highest, then the first in the
// section), if pc is below its end; FDEs with an empty range are skipped.
// The error is ErrNoFDE when there is none.
func (t *Table) FDEForPC(pc uint64) (*FDE, error) {
	s := t.sorted
	lo, hi := 0, len(s)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if s[m].Start <= pc {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo == 0 || pc >= s[lo-1].End {
		return nil, ErrNoFDE
	}
	return s[lo-1], nil
}
