package debugger

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/sfdbg/sfdbg/frames"
)

// funcName returns the name of the function holding pc, pc's offset into
// it and its module; "" if no symbol covers pc.
func funcName(sp *frames.Space, pc uint64) (string, uint64, *frames.Module) {
	m := sp.Modules.Find(pc)
	if m == nil {
		return "", 0, nil
	}
	name, off, _ := m.FuncName(pc)
	return name, off, m
}

// location describes a frame the way gdb's backtrace does: "spin_here ()
// at deep.c:58", "clock_nanosleep () from /lib/x86_64-linux-gnu/libc.so.6",
// "?? ()". lines adds the source line (it loads the DWARF line table).
func location(sp *frames.Space, f *frames.Frame, lines bool) string {
	m := sp.Modules.Find(f.PC)
	if m == nil {
		return "?? ()"
	}
	var sym frames.Symbol
	if lines {
		sym = m.SymbolizeAt(f.PC, f.LookupPC())
	} else {
		sym.Name, _, _ = m.FuncName(f.PC)
	}
	name := sym.Name
	if name == "" {
		name = "??"
	}
	if sym.File != "" {
		return fmt.Sprintf("%s () at %s:%d", name, shortFile(sym.File), sym.Line)
	}
	return fmt.Sprintf("%s () from %s", name, m.Path)
}

// shortFile keeps the last two elements of a source path.
func shortFile(p string) string {
	dir, file := filepath.Split(p)
	if d := filepath.Base(dir); d != "." && d != "/" && d != "" {
		return d + "/" + file
	}
	return file
}

// symAddr formats an address with its symbol: "0x55d0c3a3b452
// <spin_here+2>".
func symAddr(sp *frames.Space, a uint64) string {
	name, off, _ := funcName(sp, a)
	if name == "" {
		return fmt.Sprintf("%#x", a)
	}
	if off == 0 {
		return fmt.Sprintf("%#x <%s>", a, name)
	}
	return fmt.Sprintf("%#x <%s+%d>", a, name, off)
}

// writeTrace prints a backtrace. For a single method it looks like gdb's
// "bt"; for ModeAll each frame also says which method found it and how the
// other two compare:
//
//	#1  0x000055b0e584d5a1  sframe  ok   DIFF  in alpha_2 () at deep.c:231
//
// limit > 0 prints the innermost limit frames only; selected marks a frame
// with "*" (-1 for none).
func writeTrace(w io.Writer, sp *frames.Space, tr *Trace, limit int, lines bool) {
	n := len(tr.Frames)
	if limit > 0 && limit < n {
		n = limit
	}
	if tr.Mode == ModeAll {
		fmt.Fprintf(w, "%-4s%-20s%-8s%-8s%-6s%-6s%s\n", "#", "PC", "FOUND", "SFRAME", "CFI", "FP", "FUNCTION")
	}
	for i := 0; i < n; i++ {
		f := &tr.Frames[i]
		if tr.Mode != ModeAll {
			fmt.Fprintf(w, "#%-3d0x%016x in %s\n", f.Level, f.PC, location(sp, &f.Frame, lines))
			continue
		}
		by := f.Method.String()
		cols := [3]string{"", "", ""}
		for k, st := range f.Found {
			cols[k] = st.Verdict.String()
			if f.Level == 0 {
				cols[k] = ""
			}
		}
		fmt.Fprintf(w, "#%-3d0x%016x  %-8s%-8s%-6s%-6s%s\n", f.Level, f.PC, by, cols[0], cols[1], cols[2], location(sp, &f.Frame, lines))
		for k, st := range f.Found {
			if st.Verdict != VerdictDiffer {
				continue
			}
			what := fmt.Sprintf("caller %s, CFA %#x", symAddr(sp, st.Caller.PC), st.CFA)
			if st.Caller.PC == f.PC {
				what = fmt.Sprintf("same caller, CFA %#x", st.CFA)
			}
			fmt.Fprintf(w, "      %s says: %s (row %s)\n", allMethods[k], what, rowText(&st.Row))
		}
	}
	if n < len(tr.Frames) {
		fmt.Fprintf(w, "(More stack frames follow...)\n")
		return
	}
	writeTraceEnd(w, sp, tr)
}

// writeTraceEnd prints why a trace ended and, in ModeAll, where SFrame
// stopped covering it.
func writeTraceEnd(w io.Writer, sp *frames.Space, tr *Trace) {
	if tr.Mode == ModeAll && len(tr.Frames) > 0 {
		last := &tr.Frames[len(tr.Frames)-1]
		for k, st := range last.Unwind {
			if st.Verdict == VerdictDiffer {
				fmt.Fprintf(w, "      %s finds a caller above #%d: %s, CFA %#x\n", allMethods[k], last.Level, symAddr(sp, st.Caller.PC), st.CFA)
			}
		}
		if tr.SFrameEnd >= 0 {
			st := tr.Frames[tr.SFrameEnd].Unwind[0]
			msg := stopText(asStop(st.Err))
			if tr.SFrameEnd != len(tr.Frames)-1 || tr.Complete() || msg != stopText(tr.Stop) {
				fmt.Fprintf(w, "(SFrame could not unwind #%d: %s)\n", tr.SFrameEnd, msg)
			}
		}
	}
	if !tr.Complete() {
		fmt.Fprintf(w, "Backtrace stopped: %s\n", stopText(tr.Stop))
	}
}

func asStop(err error) *frames.StopError {
	if se, ok := err.(*frames.StopError); ok {
		return se
	}
	if err == nil {
		return nil
	}
	return &frames.StopError{Msg: err.Error()}
}

// rowText formats the rules of a row: "CFA=rsp+16 RA=c-8 FP=u".
func rowText(r *frames.Row) string {
	if r.Source == "" && r.CFA.Kind == frames.RuleUndefined && r.RA.Kind == frames.RuleUndefined {
		return "none"
	}
	s := fmt.Sprintf("CFA=%s RA=%s FP=%s", r.CFA, r.RA, r.FP)
	if r.Signal {
		s += " signal"
	}
	return s
}

// hex16 pads a hex address for tables.
func hex16(v uint64) string { return fmt.Sprintf("0x%016x", v) }

func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}
