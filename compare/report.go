package compare

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
)

// SchemaVersion is the version of the JSON documents this package writes.
// It changes only when a field is removed or changes meaning; fields may be
// added within a version.
//
// Schema 1 — sfdbg check --json writes one CheckDocument; --json with
// several files or --recursive writes one FileReport per line (JSON Lines)
// followed by a line holding the CheckDocument without "files". The field
// names are the json tags of FileReport, Finding, Summary, StackReport,
// FrameResult, Step, Trace and TraceFrame; "kind" values are the
// Kind.String names (cfa, ra, fp, no-fde, gap, fre-boundary,
// fp-chain-broken, outermost, signal-frame, plt, extra-fde,
// function-bounds, format, skipped, missing-frame, extra-frame);
// addresses and offsets are JSON numbers.
const SchemaVersion = 1

// CheckDocument is the JSON document of a check run.
type CheckDocument struct {
	SchemaVersion int           `json:"schema_version"`
	Files         []*FileReport `json:"files,omitempty"`
	Total         Summary       `json:"total"`
	// Disagreements counts findings for which Kind.Disagreement holds.
	Disagreements int `json:"disagreements"`
	// Errors counts files that could not be checked.
	Errors int `json:"errors"`
}

// Disagreements returns the number of findings that are disagreements.
func (r *FileReport) Disagreements() int {
	n := 0
	for _, f := range r.Findings {
		if f.Kind.Disagreement() {
			n++
		}
	}
	return n
}

// Add merges a file's summary into a total.
func (s *Summary) Add(o Summary) {
	s.FunctionsSFrame += o.FunctionsSFrame
	s.FunctionsCFI += o.FunctionsCFI
	s.FunctionsBoth += o.FunctionsBoth
	s.BytesSFrame += o.BytesSFrame
	s.BytesCFI += o.BytesCFI
	s.Instructions += o.Instructions
	s.Disagreements += o.Disagreements
	for k, n := range o.ByKind {
		if s.ByKind == nil {
			s.ByKind = map[Kind]int{}
		}
		s.ByKind[k] += n
	}
}

// NewCheckDocument totals file reports.
func NewCheckDocument(files []*FileReport) *CheckDocument {
	d := &CheckDocument{SchemaVersion: SchemaVersion, Files: files}
	for _, f := range files {
		d.Total.Add(f.Summary)
		d.Disagreements += f.Disagreements()
		if f.Err != "" {
			d.Errors++
		}
	}
	return d
}

// WriteJSON writes v as indented JSON.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// Style colours text reports; the zero value prints plain text.
type Style struct{ Color bool }

func (s Style) paint(code, text string) string {
	if !s.Color {
		return text
	}
	return "\x1b[" + code + "m" + text + "\x1b[0m"
}

func (s Style) kind(k Kind) string {
	if k.Disagreement() {
		return s.paint("31", k.String())
	}
	return s.paint("33", k.String())
}

// WriteText writes the report of one file: one line per finding, grouped
// by function, then its summary.
func (r *FileReport) WriteText(w io.Writer, st Style) {
	if r.Err != "" {
		fmt.Fprintf(w, "%s: error: %s\n", r.File, r.Err)
		return
	}
	fmt.Fprintf(w, "%s: SFrame v%d, %s\n", r.File, r.Version, r.ABI)
	fs := append([]Finding(nil), r.Findings...)
	sort.SliceStable(fs, func(i, j int) bool { return fs[i].FuncStart < fs[j].FuncStart })
	var cur string
	for i, f := range fs {
		name := orAddr(f.Function, f.FuncStart)
		if f.Function == "" && f.FuncStart == 0 {
			name = "(whole file)"
		}
		if i == 0 || name != cur {
			if name == "(whole file)" {
				fmt.Fprintf(w, "  %s:\n", name)
			} else {
				fmt.Fprintf(w, "  %s (%#x):\n", name, f.FuncStart)
			}
			cur = name
		}
		fmt.Fprintf(w, "    %-16s %s\n", st.kind(f.Kind), f.Message)
	}
	s := r.Summary
	fmt.Fprintf(w, "  functions: %d with SFrame, %d with CFI, %d compared; bytes covered: SFrame %d, CFI %d; instructions compared: %d\n",
		s.FunctionsSFrame, s.FunctionsCFI, s.FunctionsBoth, s.BytesSFrame, s.BytesCFI, s.Instructions)
	compared := true
	for _, f := range r.Findings {
		if f.Kind == KindNoCFI {
			compared = false
		}
	}
	if n := r.Disagreements(); n > 0 {
		fmt.Fprintf(w, "  result: %s\n", st.paint("31", fmt.Sprintf("%d disagreements", n)))
	} else if !compared {
		fmt.Fprintf(w, "  result: %s\n", st.paint("33", "SFrame valid, not compared with CFI"))
	} else {
		fmt.Fprintf(w, "  result: %s\n", st.paint("32", "SFrame agrees with CFI wherever it claims coverage"))
	}
}

