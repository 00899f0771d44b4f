package main

import (
	"bufio"
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/sfdbg/sfdbg/compare"
)

//go:embed report.html.tmpl
var reportTemplate string

// Bounds that keep a report of a whole distribution usable: the findings
// listed per class (the rest are counted), the findings per class drawn
// instruction by instruction, and the producers named per class.
const (
	reportListPerClass  = 300
	reportPagesPerClass = 3
	reportSeenIn        = 8
)

func init() {
	c := &command{
		name:  "report",
		usage: "report [-o OUT.html] [--pages N] REPORT.jsonl...",
		summary: "make one self-contained HTML page of check --json reports (JSON Lines or one document): the summary,\n" +
			"the findings by class with producer and harm, and the first findings of each class drawn instruction by instruction",
	}
	c.run = func(args []string, stdout, stderr io.Writer) int {
		fs := newFlagSet(c, stderr)
		out := fs.String("o", "report.html", "write the page to `FILE` (- for stdout)")
		pages := fs.Int("pages", reportPagesPerClass, "draw the first `N` findings of each class instruction by instruction (their files must be readable here)")
		if st, ok := parseFlags(fs, args); !ok {
			return st
		}
		if fs.NArg() == 0 {
			fs.Usage()
			return exitError
		}
		var files []*compare.FileReport
		for _, p := range fs.Args() {
			fr, err := readCheckReports(p)
			if err != nil {
				fmt.Fprintf(stderr, "sfdbg report: %v\n", err)
				return exitError
			}
			files = append(files, fr...)
		}
		m := buildReport(files, *pages)
		m.Sources = strings.Join(fs.Args(), ", ")
		w := stdout
		if *out != "-" {
			f, err := os.Create(*out)
			if err != nil {
				fmt.Fprintf(stderr, "sfdbg report: %v\n", err)
				return exitError
			}
			defer f.Close()
			w = f
		}
		bw := bufio.NewWriter(w)
		if err := template.Must(template.New("report").Funcs(reportFuncs).Parse(reportTemplate)).Execute(bw, m); err != nil {
			fmt.Fprintf(stderr, "sfdbg report: %v\n", err)
			return exitError
		}
		if err := bw.Flush(); err != nil {
			fmt.Fprintf(stderr, "sfdbg report: %v\n", err)
			return exitError
		}
		if *out != "-" {
			fmt.Fprintf(stderr, "sfdbg report: %d files, %d findings in %d classes: %s\n", m.Files, m.Findings, len(m.Classes), *out)
		}
		return exitOK
	}
	register(c)
}

// readCheckReports reads check --json output: JSON Lines (one FileReport
// per line, then the totals, which are skipped) or one CheckDocument.
// Errors name the file and the line.
func readCheckReports(path string) ([]*compare.FileReport, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var out []*compare.FileReport
	var doc compare.CheckDocument
	if err := json.Unmarshal(b, &doc); err == nil && len(doc.Files) > 0 {
		return doc.Files, nil
	}
	for i, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		var probe map[string]json.RawMessage
		if err := json.Unmarshal([]byte(line), &probe); err != nil {
			return nil, fmt.Errorf("%s:%d: not a check --json report: %v", path, i+1, err)
		}
		if _, ok := probe["files"]; ok {
			var d compare.CheckDocument
			if err := json.Unmarshal([]byte(line), &d); err != nil {
				return nil, fmt.Errorf("%s:%d: %v", path, i+1, err)
			}
			out = append(out, d.Files...)
			continue
		}
		if _, ok := probe["file"]; !ok {
			continue // the totals line
		}
		var fr compare.FileReport
		if err := json.Unmarshal([]byte(line), &fr); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, i+1, err)
		}
		out = append(out, &fr)
	}
	return out, nil
}

// reportModel is what the page shows.
type reportModel struct {
	Sources, Generated                string
	Files, Errors, Findings           int
	Instructions, Checked, Judged     int
	JudgedShare                       float64
	ByKind                            []countRow
	Groups                            []groupRow
	Classes                           []*classSection
	Unclassified, ClassifiedFindings  int
	ClassifiedShare                   float64
	ProducerFaults, CodeClasses, Harm int
}

type countRow struct {
	Name  string
	Count int
}

// groupRow is a package (a distribution scan's root/PKG/) or a directory.
type groupRow struct {
	Name                        string
	Files, Findings             int
	Checked, Judged             int
	Share                       float64
	NoTables, Errors            int
	FindingsBar, CoverageBarPct float64
}

