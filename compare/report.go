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
// Schema 2 (this one) — the documents, one for each command:
//   - sfdbg check --json: JSON Lines, for one file as for several or
//     --recursive: one FileReport per line (an ar archive: one per
//     member), in the order of the files, each written as soon as it and
//     those before it are checked, then a line holding the CheckDocument
//     without "files" (the totals: nothing else of the reports is kept).
//     Until 2026-11-29 one file named without --recursive gave one
//     CheckDocument with its reports in "files"; ReadBaseline and sfdbg
//     report read both.
//   - sfdbg bt --json (every method, "methods" says which): one
//     ProcessDocument, whose threads are ThreadDocuments of FrameDocuments,
//     each with a StepDocument per method run ("steps": {"sframe": ...,
//     "cfi": ..., "fp": ...}), SFrame's "verdict" (agree, disagree, not
//     covered, end) and "truncated" set when the depth limit cut a trace;
//     written a frame at a time (WriteProcessJSON), as sfdbg core --json.
//   - sfdbg sample --json: one Aggregate.
//
// The field names are the json tags of these types and of Finding and
// Summary; "kind" values are the Kind.String names (cfa, ra, fp, no-fde,
// gap, fre-boundary, fp-chain-broken, outermost, signal-frame, plt,
// extra-fde, function-bounds, format, skipped, missing-frame, extra-frame,
// no-cfi, kernel-reject, signal-undescribed, code-cfa, code-ra, code-fp,
// code-state, code-unknown); addresses and offsets are JSON numbers.
//
// Added within schema 2: CheckDocument "files_checked", the reports its
// totals are over. FileReport "acceptance_not_judged", why there
// are no verdicts (a relocatable object). FileReport "acceptance", a list of
// {"consumer": "linux"|"libsframe", "accepted": bool, "rejections":
// [{"consumer", "rule", "source", "offset", "message"}], "unseen": what
// the consumer never reads of an lld sequence} (sframe.Acceptance:
// would the kernel's SFrame loader, series v13+, and libsframe 2.47 accept
// the section; "offset" is the byte offset in the section, "source" the
// series version or release and the function that enforces the rule).
// With check --profile kernel every kernel rejection is also a finding of
// kind kernel-reject, which counts as a disagreement. FileReport "format":
// "ctf_frame" when the section was the pre-release CTF Frame format
// (".ctf_frame"), compared as SFrame v1 ("sframe_version" 1); absent for
// SFrame.
//
// Added within schema 2 for inline frames (gdb shows each function
// inlined at a frame's PC as a frame of its own): FrameDocument
// "gdb_level", the frame's level as gdb numbers frames, inline frames
// counted ("level" stays the index in "frames", which hold physical frames
// only, and findings' "frame" and messages use it), and "inline", the
// functions inlined at the frame's PC, innermost first, each
// {"gdb_level", "function", "file", "line"} (InlineDocument). Inline
// frames have no steps or verdicts, and the counts ("agree", ...) count
// physical frames. A frame with inline functions has as "file"/"line" the
// line gdb shows for it: the call site of the outermost inlined call.
//
// Added within schema 2 for check as a CI gate: Finding "known" (the
// known producer fault it matches, KnownFault.Text) and "known_id",
// "suppressed" (the rule, "FILE:LINE") and "baselined"; FileReport
// "producers" and "gate" (GateCounts: known, ignore_known, suppressed,
// baselined, failing); CheckDocument "known", "suppressed", "baselined"
// and "failing" (check exits 1 when failing > 0).
//
// Added within schema 2 for methods as a set and the code oracle: Finding
// "rules", every method's rule text by method name ("sframe", "cfi",
// "fp", "code"; "sframe", "cfi" and "fp" stay as before); Summary "code"
// (CodeSummary: instructions_checked, instructions_judged, judged_share,
// unknown_notes) when check ran a code oracle; FrameDocument "verdicts",
// the verdicts of subject methods other than SFrame (whose verdict stays
// "verdict"), by name.
//
// Added within schema 2 for 32-bit ARM cores: the method "ehabi" (steps,
// verdicts and rules under that name) in the documents of ARM traces only;
// a trace runs the methods of its machine (frames.Method.AppliesTo).
//
// Schema 1 had a separate per-method bt document and a StackReport per
// thread; schema 2 replaced both with ProcessDocument, and fp-chain-broken
// is counted once per thread (ThreadDocument.fp_broken), not per frame.
const SchemaVersion = 2

