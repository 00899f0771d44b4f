package debugger

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/sfdbg/sfdbg/compare"
	"github.com/sfdbg/sfdbg/debugger/proc"
	"github.com/sfdbg/sfdbg/frames"
)

// ProcessTrace is compare's one trace for every thread of a stopped
// process: what "sfdbg bt" and "sfdbg demo" print.
type ProcessTrace struct {
	Pid     int
	Name    string // the process's comm
	Methods compare.Methods
	Threads []ThreadTrace
	// Total, when more than len(Threads), is how many threads the
	// process has (sfdbg catch shows only the crashing one).
	Total int
	// Space holds the modules the traces refer to; after the process is
	// detached it still symbolizes (from the module files).
	Space *frames.Space
	// Terminated is, for a core, the signal that killed the process.
	Terminated *compare.Termination
}

// ThreadTrace is one thread's trace, or why it could not be taken.
type ThreadTrace struct {
	Tid int
	// Num is the thread's number as gdb gives it (0: its position in
	// ProcessTrace.Threads, from 1).
	Num   int
	Name  string
	Trace *compare.Trace
	Err   error
}

// TraceProcess unwinds every thread of a Stop with compare.Unwind. Only
// the modules the stacks pass through load their unwind data. With
// opts.Prefetch, the modules' symbols and lines load on other goroutines
// as the stacks reach them, and each trace's inline frames are looked up
// on a goroutine of its own, started before TraceProcess returns (they
// read the module files, not the process).
func TraceProcess(s *proc.Stop, opts compare.Options) (*ProcessTrace, error) {
	sp, err := s.Space()
	if err != nil {
		return nil, err
	}
	p := &ProcessTrace{Pid: s.Pid(), Name: proc.ProcessName(s.Pid()), Methods: opts.Methods, Space: sp}
	for _, tid := range s.Threads() {
		tt := ThreadTrace{Tid: tid, Name: proc.ThreadName(s.Pid(), tid)}
		regs, err := s.Regs(tid)
		if err != nil {
			tt.Err = err
		} else {
			tt.Trace = compare.Unwind(sp, regs, opts)
			tt.Trace.Thread = tid
		}
		p.Threads = append(p.Threads, tt)
	}
	if opts.Prefetch {
		// Look up each trace's inline frames now, one goroutine a
		// thread, while the caller starts to print the first: the units
		// of different threads' PCs are read at once (the caller's
		// lookups wait for, then share, what these find).
		for _, tt := range p.Threads {
			if tt.Trace != nil {
				go tt.Trace.Levels()
			}
		}
	}
	return p, nil
}

// Disagreements sums the threads' compare.Trace.Disagreements.
func (p *ProcessTrace) Disagreements() int {
	n := 0
	for _, t := range p.Threads {
		if t.Trace != nil {
			n += t.Trace.Disagreements()
		}
	}
	return n
}

// subjects returns the titles of the subject methods judged against CFI
// at some frame of some thread, SFrame aside ("EHABI", "the code"), and of those that
// disagreed with it at some frame, SFrame included, in the set's order.
func (p *ProcessTrace) subjects() (judged, disagreed []frames.Method) {
	var agree, differ [frames.NumMethods]bool
	for _, t := range p.Threads {
		if t.Trace == nil {
			continue
		}
		for i := range t.Trace.Frames {
			for m, v := range t.Trace.Frames[i].Verdicts {
				switch v {
				case compare.VerdictAgree, compare.VerdictEnd:
					agree[m] = true
				case compare.VerdictDisagree:
					differ[m] = true
				}
			}
		}
	}
	for m := range frames.NumMethods {
		if agree[m] && m != frames.MethodSFrame {
			judged = append(judged, m)
		}
		if differ[m] {
			disagreed = append(disagreed, m)
		}
	}
	if len(disagreed) == 0 {
		disagreed = []frames.Method{frames.MethodSFrame} // the independent traces' frames
	}
	return judged, disagreed
}

// methodTitles names methods with a verb: "SFrame disagrees", "SFrame and
// EHABI disagree".
func methodTitles(ms []frames.Method, one, many string) string {
	names := make([]string, len(ms))
	for i, m := range ms {
		names[i] = m.Title()
	}
	if len(ms) == 1 {
		return names[0] + " " + one
	}
	return strings.Join(names, " and ") + " " + many
}

// Compared reports whether SFrame was judged at any frame of any thread.
func (p *ProcessTrace) Compared() bool {
	for _, t := range p.Threads {
		if t.Trace != nil && t.Trace.Compared() {
			return true
		}
	}
	return false
}

func (p *ProcessTrace) methodsText() string {
	m := p.Methods
	switch m {
	case compare.OnlySFrame:
		return "unwound with SFrame only"
	case compare.OnlyCFI:
		return "unwound with DWARF CFI only"
	case compare.OnlyFP:
		return "unwound with frame pointers only"
	}
	if x, ok := m.Single(); ok {
		return "unwound with " + x.Title() + " only"
	}
	for _, t := range p.Threads {
		if t.Trace != nil {
			return t.Trace.Checked() + " at every frame"
		}
	}
	return "every method checked against CFI at every frame"
}