type classSection struct {
	ID, Title, Producer, Report, Reproducer string
	Misleads, Known                         bool
	Count                                   int
	Findings                                []findingRow
	NotListed                               int
	Pages                                   []drawnPage
	PageErrors                              []string
	// SeenIn are the producers (.comment strings: compiler and version)
	// of the files with the class's findings, most findings first; seen
	// counts them while the reports are read.
	SeenIn []countRow
	seen   map[string]int
}

// drawnPage is a function drawn instruction by instruction: all of it
// when short, else the instructions around the finding and each row that
// differs (drawContext either side), the others elided.
type drawnPage struct {
	*compare.FuncRows
	Rows []drawnRow
}

// drawnRow is one instruction of a drawnPage; Elided counts the
// instructions left out before it.
type drawnRow struct {
	compare.InsnRows
	Elided int
}

// drawWhole is the longest function drawn whole; drawContext the
// instructions kept either side of the finding and of each row that
// differs in a longer one.
const drawWhole, drawContext = 60, 8

// newDrawnPage draws fr for a finding at pc (link-time).
func newDrawnPage(fr *compare.FuncRows, pc uint64) drawnPage {
	keep := make([]bool, len(fr.Insns))
	for i, in := range fr.Insns {
		if len(fr.Insns) <= drawWhole || in.Differs || in.PC == pc {
			for k := max(0, i-drawContext); k <= min(len(keep)-1, i+drawContext); k++ {
				keep[k] = true
			}
		}
	}
	p := drawnPage{FuncRows: fr}
	elided := 0
	for i, in := range fr.Insns {
		if !keep[i] {
			elided++
			continue
		}
		p.Rows = append(p.Rows, drawnRow{InsnRows: in, Elided: elided})
		elided = 0
	}
	if elided > 0 {
		p.Rows = append(p.Rows, drawnRow{Elided: elided})
	}
	return p
}

type findingRow struct {
	File, Function, Kind, Message string
	PC                            uint64
	Anchor                        string
}

