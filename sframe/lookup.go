package sframe

import (
	"encoding/binary"
	"math/bits"
	"sync"
	"sync/atomic"
)

// FindFDE returns the FDE whose function covers pc, or ErrNoFDE. The search
// is a binary search over function start addresses, O(log n), whether or
// not the section is sorted (an unsorted section is indexed once by
// ParseAt). Where functions overlap, the one with the greatest start address
// <= pc that covers pc wins, looking back at most maxOverlap FDEs.
func (s *Section) FindFDE(pc uint64) (*FDE, error) {
	// i = number of FDEs with Start <= pc, by binary search over the
	// compact array of start addresses (searching the FDEs themselves
	// misses the cache on large sections).
	// The loop halves n without a data-dependent branch, which random PCs
	// would mispredict half of the time.
	starts := s.starts
	i := 0
	if n := len(starts); n > 0 {
		base := 0
		for n > 1 {
			half := n >> 1
			// borrow is 1 when pc < starts[base+half]: then stay.
			_, borrow := bits.Sub64(pc, starts[base+half], 0)
			base += half & int(borrow-1)
			n -= half
		}
		i = base
		if starts[base] <= pc {
			i++
		}
	}
	for k := i - 1; k >= 0 && k >= i-maxOverlap; k-- {
		if f := s.fdeAt(k); f.contains(pc) {
			return f, nil
		}
	}
	return nil, ErrNoFDE
}

// maxOverlap bounds how many FDEs before the nearest one FindFDE examines,
// so that nested or overlapping functions (which Validate reports) still
// resolve while a lookup stays O(log n).
const maxOverlap = 4

func (s *Section) fdeAt(k int) *FDE {
	if s.byPC != nil {
		return &s.fdes[s.byPC[k]]
	}
	return &s.fdes[k]
}

// FindFRE returns the FRE of fde that covers pc: for PCTypeInc FDEs the last
// FRE whose start offset is <= pc - fde.Start; for PCTypeMask FDEs the last
// whose start offset is <= (pc - fde.Start) % fde.RepSize (spec v3
// §2.3.3.1). It returns ErrNoFRE if there is none, or a *FormatError if the
// FREs cannot be decoded. It does not allocate, except in the one call that
// builds the section's FRE index (see freIndex).
func (s *Section) FindFRE(fde *FDE, pc uint64, fre *FRE) error {
	_, _, err := s.FindFRERange(fde, pc, fre)
	return err
}

// FindFRERange is FindFRE that also returns the index of the FRE within
// its FDE and where its range ends: the start offset of the next FRE, or,
// for the last FRE, the function size (PCTypeInc) or the repetition size
// (PCTypeMask), in bytes from the start of the function or block.
func (s *Section) FindFRERange(fde *FDE, pc uint64, fre *FRE) (index int, end uint32, err error) {
	p, pf, base := s.partOf(fde)
	if base == 0 {
		index, end, err = p.findFRERange(pf, pc, fre)
		return index, end, s.errFor(err)
	}
	index, end, err = p.findFRERange(pf, pc, fre)
	fre.Off += base
	return index, end, shiftErr(err, base)
}

// findFRERange is FindFRERange on an FDE of s itself (offsets in s).
func (s *Section) findFRERange(fde *FDE, pc uint64, fre *FRE) (index int, end uint32, err error) {
	if pc < fde.Start {
		return -1, 0, ErrNoFRE
	}
	limit := fde.Size
	off := pc - fde.Start
	if fde.PCType == PCTypeMask {
		if fde.RepSize == 0 {
			return -1, 0, formatErr(int64(fde.infoOff(s)), "FDE %d: PC type MASK with a zero repetition size", fde.Index)
		}
		off %= uint64(fde.RepSize)
		limit = uint32(fde.RepSize)
	}
	if fde.err != nil {
		return -1, 0, fde.err
	}
	as := uint32(fde.FREType.Size())
	d := s.data[:s.freEnd]
	big := d[0] == 0xde // the magic's first byte gives the byte order
	sizes := &freSizes[as&7]
	if fde.NumFREs >= freIndexMin {
		if k := s.idx.lookup(s, fde); k >= 0 {
			// Binary search of the function's FRE start offsets: the last
			// FRE whose start is <= off.
			n := int(fde.NumFREs)
			starts := s.idx.starts[k : k+n]
			lo, hi := 0, n
			for lo < hi {
				m := int(uint(lo+hi) >> 1)
				if uint64(starts[m]) <= off {
					lo = m + 1
				} else {
					hi = m
				}
			}
			if lo == 0 {
				return -1, 0, ErrNoFRE
			}
			if lo < n {
				limit = starts[lo]
			}
			found := s.idx.offs[k+lo-1]
			info := FREInfo(d[found+as])
			fre.Off, fre.StartOff, fre.Info = found, starts[lo-1], info
			readWords(fre, d[found+as+1:found+uint32(sizes[info])], big)
			return lo - 1, limit, nil
		}
	}
	// Scan start offsets only (the FRE's size follows from its info byte)
	// and decode the FRE found once, at the end. An FRE that cannot be
	// decoded stops the scan with decodeFRE's error, as a full decode would.
	p, found, foundStart := fde.firstFRE, uint32(0), uint32(0)
	index = -1
	for i := uint32(0); i < fde.NumFREs; i++ {
		if uint64(p)+uint64(as)+1 > uint64(len(d)) {
			return -1, 0, s.freErr(p, fde.FREType)
		}
		start := readStart(d[p:], as, big)
		size := sizes[d[p+as]]
		end := uint64(p) + uint64(size)
		if size == 0 || end > uint64(len(d)) {
			return -1, 0, s.freErr(p, fde.FREType)
		}
		if uint64(start) > off {
			limit = start
			break
		}
		found, foundStart, index = p, start, int(i)
		p = uint32(end)
	}
	if index < 0 {
		return -1, 0, ErrNoFRE
	}
	// The scan checked that the FRE found fits; decode its data words.
	info := FREInfo(d[found+as])
	fre.Off, fre.StartOff, fre.Info = found, foundStart, info
	readWords(fre, d[found+as+1:found+uint32(sizes[info])], big)
	return index, limit, nil
}

