package compare

// This file renders the one model (Trace): gdb-style text for sfdbg bt,
// demo and the debugger's bt, and the JSON documents of schema 2.

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/sfdbg/sfdbg/frames"
	"github.com/sfdbg/sfdbg/sframe/arch"
)

// Location describes a frame's code the way gdb's backtrace does:
// "spin_here () at testdata/src/deep.c:58" (the file as the DWARF line
// table names it, joined with an absolute compilation directory),
// "clock_nanosleep () from /lib/x86_64-linux-gnu/libc.so.6", "?? ()".
// With lines, the function is named as gdb names it, by its DWARF
// subprogram ("weigh" for GCC's clone weigh.isra.0), and the source line
// is added; both load the module's DWARF. Without, no DWARF is read and
// the function is the ELF symbol's. Module, function and line are those of lookupPC, the frame's lookup
// address (Frame.LookupPC), as gdb's find_frame_funname and find_frame_sal
// take them.
func Location(space *frames.Space, pc, lookupPC uint64, lines bool) string {
	m := space.Modules.Find(lookupPC)
	if m == nil {
		return "?? ()"
	}
	var sym frames.Symbol
	if lines {
		sym = m.SymbolizeAt(pc, lookupPC)
	} else {
		sym.Name, _, _ = m.FuncName(lookupPC)
	}
	name := sym.Name
	if name == "" {
		name = "??"
	}
	if sym.File != "" {
		return fmt.Sprintf("%s () at %s:%d", name, sym.File, sym.Line)
	}
	return fmt.Sprintf("%s () from %s", name, m.Path)
}

// frameLocation describes frame i as a backtrace line does: Location, or
// "<signal handler called>" for a signal trampoline, as gdb prints it.
func (t *Trace) frameLocation(i int) string {
	f := &t.Frames[i]
	if f.SignalTrampoline() {
		return "<signal handler called>"
	}
	return Location(t.space, f.PC, f.LookupPC(), true)
}

// TextOptions choose what WriteText prints.
type TextOptions struct {
	// Limit > 0 prints the innermost Limit frames, < 0 the outermost
	// -Limit frames (gdb's "bt N" and "bt -N"); 0 prints all. Frames are
	// counted as gdb counts them, inline frames included.
	Limit int
	// NoLines leaves out source lines and inline frames, and names
	// functions by ELF symbol (faster: no DWARF).
	NoLines bool
	Style   Style
	// Args, when set, gives the argument list of the frame shown as s,
	// printed between the parentheses of its location as gdb prints it
	// ("weigh (r=0x7ffd...) at ..."); ok false leaves "()".
	Args func(s Shown) (args string, ok bool)
	// After, when set, writes what follows the line of the frame shown
	// as s (the locals of gdb's "bt full").
	After func(w io.Writer, s Shown)
	// Width is the width gdb's single-method frame lines wrap at (the
	// debugger's "set width", the terminal's): 0 is sfdbg's 100 columns,
	// < 0 never (gdb's unlimited width, in -batch). The table of all
	// methods keeps to 100 columns.
	Width int
}

// levelWidth is the width of the level column: "#" and the largest level
// (levels frames are numbered up to).
func levelWidth(levels int) int {
	return max(3, 1+len(strconv.Itoa(levels-1)))
}

// locKey identifies what Location prints for a frame.
type locKey struct{ pc, lookupPC uint64 }

