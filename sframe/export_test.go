package sframe

// Hooks into unexported state for the tests, which are in package
// sframe_test because they craft sections with sframetest's encoder, and
// sframetest imports sframe. This file is compiled only into the test
// binary; the hooks are not part of the package's API.

const (
	FREIndexMin     = freIndexMin
	MaxOverlap      = maxOverlap
	NumProblemKinds = numProblemKinds
)

// Sorted reports whether the FDEs are in non-decreasing order of start
// address, so that lookups need no permutation (whatever FlagFDESorted says).
func (s *Section) Sorted() bool { return s.byPC == nil }

// FDEAt returns the k-th FDE in address order.
func (s *Section) FDEAt(k int) *FDE { return s.fdeAt(k) }

// InfoOff returns the byte offset of the FDE's (first) info byte.
func (f *FDE) InfoOff(s *Section) uint32 { return f.infoOff(s) }

// ForceFREIndex makes the first lookup in an FDE with many FREs build the
// FRE index (build), or keeps the index from ever being built.
func (s *Section) ForceFREIndex(build bool) {
	if build {
		s.idx.scanned.Store(1 << 62)
	} else {
		s.idx.scanned.Store(-1 << 62)
	}
}

// FREIndex reports whether the FRE index is built, how many FREs it holds
// and how many FREs lookups have counted towards building it.
func (s *Section) FREIndex() (built bool, entries int, scanned int64) {
	return s.idx.ready.Load(), len(s.idx.starts), s.idx.scanned.Load()
}

// ReplicateFDE replaces the FDEs by n copies of FDE 0 that start at start,
// start+step, ...: FDEs that all share FDE 0's FRE data, which no encoder
// writes.
func (s *Section) ReplicateFDE(n int, start, step uint64) {
	one := s.fdes[0]
	s.fdes = make([]FDE, n)
	s.starts = make([]uint64, n)
	for i := range s.fdes {
		s.fdes[i] = one
		s.fdes[i].Index = i
		s.fdes[i].Start = start + uint64(i)*step
		s.starts[i] = s.fdes[i].Start
	}
}
