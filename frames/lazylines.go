package frames

// Reading only the compilation unit a PC needs. The line table of lines.go
// used to load a module's DWARF whole: every section decompressed, every
// unit header and abbreviation table parsed (debug/dwarf's New), every
// unit DIE read for its ranges. For libc's separate debug file that is
// most of a one-shot backtrace's time, to name three or four PCs.
//
// Where the file has .debug_aranges (DWARF 5 section 6.1.2: the address
// ranges of each unit, by the offset of its header in .debug_info), a PC's
// unit is found there; then only that unit is read: .debug_info and
// .debug_abbrev up to its end and its abbreviation table's, .debug_line up
// to the end of its line program (lazySection). It gets a dwarf.Data of
// its own whose .debug_info holds the unit at its own offset behind one
// empty unit that spans the units before it, so that debug/dwarf parses
// one abbreviation table, not all of them, and every DIE offset is the
// same as in the whole section: offsets found through one unit's Data
// mean what they mean in the file.
//
// The whole-file table stays the reference and the fallback: a PC that
// .debug_aranges gives to more than one unit, a unit whose DIE does not
// claim the PC, or a unit whose attributes can refer to another unit
// (DW_FORM_ref_addr and its kin), is looked up there, built once.

import (
	"cmp"
	"debug/dwarf"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"io"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/sirupsen/logrus"
)

// sparseDWARF finds a PC's unit through .debug_aranges and reads that
// unit alone (see the top of this file).
type sparseDWARF struct {
	secs  *dwarfSections
	order binary.ByteOrder

	ranges []arange // sorted by lo
	maxHi  []uint64 // maxHi[i] is the largest hi of ranges[:i+1]
	common [][]byte // the sections every unit's Data shares, whole (str, ranges, line_str, ...)

	mu    sync.Mutex
	units map[uint64]*sparseUnit // by header offset

	listedOnce sync.Once
	listed     bool // every unit of .debug_info has a set in .debug_aranges

	fullOnce sync.Once
	full     *lineTable // the whole-file table, built on first need
	fullErr  error
}

// sparseUnit is one unit read alone; u is nil when it cannot be (the
// whole-file table answers for its PCs).
type sparseUnit struct {
	u      *lineUnit
	ranges [][2]uint64 // the unit DIE's ranges (DW_AT_low_pc/high_pc, DW_AT_ranges)
}

// loadSparse reads f's .debug_aranges; ok is false when the file has none
// usable (no .debug_aranges or no .debug_info, old GNU .zdebug sections, a
// malformed header), and lookups then take the whole-file table.
func loadSparse(f *elf.File) (sp *sparseDWARF, ok bool) {
	for _, s := range f.Sections {
		if len(s.Name) > 8 && s.Name[:8] == ".zdebug_" {
			return nil, false
		}
	}
	secs := newDWARFSections(f)
	defer func() {
		if !ok {
			secs.close() // nothing read from them is kept
		}
	}()
	if !secs.sec[secAranges].present() || !secs.sec[secInfo].present() {
		return nil, false
	}
	// The sections debug/dwarf reads at offsets it is given (strings,
	// range lists, offset tables) are read whole: they are small next to
	// .debug_info, and compressed ones are decompressed in parallel.
	which := []int{secAranges, secStr, secRanges, secLineStr, secRnglists, secStrOffsets, secAddr}
	// Sections to be cached are decompressed whole on first use: do it
	// now, in parallel, rather than one after the other later.
	for _, i := range [...]int{secInfo, secAbbrev, secLine} {
		if secs.sec[i].cachePath != "" {
			which = append(which, i)
		}
	}
	data, err := secs.whole(which...)
	if err != nil {
		logrus.Debugf("frames: DWARF: %v: reading all of it", err)
		return nil, false
	}
	sp = &sparseDWARF{secs: secs, order: f.ByteOrder, units: map[uint64]*sparseUnit{}}
	if sp.ranges, err = parseAranges(data[secAranges], f.ByteOrder); err != nil {
		logrus.Debugf("frames: .debug_aranges: %v: reading all of the DWARF", err)
		return nil, false
	}
	slices.SortFunc(sp.ranges, func(a, b arange) int { return cmp.Compare(a.lo, b.lo) })
	sp.maxHi = make([]uint64, len(sp.ranges))
	var hi uint64
	for i, r := range sp.ranges {
		hi = max(hi, r.hi)
		sp.maxHi[i] = hi
	}
	data[secInfo], data[secAbbrev], data[secLine] = nil, nil, nil // read through secs
	sp.common = data[:]
	return sp, true
}

