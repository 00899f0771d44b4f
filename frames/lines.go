package frames

import (
	"debug/dwarf"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"path"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/sirupsen/logrus"
)

// lineTable maps link-time PCs to source file and line through the DWARF
// line programs (DWARF 5 section 6.2) of a module's compilation units.
//
// A unit is found by every address range it declares (DW_AT_low_pc and
// DW_AT_high_pc, or all the ranges of DW_AT_ranges, as dwarf.Data.Ranges
// gives them), so a unit whose code is split between .text, .text.startup
// and .text.unlikely is found from any of them. Its line program is
// decoded on the first lookup in it, once, into a lineRows that later
// lookups binary-search. A PC in no unit's ranges is looked up only in the
// units that declare no range at all; a unit with ranges is never searched
// outside them, so an answer does not depend on which units earlier
// lookups happened to decode.
type lineTable struct {
	// sparse, when set, finds units through .debug_aranges and reads
	// them one at a time (lazylines.go); the fields below are then empty.
	sparse  *sparseDWARF
	whole   *dwarf.Data    // all of the DWARF (see wholeData)
	secs    *dwarfSections // the sections whole was read from, closed by Module.Close
	ranges  []cuRange      // sorted by lo
	maxHi   []uint64       // maxHi[i] is the largest hi of ranges[:i+1]
	noRange []*lineUnit    // units without an address range

	inlinedIdx inlinedEntries // the inlined copies of functions (inlined_entries.go)

	// file is the ELF file the DWARF was read from; locs its location-list
	// sections, read on the first variable lookup (varloc.go).
	file     *elf.File
	locsOnce sync.Once
	locs     locSections
	globalState
}

// cuRange is one address range [lo, hi) of a compilation unit.
type cuRange struct {
	lo, hi uint64
	unit   *lineUnit
}

// lineUnit is one compilation unit and, once decoded, its line table and
// its inline index (inline.go).
type lineUnit struct {
	cu   *dwarf.Entry
	d    *dwarf.Data // the DWARF the unit is read from
	once sync.Once
	rows lineRows
	inlineState
}

// lineRows is the line table of one compilation unit, every sequence of
// its line program merged into one list sorted by address: row i covers
// the addresses [pcs[i], pcs[i+1]). Rows at the same address collapse to
// the last one, as gdb and addr2line read them; consecutive rows with the
// same file and line collapse to the first; the end_sequence row of a
// sequence becomes a row with file noFile (a hole), unless the next
// sequence starts at that address. The last row is always a hole.
type lineRows struct {
	pcs   []uint64
	lines []int32
	files []uint32 // index into names, or noFile
	names []string // one per distinct file name
}

// noFile marks a row that covers no code: the end of a sequence.
const noFile = ^uint32(0)

// wholeData returns the module's whole DWARF, for walks over all of it
// (every unit's types or globals). With units read one at a time it
// reads all of it, once, and may return nil when that fails. A unit's own
// lookups use its lineUnit.d: the offsets of both are the file's.
func (lt *lineTable) wholeData() *dwarf.Data {
	if lt.sparse != nil {
		if full := lt.sparse.fullTable(); full != nil {
			return full.whole
		}
		return nil
	}
	return lt.whole
}

// lines returns the module's line table (lineData), nil when the module
// cannot be read or has no DWARF line information.
func (m *Module) lines() *lineTable {
	d, err := m.load()
	if err != nil {
		return nil
	}
	return m.lineData(d)
}

// lineData loads the DWARF line information once; nil when there is none.
func (m *Module) lineData(d *moduleData) *lineTable {
	d.lineOnce.Do(func() {
		f := d.file
		if !hasSection(f, ".debug_line") && !hasSection(f, ".zdebug_line") {
			if f = m.debugFile(d); f == nil || !hasSection(f, ".debug_line") && !hasSection(f, ".zdebug_line") {
				return
			}
		}
		if !m.eagerDWARF {
			t0 := time.Now()
			if sp, ok := loadSparse(f); ok {
				d.lines = &lineTable{sparse: sp, file: f}
				logrus.Debugf("frames: %s: %d address ranges of units in %v", m.Name, len(sp.ranges), time.Since(t0))
				return
			}
		}
		var err error
		d.lines, err = loadLines(f)
		if err != nil {
			logrus.Debugf("frames: %s: no line table: %v", m.Name, err)
		} else if d.lines != nil {
			d.lines.file = f
		}
	})
	return d.lines
}

