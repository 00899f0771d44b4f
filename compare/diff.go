package compare

import (
	"fmt"
	"io"
	"strings"

	"github.com/sfdbg/sfdbg/frames"
	"github.com/sfdbg/sfdbg/sframe/rule"
)

// DiffClass says whether two builds' tables differ in form or in meaning.
type DiffClass string

const (
	// DiffRepresentation: the same rules at every instruction, written
	// differently (rows split at other PCs), or an FDE one side lacks.
	DiffRepresentation DiffClass = "representation"
	// DiffSemantic: the CFA, RA or FP rule differs at some instruction.
	DiffSemantic DiffClass = "semantic"
)

// Tables a Difference is about.
const (
	TableSFrame = "sframe"
	TableCFI    = "cfi"
)

// Difference is one difference between the tables of a function in two
// builds, A and B, over a run of consecutive instructions.
type Difference struct {
	Class DiffClass `json:"class"`
	// Table is "sframe" or "cfi"; empty for a function one build lacks or
	// whose code differs.
	Table string `json:"table,omitempty"`
	// What is cfa, ra, fp, outermost, no-row or unreadable (semantic; an
	// unreadable FDE that fails the same way on both sides is
	// representation), or split,
	// no-fde, only-in-a, only-in-b or code (representation); several
	// semantic ones joined by "+".
	What     string `json:"what"`
	Function string `json:"function"`
	// StartA and StartB are the function's start (link-time addresses; an
	// object's as check places its sections); OffA and OffB the offset in
	// bytes of the first instruction of the run in each.
	StartA uint64 `json:"start_a"`
	StartB uint64 `json:"start_b"`
	OffA   uint64 `json:"off_a"`
	OffB   uint64 `json:"off_b"`
	// Instructions is the number of instructions of the run.
	Instructions int `json:"instructions,omitempty"`
	// A and B are the rules each build gives there ("cfa=rsp+16 ra=c-8
	// fp=u"), "none" where it gives no row.
	A string `json:"a,omitempty"`
	B string `json:"b,omitempty"`
	// Agrees says, for a semantic SFrame difference, which build's SFrame
	// agrees there with that build's own CFI: "a", "b", "both",
	// "neither", or "no CFI".
	Agrees  string `json:"agrees_with_own_cfi,omitempty"`
	Message string `json:"message"`
}

// DiffSummary counts what a diff covered and found.
type DiffSummary struct {
	FunctionsA     int `json:"functions_a"`
	FunctionsB     int `json:"functions_b"`
	Paired         int `json:"functions_paired"`
	Instructions   int `json:"instructions_compared"`
	Representation int `json:"representation"`
	Semantic       int `json:"semantic"`
}

// DiffReport is the result of comparing two builds of the same source;
// sfdbg diff --json writes one (and diff --link --json one LinkReport),
// field names as the json tags, within schema SchemaVersion.
type DiffReport struct {
	A           string       `json:"a"`
	B           string       `json:"b"`
	Differences []Difference `json:"differences"`
	Summary     DiffSummary  `json:"summary"`

	inB map[string][]*diffFn // B's functions by name
}

// DiffOptions tune Diff.
type DiffOptions struct {
	// OnlyA compares only the functions A defines: B may hold more (a
	// linked output against one of its input objects), and those are not
	// differences.
	OnlyA bool
	// Tables limits the tables compared ("sframe", "cfi"); empty: both.
	Tables []string
}

// Diff compares the SFrame and the CFI of two ELF files built from the same
// source (two objects, two executables, or an object and a link of it).
// Functions are paired by symbol name (the k-th of a name in A with the
// k-th in B), and their rows compared instruction by instruction: on AMD64
// at the instruction boundaries check uses (x86Len), paired by index when
// both sides have as many instructions, else by offset from the function's
// start; elsewhere at the row boundaries. The error names the file that
// cannot be read (not ELF, malformed SFrame or CFI); a file without SFrame
// or without CFI is compared as having no FDEs in that table.
func Diff(pathA, pathB string, opts DiffOptions) (*DiffReport, error) {
	a, err := loadDiffSide(pathA)
	if err != nil {
		return nil, err
	}
	b, err := loadDiffSide(pathB)
	if err != nil {
		return nil, err
	}
	rep := &DiffReport{A: pathA, B: pathB, Differences: []Difference{}, inB: b.byName}
	rep.Summary.FunctionsA, rep.Summary.FunctionsB = len(a.funcs), len(b.funcs)
	tables := map[string]bool{TableSFrame: true, TableCFI: true}
	if len(opts.Tables) > 0 {
		tables = map[string]bool{}
		for _, t := range opts.Tables {
			tables[t] = true
		}
	}
	for _, fa := range a.funcs {
		bs := b.byName[fa.name]
		if fa.nth >= len(bs) {
			if !opts.OnlyA {
				rep.add(Difference{Class: DiffRepresentation, What: "only-in-a", Function: fa.name, StartA: fa.start,
					Message: fmt.Sprintf("%s is only in A", fa.name)})
			}
			continue
		}
		rep.Summary.Paired++
		diffFunc(rep, fa, bs[fa.nth], tables)
	}
	if !opts.OnlyA {
		for _, fb := range b.funcs {
			if fb.nth >= len(a.byName[fb.name]) {
				rep.add(Difference{Class: DiffRepresentation, What: "only-in-b", Function: fb.name, StartB: fb.start,
					Message: fmt.Sprintf("%s is only in B", fb.name)})
			}
		}
	}
	return rep, nil
}