// CheckDocument is the JSON document of a check run, or with Files nil
// the totals that close its JSON Lines.
type CheckDocument struct {
	SchemaVersion int           `json:"schema_version"`
	Files         []*FileReport `json:"files,omitempty"`
	// Checked counts the reports totalled: files and archive members.
	Checked int     `json:"files_checked"`
	Total   Summary `json:"total"`
	// Disagreements counts findings for which Kind.Disagreement holds.
	Disagreements int `json:"disagreements"`
	// Errors counts files that could not be checked.
	Errors int `json:"errors"`
	// Known, Suppressed, Baselined and Failing sum the files' GateCounts:
	// check exits 1 when Failing > 0.
	Known      int `json:"known"`
	Suppressed int `json:"suppressed"`
	Baselined  int `json:"baselined"`
	Failing    int `json:"failing"`
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
	if o.Code != nil {
		if s.Code == nil {
			s.Code = &CodeSummary{}
		}
		s.Code.add(*o.Code)
	}
	if o.EHABI != nil {
		if s.EHABI == nil {
			s.EHABI = &EHABISummary{}
		}
		s.EHABI.add(*o.EHABI)
	}
	for k, n := range o.ByKind {
		if s.ByKind == nil {
			s.ByKind = map[Kind]int{}
		}
		s.ByKind[k] += n
	}
}

// NewCheckDocument returns the document of the file reports files, with
// their totals.
func NewCheckDocument(files []*FileReport) *CheckDocument {
	d := &CheckDocument{SchemaVersion: SchemaVersion, Files: files}
	for _, f := range files {
		d.Add(f)
	}
	return d
}

// Add adds a file report to the totals (not to Files): a batch keeps the
// totals, not the reports.
func (d *CheckDocument) Add(f *FileReport) {
	d.Checked++
	d.Total.Add(f.Summary)
	d.Disagreements += f.Disagreements()
	d.Failing += f.Failing()
	if g := f.Gate; g != nil {
		d.Known += g.Known
		d.Suppressed += g.Suppressed
		d.Baselined += g.Baselined
	}
	if f.Err != "" {
		d.Errors++
	}
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
		// The error names the file already ("notelf.txt: not an ELF
		// file"): say it once.
		fmt.Fprintf(w, "%s: error: %s\n", r.File, strings.TrimPrefix(r.Err, r.File+": "))
		return
	}
	if r.Format == FormatEHABI {
		fmt.Fprintf(w, "%s: ARM EHABI (.ARM.exidx), %s, against CFI at call sites\n", r.File, r.ABI)
	} else if r.Format == FormatCTFFrame {
		fmt.Fprintf(w, "%s: CTF Frame (.ctf_frame, the pre-release SFrame v1), %s\n", r.File, r.ABI)
	} else if r.NoSFrame {
		fmt.Fprintf(w, "%s: no SFrame; CFI judged against the machine code\n", r.File)
	} else {
		fmt.Fprintf(w, "%s: SFrame v%d, %s\n", r.File, r.Version, r.ABI)
	}
	var fs []Finding
	for _, f := range r.Findings {
		if f.Suppressed == "" && !f.Baselined { // counted below, not listed
			fs = append(fs, f)
		}
	}
	sort.SliceStable(fs, func(i, j int) bool { return fs[i].FuncStart < fs[j].FuncStart })
	var cur string
	for i, f := range fs {
		name := orAddr(f.Function, f.FuncStart)
		loc := fmt.Sprintf("%#x", f.FuncStart)
		if f.Section != "" { // a relocatable object: section+offset
			loc = fmt.Sprintf("%s+%#x", f.Section, f.SectionOff)
			if f.Function == "" {
				name = loc
			}
		}
		if f.Function == "" && f.FuncStart == 0 && f.Section == "" {
			name = "(whole file)"
		}
		if i == 0 || name != cur {
			if name == "(whole file)" || name == loc {
				fmt.Fprintf(w, "  %s:\n", name)
			} else {
				fmt.Fprintf(w, "  %s (%s):\n", name, loc)
			}
			cur = name
		}
		fmt.Fprintf(w, "    %-16s %s\n", st.kind(f.Kind), f.Message)
		if f.Known != "" {
			writeWrapped(w, strings.Repeat(" ", 21)+"known fault: ", 21, f.Known)
		}
		if f.Class != "" {
			fmt.Fprintf(w, "%sclass: %s (%s)\n", strings.Repeat(" ", 21), f.Class, Classes[f.Class].Title)
		}
	}
	s := r.Summary
	if s.EHABI != nil {
		fmt.Fprintf(w, "  EHABI %s; CFI functions: %d; call sites compared: %d\n", s.EHABI, s.FunctionsCFI, s.Instructions)
	} else {
		fmt.Fprintf(w, "  functions: %d with SFrame, %d with CFI, %d compared; bytes covered: SFrame %d, CFI %d; instructions compared: %d\n",
			s.FunctionsSFrame, s.FunctionsCFI, s.FunctionsBoth, s.BytesSFrame, s.BytesCFI, s.Instructions)
	}
	if s.Code != nil {
		fmt.Fprintf(w, "  code oracle: %s\n", s.Code)
	}
	compared := true
	for _, f := range r.Findings {
		if f.Kind == KindNoCFI {
			compared = false
		}
	}
	if r.AcceptanceNotJudged != "" {
		fmt.Fprintf(w, "  %-10s not judged: %s\n", "linux, libsframe:", r.AcceptanceNotJudged)
	}
	for _, a := range r.Acceptance {
		if a.Accepted {
			fmt.Fprintf(w, "  %-10s accepts the section (%s)\n", a.Consumer.String()+":", a.Consumer.Title())
		} else {
			fmt.Fprintf(w, "  %-10s %s (%s)\n", a.Consumer.String()+":", st.paint("33", "rejects the section"), a.Consumer.Title())
		}
		if a.Unseen != "" {
			fmt.Fprintf(w, "    %-22s it %s\n", "unseen", a.Unseen)
		}
		if a.NotWalked != "" {
			fmt.Fprintf(w, "    %-22s %s\n", "not-walked", a.NotWalked)
		}
		for _, x := range a.Rejections {
			fmt.Fprintf(w, "    %-22s %s at byte %#x [%s]\n", x.Name, x.Msg, x.Off, x.Source)
		}
	}
	r.writeGate(w)
	table := "SFrame"
	if s.EHABI != nil {
		table = "EHABI"
	}
	if n, fail := r.Disagreements(), r.Failing(); n > 0 && fail == n {
		fmt.Fprintf(w, "  result: %s\n", st.paint("31", fmt.Sprintf("%d disagreements", n)))
	} else if n > 0 {
		colour := "32"
		if fail > 0 {
			colour = "31"
		}
		fmt.Fprintf(w, "  result: %d disagreements, %s\n", n, st.paint(colour, fmt.Sprintf("%d failing", fail)))
	} else if r.NoSFrame {
		fmt.Fprintf(w, "  result: %s\n", st.paint("32", "CFI agrees with the code wherever the code oracle judged it"))
	} else if !compared {
		fmt.Fprintf(w, "  result: %s\n", st.paint("33", table+" valid, not compared with CFI"))
	} else if s.EHABI != nil {
		fmt.Fprintf(w, "  result: %s\n", st.paint("32", "EHABI agrees with CFI at every call site compared"))
	} else {
		fmt.Fprintf(w, "  result: %s\n", st.paint("32", "SFrame agrees with CFI wherever it claims coverage"))
	}
}