// loadLines reads the compilation units' address ranges, not their line
// programs. A panic in debug/dwarf on malformed DWARF is returned as an
// error.
func loadLines(f *elf.File) (lt *lineTable, err error) {
	for _, s := range f.Sections {
		if strings.HasPrefix(s.Name, ".zdebug_") {
			// GNU's old compressed sections: debug/elf knows them.
			d, err := f.DWARF()
			if err != nil {
				return nil, err
			}
			return unitRanges(d)
		}
	}
	secs := newDWARFSections(f)
	lt, err = loadLinesFrom(secs)
	if lt == nil {
		secs.close() // nothing read from them is kept
	} else {
		lt.secs = secs // for Module.Close
	}
	return lt, err
}

// loadLinesFrom is loadLines over the sections of secs, each read whole.
// The caller keeps secs open while the table is used: its data are views
// of them.
func loadLinesFrom(secs *dwarfSections) (*lineTable, error) {
	d, err := lineDWARF(secs)
	if err != nil {
		return nil, err
	}
	return unitRanges(d)
}

// unitRanges reads the address ranges of every unit of d.
func unitRanges(d *dwarf.Data) (lt *lineTable, err error) {
	defer func() {
		if r := recover(); r != nil { // debug/dwarf on hostile input
			lt, err = nil, fmt.Errorf("DWARF: %v", r)
		}
	}()
	lt = &lineTable{whole: d}
	r := d.Reader()
	for last := dwarf.Offset(0); ; {
		e, err := r.Next()
		if err != nil || e == nil {
			break
		}
		// Entries come at rising offsets. After a unit whose children
		// run past its end, debug/dwarf returns empty entries at offset
		// 0 for ever: stop there.
		if e.Offset < last || e.Offset == last && last != 0 {
			logrus.Debugf("frames: DWARF entry at %#x after one at %#x: malformed unit, units after it ignored", e.Offset, last)
			break
		}
		last = e.Offset
		if e.Tag != dwarf.TagCompileUnit && e.Tag != dwarf.TagPartialUnit {
			r.SkipChildren()
			continue
		}
		u := &lineUnit{cu: e, d: d}
		ranges, _ := d.Ranges(e)
		n := len(lt.ranges)
		for _, rg := range ranges {
			if rg[1] > rg[0] {
				lt.ranges = append(lt.ranges, cuRange{rg[0], rg[1], u})
			}
		}
		if len(lt.ranges) == n {
			lt.noRange = append(lt.noRange, u)
		}
		r.SkipChildren()
	}
	sort.Slice(lt.ranges, func(i, j int) bool { return lt.ranges[i].lo < lt.ranges[j].lo })
	lt.maxHi = make([]uint64, len(lt.ranges))
	var hi uint64
	for i, c := range lt.ranges {
		hi = max(hi, c.hi)
		lt.maxHi[i] = hi
	}
	return lt, nil
}

// find returns the file and line of link-time address pc, or "", 0. The
// file is the line table's file entry (see fullPath); it is "" with a
// line when the row names no file.
func (lt *lineTable) find(pc uint64) (file string, line int) {
	for u := range lt.units(pc) {
		if file, line, ok := u.table().find(pc); ok {
			return file, line
		}
	}
	return "", 0
}

// table returns the unit's line table, decoding it on first use. It is
// empty when the unit has no line program or it cannot be read.
func (u *lineUnit) table() *lineRows {
	u.once.Do(func() {
		var err error
		if u.rows, err = decodeLines(u.d, u.cu); err != nil {
			name, _ := u.cu.Val(dwarf.AttrName).(string)
			logrus.Debugf("frames: line program of %q: %v", name, err)
		}
	})
	return &u.rows
}

// find returns the file and line of the row covering pc; ok is false when
// no sequence covers it.
func (r *lineRows) find(pc uint64) (file string, line int, ok bool) {
	i := sort.Search(len(r.pcs), func(i int) bool { return r.pcs[i] > pc }) - 1
	if i < 0 || r.files[i] == noFile {
		return "", 0, false
	}
	return r.names[r.files[i]], int(r.lines[i]), true
}

// lineSeq is one decoded sequence: rows [start, end) of a lineBuilder and
// the address of its end_sequence row.
type lineSeq struct {
	start, end int
	endPC      uint64
}