// WriteText prints every thread's trace, gdb's "thread apply all bt" style.
func (p *ProcessTrace) WriteText(w io.Writer, opts compare.TextOptions) {
	bw := bufio.NewWriterSize(w, 64<<10) // one buffer for every thread's trace
	defer bw.Flush()
	w = bw
	threads := plural(len(p.Threads), "thread", "threads")
	if p.Total > len(p.Threads) {
		threads = fmt.Sprintf("%d of %d threads", len(p.Threads), p.Total)
	}
	fmt.Fprintf(w, "Process %d (%s), %s, %s\n", p.Pid, p.Name, threads, p.methodsText())
	if p.Terminated != nil {
		p.Terminated.WriteText(w)
	}
	for i, t := range p.Threads {
		num := i + 1
		if t.Num > 0 {
			num = t.Num
		}
		fmt.Fprintf(w, "\nThread %d (Thread %d \"%s\")", num, t.Tid, t.Name)
		if t.Trace == nil {
			fmt.Fprintf(w, ": cannot unwind: %v\n", t.Err)
			continue
		}
		tr := t.Trace
		if p.Methods == compare.All {
			// The counts are of physical frames: an inline or tail-call
			// frame has no unwind step of its own.
			inline := ""
			if !opts.NoLines {
				var extra []string
				in, tail := tr.ShownExtra()
				if in > 0 {
					extra = append(extra, fmt.Sprintf("+%d inline", in))
				}
				if tail > 0 {
					extra = append(extra, fmt.Sprintf("+%d tail-call", tail))
				}
				if len(extra) > 0 {
					inline = " (" + strings.Join(extra, ", ") + ")"
				}
			}
			fmt.Fprintf(w, ": %s%s; SFrame: %d agree, %d disagree, %d not covered",
				plural(len(tr.Frames), "frame", "frames"), inline, tr.Agree, tr.Disagree, tr.NotCovered)
		}
		fmt.Fprintln(w, ":")
		tr.WriteText(w, opts)
	}
	if p.Methods != compare.All {
		return
	}
	judged, disagreed := p.subjects()
	switch n := p.Disagreements(); {
	case n > 0:
		fmt.Fprintf(w, "\n%s where %s with CFI.\n", plural(n, "frame", "frames"), methodTitles(disagreed, "disagrees", "disagree"))
	case !p.Compared() && len(judged) > 0:
		// 32-bit ARM: no SFrame, EHABI judged.
		fmt.Fprintf(w, "\nNo disagreements: %s with CFI at every frame both cover; no frame is covered by SFrame.\n",
			methodTitles(judged, "agrees", "agree"))
	case !p.Compared():
		fmt.Fprintf(w, "\nNothing was compared: no frame of any thread is covered by both SFrame and DWARF CFI.\n")
	default:
		fmt.Fprintf(w, "\nNo SFrame disagreements.\n")
	}
}

// Document returns the JSON form of the traces (compare.ProcessDocument)
// as one value, for a document that embeds it (sfdbg catch's crashes);
// WriteJSON writes the same bytes a frame at a time.
func (p *ProcessTrace) Document() *compare.ProcessDocument {
	d := &compare.ProcessDocument{SchemaVersion: compare.SchemaVersion, Pid: p.Pid, Name: p.Name,
		Methods: p.Methods.String(), Disagreements: p.Disagreements(), Compared: p.Compared(),
		Threads: []compare.ThreadDocument{}, Terminated: p.Terminated}
	for _, t := range p.Threads {
		if t.Trace == nil {
			d.Threads = append(d.Threads, compare.ThreadDocument{Tid: t.Tid, Name: t.Name, Error: t.Err.Error(),
				Frames: []compare.FrameDocument{}, Findings: []compare.Finding{}, FPBrokenFrom: -1})
			continue
		}
		d.Threads = append(d.Threads, t.Trace.Document(t.Tid, t.Name))
	}
	return d
}

// WriteJSON writes the JSON form of the traces (compare.ProcessDocument),
// a frame at a time (compare.WriteProcessJSON): "bt --json" takes the
// memory of the traces, not of a million FrameDocuments.
func (p *ProcessTrace) WriteJSON(w io.Writer) error {
	threads := make([]compare.ProcessThread, len(p.Threads))
	for i, t := range p.Threads {
		threads[i] = compare.ProcessThread{Tid: t.Tid, Name: t.Name, Trace: t.Trace, Err: t.Err}
	}
	return compare.WriteProcessJSON(w, compare.ProcessDocument{SchemaVersion: compare.SchemaVersion, Pid: p.Pid, Name: p.Name,
		Methods: p.Methods.String(), Disagreements: p.Disagreements(), Compared: p.Compared(), Terminated: p.Terminated}, threads)
}

// CompareLegend explains ProcessTrace.WriteText for all methods.
const CompareLegend = `How to read it: each line is a frame, innermost first: level, PC, the
method whose answer found the frame (regs for frame 0; cfi where DWARF CFI,
the reference gdb uses, could unwind the frame below), and the function.
SFRAME is what SFrame says about the step from this frame to its caller,
computed from the same registers as CFI: agree (same caller PC, SP and
CFA), DISAGREE (a finding below says how), end (both say outermost frame),
not covered (no SFrame data for that code, e.g. a libc built without it).
FP is the same check for the frame-pointer chain; in code built with
-fomit-frame-pointer it is expected to differ, and that is not an SFrame
fault (one fp-chain-broken line per thread says where it breaks).
CODE is the same verdict for the machine code itself: the caller found by
following the function's instructions from its entry to the PC, using no
table at all (not covered where the code could not be followed).
`