// writeGate says what the gate did with the findings: the known faults
// (listed, ignored or not), the suppressed and baselined findings (counted
// here, not listed).
func (r *FileReport) writeGate(w io.Writer) {
	g := r.Gate
	if g == nil {
		return
	}
	if g.Known > 0 {
		how := "not ignored without --ignore-known"
		if g.IgnoreKnown {
			how = "ignored: --ignore-known"
		}
		fmt.Fprintf(w, "  known faults: %d of the disagreements are known producer faults (%s)\n", g.Known, how)
	}
	if g.Suppressed > 0 {
		by := map[string]int{}
		var order []string
		for _, f := range r.Findings {
			if f.Suppressed != "" {
				if by[f.Suppressed] == 0 {
					order = append(order, f.Suppressed)
				}
				by[f.Suppressed]++
			}
		}
		var parts []string
		for _, s := range order {
			parts = append(parts, fmt.Sprintf("%d by %s", by[s], s))
		}
		fmt.Fprintf(w, "  suppressed: %d findings, not listed (%s)\n", g.Suppressed, strings.Join(parts, ", "))
	}
	if g.Baselined > 0 {
		fmt.Fprintf(w, "  baseline: %d findings were in the baseline report, not listed\n", g.Baselined)
	}
}

// WriteSummaryTable writes the totals of a check run as a table of kinds.
func (d *CheckDocument) WriteSummaryTable(w io.Writer, st Style) {
	fmt.Fprintf(w, "\nSummary: %d files (%d unreadable), %d functions with SFrame, %d with CFI, %d instructions compared\n",
		d.Checked, d.Errors, d.Total.FunctionsSFrame, d.Total.FunctionsCFI, d.Total.Instructions)
	if c := d.Total.Code; c != nil {
		fmt.Fprintf(w, "  code oracle: %s\n", c)
	}
	if e := d.Total.EHABI; e != nil {
		fmt.Fprintf(w, "  EHABI %s\n", e)
	}
	fmt.Fprintf(w, "  %-18s %8s  %s\n", "KIND", "COUNT", "MEANING")
	for _, k := range Kinds() {
		if n := d.Total.ByKind[k]; n > 0 {
			fmt.Fprintf(w, "  %-18s %8d  %s\n", k.String(), n, k.Title())
		}
	}
	verdict := st.paint("32", "no disagreements")
	switch {
	case d.Disagreements > 0 && d.Failing == d.Disagreements:
		verdict = st.paint("31", fmt.Sprintf("%d disagreements", d.Disagreements))
	case d.Disagreements > 0:
		colour := "32"
		if d.Failing > 0 {
			colour = "31"
		}
		verdict = fmt.Sprintf("%d disagreements, %s (known: %d, suppressed: %d, in the baseline: %d)", d.Disagreements,
			st.paint(colour, fmt.Sprintf("%d failing", d.Failing)), d.Known, d.Suppressed, d.Baselined)
	}
	fmt.Fprintf(w, "  %s\n", verdict)
}