// WriteSummaryTable writes the totals of a check run as a table of kinds.
func (d *CheckDocument) WriteSummaryTable(w io.Writer, st Style) {
	fmt.Fprintf(w, "\nSummary: %d files (%d unreadable), %d functions with SFrame, %d with CFI, %d instructions compared\n",
		len(d.Files), d.Errors, d.Total.FunctionsSFrame, d.Total.FunctionsCFI, d.Total.Instructions)
	fmt.Fprintf(w, "  %-18s %8s  %s\n", "KIND", "COUNT", "MEANING")
	for _, k := range Kinds() {
		if n := d.Total.ByKind[k]; n > 0 {
			fmt.Fprintf(w, "  %-18s %8d  %s\n", k.String(), n, k.Title())
		}
	}
	verdict := st.paint("32", "no disagreements")
	if d.Disagreements > 0 {
		verdict = st.paint("31", fmt.Sprintf("%d disagreements", d.Disagreements))
	}
	fmt.Fprintf(w, "  %s\n", verdict)
}

// WriteText writes a thread's comparison as a gdb-like backtrace with one
// line per frame and the verdicts of SFrame and frame pointers, then the
// findings.
func (r *StackReport) WriteText(w io.Writer, st Style) {
	for _, f := range r.Frames {
		v := string(f.Verdict)
		switch f.Verdict {
		case VerdictDisagree:
			v = st.paint("31", "DISAGREE")
		case VerdictAgree, VerdictEnd:
			v = st.paint("32", v)
		}
		fp := "fp:ok"
		if !f.FPAgrees {
			fp = "fp:differs"
		}
		cfa := "-"
		if f.CFI.CFA != 0 {
			cfa = fmt.Sprintf("%#x", f.CFI.CFA)
		}
		fmt.Fprintf(w, "#%-2d %#016x %-44s cfa=%-16s sframe:%-12s %s\n", f.Level, f.PC, f.Function, cfa, v, fp)
	}
	for _, t := range r.Traces {
		if t.Method == "cfi" {
			continue
		}
		fmt.Fprintf(w, "  independent %s trace: %d frames, stopped: %s\n", t.Method, len(t.Frames), t.Stop)
	}
	// Frame-pointer findings are expected wherever frame pointers are
	// omitted: one line says how many, the FP column says where.
	fpBroken := 0
	for _, f := range r.Findings {
		if f.Kind == KindFPChain {
			fpBroken++
		}
	}
	if fpBroken > 0 {
		fmt.Fprintf(w, "  %-16s frame-pointer unwinding differs from CFI at %d frames (expected where code omits frame pointers; not an SFrame fault)\n",
			st.kind(KindFPChain), fpBroken)
	}
	for _, f := range r.Findings {
		if f.Kind == KindFPChain {
			continue
		}
		fmt.Fprintf(w, "  %-16s %s\n", st.kind(f.Kind), f.Message)
		if f.Kind.Disagreement() {
			fmt.Fprintf(w, "  %16s sframe: %s [%s]\n  %16s cfi:    %s\n", "", f.SFrame, strings.TrimSpace(f.Module), "", f.CFI)
		}
	}
}