// unitAt returns the unit holding link-time address pc: nil when
// .debug_aranges gives pc to no unit; ok is false when the whole-file
// table must answer (see the top of this file).
func (sp *sparseDWARF) unitAt(pc uint64) (u *lineUnit, ok bool) {
	i := sort.Search(len(sp.ranges), func(i int) bool { return sp.ranges[i].lo > pc })
	var unit uint64
	n := 0
	for k := i - 1; k >= 0 && sp.maxHi[k] > pc; k-- {
		if r := &sp.ranges[k]; pc < r.hi && (n == 0 || r.unit != unit) {
			unit = r.unit
			n++
		}
	}
	switch {
	case n == 0:
		// In no unit, if every unit has its set in .debug_aranges (GCC
		// writes one for each); else the units without one (clang
		// writes none) may hold pc: ask the whole file.
		return nil, sp.everyUnitListed()
	case n > 1:
		return nil, false
	}
	su, ok := sp.unit(unit)
	if !ok {
		return nil, false // many units read: the whole file is cheaper
	}
	if su.u == nil {
		return nil, false
	}
	for _, r := range su.ranges {
		if r[0] <= pc && pc < r[1] {
			return su.u, true
		}
	}
	return nil, false // the unit's DIE does not claim pc: ask the whole file
}

// maxSparseUnits is how many units a module reads one at a time: past
// it (a walk over much of a module's code rather than a backtrace), its
// lookups take the whole-file table, which then costs less than the
// units left, each with its dwarf.Data and its mapping.
var maxSparseUnits = 256

// everyUnitListed reports whether every unit of .debug_info has a set in
// .debug_aranges: the sets' units, in order of offset, follow one another
// from offset 0 to the section's end, by their headers' unit_length. It
// reads the headers once, one small read each, from a section read at
// random (uncompressed, or from the DWARF cache); a stream would have to
// be decompressed whole, so there it reports false.
func (sp *sparseDWARF) everyUnitListed() bool {
	sp.listedOnce.Do(func() {
		info := sp.secs.sec[secInfo]
		if info.ra == nil {
			return
		}
		units := arangeSetUnits(sp.common[secAranges], sp.order)
		if units == nil {
			return
		}
		slices.Sort(units)
		units = slices.Compact(units)
		var hdr [12]byte
		next, size := uint64(0), info.size()
		for _, u := range units {
			if u != next || size-next < 4 {
				return
			}
			if _, err := info.ra.ReadAt(hdr[:min(12, size-next)], int64(next)); err != nil && err != io.EOF {
				return
			}
			length, at := uint64(sp.order.Uint32(hdr[:])), uint64(4)
			if length == 0xffffffff {
				if size-next < 12 {
					return
				}
				length, at = sp.order.Uint64(hdr[4:]), 12
			}
			if length > size-next-at {
				return
			}
			next += at + length
		}
		sp.listed = next == size
	})
	return sp.listed
}

// unit returns the unit whose header is at off in .debug_info, read on
// first use; ok is false when maxSparseUnits are read already.
func (sp *sparseDWARF) unit(off uint64) (_ *sparseUnit, ok bool) {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	if su, ok := sp.units[off]; ok {
		return su, true
	}
	if len(sp.units) >= maxSparseUnits {
		return nil, false
	}
	su := &sparseUnit{}
	var err error
	t0 := time.Now()
	func() {
		defer func() {
			if r := recover(); r != nil { // debug/dwarf on hostile input
				err = fmt.Errorf("DWARF: %v", r)
			}
		}()
		su.u, su.ranges, err = sp.readUnit(off)
	}()
	if err != nil {
		su.u = nil
		logrus.Debugf("frames: unit at %#x of .debug_info: %v: the whole file answers for it", off, err)
	} else {
		logrus.Debugf("frames: unit at %#x of .debug_info read in %v", off, time.Since(t0))
	}
	sp.units[off] = su
	return su, true
}

