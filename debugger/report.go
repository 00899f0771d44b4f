package debugger

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/sfdbg/sfdbg/compare"
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
	p := &ProcessTrace{Pid: s.Pid(), Name: processName(s.Pid()), Mode: mode, Space: sp}
	for _, tid := range s.Threads() {
		tt := ThreadTrace{Tid: tid, Name: threadName(s.Pid(), tid)}
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

// ProcessReport is compare.Stack's comparison for every thread of a
// stopped process: the CFI trace as reference, and at each of its frames
// SFrame's and the frame-pointer chain's answer from the same registers
// (seeded), plus each method's own trace when asked (independent). It is
// what "sfdbg bt" (method all) and "sfdbg demo" print.
type ProcessReport struct {
	SchemaVersion int            `json:"schema_version"`
	Pid           int            `json:"pid"`
	Name          string         `json:"name"`
	Threads       []ThreadReport `json:"threads"`
	// Disagreements counts frames where SFrame disagrees with CFI.
	Disagreements int `json:"disagreements"`
}

// ThreadReport is one thread's comparison, or why it could not be made.
type ThreadReport struct {
	Tid    int                  `json:"tid"`
	Name   string               `json:"name"`
	Report *compare.StackReport `json:"report,omitempty"`
	Error  string               `json:"error,omitempty"`
}

// CompareProcess runs compare.Stack on every thread of a Stop.
func CompareProcess(s *Stop, opts compare.Options) (*ProcessReport, error) {
	sp, err := s.Space()
	if err != nil {
		return nil, err
	}
	p := &ProcessReport{SchemaVersion: compare.SchemaVersion, Pid: s.Pid(), Name: processName(s.Pid())}
	for _, tid := range s.Threads() {
		tr := ThreadReport{Tid: tid, Name: threadName(s.Pid(), tid)}
		regs, err := s.Regs(tid)
		if err != nil {
			tr.Error = err.Error()
		} else {
			tr.Report = compare.Stack(sp, regs, opts)
			tr.Report.Thread = tid
			p.Disagreements += tr.Report.Disagreements()
		}
		p.Threads = append(p.Threads, tr)
	}
	return p, nil
}

// WriteText prints every thread's comparison.
func (p *ProcessReport) WriteText(w io.Writer, st compare.Style) {
	fmt.Fprintf(w, "Process %d (%s), %s: SFrame and frame pointers checked against DWARF CFI at every frame\n",
		p.Pid, p.Name, plural(len(p.Threads), "thread", "threads"))
	for i, t := range p.Threads {
		fmt.Fprintf(w, "\nThread %d (Thread %d \"%s\")", i+1, t.Tid, t.Name)
		if t.Report == nil {
			fmt.Fprintf(w, ": cannot unwind: %s\n", t.Error)
			continue
		}
		r := t.Report
		fmt.Fprintf(w, ": %s, SFrame agrees at %d, disagrees at %d, does not cover %d\n",
			plural(len(r.Frames), "frame", "frames"), r.Agree, r.Disagree, r.NotCovered)
		r.WriteText(w, st)
	}
	if p.Disagreements == 0 {
		fmt.Fprintf(w, "\nNo SFrame disagreements.\n")
	} else {
		fmt.Fprintf(w, "\n%s where SFrame disagrees with CFI.\n", plural(p.Disagreements, "frame", "frames"))
	}
}

// CompareLegend explains ProcessReport.WriteText.
const CompareLegend = `How to read it: each line is a frame of the DWARF CFI trace (the
reference, as gdb would unwind), innermost first: level, PC, function,
and the frame's CFA. "sframe:" is what SFrame says about the same frame,
computed from the same registers: agree (same caller PC, SP and CFA),
DISAGREE (the finding below says how), end (both say outermost frame),
not covered (no SFrame data for that code, e.g. a libc built without it).
"fp:" is the same check for the frame-pointer chain; in code built with
-fomit-frame-pointer it is expected to differ, and that is not an SFrame
fault (finding fp-chain-broken).
`
