package compare

import (
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/sfdbg/sfdbg/sframe"
)

// How a linker handled its inputs' .sframe sections (LinkReport.Handling).
const (
	// LinkMerged: one SFrame section, written by the linker (one header
	// over every FDE).
	LinkMerged = "merged"
	// LinkConcatenated: the inputs' sections back to back, each with its
	// header, as a linker that does not know SFrame copies them.
	LinkConcatenated = "concatenated"
	// LinkDropped: the output has no SFrame section.
	LinkDropped = "dropped"
)

// LinkReport says what a linker did with its input objects' SFrame, and
// which of the output's disagreements the linker caused.
type LinkReport struct {
	Output string   `json:"output"`
	Inputs []string `json:"inputs"`
	// InputSections counts the inputs with an SFrame section.
	InputSections int `json:"input_sframe_sections"`
	// Handling is merged, concatenated or dropped; Parts the number of
	// SFrame sections (headers) in the output's .sframe.
	Handling string `json:"handling"`
	Parts    int    `json:"parts,omitempty"`
	// Segment is set when the output has a PT_GNU_SFRAME program header;
	// SegmentSize is its p_filesz and SectionSize the .sframe section's
	// size, in bytes.
	Segment     bool   `json:"pt_gnu_sframe"`
	SegmentSize uint64 `json:"segment_size,omitempty"`
	SectionSize uint64 `json:"section_size,omitempty"`
	// Functions counts the input functions with SFrame that the output
	// holds; Same those whose output SFrame rows are the input's at every
	// instruction.
	Functions int `json:"functions"`
	Same      int `json:"functions_same"`
	// Missing names the input functions with SFrame whose code the output
	// holds without an SFrame FDE.
	Missing []string `json:"missing,omitempty"`
	// Faults are the semantic differences between an input's SFrame rows
	// and the output's for the same function: the linker changed them.
	Faults []Difference `json:"faults,omitempty"`
	// Disagreements counts check's disagreements on the output; Linker
	// holds those the linker caused: in functions whose rows it changed,
	// in an object's function where that object's own check found no
	// disagreement of that kind, or in the PLT the linker writes.
	Disagreements int       `json:"disagreements"`
	Linker        []Finding `json:"linker_findings,omitempty"`
	// MisplacedRelocs counts, in a relocatable output (-r), the
	// relocations of .sframe that are not on an FDE's function-start
	// field: a final link writes those addresses into other bytes.
	MisplacedRelocs int `json:"misplaced_relocations,omitempty"`
	// Problems are what the linker did wrong to the section as a whole:
	// dropped or concatenated the objects' sections, wrote no
	// PT_GNU_SFRAME in an executable or shared object, or one that does
	// not match .sframe.
	Problems []string `json:"problems,omitempty"`
}

