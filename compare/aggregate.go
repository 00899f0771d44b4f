package compare

import (
	"fmt"
	"io"
	"sort"
)

// Aggregate sums the comparisons of many stacks, as a sampling run does.
type Aggregate struct {
	SchemaVersion int `json:"schema_version"`
	Samples       int `json:"samples"`
	Stacks        int `json:"stacks"`
	// Frames counts frames compared; Agree, Disagree and NotCovered split
	// them by SFrame verdict.
	Frames     int `json:"frames_compared"`
	Agree      int `json:"agree"`
	Disagree   int `json:"disagree"`
	NotCovered int `json:"not_covered"`
	// ByKind counts findings; ByModule and ByFunction count findings about
	// SFrame (every kind but fp-chain-broken, which frame pointers own).
	ByKind     map[Kind]int   `json:"by_kind"`
	ByModule   map[string]int `json:"by_module"`
	ByFunction map[string]int `json:"by_function"`
	// Examples holds the first finding of each kind, with its sample number.
	Examples map[Kind]Example `json:"examples"`
}

// Example is one finding with the sample it was seen in.
type Example struct {
	Sample  int     `json:"sample"`
	Thread  int     `json:"thread"`
	Finding Finding `json:"finding"`
}

// Disagreements counts disagreeing frames and frames an independent SFrame
// trace skipped or invented, over all samples.
func (a *Aggregate) Disagreements() int {
	return a.Disagree + a.ByKind[KindMissingFrame] + a.ByKind[KindExtraFrame]
}

// NewAggregate returns an empty aggregate.
func NewAggregate() *Aggregate {
	return &Aggregate{SchemaVersion: SchemaVersion, ByKind: map[Kind]int{}, ByModule: map[string]int{},
		ByFunction: map[string]int{}, Examples: map[Kind]Example{}}
}

// Add merges one thread's trace taken in sample number sample. A thread
// whose frame-pointer chain differs from CFI counts once under
// fp-chain-broken, however many frames differ.
func (a *Aggregate) Add(sample int, t *Trace) {
	a.Stacks++
	a.Frames += len(t.Frames)
	a.Agree += t.Agree
	a.Disagree += t.Disagree
	a.NotCovered += t.NotCovered
	if t.FPBroken > 0 {
		a.ByKind[KindFPChain]++
	}
	for _, f := range t.Findings {
		a.ByKind[f.Kind]++
		if f.Kind != KindFPChain {
			a.ByModule[f.Module]++
			a.ByFunction[f.Function]++
		}
		if _, ok := a.Examples[f.Kind]; !ok {
			a.Examples[f.Kind] = Example{Sample: sample, Thread: t.Thread, Finding: f}
		}
	}
}

// WriteText writes the aggregate: totals, then findings by kind, module
// and function (most frequent first), then one example stop per kind.
func (a *Aggregate) WriteText(w io.Writer, st Style) {
	fmt.Fprintf(w, "samples: %d, thread stacks: %d, frames compared: %d (SFrame agrees %d, disagrees %d, not covered %d)\n",
		a.Samples, a.Stacks, a.Frames, a.Agree, a.Disagree, a.NotCovered)
	if len(a.ByKind) == 0 {
		fmt.Fprintln(w, st.paint("32", "no findings"))
		return
	}
	fmt.Fprintln(w, "findings by kind:")
	for _, k := range Kinds() {
		if n := a.ByKind[k]; n > 0 {
			fmt.Fprintf(w, "  %-18s %8d  %s\n", st.kind(k), n, k.Title())
		}
	}
	if len(a.ByModule) > 0 {
		writeCounts(w, "SFrame findings by module:", a.ByModule)
		writeCounts(w, "SFrame findings by function:", a.ByFunction)
	}
	fmt.Fprintln(w, "one example per kind:")
	for _, k := range Kinds() {
		if e, ok := a.Examples[k]; ok {
			fmt.Fprintf(w, "  %-18s sample %d thread %d: %s\n", k.String(), e.Sample, e.Thread, e.Finding.Message)
		}
	}
}

func writeCounts(w io.Writer, title string, m map[string]int) {
	type kv struct {
		k string
		n int
	}
	var l []kv
	for k, n := range m {
		l = append(l, kv{k, n})
	}
	sort.Slice(l, func(i, j int) bool { return l[i].n > l[j].n || (l[i].n == l[j].n && l[i].k < l[j].k) })
	fmt.Fprintln(w, title)
	for i, e := range l {
		if i == 20 {
			fmt.Fprintf(w, "  ... %d more\n", len(l)-20)
			break
		}
		name := e.k
		if name == "" {
			name = "?"
		}
		fmt.Fprintf(w, "  %8d  %s\n", e.n, name)
	}
}