// lineBuilder collects a unit's rows in line program order.
type lineBuilder struct {
	lineRows
	seqs     []lineSeq
	seqStart int
	byName   map[string]uint32
	lastFile *dwarf.LineFile
	lastIdx  uint32
	pend     pendingRow
}

// decodeLines reads every row of every sequence of the unit's line
// program. Sequences end at their end_sequence row's address; a sequence
// that overlaps one at lower addresses (code the linker discarded, left
// at address 0) is dropped. A read error keeps the sequences completed
// before it; a panic in debug/dwarf is returned as an error and no rows.
func decodeLines(d *dwarf.Data, cu *dwarf.Entry) (rows lineRows, err error) {
	defer func() {
		if r := recover(); r != nil {
			rows, err = lineRows{}, fmt.Errorf("DWARF: %v", r)
		}
	}()
	lr, err := d.LineReader(cu)
	if err != nil || lr == nil {
		return lineRows{}, err
	}
	b := lineBuilder{byName: map[string]uint32{}}
	var e dwarf.LineEntry
	for {
		if err = lr.Next(&e); err != nil {
			break
		}
		if e.EndSequence {
			b.endSequence(e.Address)
			continue
		}
		b.add(e.Address, b.fileIndex(e.File, cu), int32(e.Line), e.IsStmt)
	}
	if errors.Is(err, io.EOF) {
		err = nil
	}
	return b.merge(), err
}

// fileIndex returns the index in names of f's full path.
func (b *lineBuilder) fileIndex(f *dwarf.LineFile, cu *dwarf.Entry) uint32 {
	if f == b.lastFile && len(b.names) > 0 {
		return b.lastIdx
	}
	name := ""
	if f != nil {
		name = fullPath(f.Name, cu)
	}
	i, ok := b.byName[name]
	if !ok {
		i = uint32(len(b.names))
		b.names = append(b.names, name)
		b.byName[name] = i
	}
	b.lastFile, b.lastIdx = f, i
	return i
}

// add takes the next row of the current sequence. Of the rows at one
// address the last is_stmt row wins, else the last row (gdb's
// find_pc_sect_line prefers a statement boundary at the same address: GCC
// follows a function's entry rows with a non-statement row of its
// declaration line, with a higher view number).
func (b *lineBuilder) add(pc uint64, file uint32, line int32, stmt bool) {
	if p := &b.pend; p.ok {
		switch {
		case pc < p.pc: // addresses go down: malformed, ignore the row
			return
		case pc == p.pc:
			if stmt || !p.stmt {
				p.file, p.line, p.stmt = file, line, stmt
			}
			return
		}
		b.flush()
	} else if n := len(b.pcs); n > b.seqStart && pc < b.pcs[n-1] {
		return
	}
	b.pend = pendingRow{pc, file, line, stmt, true}
}

// pendingRow is the row chosen so far at the address being read.
type pendingRow struct {
	pc       uint64
	file     uint32
	line     int32
	stmt, ok bool
}

// flush appends the pending row, unless it repeats the previous row's
// file and line.
func (b *lineBuilder) flush() {
	p := b.pend
	if !p.ok {
		return
	}
	b.pend.ok = false
	n := len(b.pcs)
	if n > b.seqStart && b.files[n-1] == p.file && b.lines[n-1] == p.line {
		return
	}
	b.pcs = append(b.pcs, p.pc)
	b.files = append(b.files, p.file)
	b.lines = append(b.lines, p.line)
}

func (b *lineBuilder) truncate(n int) {
	b.pcs, b.files, b.lines = b.pcs[:n], b.files[:n], b.lines[:n]
}

// endSequence closes the current sequence at end, dropping rows at or
// past it; a sequence left empty is dropped.
func (b *lineBuilder) endSequence(end uint64) {
	b.flush()
	n := len(b.pcs)
	for n > b.seqStart && b.pcs[n-1] >= end {
		n--
	}
	b.truncate(n)
	if n > b.seqStart {
		b.seqs = append(b.seqs, lineSeq{b.seqStart, n, end})
	}
	b.seqStart = n
}