// readUnit reads the unit at off alone and returns it with its DIE's
// ranges.
func (sp *sparseDWARF) readUnit(off uint64) (*lineUnit, [][2]uint64, error) {
	info := sp.secs.sec[secInfo]
	if off > info.size() {
		return nil, nil, &dwarfFormatError{".debug_info", int(min(off, 1<<62)), "unit offset past the section's end"}
	}
	hdr, err := info.span(off, off+24)
	if uint64(len(hdr)) < off+12 {
		if err == nil {
			err = &dwarfFormatError{".debug_info", int(off), "truncated unit header"}
		}
		return nil, nil, err
	}
	b := hdr[off:]
	length, at := uint64(sp.order.Uint32(b)), uint64(4)
	is64 := length == 0xffffffff
	if is64 {
		if len(b) < 24 {
			return nil, nil, &dwarfFormatError{".debug_info", int(off), "truncated unit header"}
		}
		length, at = sp.order.Uint64(b[4:]), 12
	} else if length >= 0xfffffff0 {
		return nil, nil, &dwarfFormatError{".debug_info", int(off), fmt.Sprintf("reserved unit length %#x", length)}
	}
	if length > info.size()-off-at {
		return nil, nil, &dwarfFormatError{".debug_info", int(off), fmt.Sprintf("unit of %d bytes runs past the section's end", length)}
	}
	end := off + at + length
	version := sp.order.Uint16(b[at:])
	if version < 2 || version > 5 {
		return nil, nil, &dwarfFormatError{".debug_info", int(off), fmt.Sprintf("DWARF version %d", version)}
	}
	var abbrevOff uint64
	abbrevAt := off + at + 2 // where the header holds it
	p := at + 2
	if version >= 5 {
		if ut := b[p]; ut != 1 && ut != 3 { // DW_UT_compile, DW_UT_partial
			return nil, nil, &dwarfFormatError{".debug_info", int(off), fmt.Sprintf("unit type %#x", ut)}
		}
		p += 2 // unit_type, address_size
		abbrevAt += 2
	}
	if is64 {
		abbrevOff = sp.order.Uint64(b[p:])
		p += 8
	} else {
		abbrevOff = uint64(sp.order.Uint32(b[p:]))
		p += 4
	}
	if version < 5 {
		p++ // address_size
	}
	die := dwarf.Offset(off + p) // the unit DIE, after the header
	abbrev, err := sp.abbrevTable(abbrevOff)
	if err != nil {
		return nil, nil, err
	}
	unitBytes, err := info.span(off, end)
	if err != nil {
		return nil, nil, err
	}
	// The unit at its own offset, behind one empty unit of the same
	// version over the units before it.
	buf := unitBytes // read at random: a buffer of its own
	if info.shared() || uint64(len(info.buf)) >= end {
		buf = info.zeroed(end) // the stream's prefix, or the mapped cache file, is shared
		copy(buf[off:], unitBytes[off:])
	}
	// Its abbreviation table is passed alone, at offset 0.
	if is64 {
		sp.order.PutUint64(buf[abbrevAt:], 0)
	} else {
		sp.order.PutUint32(buf[abbrevAt:], 0)
	}
	if off > 0 {
		if off < 24 {
			return nil, nil, &dwarfFormatError{".debug_info", int(off), "no room for the units before it"}
		}
		sp.padding(buf[:off], uint16(version))
	}
	newData := func(line []byte) (*dwarf.Data, error) {
		c := sp.common
		d, err := dwarf.New(abbrev, nil, nil, buf, line, nil, c[secRanges], c[secStr])
		if err != nil {
			return nil, err
		}
		for _, i := range [...]int{secLineStr, secRnglists, secStrOffsets, secAddr} {
			if c[i] != nil {
				if err := d.AddSection(".debug_"+dwarfSectionNames[i], c[i]); err != nil {
					return nil, err
				}
			}
		}
		return d, nil
	}
	unitDIE := func(d *dwarf.Data) (*dwarf.Entry, error) {
		r := d.Reader()
		r.Seek(die)
		cu, err := r.Next()
		switch {
		case err != nil:
			return nil, err
		case cu == nil:
			return nil, &dwarfFormatError{".debug_info", int(off), "no unit DIE"}
		case cu.Tag != dwarf.TagCompileUnit && cu.Tag != dwarf.TagPartialUnit:
			return nil, &dwarfFormatError{".debug_info", int(off), fmt.Sprintf("unit DIE is a %v", cu.Tag)}
		}
		return cu, nil
	}
	d, err := newData(nil)
	if err != nil {
		return nil, nil, err
	}
	cu, err := unitDIE(d)
	if err != nil {
		return nil, nil, err
	}
	// Its line program, up to its end.
	if lo, ok := cu.Val(dwarf.AttrStmtList).(int64); ok && lo >= 0 {
		line, err := sp.lineProgram(uint64(lo))
		if err != nil {
			return nil, nil, err
		}
		if d, err = newData(line); err != nil {
			return nil, nil, err
		}
		if cu, err = unitDIE(d); err != nil {
			return nil, nil, err
		}
	}
	ranges, err := d.Ranges(cu)
	if err != nil {
		return nil, nil, err
	}
	return &lineUnit{cu: cu, d: d}, ranges, nil
}

