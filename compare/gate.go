package compare

// check as a CI gate: which findings fail the run. A disagreement fails
// it unless it matches a known producer fault and known faults are
// ignored, a suppression rule matches it, or an earlier report (the
// baseline) has it.

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"
)

// GateCounts says how a file's findings were classified.
type GateCounts struct {
	// Known counts disagreements that match a known producer fault.
	Known int `json:"known"`
	// IgnoreKnown is set when known faults do not fail the run.
	IgnoreKnown bool `json:"ignore_known,omitempty"`
	// Suppressed and Baselined count findings a suppression rule
	// matched and findings the baseline has (any kind).
	Suppressed int `json:"suppressed"`
	Baselined  int `json:"baselined"`
	// Failing counts the disagreements that fail the run.
	Failing int `json:"failing"`
}

// Gate classifies findings for check's exit status.
type Gate struct {
	IgnoreKnown  bool
	Suppressions []*Suppression
	Baseline     *Baseline
}

// Classify marks the findings of r that a suppression rule matches
// (Finding.Suppressed) or the baseline has (Finding.Baselined), and sets
// r.Gate. Each report is classified once: a baseline entry excuses one
// finding.
func (g *Gate) Classify(r *FileReport) {
	c := &GateCounts{IgnoreKnown: g.IgnoreKnown}
	for i := range r.Findings {
		f := &r.Findings[i]
		for _, s := range g.Suppressions {
			if s.matches(f, r.Producers) {
				f.Suppressed = s.Source
				s.Hits++
				c.Suppressed++
				break
			}
		}
		if g.Baseline.take(r.File, f) {
			f.Baselined = true
			c.Baselined++
		}
		if !f.Kind.Disagreement() {
			continue
		}
		if f.Known != "" || f.Class != "" {
			c.Known++ // a known producer fault, or a named class of them
		}
		if !f.excused(g.IgnoreKnown) {
			c.Failing++
		}
	}
	r.Gate = c
}

// excused reports whether a finding does not fail the run.
func (f *Finding) excused(ignoreKnown bool) bool {
	return f.Suppressed != "" || f.Baselined || (ignoreKnown && (f.Known != "" || f.Class != ""))
}

// Failing returns the number of disagreements of r that fail the run: all
// of them before Gate.Classify.
func (r *FileReport) Failing() int {
	if r.Gate == nil {
		return r.Disagreements()
	}
	return r.Gate.Failing
}

// Suppression is one rule of a suppressions file: a finding is suppressed
// when its kind matches Kind, its function or its function's section
// matches Place, and one of the file's producers (FileReport.Producers)
// matches Producer; each is a path.Match glob.
type Suppression struct {
	Kind, Place, Producer string
	// Source is where the rule was read: "FILE:LINE".
	Source string
	// Hits counts the findings it suppressed.
	Hits int
}

func (s *Suppression) matches(f *Finding, producers []string) bool {
	if ok, _ := path.Match(s.Kind, f.Kind.String()); !ok {
		return false
	}
	place := false
	for _, p := range []string{f.Function, f.place, f.Section} {
		if ok, _ := path.Match(s.Place, p); ok && p != "" {
			place = true
		}
	}
	if !place && s.Place != "*" {
		return false
	}
	if s.Producer == "*" {
		return true
	}
	for _, p := range producers {
		if ok, _ := path.Match(s.Producer, p); ok {
			return true
		}
	}
	return false
}

// ParseSuppressions reads a suppressions file named name: one rule per
// line, "KIND PLACE [PRODUCER]", fields separated by blanks, the producer
// being the rest of the line (it may hold blanks: "GNU ld*"), "*" when
// absent; blank lines and lines starting with # are ignored. KIND is a
// kind name (plt, cfa, ...) or a glob over them. An error names the file
// and line.
func ParseSuppressions(name string, r io.Reader) ([]*Suppression, error) {
	var out []*Suppression
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		bad := func(format string, a ...any) error {
			return fmt.Errorf("%s:%d: %s", name, n, fmt.Sprintf(format, a...))
		}
		f := strings.Fields(line)
		if len(f) < 2 {
			return nil, bad("want KIND PLACE [PRODUCER], got %q", line)
		}
		kind, place, prod := f[0], f[1], "*"
		if len(f) > 2 {
			prod = strings.Join(f[2:], " ")
		}
		s := &Suppression{Kind: kind, Place: place, Producer: prod, Source: fmt.Sprintf("%s:%d", name, n)}
		for _, g := range []string{kind, place, prod} {
			if _, err := path.Match(g, ""); err != nil {
				return nil, bad("bad glob %q", g)
			}
		}
		if !strings.ContainsAny(kind, "*?[") {
			var k Kind
			if err := k.UnmarshalText([]byte(kind)); err != nil {
				return nil, bad("unknown finding kind %q (kinds: %s)", kind, kindList())
			}
		}
		out = append(out, s)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return out, nil
}

func kindList() string {
	var s []string
	for _, k := range Kinds() {
		s = append(s, k.String())
	}
	return strings.Join(s, ", ")
}

// Baseline is the findings of an earlier check --json report, by stable
// key: file, kind, function (or section and offset, in an object) and PC
// offset in the function, which do not move when code elsewhere does.
type Baseline struct {
	keys map[baselineKey]int
}

type baselineKey struct {
	file, kind, function string
	offset               uint64
}

func keyOf(file string, f *Finding) baselineKey {
	fn := f.Function
	if fn == "" && f.Section != "" {
		fn = fmt.Sprintf("%s+%#x", f.Section, f.SectionOff)
	}
	return baselineKey{file: file, kind: f.Kind.String(), function: fn, offset: f.PC - f.FuncStart}
}

// take reports whether b has f's key in the report of file, and uses it.
func (b *Baseline) take(file string, f *Finding) bool {
	if b == nil {
		return false
	}
	k := keyOf(file, f)
	if b.keys[k] == 0 {
		return false
	}
	b.keys[k]--
	return true
}

// ReadBaseline reads the output of check --json named name: one
// CheckDocument, or JSON Lines of FileReports and a closing document. An
// error names the file and the byte offset.
func ReadBaseline(name string, r io.Reader) (*Baseline, error) {
	b := &Baseline{keys: map[baselineKey]int{}}
	dec := json.NewDecoder(r)
	docs := 0
	for {
		// Only what the keys need: a report's other fields (acceptance,
		// summary) are not read back.
		type file struct {
			File     string    `json:"file"`
			Findings []Finding `json:"findings"`
		}
		var doc struct {
			Files []*file `json:"files"`
			file
		}
		off := dec.InputOffset()
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: at byte %d: not a check --json report: %w", name, off, err)
		}
		docs++
		files := doc.Files
		if doc.File != "" {
			files = append(files, &doc.file)
		}
		for _, fr := range files {
			for i := range fr.Findings {
				b.keys[keyOf(fr.File, &fr.Findings[i])]++
			}
		}
	}
	if docs == 0 {
		return nil, fmt.Errorf("%s: empty: not a check --json report", name)
	}
	return b, nil
}
