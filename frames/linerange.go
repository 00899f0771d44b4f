package frames

import (
	"debug/dwarf"
	"sort"
)

// gdbEntry is one entry of gdb's line table of a source file: line 0 is
// an end marker (the end of a sequence, or of the file's run of rows).
type gdbEntry struct {
	pc   uint64
	line int
	stmt bool
}

// LineRange returns the line gdb's "info line *pc" gives runtime address
// pc, and the range [start, end) it says the line's code occupies: gdb's
// find_pc_sect_line (gdb/symtab.c) over the tables gdb's DWARF reader
// builds (gdb/dwarf2/read.c lnp_state_machine::record_line), one per
// source file: a row repeating the previous row's line is left out once
// that line had a non-zero discriminator, and a switch of file ends the
// previous file's run with an end marker. Of the
// entries at pc's address the last statement gives the line; the range
// ends at the next entry, past any non-statement entries of the same
// line. ok is false where no line covers pc. It decodes the unit's line
// program again: for a command, not for lookups in bulk.
func (m *Module) LineRange(pc uint64) (file string, line int, start, end uint64, ok bool) {
	lt := m.lines()
	if lt == nil {
		return "", 0, 0, 0, false
	}
	link := pc - m.Bias
	for u := range lt.units(link) {
		tables := gdbLineTables(u.d, u.cu)
		if f, l, s, e, found := gdbFind(tables, link); found {
			if e != 0 {
				e += m.Bias
			}
			return f, l, s + m.Bias, e, true
		}
	}
	return "", 0, 0, 0, false
}

// gdbLineTables decodes a unit's line program into gdb's per-file tables,
// each sorted by address with end markers first at an address.
func gdbLineTables(d *dwarf.Data, cu *dwarf.Entry) (tables map[string][]gdbEntry) {
	tables = map[string][]gdbEntry{}
	defer func() {
		if r := recover(); r != nil { // debug/dwarf on hostile input
			tables = map[string][]gdbEntry{}
		}
	}()
	lr, err := d.LineReader(cu)
	if err != nil || lr == nil {
		return tables
	}
	name := func(f *dwarf.LineFile) string {
		if f == nil {
			return ""
		}
		return fullPath(f.Name, cu)
	}
	// record adds an entry; an end marker drops the entries at its
	// address (gdb/buildsym.c buildsym_compunit::record_line).
	record := func(file string, e gdbEntry) {
		t := tables[file]
		if e.line == 0 {
			had := false
			for len(t) > 0 && t[len(t)-1].pc == e.pc {
				t = t[:len(t)-1]
				had = true
			}
			if !had && (len(t) == 0 || t[len(t)-1].line == 0) {
				tables[file] = t
				return
			}
		}
		tables[file] = append(t, e)
	}
	var (
		lastFile            string
		lastLine, prevLine  int
		hasDisc, inSequence bool
	)
	var e dwarf.LineEntry
	for lr.Next(&e) == nil {
		file := name(e.File)
		if e.EndSequence {
			if inSequence {
				record(lastFile, gdbEntry{pc: e.Address})
			}
			lastFile, lastLine, prevLine, hasDisc, inSequence = "", 0, 0, false, false
			continue
		}
		if e.Line != prevLine {
			hasDisc = e.Discriminator != 0
		} else {
			hasDisc = hasDisc || e.Discriminator != 0
		}
		prevLine = e.Line
		changed := inSequence && file != lastFile
		ignore := e.Line == 0
		if changed {
			record(lastFile, gdbEntry{pc: e.Address}) // dwarf_finish_line
		}
		if !ignore {
			if file != lastFile || !inSequence || e.Line != lastLine || !hasDisc {
				record(file, gdbEntry{pc: e.Address, line: e.Line, stmt: e.IsStmt})
			}
			lastFile, lastLine = file, e.Line
		}
		inSequence = true
	}
	for f, t := range tables {
		sort.SliceStable(t, func(i, j int) bool {
			if t[i].pc != t[j].pc {
				return t[i].pc < t[j].pc
			}
			return t[i].line == 0 && t[j].line != 0
		})
		tables[f] = t
	}
	return tables
}

// gdbFind is find_pc_sect_line over the tables of one unit.
func gdbFind(tables map[string][]gdbEntry, pc uint64) (file string, line int, start, end uint64, ok bool) {
	var best *gdbEntry
	type cand struct {
		file string
		prev *gdbEntry
		item *gdbEntry
	}
	var cands []cand
	for f, t := range tables {
		i := sort.Search(len(t), func(i int) bool { return t[i].pc > pc })
		if i == 0 {
			continue
		}
		pi := i - 1
		prev := &t[pi]
		var item *gdbEntry
		if i < len(t) {
			item = &t[i]
		}
		cands = append(cands, cand{f, prev, item})
		if prev.line != 0 && (best == nil || prev.pc > best.pc) {
			best, file = prev, f
			// The last statement entry at the address, if prev is none.
			k := pi
			for k > 0 && t[k-1].pc == t[k].pc && t[k-1].line != 0 && !t[k].stmt {
				k--
			}
			if t[k].stmt {
				best = &t[k]
			}
		}
	}
	if best == nil {
		return "", 0, 0, 0, false
	}
	for _, c := range cands {
		if c.item != nil && c.item.pc > best.pc && (end == 0 || c.item.pc < end) {
			end = c.item.pc
		}
	}
	return file, best.line, best.pc, end, true
}