func (r *DiffReport) add(d Difference) {
	r.Differences = append(r.Differences, d)
	if d.Class == DiffSemantic {
		r.Summary.Semantic++
	} else {
		r.Summary.Representation++
	}
}

// diffFunc compares the tables of one function in two builds.
func diffFunc(rep *DiffReport, fa, fb *diffFn, tables map[string]bool) {
	pairs, sameCode := pairInsts(fa, fb)
	if !sameCode {
		rep.add(Difference{Class: DiffRepresentation, What: "code", Function: fa.name, StartA: fa.start, StartB: fb.start,
			Message: fmt.Sprintf("%s's code differs beyond padding (%d bytes, %d instructions in A; %d bytes, %d in B): its rows are not compared",
				fa.name, fa.end-fa.start, len(fa.insts), fb.end-fb.start, len(fb.insts))})
	}
	rep.Summary.Instructions += len(pairs)
	for _, t := range []string{TableSFrame, TableCFI} {
		if !tables[t] {
			continue
		}
		hasA, hasB, ra, rb := fa.hasSF, fb.hasSF, fa.sf, fb.sf
		if t == TableCFI {
			hasA, hasB, ra, rb = fa.hasCFI, fb.hasCFI, fa.cfi, fb.cfi
		}
		if !hasA && !hasB {
			continue
		}
		if hasA != hasB {
			side, other := "B", "A"
			if !hasA {
				side, other = "A", "B"
			}
			rep.add(Difference{Class: DiffRepresentation, Table: t, What: "no-fde", Function: fa.name, StartA: fa.start, StartB: fb.start,
				Message: fmt.Sprintf("%s has no %s FDE in %s; %s has one", fa.name, tableName(t), side, other)})
			continue
		}
		if t == TableSFrame && (fa.sfErr != nil || fb.sfErr != nil) {
			var msgs []string
			for _, e := range []struct {
				side string
				err  error
			}{{"A", fa.sfErr}, {"B", fb.sfErr}} {
				if e.err != nil {
					msgs = append(msgs, fmt.Sprintf("in %s: %v", e.side, e.err))
				}
			}
			// Rows that fail the same way on both sides are no difference
			// between the builds (a file diffed against itself): said, as
			// representation, not counted as semantic.
			class := DiffSemantic
			if fa.sfErr != nil && fb.sfErr != nil && fa.sfErr.Error() == fb.sfErr.Error() {
				class = DiffRepresentation
			}
			rep.add(Difference{Class: class, Table: t, What: "unreadable", Function: fa.name, StartA: fa.start, StartB: fb.start,
				Message: fmt.Sprintf("%s's SFrame rows do not decode %s", fa.name, strings.Join(msgs, "; "))})
			continue
		}
		diffTable(rep, t, fa, fb, ra, rb, pairs)
	}
}

func tableName(t string) string {
	if t == TableCFI {
		return "CFI"
	}
	return "SFrame"
}

// diffTable compares one table of a function at each instruction pair,
// reporting runs of equal differences, then, if the rules agree
// everywhere, whether the rows are split at other instructions.
func diffTable(rep *DiffReport, table string, fa, fb *diffFn, ra, rb []frames.Row, pairs []instPair) {
	var cur *Difference
	flush := func() {
		if cur != nil {
			cur.Message = semanticMessage(cur)
			rep.add(*cur)
			cur = nil
		}
	}
	semantic := false
	var splitA, splitB []int // the pair indices where each side's row changes
	lastA, lastB := -2, -2
	for k, p := range pairs {
		pcA, pcB := fa.start+p.a, fb.start+p.b
		ia, ib := rowAt(ra, pcA), rowAt(rb, pcB)
		if ia != lastA {
			splitA, lastA = append(splitA, k), ia
		}
		if ib != lastB {
			splitB, lastB = append(splitB, k), ib
		}
		what := ""
		switch {
		case ia < 0 && ib < 0:
		case ia < 0 || ib < 0:
			what = "no-row"
		default:
			what = rowsDiffer(ra[ia], rb[ib], pcA, pcB)
		}
		if what == "" {
			flush()
			continue
		}
		semantic = true
		ta, tb := rowText(ra, ia), rowText(rb, ib)
		agrees := ""
		if table == TableSFrame {
			agrees = ownCFIAgreement(fa, fb, ia, ib, pcA, pcB)
		}
		if cur != nil && cur.What == what && cur.A == ta && cur.B == tb && cur.Agrees == agrees {
			cur.Instructions++
			continue
		}
		flush()
		cur = &Difference{Class: DiffSemantic, Table: table, What: what, Function: fa.name, StartA: fa.start, StartB: fb.start,
			OffA: p.a, OffB: p.b, Instructions: 1, A: ta, B: tb, Agrees: agrees}
	}
	flush()
	if semantic || equalInts(splitA, splitB) {
		return
	}
	rep.add(Difference{Class: DiffRepresentation, Table: table, What: "split", Function: fa.name, StartA: fa.start, StartB: fb.start,
		Message: fmt.Sprintf("%s's %s rows give the same rules at every instruction but are split differently: %d rows in A, %d in B",
			fa.name, tableName(table), len(splitA), len(splitB))})
}