func buildReport(files []*compare.FileReport, pages int) *reportModel {
	m := &reportModel{Generated: time.Now().UTC().Format("2006-01-02 15:04 UTC")}
	kinds := map[string]int{}
	groups := map[string]*groupRow{}
	classes := map[string]*classSection{}
	for _, fr := range files {
		m.Files++
		g := groups[groupOf(fr.File)]
		if g == nil {
			g = &groupRow{Name: groupOf(fr.File)}
			groups[g.Name] = g
		}
		g.Files++
		if fr.Err != "" {
			if fr.NoUnwindTables {
				g.NoTables++
			} else {
				m.Errors++
				g.Errors++
			}
			continue
		}
		m.Instructions += fr.Summary.Instructions
		if c := fr.Summary.Code; c != nil {
			m.Checked += c.Checked
			m.Judged += c.Judged
			g.Checked += c.Checked
			g.Judged += c.Judged
		}
		for _, f := range fr.Findings {
			if f.Kind == compare.KindCodeUnknown {
				continue // a coverage note, counted in the judged share
			}
			m.Findings++
			g.Findings++
			kinds[f.Kind.String()]++
			id, known := f.Class, false
			if f.KnownID != "" {
				id, known = f.KnownID, true
			}
			if id == "" {
				id = "unclassified"
			}
			cs := classes[id]
			if cs == nil {
				cs = newClassSection(id, known, f)
				classes[id] = cs
			}
			cs.Count++
			for _, p := range fr.Producers {
				if p == "GNU ld" || p == "GNU as" {
					continue // inferred, not .comment's
				}
				if cs.seen == nil {
					cs.seen = map[string]int{}
				}
				cs.seen[p]++
			}
			if len(cs.Findings) < reportListPerClass {
				cs.Findings = append(cs.Findings, findingRow{File: fr.File, Function: f.Function, Kind: f.Kind.String(), Message: f.Message, PC: f.PC,
					Anchor: fmt.Sprintf("%s-%d", id, len(cs.Findings))})
			} else {
				cs.NotListed++
			}
			drawn := false
			for _, p := range cs.Pages {
				drawn = drawn || p.FuncRows.File == fr.File && p.Start == f.FuncStart
			}
			if id != "unclassified" && !drawn && len(cs.Pages)+len(cs.PageErrors) < pages && f.Kind.String() != "plt" {
				if rows, err := compare.FunctionRows(fr.File, f.FuncStart); err == nil {
					if rows.Function == "" {
						rows.Function = f.Function
					}
					cs.Pages = append(cs.Pages, newDrawnPage(rows, f.PC))
				} else {
					cs.PageErrors = append(cs.PageErrors, err.Error())
				}
			}
		}
	}
	if m.Checked > 0 {
		m.JudgedShare = 100 * float64(m.Judged) / float64(m.Checked)
	}
	for k, n := range kinds {
		m.ByKind = append(m.ByKind, countRow{k, n})
	}
	sort.Slice(m.ByKind, func(i, j int) bool { return m.ByKind[i].Count > m.ByKind[j].Count })
	maxFindings := 1
	for _, g := range groups {
		if g.Checked > 0 {
			g.Share = 100 * float64(g.Judged) / float64(g.Checked)
		}
		maxFindings = max(maxFindings, g.Findings)
		m.Groups = append(m.Groups, *g)
	}
	for i := range m.Groups {
		m.Groups[i].FindingsBar = 100 * float64(m.Groups[i].Findings) / float64(maxFindings)
	}
	sort.Slice(m.Groups, func(i, j int) bool {
		if m.Groups[i].Findings != m.Groups[j].Findings {
			return m.Groups[i].Findings > m.Groups[j].Findings
		}
		return m.Groups[i].Name < m.Groups[j].Name
	})
	for _, cs := range classes {
		for p, n := range cs.seen {
			cs.SeenIn = append(cs.SeenIn, countRow{p, n})
		}
		sort.Slice(cs.SeenIn, func(i, j int) bool {
			a, b := cs.SeenIn[i], cs.SeenIn[j]
			return a.Count > b.Count || a.Count == b.Count && a.Name < b.Name
		})
		cs.SeenIn = cs.SeenIn[:min(len(cs.SeenIn), reportSeenIn)]
		m.Classes = append(m.Classes, cs)
		switch {
		case cs.ID == "unclassified":
			m.Unclassified = cs.Count
		case cs.Known:
			m.ProducerFaults += cs.Count
		default:
			m.CodeClasses += cs.Count
		}
		if cs.Misleads {
			m.Harm += cs.Count
		}
	}
	m.ClassifiedFindings = m.Findings - m.Unclassified
	if m.Findings > 0 {
		m.ClassifiedShare = 100 * float64(m.ClassifiedFindings) / float64(m.Findings)
	}
	sort.Slice(m.Classes, func(i, j int) bool {
		a, b := m.Classes[i], m.Classes[j]
		if (a.ID == "unclassified") != (b.ID == "unclassified") {
			return b.ID == "unclassified"
		}
		if a.Count != b.Count {
			return a.Count > b.Count
		}
		return a.ID < b.ID
	})
	return m
}

// newClassSection describes class id: a code class (compare.Classes), a
// known producer fault (its message names the producer), or the
// unclassified findings.
func newClassSection(id string, known bool, f compare.Finding) *classSection {
	if c, ok := compare.Classes[id]; ok {
		return &classSection{ID: id, Title: c.Title, Producer: c.Producer, Report: c.Report, Reproducer: c.Reproducer, Misleads: c.Misleads}
	}
	if known {
		return &classSection{ID: id, Title: f.Known, Known: true, Misleads: true, Producer: producerOf(f.Known)}
	}
	return &classSection{ID: "unclassified", Title: "findings no class signature matches: read them", Misleads: true}
}

// producerOf takes the producer from a known fault's text ("GNU ld
// 2.44-2.47.50: ...").
func producerOf(known string) string {
	if p, _, ok := strings.Cut(known, ":"); ok {
		return p
	}
	return ""
}

// groupOf names the group of a file: the package of a distribution scan
// (the path component after "root/", as scripts/distro-scan.sh unpacks),
// else its directory.
func groupOf(file string) string {
	parts := strings.Split(filepath.ToSlash(file), "/")
	for i, p := range parts {
		if p == "root" && i+1 < len(parts)-1 {
			return parts[i+1]
		}
	}
	return filepath.Dir(file)
}

var reportFuncs = template.FuncMap{
	"hex":   func(v uint64) string { return fmt.Sprintf("%#x", v) },
	"pct":   func(v float64) string { return fmt.Sprintf("%.1f%%", v) },
	"width": func(v float64) template.CSS { return template.CSS(fmt.Sprintf("width:%.1f%%", v)) },
	"add":   func(a, b int) int { return a + b },
}