// appendFrameLine appends the line of the frame shown as s to b, with a
// cache of locations (nil: none): a deep recursion prints the same few
// PCs a million times, so neither the location nor the line goes through
// fmt. width is the level column's width (levelWidth).
func (t *Trace) appendFrameLine(b []byte, s Shown, width int, opts TextOptions, locs map[locKey]string) []byte {
	f := &t.Frames[s.Frame]
	k := locKey{f.PC, f.LookupPC()}
	loc, ok := locs[k]
	sig := f.SignalTrampoline()
	switch {
	case sig:
		loc = "<signal handler called>"
	case s.Inline || s.Caller || s.TailCall:
		loc = t.ShownLocation(s)
	case !ok:
		loc = Location(t.space, f.PC, f.LookupPC(), !opts.NoLines)
		if locs != nil && len(locs) < 1<<16 {
			locs[k] = loc
		}
	}
	if opts.Args != nil && !sig {
		if args, ok := opts.Args(s); ok {
			loc = strings.Replace(loc, " ()", " ("+args+")", 1)
		}
	}
	n := len(b)
	b = append(b, '#')
	b = strconv.AppendInt(b, int64(s.Level), 10)
	b = pad(b, n+width)
	if t.Methods != All && (sig || !t.ShowPC(s)) {
		// gdb: "#4  <signal handler called>", no PC; "#1  f () at
		// f.c:12" for a frame whose location is an inlined call, or
		// an inline frame stopped at the start of a statement.
		return append(append(b, ' '), loc...)
	}
	b = append(b, " 0x"...)
	b = appendHex(b, t.ShownPC(s), t.pcDigits())
	if t.Methods != All {
		b = append(b, " in "...)
		return append(b, loc...)
	}
	b = append(b, "  "...)
	cols := t.methods().columns
	if s.Inline || s.TailCall {
		// An inline or tail-call frame has no step of its own: the
		// verdicts are its physical frame's, on that frame's line.
		word := "inline"
		if s.TailCall {
			word = "tail"
		}
		b = pad(append(b, word...), len(b)+6)
		w := 2 + 1
		for _, c := range cols {
			w += c.width + 1
		}
		b = pad(append(b, "  "...), len(b)+w)
		return append(b, loc...)
	}
	b = pad(append(b, f.FoundBy.String()...), len(b)+6)
	b = append(b, "  "...)
	judged := f.Steps[Reference].Ran
	for _, c := range cols {
		v, code := "", ""
		switch {
		case !judged:
		case c.m == chainMethod:
			v = "ok"
			if !f.FPAgrees {
				v = "differs"
			}
		default:
			v = f.Verdicts[c.m].String()
			switch f.Verdicts[c.m] {
			case VerdictDisagree:
				v, code = "DISAGREE", "31"
			case VerdictAgree, VerdictEnd:
				code = "32"
			}
		}
		if opts.Style.Color && code != "" {
			b = append(append(append(b, "\x1b["...), code...), 'm')
			b = pad(append(b, v...), len(b)+c.width)
			b = append(b, "\x1b[0m"...)
		} else {
			b = pad(append(b, v...), len(b)+c.width)
		}
		b = append(b, ' ')
	}
	b = append(b, ' ')
	return append(b, loc...)
}

// JudgementText says how the step from frame i was judged, in the order
// of the table's columns: "sframe agree, fp ok" (a subject's verdict, the
// FP chain's check); "" where nothing was judged (a single-method trace,
// a frame the depth limit cut).
func (t *Trace) JudgementText(i int) string {
	f := &t.Frames[i]
	if t.Methods != All || !f.Steps[Reference].Ran {
		return ""
	}
	var b []byte
	for k, c := range t.methods().columns {
		if k > 0 {
			b = append(b, ", "...)
		}
		b = append(append(b, c.m.String()...), ' ')
		switch {
		case c.m != chainMethod:
			b = append(b, f.Verdicts[c.m].String()...)
		case f.FPAgrees:
			b = append(b, "ok"...)
		default:
			b = append(b, "differs"...)
		}
	}
	return string(b)
}

// wrapFrameLine moves the " at FILE:LINE" or " from PATH" of a frame line
// wider than width columns (0: unlimited) to a line of its own indented
// by 4 columns, as gdb does (wrap_here in print_frame), in the table of
// all methods as in gdb's single-method form.
func wrapFrameLine(b []byte, width int) []byte {
	if width <= 0 || len(b) <= width {
		return b
	}
	cut, _ := locationTail(b)
	if cut < 0 {
		return b
	}
	rest := append([]byte(nil), b[cut+2:]...)
	b = append(b[:cut+1], "\n    "...)
	return append(b, rest...)
}

// WrapFrameLine wraps a frame line printed on its own ("frame", "up", a
// stop, gdb's bt) at width columns as gdb's pager does with print_frame's
// wrap hints (stack.c: before " (" and " at ", indented 3, so that they
// start in column 4; before each argument, indented 4; before " from ",
// indented 2): when a character reaches the width, the line breaks at
// the last hint before it, and the text after the hint continues on the
// next line after the indent; with no hint, the line runs on. width 0 is
// gdb's unlimited width (-batch, output not a terminal): no wrapping.
func WrapFrameLine(line string, width int) string {
	if width <= 0 || len(line) < width {
		return line
	}
	return string(wrapAtHints([]byte(line), frameHints([]byte(line)), width))
}