func semanticMessage(d *Difference) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s differs at %s+%#x", tableName(d.Table), strings.ToUpper(strings.ReplaceAll(d.What, "+", ", ")), d.Function, d.OffA)
	if d.OffB != d.OffA {
		fmt.Fprintf(&b, " (B: +%#x)", d.OffB)
	}
	fmt.Fprintf(&b, ", %d instruction(s): A %s, B %s", d.Instructions, d.A, d.B)
	switch d.Agrees {
	case "":
	case "a", "b":
		fmt.Fprintf(&b, "; %s's SFrame agrees with its own CFI", strings.ToUpper(d.Agrees))
	case "both":
		b.WriteString("; each agrees with its own CFI (the CFI differs too)")
	case "neither":
		b.WriteString("; neither agrees with its own CFI")
	default:
		b.WriteString("; " + d.Agrees)
	}
	return b.String()
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func rowText(rows []frames.Row, i int) string {
	if i < 0 {
		return "none"
	}
	return ruleText(rows[i])
}

// rowsDiffer compares two rows of the same table (both SFrame or both
// CFI) by meaning, as DiffRows does, in both directions, and returns what
// differs ("cfa", "ra+fp", ...) or "".
func rowsDiffer(a, b frames.Row, pcA, pcB uint64) string {
	d, e := DiffRows(a, b, pcB), DiffRows(b, a, pcA)
	cfa := d.CFA || e.CFA
	if a.CFA.Kind == b.CFA.Kind && (a.CFA.Kind == rule.ValExpression || a.CFA.Kind == rule.Expression) {
		cfa = a.CFA.Expr != b.CFA.Expr
	}
	var out []string
	if d.Outermost || e.Outermost {
		return "outermost"
	}
	if cfa {
		out = append(out, "cfa")
	}
	if d.RA || e.RA {
		out = append(out, "ra")
	}
	if d.FP || e.FP {
		out = append(out, "fp")
	}
	return strings.Join(out, "+")
}

// ownCFIAgreement says which build's SFrame row agrees with its own CFI at
// an instruction.
func ownCFIAgreement(fa, fb *diffFn, ia, ib int, pcA, pcB uint64) string {
	agrees := func(fn *diffFn, i int, pc uint64) (ok, known bool) {
		j := rowAt(fn.cfi, pc)
		if j < 0 {
			return false, false
		}
		if i < 0 {
			return false, true
		}
		return !DiffRows(fn.sf[i], fn.cfi[j], pc).Any(), true
	}
	okA, knownA := agrees(fa, ia, pcA)
	okB, knownB := agrees(fb, ib, pcB)
	switch {
	case !knownA && !knownB:
		return "no CFI"
	case okA && okB:
		return "both"
	case okA:
		return "a"
	case okB:
		return "b"
	case knownA && knownB:
		return "neither"
	}
	return "no CFI on one side"
}

// WriteText writes the report as check does: a header, the differences
// by function, and a summary line.
func (r *DiffReport) WriteText(w io.Writer, st Style) {
	fmt.Fprintf(w, "A: %s\nB: %s\n", r.A, r.B)
	last := "\x00"
	for _, d := range r.Differences {
		if d.Function != last {
			fmt.Fprintf(w, "  %s:\n", d.Function)
			last = d.Function
		}
		label := string(d.Class)
		if d.Table != "" {
			label += " " + d.Table
		}
		code := "33"
		if d.Class == DiffSemantic {
			code = "31"
		}
		fmt.Fprintf(w, "    %s %s\n", st.paint(code, fmt.Sprintf("%-22s", label+" "+d.What)), d.Message)
	}
	s := r.Summary
	fmt.Fprintf(w, "  functions: %d in A, %d in B, %d paired; instructions compared: %d\n", s.FunctionsA, s.FunctionsB, s.Paired, s.Instructions)
	fmt.Fprintf(w, "  result: %d semantic, %d representation differences\n", s.Semantic, s.Representation)
}
