package ehabi

import (
	"bufio"

	"fmt"
	"io"
)

// WriteText prints the tables as GNU readelf -u prints them (binutils
// 2.40, dump_arm_unwind): per index section a header line, per entry the
// function's address and symbol, then the entry: "[cantunwind]", the
// inline word or "@" and the .extab address, the personality routine or
// compact model index, one line per opcode. Entries whose .extab entry
// cannot be found print only their first line, as readelf does (it warns
// on stderr). The error is the writer's.
func (ef *File) WriteText(w io.Writer) error {
	bw := bufio.NewWriter(w)
	if len(ef.Tables) == 0 {
		fmt.Fprint(bw, "\nThere are no unwind sections in this file.\n")
	}
	for _, t := range ef.Tables {
		n := len(t.Entries)
		plural := "entries"
		if n == 1 {
			plural = "entry"
		}
		fmt.Fprintf(bw, "\nUnwind section '%s' at offset %#x contains %d %s:\n", t.Index.Name, t.Index.Off, n, plural)
		for i := range t.Entries {
			ef.writeEntry(bw, &t.Entries[i])
		}
		fmt.Fprint(bw, "\n")
	}
	return bw.Flush()
}

// vmaName prints addr as "0x..." and its symbol as " <name+0x..>" (name
// looks it up).
func (ef *File) vmaName(w *bufio.Writer, addr uint64, name func() (string, uint64, bool)) {
	fmt.Fprintf(w, "%#x", addr)
	if name, off, ok := name(); ok {
		if off != 0 {
			fmt.Fprintf(w, " <%s+%#x>", name, off)
		} else {
			fmt.Fprintf(w, " <%s>", name)
		}
	}
}

func (ef *File) writeEntry(w *bufio.Writer, e *Entry) {
	w.WriteString("\n")
	ef.vmaName(w, e.Fn, func() (string, uint64, bool) { return ef.targetName(e.Fn, e.FnTarget) })
	w.WriteString(": ")
	switch e.Kind {
	case EntryCantUnwind:
		fmt.Fprintf(w, "%#x [cantunwind]\n", e.Word)
		return
	case EntryInline:
		fmt.Fprintf(w, "%#x\n", e.Word)
	default:
		fmt.Fprintf(w, "@%#x\n", e.TableAddr)
	}
	u := e.Unwind
	if u == nil {
		return
	}
	if u.Generic {
		w.WriteString("  Personality routine: ")
		ef.vmaName(w, u.Personality, func() (string, uint64, bool) { return ef.personalityName(u.Personality, u.PersTarget) })
		w.WriteString("\n")
		if !u.GCC {
			return
		}
		if u.Ops == nil {
			return // its count word is past the section: readelf prints nothing more
		}
	} else {
		fmt.Fprintf(w, "  Compact model index: %d\n", u.Index)
		switch {
		case u.Index >= 3 && ef.Machine == ARM:
			w.WriteString("  [reserved]\n")
			return
		case u.Index >= 5:
			fmt.Fprintf(w, "  [reserved (%d)]\n", u.Index)
			return
		case u.Index >= 3:
			if u.RestoreFromFP {
				w.WriteString("  Restore stack from frame pointer\n")
			} else {
				fmt.Fprintf(w, "  Stack increment %d\n", u.StackInc)
			}
			w.WriteString("  Registers restored: ")
			if u.Index == 4 {
				w.WriteString(" (compact) ")
			}
			w.WriteString(c6000Mask(u.RegMask))
			fmt.Fprintf(w, "\n  Return register: %s\n", c6000RegNames[u.ReturnReg&15])
			return
		}
	}
	for i := range u.Ops {
		op := &u.Ops[i]
		w.WriteString("  " + op.Text(ef.Machine))
		if op.Kind == OpCorruptULEB && ef.Machine == C6000 {
			return // readelf stops there, without ending the line
		}
		w.WriteString("\n")
	}
}
