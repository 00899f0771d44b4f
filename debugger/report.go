package debugger

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/sfdbg/sfdbg/frames"
)

// ProcessTrace is the backtrace of every thread of a stopped process.
type ProcessTrace struct {
	Pid     int
	Name    string // the process's comm
	Mode    Mode
	Threads []ThreadTrace
	// Space holds the modules the traces refer to; after the process is
	// detached it still symbolizes (from the module files).
	Space *frames.Space
}

// ThreadTrace is one thread's backtrace, or why it could not be taken.
type ThreadTrace struct {
	Tid   int
	Name  string
	Trace *Trace
	Err   error
}

// TraceProcess computes the backtrace of every thread of a Stop with mode.
// Only the modules the stacks pass through load their unwind data.
// maxDepth bounds each trace (0: frames.DefaultMaxDepth).
func TraceProcess(s *Stop, mode Mode, maxDepth int) (*ProcessTrace, error) {
	sp, err := s.Space()
	if err != nil {
		return nil, err
	}
	p := &ProcessTrace{Pid: s.Pid(), Name: strings.TrimSpace(readFile(fmt.Sprintf("/proc/%d/comm", s.Pid()))), Mode: mode, Space: sp}
	for _, tid := range s.Threads() {
		tt := ThreadTrace{Tid: tid, Name: strings.TrimSpace(readFile(fmt.Sprintf("/proc/%d/task/%d/comm", s.Pid(), tid)))}
		regs, err := s.Regs(tid)
		if err != nil {
			tt.Err = err
		} else {
			tt.Trace = Backtrace(sp, regs, mode, maxDepth)
		}
		p.Threads = append(p.Threads, tt)
	}
	return p, nil
}

// WriteText prints every thread's backtrace, gdb's "thread apply all bt"
// style, with the comparison columns in ModeAll.
func (p *ProcessTrace) WriteText(w io.Writer) {
	fmt.Fprintf(w, "Process %d (%s), %s, unwound with %s\n", p.Pid, p.Name, plural(len(p.Threads), "thread", "threads"), modeText(p.Mode))
	for i, tt := range p.Threads {
		fmt.Fprintf(w, "\nThread %d (Thread %d \"%s\"):\n", i+1, tt.Tid, tt.Name)
		if tt.Err != nil {
			fmt.Fprintf(w, "  cannot unwind: %v\n", tt.Err)
			continue
		}
		writeTrace(w, p.Space, tt.Trace, 0, true)
	}
}

func modeText(m Mode) string {
	switch m {
	case ModeSFrame:
		return "SFrame only"
	case ModeCFI:
		return "DWARF CFI only"
	case ModeFP:
		return "frame pointers only"
	}
	return "SFrame, checked against DWARF CFI and frame pointers"
}

// Disagreements counts the frames where DWARF CFI finds another caller
// than SFrame, or SFrame and CFI disagree about the outermost frame: the
// SFrame faults a live backtrace shows. Frame-pointer disagreements are
// expected in code built without frame pointers and are not counted.
func (p *ProcessTrace) Disagreements() int {
	n := 0
	for _, tt := range p.Threads {
		if tt.Trace == nil {
			continue
		}
		for _, f := range tt.Trace.Frames {
			sf, cfi := f.Unwind[0], f.Unwind[1]
			switch {
			case sf.Verdict == VerdictUsed && cfi.Verdict == VerdictDiffer:
				n++
			case sf.Verdict == VerdictEnd && cfi.Verdict == VerdictDiffer:
				n++
			case sf.Verdict == VerdictUsed && cfi.Verdict == VerdictEnd:
				n++
			}
		}
	}
	return n
}

