package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/sfdbg/sfdbg/compare"
	"github.com/sfdbg/sfdbg/frames"
)

// maxReproLines is the most lines a reproducer may have (issue 23).
const maxReproLines = 30

// reproducer rebuilds check's findings that an assembler caused as short
// standalone .s files (check --reproduce DIR [--assembler PATH]).
type reproducer struct {
	dir, assembler string
	stderr         io.Writer
	tmp            string
	done           map[string]bool // function names written
}

func newReproducer(dir, assembler string, stderr io.Writer) (*reproducer, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if assembler == "" {
		assembler = "as"
	}
	path, err := exec.LookPath(assembler)
	if err != nil {
		return nil, fmt.Errorf("--assembler %s: %w", assembler, err)
	}
	tmp, err := os.MkdirTemp("", "sfdbg-reproduce-*")
	if err != nil {
		return nil, err
	}
	return &reproducer{dir: dir, assembler: path, stderr: stderr, tmp: tmp, done: map[string]bool{}}, nil
}

func (p *reproducer) close() { os.RemoveAll(p.tmp) }

// command returns the command that assembles src into obj.
func (p *reproducer) command(src, obj string) []string {
	if strings.Contains(filepath.Base(p.assembler), "clang") {
		return []string{p.assembler, "-c", "-Wa,--gsframe,--allow-experimental-sframe", "-o", obj, src}
	}
	return []string{p.assembler, "--gsframe", "-o", obj, src}
}

// file writes the reproducers of a checked file's findings.
func (p *reproducer) file(r *compare.FileReport) {
	for _, f := range r.Findings {
		if compare.ReproCodeKind(f.Kind) && f.Suppressed == "" {
			p.code(r, f)
			continue
		}
		if !compare.ReproKind(f.Kind) || f.Suppressed != "" {
			continue
		}
		name := reproName(f)
		if p.done[name] {
			continue
		}
		p.done[name] = true
		body, err := compare.ReproduceAsm(r.File, f, false)
		if err != nil {
			why := err.Error()
			if errors.Is(err, compare.ErrNotAssemblers) {
				why = strings.TrimSuffix(why, ": "+compare.ErrNotAssemblers.Error()) + ": the fault is not an assembler's, so no .s rebuilds it"
			}
			p.note(name, r.File, f, "not reproduced: "+why)
			continue
		}
		// A CFA change of register and offset is written as one
		// directive, or as two when that is what reproduces the
		// original's rules.
		if split, err := compare.ReproduceAsm(r.File, f, true); err == nil {
			if got, ok := p.finding(name, split, f); ok && got.Rules[frames.MethodSFrame] == f.Rules[frames.MethodSFrame] && got.Rules[frames.MethodCFI] == f.Rules[frames.MethodCFI] {
				if got1, ok1 := p.finding(name, body, f); !ok1 || got1.Rules[frames.MethodSFrame] != f.Rules[frames.MethodSFrame] || got1.Rules[frames.MethodCFI] != f.Rules[frames.MethodCFI] {
					body = split
				}
			} else if _, ok1 := p.finding(name, body, f); !ok1 && ok {
				body = split
			}
		}
		p.reproduce(name, r, f, body)
	}
}

// reproName is the function's name as a file name.
func reproName(f compare.Finding) string {
	n := f.Function
	if n == "" {
		n = fmt.Sprintf("func_%#x", f.FuncStart)
	}
	return strings.Map(func(r rune) rune {
		if r == '_' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return '_'
	}, n)
}

// source is the whole .s for a body.
func source(name string, body []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# sfdbg check --reproduce: %s\n\t.text\n\t.globl\t%s\n\t.type\t%s, @function\n%s:\n\t.cfi_startproc\n", name, name, name, name)
	for _, l := range body {
		b.WriteString(l + "\n")
	}
	fmt.Fprintf(&b, "\t.cfi_endproc\n\t.size\t%s, .-%s\n", name, name)
	return b.String()
}