// JudgeLink compares a linked output (an executable, a shared object or a
// relocatable link) with the objects it was linked from: how it handled
// their .sframe sections (LinkReport.Handling), whether PT_GNU_SFRAME
// covers exactly .sframe, each input function's SFrame rows against the
// output's for the same function (Diff, by symbol name; a row is compared
// relative to its function's start, so relocation does not matter), and
// check's disagreements on the output, attributed to the linker when the
// input's rows were right (not changed) but the output's are not. The
// error names the file that cannot be read.
func JudgeLink(output string, inputs []string) (*LinkReport, error) {
	rep := &LinkReport{Output: output, Inputs: inputs}
	for _, in := range inputs {
		f, err := elf.Open(in)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", in, err)
		}
		if sframeSection(f) != nil {
			rep.InputSections++
		}
		f.Close()
	}
	f, err := elf.Open(output)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", output, err)
	}
	sec := sframeSection(f)
	for _, p := range f.Progs {
		if p.Type == sframe.PT_GNU_SFRAME {
			rep.Segment, rep.SegmentSize = true, p.Filesz
		}
	}
	if sec != nil {
		rep.SectionSize = sec.Size
		if rep.Segment && (rep.SegmentSize != sec.Size) {
			rep.Problems = append(rep.Problems, fmt.Sprintf("PT_GNU_SFRAME is %d bytes (p_filesz %#x) but .sframe is %d (%#x): it covers %d bytes past the section's end",
				rep.SegmentSize, rep.SegmentSize, sec.Size, sec.Size, int64(rep.SegmentSize)-int64(sec.Size)))
		}
	}
	linked := f.Type == elf.ET_EXEC || f.Type == elf.ET_DYN
	if f.Type == elf.ET_REL && sec != nil {
		rep.checkRelocs(f, sec)
	}
	f.Close()
	m := pathModule(output)
	s, err := m.SFrame()
	m.Close()
	switch {
	case errors.Is(err, sframe.ErrNoSection):
		rep.Handling = LinkDropped
	case err != nil:
		return nil, fmt.Errorf("%s: %w", output, err)
	default:
		rep.Parts = s.Parts()
		rep.Handling = LinkMerged
		if rep.Parts > 1 {
			rep.Handling = LinkConcatenated
		}
	}
	switch {
	case rep.Handling == LinkDropped && rep.InputSections > 0:
		rep.Problems = append(rep.Problems, fmt.Sprintf("the output has no SFrame section: the linker dropped the %d objects' .sframe", rep.InputSections))
	case rep.Handling == LinkConcatenated:
		rep.Problems = append(rep.Problems, fmt.Sprintf("the objects' sections are concatenated (%d SFrame headers), not merged: the Linux kernel and libsframe read only the first", rep.Parts))
	}
	if linked && !rep.Segment && rep.Handling != LinkDropped {
		rep.Problems = append(rep.Problems, "no PT_GNU_SFRAME: the Linux kernel finds SFrame only through it")
	}
	// Input functions, and whether the linker changed their rows.
	changed := map[string]bool{}
	inputFn := map[string]bool{}
	for _, in := range inputs {
		d, err := Diff(in, output, DiffOptions{OnlyA: true, Tables: []string{TableSFrame}})
		if err != nil {
			return nil, err
		}
		side, err := loadDiffSide(in)
		if err != nil {
			return nil, err
		}
		bad := map[string]bool{}
		missing := map[string]bool{}
		for _, dd := range d.Differences {
			switch {
			case dd.Class == DiffSemantic:
				dd.Message = fmt.Sprintf("%s (A: %s, B: %s)", dd.Message, in, output)
				rep.Faults = append(rep.Faults, dd)
				bad[dd.Function] = true
			case dd.What == "no-fde":
				missing[dd.Function] = true
			}
		}
		for _, fn := range side.funcs {
			if !fn.hasSF {
				continue
			}
			inputFn[fn.name] = true
			if fn.nth >= len(d.inB[fn.name]) {
				continue // not in the output (--gc-sections, --icf)
			}
			if missing[fn.name] {
				if rep.Handling != LinkDropped {
					rep.Missing = append(rep.Missing, fn.name)
				}
				continue
			}
			rep.Functions++
			if bad[fn.name] {
				changed[fn.name] = true
			} else {
				rep.Same++
			}
		}
	}
	sort.Strings(rep.Missing)
	if rep.Handling == LinkDropped {
		return rep, nil
	}
	cr, err := CheckFile(output, CheckOptions{})
	if err != nil {
		return nil, err
	}
	// What the objects' own checks found: a disagreement the output shares
	// with its object (same function, same kind) is the object's.
	type fnKind struct {
		fn   string
		kind Kind
	}
	inputHas := map[fnKind]bool{}
	for _, in := range inputs {
		ir, err := CheckFile(in, CheckOptions{})
		if err != nil && !errors.Is(err, ErrNoSFrame) {
			return nil, err
		}
		for _, fd := range ir.Findings {
			inputHas[fnKind{fd.Function, fd.Kind}] = true
		}
	}
	for _, fd := range cr.Findings {
		if !fd.Kind.Disagreement() {
			continue
		}
		rep.Disagreements++
		switch {
		case changed[fd.Function]:
		case inputFn[fd.Function] && !inputHas[fnKind{fd.Function, fd.Kind}]:
		case !inputFn[fd.Function] && (fd.Kind == KindPLT || strings.HasPrefix(fd.place, ".plt")):
		default:
			continue // the object's, or code from elsewhere (crt, libc)
		}
		rep.Linker = append(rep.Linker, fd)
	}
	return rep, nil
}

// checkRelocs checks, in a relocatable output, that each relocation of
// .sframe is on the function-start field of an FDE (the field the
// assembler relocates: the first of an FDE, spec v2 §2.3, v3 §2.3), as
// parsed from the unrelocated section.
func (r *LinkReport) checkRelocs(f *elf.File, sec *elf.Section) {
	data, err := sec.Data()
	if err != nil {
		return
	}
	s, err := sframe.Parse(data)
	if err != nil {
		return
	}
	fdeAt := map[uint64]bool{}
	for _, fde := range s.FDEs() {
		fdeAt[uint64(fde.Off)] = true
	}
	for i, rs := range f.Sections {
		if rs.Type != elf.SHT_RELA || int(rs.Info) >= len(f.Sections) || f.Sections[rs.Info] != sec || f.Class != elf.ELFCLASS64 {
			continue
		}
		rel, err := rs.Data()
		if err != nil {
			continue
		}
		var bad []string
		for off := 0; off+24 <= len(rel); off += 24 {
			at := f.ByteOrder.Uint64(rel[off:])
			if !fdeAt[at] {
				r.MisplacedRelocs++
				if len(bad) < 4 {
					bad = append(bad, fmt.Sprintf("%#x", at))
				}
			}
		}
		if r.MisplacedRelocs > 0 {
			r.Problems = append(r.Problems, fmt.Sprintf("%d of the %d relocations of .sframe (section %d, %s) are not on an FDE's function-start field (at %s): a final link writes those addresses into other bytes (FREs)",
				r.MisplacedRelocs, len(rel)/24, i, rs.Name, strings.Join(bad, ", ")))
		}
	}
}