// JSON form of a ProcessTrace (sfdbg bt --json).
type (
	processJSON struct {
		Pid           int          `json:"pid"`
		Name          string       `json:"name"`
		Method        string       `json:"method"`
		Threads       []threadJSON `json:"threads"`
		Disagreements int          `json:"disagreements"`
	}
	threadJSON struct {
		Tid      int         `json:"tid"`
		Name     string      `json:"name"`
		Frames   []frameJSON `json:"frames"`
		Complete bool        `json:"complete"`
		Stop     string      `json:"stop,omitempty"`
		Error    string      `json:"error,omitempty"`
	}
	frameJSON struct {
		Level    int    `json:"level"`
		PC       uint64 `json:"pc"`
		CFA      uint64 `json:"cfa,omitempty"`
		Module   string `json:"module,omitempty"`
		Function string `json:"function,omitempty"`
		Offset   uint64 `json:"offset,omitempty"`
		File     string `json:"file,omitempty"`
		Line     int    `json:"line,omitempty"`
		// FoundBy is the method that found the frame ("regs" for frame 0).
		FoundBy string `json:"found_by"`
		// Methods holds, in ModeAll, each method's answer for this frame:
		// "found", "ok", "DIFF", "-", "end".
		Methods map[string]methodJSON `json:"methods,omitempty"`
	}
	methodJSON struct {
		Verdict string `json:"verdict"`
		PC      uint64 `json:"caller_pc,omitempty"`
		CFA     uint64 `json:"cfa,omitempty"`
		Row     string `json:"row,omitempty"`
		Error   string `json:"error,omitempty"`
	}
)

// WriteJSON writes the traces as one JSON object.
func (p *ProcessTrace) WriteJSON(w io.Writer) error {
	out := processJSON{Pid: p.Pid, Name: p.Name, Method: p.Mode.String(), Disagreements: p.Disagreements()}
	for _, tt := range p.Threads {
		tj := threadJSON{Tid: tt.Tid, Name: tt.Name, Frames: []frameJSON{}}
		if tt.Err != nil {
			tj.Error = tt.Err.Error()
			out.Threads = append(out.Threads, tj)
			continue
		}
		tr := tt.Trace
		tj.Complete = tr.Complete()
		if !tj.Complete {
			tj.Stop = stopText(tr.Stop)
		}
		for i := range tr.Frames {
			f := &tr.Frames[i]
			fj := frameJSON{Level: f.Level, PC: f.PC, CFA: f.CFA, FoundBy: f.Method.String()}
			if m := p.Space.Modules.Find(f.PC); m != nil {
				sym := m.SymbolizeAt(f.PC, f.LookupPC())
				fj.Module, fj.Function, fj.Offset, fj.File, fj.Line = m.Name, sym.Name, sym.Offset, sym.File, sym.Line
			}
			if tr.Mode == ModeAll && f.Level > 0 {
				fj.Methods = map[string]methodJSON{}
				for k, st := range f.Found {
					mj := methodJSON{Verdict: st.Verdict.String(), CFA: st.CFA, Row: st.Row.Source}
					if st.Err != nil {
						mj.Error = stopText(asStop(st.Err))
					} else {
						mj.PC = st.Caller.PC
					}
					fj.Methods[allMethods[k].String()] = mj
				}
			}
			tj.Frames = append(tj.Frames, fj)
		}
		out.Threads = append(out.Threads, tj)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// Legend explains the columns of a ModeAll backtrace, for sfdbg demo and
// help.
const Legend = `How to read the columns:
  #        frame level, 0 = innermost (where the thread was stopped)
  PC       the frame's program counter (for frames above 0: the return address)
  FOUND    how the frame was found: regs (frame 0, from the registers), sframe
           (the .sframe section of the module below), or cfi / fp where SFrame
           has no data for the code below (e.g. a libc built without SFrame)
  SFRAME, CFI, FP
           each method's own answer for this frame, from the same frame below:
           found = this method found the frame, ok = it agrees (same caller PC
           and CFA), DIFF = it finds another caller (shown under the frame),
           - = it cannot unwind that frame (no data), end = it says the frame
           below is the outermost one
  FUNCTION the function, from the module's symbol table and DWARF line table
A DIFF or end in the CFI column where SFRAME says found is an SFrame fault
(or a CFI one); in the FP column it only means that code was built without
frame pointers (-fomit-frame-pointer).
`