// persists assembles body and reports whether check still finds f's kind
// in the function with the same SFrame and CFI rules, with the finding.
func (p *reproducer) persists(name string, body []string, f compare.Finding) (compare.Finding, bool) {
	got, ok := p.finding(name, body, f)
	return got, ok && got.Rules[frames.MethodSFrame] == f.Rules[frames.MethodSFrame] && got.Rules[frames.MethodCFI] == f.Rules[frames.MethodCFI]
}

// finding assembles body and returns check's finding of f's kind in the
// function.
func (p *reproducer) finding(name string, body []string, f compare.Finding) (compare.Finding, bool) {
	src, obj := filepath.Join(p.tmp, name+".s"), filepath.Join(p.tmp, name+".o")
	if err := os.WriteFile(src, []byte(source(name, body)), 0o644); err != nil {
		return compare.Finding{}, false
	}
	os.Remove(obj)
	cmd := p.command(src, obj)
	if err := exec.Command(cmd[0], cmd[1:]...).Run(); err != nil {
		return compare.Finding{}, false
	}
	got, ok, err := compare.ReproFinding(obj, name, f.Kind)
	return got, ok && err == nil
}

// reproduce assembles the body, then drops lines while the finding
// persists (three passes at most, each line once per pass), and writes
// DIR/NAME.s and DIR/NAME.txt.
func (p *reproducer) reproduce(name string, r *compare.FileReport, f compare.Finding, body []string) {
	file, orig := r.File, f
	ref, ok := p.finding(name, body, f)
	if !ok {
		made := fmt.Sprintf("the file's SFrame is v%d", r.Version)
		if len(r.Producers) > 0 {
			made += ", its producers " + strings.Join(r.Producers, ", ")
		}
		p.note(name, file, f, fmt.Sprintf("not reproduced: %s does not emit the same fault from the function's regenerated directives (%d lines): another assembler or version made this SFrame (%s), or the fault depends on what the directives do not carry (relocations, the original's exact directives)", p.assembler, len(body), made))
		return
	}
	same := ref.Rules[frames.MethodSFrame] == f.Rules[frames.MethodSFrame] && ref.Rules[frames.MethodCFI] == f.Rules[frames.MethodCFI]
	f = ref // reduce keeping the rules it reproduced
	for pass := 0; pass < 3; pass++ {
		dropped := false
		for i := len(body) - 1; i >= 0; i-- {
			cand := append(append([]string(nil), body[:i]...), body[i+1:]...)
			if _, ok := p.persists(name, cand, f); ok {
				body, dropped = cand, true
			}
		}
		if !dropped {
			break
		}
	}
	got, _ := p.persists(name, body, f)
	src := source(name, body)
	dst := filepath.Join(p.dir, name+".s")
	if err := os.WriteFile(dst, []byte(src), 0o644); err != nil {
		fmt.Fprintf(p.stderr, "sfdbg check: --reproduce: %v\n", err)
		return
	}
	obj := filepath.Join(p.tmp, name+".o")
	expected, actual, _ := compare.ReproRows(obj, name)
	var b strings.Builder
	lines := strings.Count(src, "\n")
	fmt.Fprintf(&b, "finding in %s: %s %s\n", file, orig.Kind, orig.Message)
	fmt.Fprintf(&b, "reproducer: %s (%d lines%s)\n", dst, lines, map[bool]string{true: "", false: fmt.Sprintf(", over the %d-line aim: not reducible further", maxReproLines)}[lines <= maxReproLines])
	fmt.Fprintf(&b, "command: %s\n", strings.Join(p.command(name+".s", name+".o"), " "))
	fmt.Fprintf(&b, "SFrame made by %s from the .cfi directives; CFI by the same assembler from the same directives\n", p.assembler)
	fmt.Fprintf(&b, "reproduced finding: %s %s\n", got.Kind, got.Message)
	if !same {
		fmt.Fprintf(&b, "(with other rules than the original's: SFrame %s, CFI %s there)\n", orig.Rules[frames.MethodSFrame], orig.Rules[frames.MethodCFI])
	}
	b.WriteString("\n")
	fmt.Fprintf(&b, "expected (the CFI's rows):\n    STARTPC           CFA       FP        RA\n")
	for _, l := range expected {
		b.WriteString("    " + l + "\n")
	}
	fmt.Fprintf(&b, "actual (the SFrame FREs):\n    STARTPC           CFA       FP        RA\n")
	for _, l := range actual {
		b.WriteString("    " + l + "\n")
	}
	fmt.Fprintf(&b, "\nsfdbg %s\n", version)
	if err := os.WriteFile(filepath.Join(p.dir, name+".txt"), []byte(b.String()), 0o644); err != nil {
		fmt.Fprintf(p.stderr, "sfdbg check: --reproduce: %v\n", err)
		return
	}
	fmt.Fprintf(p.stderr, "sfdbg check: reproducer for %s: %s (%d lines)\n", orName(f), dst, lines)
}