// merge returns the sequences' rows sorted by address, each sequence
// followed by a hole at its end, in arrays of exactly their length.
func (b *lineBuilder) merge() lineRows {
	b.pend.ok = false
	b.truncate(b.seqStart) // an unterminated last sequence is dropped
	sort.SliceStable(b.seqs, func(i, j int) bool { return b.pcs[b.seqs[i].start] < b.pcs[b.seqs[j].start] })
	n := 0
	for _, s := range b.seqs {
		n += s.end - s.start + 1
	}
	out := lineRows{
		pcs:   make([]uint64, 0, n),
		lines: make([]int32, 0, n),
		files: make([]uint32, 0, n),
		names: b.names,
	}
	dropped := 0
	for _, s := range b.seqs {
		lo := b.pcs[s.start]
		if k := len(out.pcs) - 1; k >= 0 {
			if lo < out.pcs[k] { // overlaps the sequence before
				dropped++
				continue
			}
			if lo == out.pcs[k] { // starts where the one before ends
				out.pcs, out.files, out.lines = out.pcs[:k], out.files[:k], out.lines[:k]
			}
		}
		out.pcs = append(out.pcs, b.pcs[s.start:s.end]...)
		out.files = append(out.files, b.files[s.start:s.end]...)
		out.lines = append(out.lines, b.lines[s.start:s.end]...)
		out.pcs = append(out.pcs, s.endPC)
		out.files = append(out.files, noFile)
		out.lines = append(out.lines, 0)
	}
	if dropped > 0 {
		logrus.Debugf("frames: line program: dropped %d overlapping sequences", dropped)
	}
	return out
}

// fullPath returns the path of a line table file entry as gdb prints it
// (addr2line too, but for the unit's own file, below). debug/dwarf already joins a file name with its
// directory entry and, for DWARF 4 and earlier, a relative directory with
// the unit's DW_AT_comp_dir; for DWARF 5 it does not join a relative
// directory entry (other than entry 0, the compilation directory) with
// the compilation directory, so "src/a.c" in directory "src" comes back
// relative. A relative name is joined here with an absolute
// DW_AT_comp_dir; with a relative one (as in binaries built with
// -ffile-prefix-map=$PWD=.) it is left relative to it, since joining
// could not tell a name debug/dwarf already joined from one it did not.
//
// The unit's own source file (its DW_AT_name, relative, in an absolute
// compilation directory: "gcc -g q.c" in /tmp/tc) is named as the unit
// names it, "q.c", as gdb names its primary symtab; a reader finds it in
// the unit's compilation directory (CompUnitAt).
func fullPath(name string, cu *dwarf.Entry) string {
	if name == "" {
		return name
	}
	dir, _ := cu.Val(dwarf.AttrCompDir).(string)
	if unit, _ := cu.Val(dwarf.AttrName).(string); unit != "" && !strings.HasPrefix(unit, "/") && strings.HasPrefix(dir, "/") &&
		(name == unit || name == path.Join(dir, unit)) {
		return unit
	}
	if strings.HasPrefix(name, "/") {
		return name
	}
	if strings.HasPrefix(dir, "/") {
		return path.Join(dir, name)
	}
	if clean := path.Clean(dir); clean != dir && clean != "." && strings.HasPrefix(name, clean+"/") {
		// debug/dwarf cleaned "./stdlib" + "msort.c" to
		// "stdlib/msort.c"; gdb joins them as they are (Debian's
		// -fdebug-prefix-map leaves comp_dir "./stdlib").
		return strings.TrimSuffix(dir, "/") + "/" + name[len(clean)+1:]
	}
	return name
}

// lineDWARF loads the DWARF data line tables need, every section whole
// (dwarfSectionNames: not the location lists, types or macros debug/elf's
// DWARF loads too). Compressed sections (SHF_COMPRESSED, as in the
// separate debug files of distributions) are decompressed in parallel.
func lineDWARF(secs *dwarfSections) (*dwarf.Data, error) {
	data, err := secs.whole(secAbbrev, secInfo, secLine, secStr, secRanges, secLineStr, secRnglists, secStrOffsets, secAddr)
	if err != nil {
		return nil, err
	}
	d, err := dwarf.New(data[secAbbrev], nil, nil, data[secInfo], data[secLine], nil, data[secRanges], data[secStr])
	if err != nil {
		return nil, err
	}
	for _, i := range [...]int{secLineStr, secRnglists, secStrOffsets, secAddr} {
		if data[i] != nil {
			if err := d.AddSection(".debug_"+dwarfSectionNames[i], data[i]); err != nil {
				return nil, err
			}
		}
	}
	return d, nil
}