// padding writes into b (the bytes before a unit, at least 24 of them) the
// header of one empty unit that spans them: 32-bit (or, past 4 GiB,
// 64-bit) DWARF of the given version, with the abbreviation table at
// offset 0, the unit's own (so that debug/dwarf parses no other), and
// address size 8.
// Its contents are zeros: null entries, never read.
func (sp *sparseDWARF) padding(b []byte, version uint16) {
	o := sp.order
	n := uint64(len(b))
	p := 4
	if n-4 < 0xfffffff0 {
		o.PutUint32(b, uint32(n-4))
	} else {
		o.PutUint32(b, 0xffffffff)
		o.PutUint64(b[4:], n-12)
		p = 12
	}
	o.PutUint16(b[p:], version)
	p += 2
	if version >= 5 {
		b[p], b[p+1] = 1, 8 // DW_UT_compile, address size
		p += 2
	}
	if n-4 < 0xfffffff0 { // abbreviation table offset: 0
		p += 4
	} else {
		p += 8
	}
	if version < 5 {
		b[p] = 8
	}
}

// abbrevTable returns the abbreviation table at off in .debug_abbrev
// (DWARF 5 section 7.5.3: declarations of code, tag, children flag and
// (attribute, form) pairs ending in (0, 0), the table ending in code 0),
// reading it a chunk at a time. A table using a form that refers outside
// its unit is refused (crossUnitForms).
func (sp *sparseDWARF) abbrevTable(off uint64) ([]byte, error) {
	sec := sp.secs.sec[secAbbrev]
	for n := uint64(4096); ; n *= 2 {
		b, err := sec.span(off, off+n)
		end, crossUnit, complete := scanAbbrevTable(b, off)
		if complete {
			if crossUnit {
				return nil, fmt.Errorf("abbreviation table at %#x uses a form that refers outside its unit", off)
			}
			return b[off:end:end], nil
		}
		if err != nil {
			return nil, err
		}
		if uint64(len(b)) >= sec.size() {
			return nil, &dwarfFormatError{".debug_abbrev", int(min(off, 1<<62)), "table runs past the section's end"}
		}
	}
}

// lineProgram returns .debug_line up to the end of the line program at
// off (its unit_length).
func (sp *sparseDWARF) lineProgram(off uint64) ([]byte, error) {
	sec := sp.secs.sec[secLine]
	if off >= sec.size() {
		return nil, &dwarfFormatError{".debug_line", int(min(off, 1<<62)), "line program offset past the section's end"}
	}
	b, err := sec.span(off, off+12)
	if uint64(len(b)) < off+4 {
		return nil, err
	}
	length, at := uint64(sp.order.Uint32(b[off:])), uint64(4)
	if length == 0xffffffff {
		if uint64(len(b)) < off+12 {
			return nil, err
		}
		length, at = sp.order.Uint64(b[off+4:]), 12
	}
	if length > sec.size()-off-min(at, sec.size()-off) {
		// debug/dwarf reports it; give it the whole section to do so.
		return sec.all()
	}
	return sec.span(off, off+at+length)
}

// fullTable returns the whole-file line table, built once.
func (sp *sparseDWARF) fullTable() *lineTable {
	sp.fullOnce.Do(func() {
		logrus.Debugf("frames: DWARF: reading all of it")
		sp.full, sp.fullErr = loadLinesFrom(sp.secs)
		if sp.fullErr != nil {
			logrus.Debugf("frames: no line table: %v", sp.fullErr)
		}
	})
	return sp.full
}