// note writes DIR/NAME.txt saying why no reproducer was written.
func (p *reproducer) note(name, file string, f compare.Finding, why string) {
	text := fmt.Sprintf("finding in %s: %s %s\n%s\n\nsfdbg %s\n", file, f.Kind, f.Message, why, version)
	if err := os.WriteFile(filepath.Join(p.dir, name+".txt"), []byte(text), 0o644); err != nil {
		fmt.Fprintf(p.stderr, "sfdbg check: --reproduce: %v\n", err)
		return
	}
	fmt.Fprintf(p.stderr, "sfdbg check: %s: %s\n", orName(f), why)
}

func orName(f compare.Finding) string {
	if f.Function != "" {
		return f.Function
	}
	return fmt.Sprintf("%#x", f.FuncStart)
}

// maxCodeTries bounds the assemble-and-check runs that reduce one code
// reproducer.
const maxCodeTries = 400

// code writes the reproducer of a code-oracle finding f (compare.ReproCodeKind):
// DIR/NAME.code.s, the function's instructions as their bytes with the
// CFI directives regenerated from its rows (compare.ReproduceCode),
// assembled with --assembler and checked to give f again, then reduced:
// runs of instructions replaced by nops of the same length, and the
// instructions after the finding dropped, while f persists; and
// DIR/NAME.code.txt: the finding, the command, what the CFI says there and
// what the code says it should. The first finding of a function is the
// one rebuilt.
func (p *reproducer) code(r *compare.FileReport, f compare.Finding) {
	name := reproName(f)
	if p.done["code "+name] {
		return
	}
	p.done["code "+name] = true
	file := name + ".code"
	rep, err := compare.ReproduceCode(r.File, f)
	if err != nil {
		p.note(file, r.File, f, "not reproduced: "+err.Error())
		return
	}
	got, ok, why := p.codeFinding(name, rep, f)
	if !ok {
		p.note(file, r.File, f, fmt.Sprintf("not reproduced: %s: the finding depends on what the function's bytes and CFI do not carry (a callee that does not return, a relocation, a jump table's entries)", why))
		return
	}
	window := rep.Window(12, 4)
	insts, kept := p.reduceCode(name, rep, f)
	got, _, _ = p.codeFinding(name, rep, f)
	src := source(name, rep.Render())
	dst := filepath.Join(p.dir, file+".s")
	if err := os.WriteFile(dst, []byte(src), 0o644); err != nil {
		fmt.Fprintf(p.stderr, "sfdbg check: --reproduce: %v\n", err)
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "finding in %s: %s %s\n", r.File, f.Kind, f.Message)
	fmt.Fprintf(&b, "reproducer: %s (%d lines; %d of the function's %d instructions kept as their bytes, the others nops of the same length or dropped after the finding)\n", dst, strings.Count(src, "\n"), kept, insts)
	fmt.Fprintf(&b, "command: %s && sfdbg check %s.o\n", strings.Join(p.codeCommand(file+".s", name+".o"), " "), name)
	fmt.Fprintf(&b, "reproduced finding: %s %s\n", got.Kind, got.Message)
	if c, t := f.Rules[frames.MethodCode], f.Rules[frames.MethodCFI]; c != "" || t != "" {
		fmt.Fprintf(&b, "at +%#x the CFI says %s; the code says %s, which is what the CFI should say\n", rep.Off, t, c)
	}
	fmt.Fprintf(&b, "\nthe original around the finding (=>), with its CFI directives:\n")
	for _, l := range window {
		b.WriteString(l + "\n")
	}
	fmt.Fprintf(&b, "\nsfdbg %s\n", version)
	if err := os.WriteFile(filepath.Join(p.dir, file+".txt"), []byte(b.String()), 0o644); err != nil {
		fmt.Fprintf(p.stderr, "sfdbg check: --reproduce: %v\n", err)
		return
	}
	fmt.Fprintf(p.stderr, "sfdbg check: reproducer for %s's %s: %s (%d lines)\n", orName(f), f.Kind, dst, strings.Count(src, "\n"))
}