// sframeSection returns the file's SFrame section: SHT_GNU_SFRAME, else
// the section named .sframe; nil when there is none.
func sframeSection(f *elf.File) *elf.Section {
	for _, s := range f.Sections {
		if s.Type == sframe.SHT_GNU_SFRAME {
			return s
		}
	}
	return f.Section(".sframe")
}

// Verdict is the report in one line, for a table cell: the handling,
// PT_GNU_SFRAME, the rows against the objects, and the linker's
// disagreements.
func (r *LinkReport) Verdict() string {
	var parts []string
	switch r.Handling {
	case LinkDropped:
		parts = append(parts, "dropped (no .sframe)")
	case LinkConcatenated:
		parts = append(parts, fmt.Sprintf("concatenated (%d sections)", r.Parts))
	default:
		parts = append(parts, "merged")
	}
	switch {
	case r.Segment && r.SegmentSize != r.SectionSize:
		parts = append(parts, fmt.Sprintf("PT_GNU_SFRAME %+d bytes past .sframe", int64(r.SegmentSize)-int64(r.SectionSize)))
	case r.Segment:
		parts = append(parts, "PT_GNU_SFRAME")
	default:
		parts = append(parts, "no PT_GNU_SFRAME")
	}
	if r.Handling == LinkDropped {
		parts = append(parts, "-", "-")
	} else {
		s := fmt.Sprintf("rows %d/%d as in the objects", r.Same, r.Functions)
		if len(r.Missing) > 0 {
			s += fmt.Sprintf(", %d FDEs dropped", len(r.Missing))
		}
		if r.MisplacedRelocs > 0 {
			s += fmt.Sprintf(", %d relocations off their FDE", r.MisplacedRelocs)
		}
		parts = append(parts, s)
		linker := map[string]bool{}
		for _, f := range r.Linker {
			linker[orAddr(f.Function, f.FuncStart)+" ("+f.Kind.String()+")"] = true
		}
		names := make([]string, 0, len(linker))
		for n := range linker {
			names = append(names, n)
		}
		sort.Strings(names)
		if len(names) == 0 {
			parts = append(parts, "no linker disagreement")
		} else {
			parts = append(parts, "linker: "+strings.Join(names, ", "))
		}
	}
	return strings.Join(parts, "; ")
}

// WriteText writes the report: the verdict, then the linker's faults.
func (r *LinkReport) WriteText(w io.Writer) {
	fmt.Fprintf(w, "%s (from %s)\n", r.Output, strings.Join(r.Inputs, " "))
	fmt.Fprintf(w, "  inputs with .sframe: %d of %d; output: %s", r.InputSections, len(r.Inputs), r.Handling)
	if r.Parts > 1 {
		fmt.Fprintf(w, " (%d SFrame sections back to back)", r.Parts)
	}
	if r.Segment {
		fmt.Fprintf(w, "; PT_GNU_SFRAME %d bytes, .sframe %d bytes\n", r.SegmentSize, r.SectionSize)
	} else {
		fmt.Fprintf(w, "; no PT_GNU_SFRAME\n")
	}
	for _, p := range r.Problems {
		fmt.Fprintf(w, "  linker fault: %s\n", p)
	}
	if r.Handling != LinkDropped {
		fmt.Fprintf(w, "  functions: %d of the objects' with SFrame in the output, %d with the objects' rows\n", r.Functions, r.Same)
	}
	for _, n := range r.Missing {
		fmt.Fprintf(w, "  linker dropped the SFrame FDE of %s\n", n)
	}
	for _, d := range r.Faults {
		fmt.Fprintf(w, "  linker changed rows: %s\n", d.Message)
	}
	for _, f := range r.Linker {
		fmt.Fprintf(w, "  linker's disagreement: %s %s: %s\n", orAddr(f.Function, f.FuncStart), f.Kind, f.Message)
	}
	if r.Handling != LinkDropped {
		fmt.Fprintf(w, "  check: %d disagreements, %d the linker's\n", r.Disagreements, len(r.Linker))
	}
	fmt.Fprintf(w, "verdict: %s\n", r.Verdict())
}