// locationTail finds the end of a frame line's argument list before its
// " at FILE:LINE" or " from PATH": the index of the ")" (-1: none) and
// the indent gdb's wrap hint before that tail has (3 for " at ", 2 for
// " from ").
func locationTail(b []byte) (closeParen, indent int) {
	closeParen = -1
	for _, sep := range [...]struct {
		s      string
		indent int
	}{{") at ", 3}, {") from ", 2}} {
		if i := bytes.LastIndex(b, []byte(sep.s)); i > closeParen {
			closeParen, indent = i, sep.indent
		}
	}
	return closeParen, indent
}

// wrapHint is a place a frame line may break: before byte pos, the rest
// indented by indent spaces.
type wrapHint struct{ pos, indent int }

// frameHints returns the wrap hints of the frame line b, in order: before
// the argument list's " (", before each argument, before " at " or
// " from ". None where the argument list cannot be found.
func frameHints(b []byte) []wrapHint {
	closeAt, tail := locationTail(b)
	if closeAt < 0 {
		if len(b) == 0 || b[len(b)-1] != ')' {
			return nil
		}
		closeAt = len(b) - 1
	}
	// The matching "(" of the argument list, outside quoted strings and
	// characters.
	depth, open := 0, -1
	var quote byte
	for i := closeAt; i >= 0 && open < 0; i-- {
		c := b[i]
		switch {
		case quote != 0:
			if c == quote && (i == 0 || b[i-1] != '\\') {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == ')':
			depth++
		case c == '(':
			if depth--; depth == 0 {
				open = i
			}
		}
	}
	if open < 1 || b[open-1] != ' ' {
		return nil
	}
	hints := []wrapHint{{open - 1, 3}}
	if open+1 < closeAt {
		hints = append(hints, wrapHint{open + 1, 4})
	}
	for _, i := range TopLevel(string(b[open+1:closeAt]), ',') {
		if i += open + 1; i+1 < closeAt && b[i+1] == ' ' {
			hints = append(hints, wrapHint{i + 2, 4})
		}
	}
	if tail > 0 {
		hints = append(hints, wrapHint{closeAt + 1, tail})
	}
	return hints
}

// wrapAtHints lays b out as gdb's pager does (utils.c pager_file::puts):
// characters are counted as they are printed; when the count reaches
// width and a hint was passed on this line, the line breaks at that hint
// and its indent plus the characters after it are the new count; with no
// hint the count restarts (the terminal wraps the line).
func wrapAtHints(b []byte, hints []wrapHint, width int) []byte {
	var breaks []wrapHint
	printed, h, wrap := 0, 0, wrapHint{pos: -1}
	for i := range b {
		for h < len(hints) && hints[h].pos == i {
			wrap = hints[h]
			h++
		}
		printed++
		if printed < width {
			continue
		}
		if wrap.pos < 0 {
			printed = 0
			continue
		}
		breaks = append(breaks, wrap)
		printed = wrap.indent + i + 1 - wrap.pos
		wrap = wrapHint{pos: -1}
	}
	if len(breaks) == 0 {
		return b
	}
	out := make([]byte, 0, len(b)+len(breaks)*8)
	last := 0
	for _, br := range breaks {
		out = append(out, b[last:br.pos]...)
		out = append(out, '\n')
		out = append(out, bytes.Repeat([]byte{' '}, br.indent)...)
		last = br.pos
	}
	return append(out, b[last:]...)
}

// pad appends spaces to b up to length n.
func pad(b []byte, n int) []byte {
	for len(b) < n {
		b = append(b, ' ')
	}
	return b
}

// appendHex appends v as n lower-case hex digits (n/4 of its low bytes).
func appendHex(b []byte, v uint64, n int) []byte {
	const digits = "0123456789abcdef"
	for sh := 4 * (n - 1); sh >= 0; sh -= 4 {
		b = append(b, digits[v>>uint(sh)&0xf])
	}
	return b
}

// pcDigits is the number of hex digits a PC of the trace's machine is
// printed with, as gdb prints it: 16, or 8 for 4-byte pointers (32-bit
// ARM).
func (t *Trace) pcDigits() int {
	if a := t.regs.Arch; a != nil && a.PtrSize == 4 {
		return 8
	}
	return 16
}

// WriteText writes the trace: for All a table of frames with the method
// that found each, SFrame's verdict and the frame-pointer check, then the
// findings and one line about the frame-pointer chain; for one method,
// gdb's "bt" lines. Frames are numbered as gdb numbers them: a function
// inlined at a frame's PC is a frame of its own ("inline" in the table's
// FOUND column, no verdict: the step compared is its physical frame's),
// unless opts.NoLines. It ends with why the trace stopped, or "(More stack
// frames follow...)" when the depth limit or opts.Limit cut it.
func (t *Trace) WriteText(w io.Writer, opts TextOptions) {
	bw, ok := w.(*bufio.Writer)
	if !ok {
		// Buffered once here unless the caller does it (a process's
		// threads share one buffer: debugger.ProcessTrace.WriteText).
		bw = bufio.NewWriterSize(w, 16<<10)
		defer bw.Flush()
		w = bw
	}
	// The levels, inline frames counted: "bt N" looks up the frames it
	// prints only, and then numbers the level column for them.
	levels, more := len(t.Frames), false
	switch {
	case opts.NoLines:
	case opts.Limit > 0:
		_, more = t.ShownAt(opts.Limit)
		levels = max(len(t.Frames), opts.Limit)
	default:
		levels = t.Levels()
	}
	width := levelWidth(levels)
	lo, hi := 0, levels
	switch {
	case opts.Limit > 0 && opts.Limit < hi:
		hi = opts.Limit
	case opts.Limit < 0 && -opts.Limit < hi:
		lo = hi + opts.Limit
	}
	more = more || hi < levels
	if t.Methods == All && hi > lo {
		head := fmt.Sprintf("%-*s %-*s  %-6s  ", width, "#", 2+t.pcDigits(), "PC", "FOUND")
		for _, c := range t.methods().columns {
			head += fmt.Sprintf("%-*s ", c.width, strings.ToUpper(c.m.String()))
		}
		fmt.Fprintf(w, "%s %s\n", head, "FUNCTION")
	}
	locs := map[locKey]string{}
	var line []byte
	print := func(s Shown) {
		line = t.appendFrameLine(line[:0], s, width, opts, locs)
		if opts.Width != 0 && t.Methods != All {
			// gdb's form: wrapped as gdb's pager wraps it.
			if opts.Width > 0 && len(line) >= opts.Width {
				line = wrapAtHints(line, frameHints(line), opts.Width)
			}
		} else {
			line = wrapFrameLine(line, lineWidth)
		}
		bw.Write(append(line, '\n'))
		if opts.After != nil {
			opts.After(bw, s)
		}
	}
	if opts.NoLines {
		for i := lo; i < hi; i++ {
			print(Shown{Level: i, Frame: i})
		}
	} else {
		t.eachShown(lo, hi, print)
	}
	if more || t.Truncated {
		fmt.Fprintln(w, "(More stack frames follow...)")
	} else if !t.Complete() {
		fmt.Fprintf(w, "Backtrace stopped: %s\n", StopText(t.Stop))
	}
	if t.Methods != All {
		return
	}
	t.writeFindings(w, opts)
}

// writeFindings prints the findings of an All trace and the summaries of
// the frame-pointer chain and the independent traces.
func (t *Trace) writeFindings(w io.Writer, opts TextOptions) {
	st := opts.Style
	level := func(i int) int { return i }
	if !opts.NoLines {
		level = t.Level
	}
	for _, f := range t.Findings {
		msg := f.Message
		if f.Frame >= 0 && f.Kind != KindExtraFrame {
			// The message names the physical frame's level, the
			// text numbers frames as gdb does.
			if l := level(f.Frame); l != f.Frame {
				msg = strings.Replace(msg, fmt.Sprintf("frame #%d ", f.Frame), fmt.Sprintf("frame #%d ", l), 1)
			}
		}
		writeWrapped(w, fmt.Sprintf("  %-16s ", st.kind(f.Kind)), 19, msg)
		if f.Kind.Disagreement() && subjectRuled(t.methods(), &f) {
			// The rules of the subjects, then the reference's: the
			// first line names the module.
			mod := " [" + strings.TrimSpace(f.Module) + "]"
			for _, m := range append(t.methods().subjects[:len(t.methods().subjects):len(t.methods().subjects)], Reference) {
				if r := f.Rules[m]; r != "" {
					writeWrapped(w, strings.Repeat(" ", 19), 27, fmt.Sprintf("%-7s %s%s", m.String()+":", r, mod))
					mod = ""
				}
			}
		}
	}
	if t.FPBroken > 0 {
		writeWrapped(w, fmt.Sprintf("  %-16s ", st.kind(KindFPChain)), 19,
			fmt.Sprintf("frame pointers: chain differs from CFI at %d of %d frames, from #%d on (%s; not an SFrame fault)",
				t.FPBroken, t.Agree+t.Disagree+t.NotCovered, t.FPBrokenFrom, fpExpected(t.regs.Arch)))
	}
	for _, it := range t.Independent {
		matched := 0
		for _, f := range it.Frames {
			if f.Matches >= 0 {
				matched++
			}
		}
		writeWrapped(w, "  ", 4, fmt.Sprintf("independent %s trace (unwinding alone): %d frames, %d of them in the CFI trace; stopped: %s",
			it.Method, len(it.Frames), matched, StopText(it.Stop)))
	}
}

// subjectRuled reports whether a finding has a subject method's rule.
func subjectRuled(s *methodSet, f *Finding) bool {
	for _, m := range s.subjects {
		if f.Rules[m] != "" {
			return true
		}
	}
	return false
}

// lineWidth is the width text reports keep to, in columns.
const lineWidth = 100

// writeWrapped writes first followed by text, wrapped at spaces to
// lineWidth columns, later lines indented by indent columns. A word longer
// than a line (a path) is not broken.
func writeWrapped(w io.Writer, first string, indent int, text string) {
	line := first
	width := len(stripColor(first))
	for i, word := range strings.Fields(text) {
		if i > 0 && width+1+len(word) > lineWidth {
			fmt.Fprintln(w, line)
			line, width = strings.Repeat(" ", indent)+word, indent+len(word)
			continue
		}
		if i > 0 {
			line += " "
			width++
		}
		line += word
		width += len(word)
	}
	fmt.Fprintln(w, line)
}

// stripColor drops the ANSI colour sequences Style adds.
func stripColor(s string) string {
	for {
		i := strings.Index(s, "\x1b[")
		if i < 0 {
			return s
		}
		j := strings.IndexByte(s[i:], 'm')
		if j < 0 {
			return s
		}
		s = s[:i] + s[i+j+1:]
	}
}

// StopText describes why a trace ended, for the line after its frames.
func StopText(se *frames.StopError) string {
	if se == nil {
		return "outermost frame"
	}
	if se.Reason == frames.ReasonOutermost {
		return "outermost frame"
	}
	return strings.TrimSpace(se.Error())
}

// JSON documents (schema 2, see SchemaVersion).
type (
	// ProcessDocument is the JSON of "sfdbg bt --json" and "sfdbg core
	// --json": every thread's trace.
	ProcessDocument struct {
		SchemaVersion int              `json:"schema_version"`
		Pid           int              `json:"pid"`
		Name          string           `json:"name"`
		Methods       string           `json:"methods"`
		Threads       []ThreadDocument `json:"threads"`
		// Disagreements sums Trace.Disagreements over the threads.
		Disagreements int `json:"disagreements"`
		// Compared is false when no frame of any thread could be judged
		// (no SFrame, or no CFI, anywhere on the stacks).
		Compared bool `json:"compared"`
		// Terminated is, for a core, the signal that killed the process.
		Terminated *Termination `json:"terminated,omitempty"`
	}
	// ThreadDocument is one thread's trace, or why it could not be taken.
	ThreadDocument struct {
		Tid        int             `json:"tid"`
		Name       string          `json:"name"`
		Frames     []FrameDocument `json:"frames"`
		Complete   bool            `json:"complete"`
		Truncated  bool            `json:"truncated"`
		Stop       string          `json:"stop,omitempty"`
		Agree      int             `json:"agree"`
		Disagree   int             `json:"disagree"`
		NotCovered int             `json:"not_covered"`
		// FPBroken counts frames whose frame-pointer step differs from
		// CFI's; FPBrokenFrom is the first (-1: none).
		FPBroken     int                   `json:"fp_broken"`
		FPBrokenFrom int                   `json:"fp_broken_from"`
		Findings     []Finding             `json:"findings"`
		Independent  []IndependentDocument `json:"independent,omitempty"`
		Error        string                `json:"error,omitempty"`
	}
	// FrameDocument is one physical frame: one unwind step, what the
	// methods are compared on.
	FrameDocument struct {
		// Level is the frame's index in frames (inline frames not
		// counted); GDBLevel its level as gdb numbers frames, inline
		// frames counted.
		Level    int    `json:"level"`
		GDBLevel int    `json:"gdb_level"`
		PC       uint64 `json:"pc"`
		CFA      uint64 `json:"cfa,omitempty"`
		Module   string `json:"module,omitempty"`
		// Function is the name gdb gives the frame (its DWARF
		// subprogram's where there is one: "weigh"); Symbol the ELF
		// symbol holding the PC ("weigh.isra.0"), when it differs, and
		// Offset the PC's offset from that symbol's start.
		Function string `json:"function,omitempty"`
		Symbol   string `json:"symbol,omitempty"`
		Offset   uint64 `json:"offset,omitempty"`
		// File and Line are the source line gdb shows for the frame:
		// with inline frames, the line of the outermost inlined call.
		File    string `json:"file,omitempty"`
		Line    int    `json:"line,omitempty"`
		FoundBy string `json:"found_by"`
		// Inline lists the functions inlined at the frame's PC,
		// innermost first, each shown by gdb as a frame of its own
		// below this one; they have no step or verdict of their own.
		Inline []InlineDocument `json:"inline,omitempty"`
		// Verdict is SFrame's (methods "all"); FPAgrees the FP chain's;
		// Verdicts the other subject methods' by name (the code's, once
		// it has an unwinder), absent when there are none.
		Verdict  Verdict                 `json:"verdict,omitempty"`
		FPAgrees bool                    `json:"fp_agrees,omitempty"`
		Verdicts map[string]Verdict      `json:"verdicts,omitempty"`
		Steps    map[string]StepDocument `json:"steps"`
	}
	// InlineDocument is an inline frame: a function inlined at a
	// physical frame's PC (DW_TAG_inlined_subroutine). File and Line are
	// the line gdb shows: the PC's for the innermost, else the line of
	// the call inlined into it.
	InlineDocument struct {
		GDBLevel int    `json:"gdb_level"`
		Function string `json:"function"`
		File     string `json:"file,omitempty"`
		Line     int    `json:"line,omitempty"`
		// TailCall marks a virtual tail-call frame (a function that
		// left by a jump, from DWARF call sites) shown at PC, the
		// address after its jump; gdb lists these before the
		// physical frame's inline frames.
		TailCall bool   `json:"tail_call,omitempty"`
		PC       uint64 `json:"pc,omitempty"`
	}
	// StepDocument is one method's step from a frame to its caller.
	StepDocument struct {
		OK       bool   `json:"ok"`
		Reason   string `json:"reason,omitempty"`
		Error    string `json:"error,omitempty"`
		CFA      uint64 `json:"cfa,omitempty"`
		CallerPC uint64 `json:"caller_pc,omitempty"`
		CallerSP uint64 `json:"caller_sp,omitempty"`
		CallerFP uint64 `json:"caller_fp,omitempty"`
		FPKnown  bool   `json:"caller_fp_known,omitempty"`
		Rule     string `json:"rule,omitempty"`
		Source   string `json:"source,omitempty"`
	}
	// IndependentDocument is a method's own trace.
	IndependentDocument struct {
		Method string             `json:"method"`
		Frames []IndependentFrame `json:"frames"`
		Stop   string             `json:"stop"`
	}
)

// MarshalJSON writes an IndependentFrame.
func (f IndependentFrame) MarshalJSON() ([]byte, error) {
	return fmt.Appendf(nil, `{"pc":%d,"cfa":%d,"matches":%d}`, f.PC, f.CFA, f.Matches), nil
}

// Document returns the JSON form of the trace of thread tid called name.
// It holds a FrameDocument per frame; WriteProcessJSON writes the same
// JSON a frame at a time.
func (t *Trace) Document(tid int, name string) ThreadDocument {
	d := t.documentHead(tid, name)
	d.Frames = make([]FrameDocument, len(t.Frames))
	for i := range t.Frames {
		d.Frames[i] = t.frameDocument(i)
	}
	return d
}

// documentHead returns the thread's document without its frames (an
// empty "frames").
func (t *Trace) documentHead(tid int, name string) ThreadDocument {
	d := ThreadDocument{Tid: tid, Name: name, Frames: []FrameDocument{}, Complete: t.Complete(),
		Truncated: t.Truncated, Agree: t.Agree, Disagree: t.Disagree, NotCovered: t.NotCovered,
		FPBroken: t.FPBroken, FPBrokenFrom: t.FPBrokenFrom, Findings: t.Findings}
	if d.Findings == nil {
		d.Findings = []Finding{}
	}
	if !d.Complete {
		d.Stop = StopText(t.Stop)
	}
	for _, it := range t.Independent {
		d.Independent = append(d.Independent, IndependentDocument{Method: it.Method.String(), Frames: it.Frames, Stop: StopText(it.Stop)})
	}
	return d
}

// frameDocument returns the JSON form of frame i.
func (t *Trace) frameDocument(i int) FrameDocument {
	f := &t.Frames[i]
	fd := FrameDocument{Level: f.Level, GDBLevel: t.Level(i), PC: f.PC, CFA: f.CFA, FoundBy: f.FoundBy.String(),
		Verdict: f.Verdict(), FPAgrees: f.FPAgrees, Steps: map[string]StepDocument{}}
	for _, m := range t.methods().subjects {
		if v := f.Verdicts[m]; m != frames.MethodSFrame && v != VerdictNone {
			if fd.Verdicts == nil {
				fd.Verdicts = map[string]Verdict{}
			}
			fd.Verdicts[m.String()] = v
		}
	}
	if m := f.Module; m != nil {
		sym := m.SymbolizeAt(f.PC, f.LookupPC())
		fd.Module, fd.Function, fd.Offset, fd.File, fd.Line = m.Name, sym.Name, sym.Offset, sym.File, sym.Line
		if sym.ELFName != sym.Name {
			fd.Symbol = sym.ELFName
		}
	}
	if chain := t.inlinedAt(i); len(chain) > 0 {
		first := fd.GDBLevel - len(chain)
		for k, c := range chain {
			id := InlineDocument{GDBLevel: first + k, Function: c.Function, File: fd.File, Line: fd.Line}
			switch {
			case c.TailCall:
				id.TailCall, id.PC, id.File, id.Line = true, c.PC, c.CallFile, c.CallLine
			case k > 0 && !chain[k-1].TailCall:
				id.File, id.Line = chain[k-1].CallFile, chain[k-1].CallLine
			}
			fd.Inline = append(fd.Inline, id)
		}
		if last := chain[len(chain)-1]; !last.TailCall {
			fd.File, fd.Line = last.CallFile, last.CallLine
		}
	}
	for m := range f.Steps {
		st := &f.Steps[m]
		if !st.Ran {
			continue
		}
		sd := StepDocument{OK: st.OK(), CFA: st.CFA, CallerPC: st.CallerPC, CallerSP: st.CallerSP,
			CallerFP: st.CallerFP, FPKnown: st.FPKnown, Rule: stepRule(st)}
		if st.Row != nil {
			sd.Source = st.Row.Src.String()
		}
		if st.Err != nil {
			sd.Reason, sd.Error = st.Err.Reason.String(), st.Err.Error()
		}
		fd.Steps[frames.Method(m).String()] = sd
	}
	return fd
}

// fpExpected says when machine a's frame-pointer chain is expected to
// differ from CFI (arch.Chain.Expected; nil: AMD64).
func fpExpected(a *arch.Arch) string {
	if a == nil {
		a = arch.AMD64Arch
	}
	return a.Chain.Expected
}

// TopLevel returns the indexes of sep in s outside parentheses, brackets
// and braces, and string and character literals: the commas between a
// frame line's arguments, printf's arguments, an expression's @.
func TopLevel(s string, sep byte) []int {
	var at []int
	depth, quote := 0, byte(0)
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '(' || c == '{' || c == '[':
			depth++
		case c == ')' || c == '}' || c == ']':
			depth--
		case c == sep && depth == 0:
			at = append(at, i)
		}
	}
	return at
}