// codeCommand returns the command that assembles a code reproducer (no
// SFrame: the code is judged against the CFI).
func (p *reproducer) codeCommand(src, obj string) []string {
	if strings.Contains(filepath.Base(p.assembler), "clang") {
		return []string{p.assembler, "-c", "-o", obj, src}
	}
	return []string{p.assembler, "-o", obj, src}
}

// codeFinding assembles rep and returns check's finding that is f again
// (compare.ReproCodeFinding), or why there is none.
func (p *reproducer) codeFinding(name string, rep *compare.CodeRepro, f compare.Finding) (compare.Finding, bool, string) {
	src, obj := filepath.Join(p.tmp, name+".s"), filepath.Join(p.tmp, name+".o")
	if err := os.WriteFile(src, []byte(source(name, rep.Render())), 0o644); err != nil {
		return compare.Finding{}, false, err.Error()
	}
	os.Remove(obj)
	cmd := p.codeCommand(src, obj)
	if out, err := exec.Command(cmd[0], cmd[1:]...).CombinedOutput(); err != nil {
		return compare.Finding{}, false, fmt.Sprintf("%s failed: %v: %s", p.assembler, err, firstLine(string(out)))
	}
	got, ok, err := compare.ReproCodeFinding(obj, name, f, rep.Off)
	switch {
	case err != nil:
		return compare.Finding{}, false, err.Error()
	case !ok:
		return compare.Finding{}, false, fmt.Sprintf("check of the rebuilt function does not find %s at +%#x", f.Kind, rep.Off)
	}
	return got, true, ""
}

// reduceCode replaces runs of rep's instructions by nops, halving the run
// length from half the function down to one instruction, then drops the
// instructions after the finding, each while the finding persists, in at
// most maxCodeTries checks. It returns how many instructions the function
// has and how many are kept.
func (p *reproducer) reduceCode(name string, rep *compare.CodeRepro, f compare.Finding) (insts, kept int) {
	var idx []int // instruction lines
	for i, l := range rep.Lines {
		if l.Directive == "" {
			idx = append(idx, i)
		}
	}
	tries := 0
	persists := func() bool {
		tries++
		_, ok, _ := p.codeFinding(name, rep, f)
		return ok
	}
	for size := max(len(idx)/2, 1); tries < maxCodeTries; size /= 2 {
		for k := 0; k < len(idx) && tries < maxCodeTries; k += size {
			run := idx[k:min(k+size, len(idx))]
			var changed []int
			for _, i := range run {
				if !rep.Lines[i].Nop {
					rep.Lines[i].Nop = true
					changed = append(changed, i)
				}
			}
			if len(changed) > 0 && !persists() {
				for _, i := range changed {
					rep.Lines[i].Nop = false
				}
			}
		}
		if size == 1 {
			break
		}
	}
	// The instructions after the finding's.
	var at uint64
	for i, l := range rep.Lines {
		if l.Directive != "" {
			continue
		}
		if at > rep.Off && tries < maxCodeTries {
			saved := rep.Lines
			rep.Lines = rep.Lines[:i:i]
			if !persists() {
				rep.Lines = saved
			}
			break
		}
		at += uint64(len(l.Bytes))
	}
	for _, l := range rep.Lines {
		if l.Directive == "" && !l.Nop {
			kept++
		}
	}
	return len(idx), kept
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