// freErr returns the error decodeFRE reports for the FRE at off.
func (s *Section) freErr(off uint32, t FREType) error {
	var fre FRE
	if _, err := s.decodeFRE(&fre, off, t); err != nil {
		return err
	}
	return formatErr(int64(off), "FRE cannot be decoded")
}

// freSizes[a][info] is the size in bytes of an FRE with an a-byte start
// offset and info byte info, or 0 if the data-word size is unknown.
var freSizes = func() (t [8][256]uint8) {
	for _, a := range []int{1, 2, 4} {
		for i := range 256 {
			info := FREInfo(i)
			if ws := info.DataWordSize().Bytes(); ws > 0 {
				t[a][i] = uint8(a + 1 + info.DataWordCount()*ws)
			}
		}
	}
	return t
}()

// freIndexMin is the number of FREs from which an FDE's FRE start offsets
// are indexed for binary search; shorter FDEs are scanned.
const freIndexMin = 16

// freIndex holds the FRE start offsets and byte offsets of the FDEs with at
// least freIndexMin FREs, in FDE order, so that FindFRE is O(log k) in a
// function's k FREs (about 8 bytes per indexed FRE). Building it walks every
// FRE of the section, so it is built only once lookups have paid for it:
// when the FRE counts of the FDEs looked up by linear scan (each counted
// whole, though a scan may stop early) add up to the section's FRE count.
// A one-shot backtrace, which looks up a handful of PCs, never builds it; a
// long run of lookups scans at most about as many FREs again as an index
// built up front would have cost. FDEs whose FREs cannot be decoded or
// whose start offsets decrease are left out and scanned, which reports their
// errors exactly as before.
type freIndex struct {
	scanned atomic.Int64 // sum of NumFREs of the indexable FDEs scanned so far
	ready   atomic.Bool  // set once first, starts and offs are built
	once    sync.Once
	first   []int32 // per FDE: position of its first FRE in starts/offs, or -1
	starts  []uint32
	offs    []uint32
}

// lookup returns the position of fde's FREs in the index, or -1 when fde is
// not indexed or the index is not built yet (see freIndex).
func (x *freIndex) lookup(s *Section, fde *FDE) int {
	if !x.ready.Load() {
		if x.scanned.Add(int64(fde.NumFREs)) < int64(s.Header.NumFREs) {
			return -1
		}
		x.once.Do(func() {
			x.build(s)
			x.ready.Store(true)
		})
	}
	if fde.Index >= len(x.first) {
		return -1
	}
	return int(x.first[fde.Index])
}

func (x *freIndex) build(s *Section) {
	x.first = make([]int32, len(s.fdes))
	// Every FRE takes at least 2 bytes, so a well-formed section has at
	// most FRELen/2 of them. FDEs that share FRE data (malformed) would
	// otherwise make the index grow as FDEs x FREs; past the cap, FDEs
	// are scanned instead.
	maxEntries := int(s.freEnd-s.freSub)/2 + 1
	d := s.data[:s.freEnd]
	big := len(d) > 0 && d[0] == 0xde
	for i := range s.fdes {
		x.first[i] = -1
		fde := &s.fdes[i]
		if fde.NumFREs < freIndexMin || fde.err != nil || len(x.starts)+int(fde.NumFREs) > maxEntries {
			continue
		}
		as := uint32(fde.FREType.Size())
		sizes := &freSizes[as&7]
		pos := len(x.starts)
		p, prev, ok := fde.firstFRE, uint32(0), true
		for k := uint32(0); k < fde.NumFREs; k++ {
			if uint64(p)+uint64(as)+1 > uint64(len(d)) {
				ok = false
				break
			}
			start := readStart(d[p:], as, big)
			size := sizes[d[p+as]]
			if size == 0 || uint64(p)+uint64(size) > uint64(len(d)) || (k > 0 && start < prev) {
				ok = false
				break
			}
			x.starts = append(x.starts, start)
			x.offs = append(x.offs, p)
			prev, p = start, p+uint32(size)
		}
		if !ok {
			x.starts, x.offs = x.starts[:pos], x.offs[:pos]
			continue
		}
		x.first[i] = int32(pos)
	}
}

// readStart reads an FRE start offset of as bytes.
func readStart(d []byte, as uint32, big bool) uint32 {
	switch {
	case as == 1:
		return uint32(d[0])
	case as == 2 && big:
		return uint32(binary.BigEndian.Uint16(d))
	case as == 2:
		return uint32(binary.LittleEndian.Uint16(d))
	case big:
		return binary.BigEndian.Uint32(d)
	}
	return binary.LittleEndian.Uint32(d)
}
