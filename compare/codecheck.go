package compare

// This file judges SFrame and CFI against a third witness, the machine
// code: the code oracle (package frames/code, after the Linux kernel's
// objtool) gives the code's stack state at each instruction of a function,
// and check compares each table's row with it (code-cfa, code-ra,
// code-fp), takes the oracle's own findings (code-state) and counts what
// it could not follow (code-unknown, Summary.Code).

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/sfdbg/sfdbg/frames"
	"github.com/sfdbg/sfdbg/frames/code"
	"github.com/sfdbg/sfdbg/sframe/arch"
	"github.com/sfdbg/sfdbg/sframe/rule"
)

// CodeOracle is the code oracle of static checks: given the module being
// checked (its ELF file, layout, symbols and machine; link-time
// addresses), it returns what analyzes that file's functions, or an error
// saying why it cannot judge the file's code (a machine without a
// decoder): then one code-unknown note says so and nothing is judged. It
// is called once per file, from several goroutines at once in a batch.
type CodeOracle func(m *frames.Module) (CodeFuncs, error)

// CodeFuncs analyzes the machine code of one function of a file: text
// holds the bytes of [start, start+len(text)) at link-time addresses
// (text[0] is at start). It returns the code's state at each instruction
// (frames/code.Analyze, adapted); it must not keep text past the use of
// its result, which ends before the next call. A nil result counts every
// instruction of the function as not judged.
type CodeFuncs func(text []byte, start uint64) CodeRows

// startOracle sets up the code oracle for the file of m (CheckOptions.Code):
// none without one; where it cannot judge the file, a code-unknown note
// that says why, and a CodeSummary that judged nothing.
func (c *checker) startOracle(m *frames.Module, oracle CodeOracle) {
	if oracle == nil {
		return
	}
	fs, err := oracle(m)
	if err == nil && fs == nil {
		err = errors.New("the code oracle gave no analyzer")
	}
	if err != nil {
		c.codeSummary().Unknown = 1
		c.addFileWide(Finding{Kind: KindCodeUnknown, Message: fmt.Sprintf("the code oracle cannot judge this file's code: %v", err)})
		return
	}
	c.oracle = fs
}

// CodeRows is the code oracle's result for one function.
type CodeRows interface {
	// At returns the code's state at the instruction at pc, on entry to
	// it (before it executes). A pc the oracle did not reach or could not
	// follow gives Known false and the reason.
	At(pc uint64) CodeState
	// CFAVia returns k where, before the instruction at pc, the CFA is
	// register reg + k bytes, when the code knows it (frames/code
	// State.CFAVia: SP, FP and registers that hold a copy of them, such
	// as a DRAP register): a table may base the CFA
	// on any register that holds it, whichever the code's Row prefers.
	CFAVia(pc uint64, reg rule.Reg) (int64, bool)
	// States lists the faults of the code's own stack discipline, in
	// address order: where two paths reach an instruction with different
	// states (objtool's "stack state mismatch"), a return or a tail call
	// with the frame not the caller's (frames/code KindState, KindRet,
	// KindTailCall). Each is a code-state finding.
	States() []CodeNote
}

// CodeState is the code's stack state at one instruction.
type CodeState struct {
	// Row is the state in the tables' vocabulary: CFA = ValOffset of SP
	// or FP plus k bytes (the base the code prefers: FP once FP is a frame
	// pointer); RA and FP Offset from the CFA where saved, SameValue (or
	// Register) while still in their registers. Register numbers are
	// DWARF's for the file's machine.
	Row rule.Row
	// ID identifies the state among the function's: instructions with the
	// same ID have the same state (frames/code Inst.State), and one
	// judgement serves a run of them.
	ID int
	// AltRA and AltFP are rules as right as Row.RA and Row.FP where the
	// code knows both: a register restored from its slot (pop %rbp) is
	// also still in that slot until it is overwritten, so a table that
	// keeps c-16 until the return (GCC's last epilogue has no
	// .cfi_restore) is right too, as long as nothing can overwrite the
	// slot: at or above SP, or in x86-64's red zone, which signal
	// delivery skips. Undefined: none.
	AltRA, AltFP rule.Rule
	// Known is false where the oracle could not follow the code; Why
	// then says why ("indirect jump", "unknown instruction"). Padding
	// (with Known false) marks alignment padding no path reaches (the
	// nops before a loop head): not code, so neither judged nor counted
	// in CodeSummary.Checked.
	Known, Padding bool
	Why            string
	// Inst is the instruction's text ("mov %rsp,%rbp"); After is the
	// text of the instruction whose effect made the state (the last one
	// to change it on the path the oracle followed first) and AfterPC its
	// address; After is "" at the function's entry. Either may be "".
	Inst, After string
	AfterPC     uint64
}

// CodeNote is a finding of the oracle's own about the code at PC: the
// message says what, without the function's name ("paths meet with CFA
// rsp+16 and rsp+24").
type CodeNote struct {
	PC      uint64
	Message string
}

// CodeSummary counts, per file, the instructions the code oracle judged:
// Judged of Checked, the instructions the oracle was asked about (those
// compared, Summary.Instructions, and those of the functions only CFI
// covers) but padding (CodeState.Padding), Share the ratio (0 when none
// was checked). Unknown counts the
// code-unknown notes (one per function the oracle did not follow
// entirely).
type CodeSummary struct {
	Checked int     `json:"instructions_checked"`
	Judged  int     `json:"instructions_judged"`
	Share   float64 `json:"judged_share"`
	Unknown int     `json:"unknown_notes"`
}

// add adds o's counts and recomputes the share.
func (s *CodeSummary) add(o CodeSummary) {
	s.Checked += o.Checked
	s.Judged += o.Judged
	s.Unknown += o.Unknown
	s.Share = 0
	if s.Checked > 0 {
		s.Share = float64(s.Judged) / float64(s.Checked)
	}
}

// String says it for text reports: "judged 950 of 1000 instructions
// (95.0%); 2 functions not followed entirely (code-unknown)".
func (s *CodeSummary) String() string {
	t := fmt.Sprintf("judged %d of %d instructions (%.1f%%)", s.Judged, s.Checked, 100*s.Share)
	if s.Unknown > 0 {
		t += fmt.Sprintf("; %d functions not followed entirely (code-unknown)", s.Unknown)
	}
	return t
}

// codeSummary returns the report's CodeSummary, made on first use: a
// check with an oracle has one even when it judged nothing.
func (c *checker) codeSummary() *CodeSummary {
	if c.rep.Summary.Code == nil {
		c.rep.Summary.Code = &CodeSummary{}
	}
	return c.rep.Summary.Code
}

// funcCode returns the bytes of [start, end) when they lie in one
// executable section (c.text) and are at most maxDecodeSpan long, as
// c.code: valid until the next call, not to be written. A section of at
// most maxSectionRead bytes is read whole on first use (one read, not one
// per function; memory linear in the file's code); a larger one, a span
// at a time into a buffer, once for consecutive calls on the same span.
func (c *checker) funcCode(start, end uint64) ([]byte, bool) {
	if end <= start || end-start > maxDecodeSpan {
		return nil, false
	}
	n := int(end - start)
	if c.codeSpan == (Range{start, end}) && len(c.code) == n {
		return c.code, true
	}
	for i := range c.text {
		t := &c.text[i]
		if start < t.addr || end-t.addr > t.size {
			continue
		}
		c.code, c.codeSpan = nil, Range{}
		if data := t.whole(); data != nil {
			c.code = data[start-t.addr : end-t.addr : end-t.addr]
		} else {
			if cap(c.spanBuf) < n {
				c.spanBuf = make([]byte, n)
			}
			c.spanBuf = c.spanBuf[:n]
			if _, err := t.r.ReadAt(c.spanBuf, int64(start-t.addr)); err != nil {
				return nil, false
			}
			c.code = c.spanBuf
		}
		c.codeSpan = Range{start, end}
		return c.code, true
	}
	return nil, false
}

// maxSectionRead bounds, in bytes, an executable section funcCode reads
// whole.
const maxSectionRead = 64 << 20

// whole returns the section's bytes, read on first use, or nil when it is
// over maxSectionRead bytes or cannot be read whole (a size beyond the
// file's end): then it is read a span at a time. It reads 64 KiB, then
// twice as much as it has read each time, so that what it allocates is
// bounded by a few times the bytes the file has, not by the size the
// section declares.
func (t *textRange) whole() []byte {
	if t.data != nil || t.partial {
		return t.data
	}
	t.partial = true
	if t.size == 0 || t.size > maxSectionRead {
		return nil
	}
	var b []byte
	for off := uint64(0); off < t.size; {
		n := min(max(off, 64<<10), t.size-off)
		b = slices.Grow(b, int(n))[:off+n]
		if _, err := t.r.ReadAt(b[off:], int64(off)); err != nil {
			return nil
		}
		off += n
	}
	t.data, t.partial = b, false
	return t.data
}

// codeRows runs the oracle on the function [start, end): nil without an
// oracle; where the code cannot be read, or the oracle gives nothing,
// rows that judge no instruction, saying why.
func (c *checker) codeRows(start, end uint64) CodeRows {
	if c.oracle == nil {
		return nil
	}
	text, ok := c.funcCode(start, end)
	if !ok {
		return notFollowed("its code is not in one executable section")
	}
	if r := c.oracle(text, start); r != nil {
		return r
	}
	return notFollowed("the code oracle gave no result")
}

// notFollowed is the CodeRows of a function the oracle did not analyze.
type notFollowed string

func (n notFollowed) At(uint64) CodeState                 { return CodeState{Why: string(n)} }
func (notFollowed) CFAVia(uint64, rule.Reg) (int64, bool) { return 0, false }
func (notFollowed) States() []CodeNote                    { return nil }

// codeRun is a maximal sequence of instructions with the same code state,
// the same table rows and the same differences.
type codeRun struct {
	start, end uint64
	n          int
	key        codeKey
	st         CodeState // the state at start
}

type codeKey struct {
	ref, subj RowDiff // the code against the reference and the subject
	// The code's state and the table rows.
	id, si, ci int
	row        rule.Row
}

// sameInput reports whether the code's state st and the table rows si, ci
// are those the key was judged on: then so are the differences.
func (k *codeKey) sameInput(st *CodeState, si, ci int) bool {
	return k.id == st.ID && k.si == si && k.ci == ci && k.row == st.Row
}

// codeReason is one reason the oracle gave for instructions it did not
// judge: how many, and the first one's address.
type codeReason struct {
	why string
	pc  uint64
	n   int
}

// maxCodeReasons bounds the reasons one code-unknown note lists.
const maxCodeReasons = 3

// codeJudge judges the tables of one function against the code, an
// instruction at a time (judge), and records its findings (finish).
type codeJudge struct {
	c         *checker
	arch      *arch.Arch // whose register names the messages use
	fn        fnRef
	rows      CodeRows
	ref, subj witness
	cur       codeRun
	// checked and judged count instructions; listed and unlisted the
	// disagreements (at most maxFindingsPerFDE listed), more the first
	// unlisted.
	checked, judged  int
	listed, unlisted int
	more             Finding
	// scratchListed counts the code-scratch notes listed (as listed).
	scratchListed int
	unknown       int
	reasons       []codeReason
	// entered is why no instruction of the function is judged
	// (enteredOtherwise), or "".
	entered string
	// classes remembers the class of the function's findings by kind
	// and table row, and lastEnd/lastClass the previous run's: a run that
	// continues a classified one (adjacent, or the same table row on
	// another path) is of its class (inheritClass).
	classes   map[classKey]string
	lastEnd   uint64
	lastKind  Kind
	lastClass string
}

// classKey is a finding's kind and the table's and the code's CFA rules.
type classKey struct {
	kind        Kind
	table, code rule.Rule
}

// inheritClass returns f's class: its own, else that of the run it
// continues (the previous run, adjacent, of the same kind: the same fault
// over the next instructions), else that of an earlier run with the same
// table and code rules (the same fault on another path).
func (j *codeJudge) inheritClass(f Finding, r codeRun) string {
	t, _ := j.ref.cfaAt(r.start)
	cr, _ := j.codeCFAAt(r.start)
	k := classKey{f.Kind, t, cr}
	class := f.Class
	if class == "" && r.start == j.lastEnd && f.Kind == j.lastKind {
		class = j.lastClass
	}
	if class == "" {
		class = j.classes[k]
	}
	if class != "" {
		if j.classes == nil {
			j.classes = map[classKey]string{}
		}
		j.classes[k] = class
	}
	j.lastEnd, j.lastKind, j.lastClass = r.end, f.Kind, class
	return class
}

func (c *checker) newCodeJudge(fn fnRef, rows CodeRows, ref, subj witness) *codeJudge {
	j := &codeJudge{c: c, arch: c.arch, fn: fn, rows: rows, ref: ref, subj: subj}
	if e, ok := rows.(interface{ EnteredByJumps() bool }); !ok || !e.EnteredByJumps() {
		first := fn.start
		if p, ok := rows.(interface{ FirstInstruction() uint64 }); ok {
			first = p.FirstInstruction()
		}
		j.entered = enteredOtherwise(c.arch, first, ref.rows)
	}
	return j
}

// enteredOtherwise says why a function whose reference rows give a CFA
// at its first instruction (start: its entry, or past the nops that
// begin it) other than the machine's after a call (arch.Arch.Entry) is
// not judged: it is entered by a jump with a frame of its own (glibc's
// _dl_runtime_resolve, entered from PLT0 with two words pushed:
// CFA=rsp+24; a cold part whose symbol a stripped file lacks), or by the
// unwinder (a C++ landing pad in a cold part: GCC starts the part with a
// nop, at the CIE's call-entry rules, so that the pad's offset is not 0,
// and gives the frame's CFA after it), and the code's state from a call
// says nothing about it.
// "" for an ordinary entry, or one the rows do not cover. Rows that
// start from the states at the jumps into the function (a cold part:
// EnteredByJumps true) are judged.
func enteredOtherwise(a *arch.Arch, start uint64, rows []frames.Row) string {
	if a == nil {
		return ""
	}
	i := sort.Search(len(rows), func(i int) bool { return rows[i].End > start })
	if i == len(rows) || rows[i].Start > start {
		return ""
	}
	r := rows[i]
	if !frames.NotCallEntry(a, &r.Row) {
		return ""
	}
	return fmt.Sprintf("entered with CFA=%s by its CFI, not by a call (a cold part or a trampoline that jumps enter)", frames.RuleStringFor(a, r.CFA))
}

// judge judges the instruction [pc, next) where the subject's row is
// subj.rows[si] (si < 0: none) and the reference's ref.rows[ci].
func (j *codeJudge) judge(pc, next uint64, si, ci int) {
	if j.ref.rows[ci].Signal || si >= 0 && j.subj.rows[si].Signal {
		// The kernel enters a signal trampoline with its own frame
		// (CIE augmentation "S", SFrame's signal bit), not by a call:
		// the code's state from the entry says nothing about it.
		j.flush()
		j.checked++
		j.notJudged(pc, "a signal trampoline: the kernel enters it, not a call")
		return
	}
	why := j.entered
	if c := j.ref.rows[ci].CFA; why == "" {
		why = untracked(j.arch, c)
		if why != "" && c.Kind == rule.ValOffset {
			if _, ok := j.rows.CFAVia(pc, c.Reg); ok {
				why = "" // a copy of SP or FP the code follows (lea (%rsp),%rax; CFA=rax+8)
			} else if h, ok := j.rows.(interface{ HoldsCaller(uint64, rule.Reg) bool }); ok && h.HoldsCaller(pc, c.Reg) {
				// Not a DRAP register: one is set from SP before the
				// realignment; this one still holds the caller's value
				// (.cfi_def_cfa_register %rbx while the frame is on rbp).
				// Judged, it differs from the code's CFA.
				why = ""
			}
		}
	}
	if why != "" {
		j.flush()
		j.checked++
		j.notJudged(pc, why)
		return
	}
	st := j.rows.At(pc)
	if !st.Known {
		j.flush()
		if !st.Padding {
			j.checked++
			j.notJudged(pc, st.Why)
		}
		return
	}
	j.checked++
	j.judged++
	if j.cur.n > 0 && j.cur.end == pc && j.cur.key.sameInput(&st, si, ci) {
		// Most instructions leave the state and the rows as they were:
		// the differences are the run's.
		j.cur.end, j.cur.n = next, j.cur.n+1
		return
	}
	k := codeKey{id: st.ID, row: st.Row, si: si, ci: ci, ref: diffCode(j.rows, &st, j.ref.rows[ci], pc)}
	if si >= 0 {
		k.subj = diffCode(j.rows, &st, j.subj.rows[si], pc)
	}
	if c := &j.cur.key; j.cur.n > 0 && j.cur.end == pc && c.row == k.row && c.si == si && c.ci == ci && c.ref == k.ref && c.subj == k.subj {
		// Another state with the same row and the same differences (a
		// register the row does not show changed): the same run.
		c.id = k.id
		j.cur.end, j.cur.n = next, j.cur.n+1
		return
	}
	j.flush()
	j.cur = codeRun{start: pc, end: next, n: 1, key: k, st: st}
}

// untracked says why a table's CFA rule t cannot be judged against the
// code: it is based on a register other than SP and FP (a DRAP register:
// gcc's realigning prologue keeps the CFA in r10; glibc's __longjmp in
// rdi) that the code does not know as a copy of SP or FP (judge asks
// CodeRows.CFAVia first), or it is a DWARF expression (the DRAP's saved
// copy, *(rbp-8)), which the code oracle does not follow. "" when it can be
// judged.
func untracked(a *arch.Arch, t rule.Rule) string {
	if a == nil {
		return ""
	}
	switch t.Kind {
	case rule.ValOffset:
		if t.Reg != a.SP && t.Reg != a.FP && t.Reg != rule.CFA {
			return fmt.Sprintf("the tables' CFA is based on %s, which the code oracle does not know (a DRAP register)", frames.RuleStringFor(a, rule.Rule{Kind: rule.Register, Reg: t.Reg}))
		}
	case rule.Expression, rule.ValExpression:
		return "the tables' CFA is a DWARF expression, which the code oracle does not follow"
	}
	return ""
}

// notJudged counts an instruction the oracle did not judge, by reason.
func (j *codeJudge) notJudged(pc uint64, why string) {
	if why == "" {
		why = "no reason given"
	}
	j.unknown++
	for i := range j.reasons {
		if j.reasons[i].why == why {
			j.reasons[i].n++
			return
		}
	}
	j.reasons = append(j.reasons, codeReason{why: why, pc: pc, n: 1})
}

// diffCode compares the code's state with a table's row at pc, on the
// machine abi: the CFA (codeCFAMatches), RA and FP, unless
// the table leaves them undefined: an FP CFI does not track, and the
// outermost frame's RA (glibc's _start, .cfi_undefined rip), where nothing
// is unwound, so that its CFA and FP do not matter either (_start pops
// its argument count off the stack its CFI never describes).
func diffCode(rows CodeRows, code *CodeState, table frames.Row, pc uint64) RowDiff {
	var d RowDiff
	if table.RA.Kind == rule.Undefined {
		return d
	}
	d.CFA = !codeCFAMatches(rows, code, table.CFA, pc)
	ra, fp := onCFA(rows, pc, table.RA), onCFA(rows, pc, table.FP)
	d.RA = !valueRuleEqual(code.Row.RA, ra) && (code.AltRA.Kind == rule.Undefined || !valueRuleEqual(code.AltRA, ra)) ||
		signDiffers(code.Row, table.Row)
	if table.FP.Kind != rule.Undefined {
		d.FP = !valueRuleEqual(code.Row.FP, fp) && (code.AltFP.Kind == rule.Undefined || !valueRuleEqual(code.AltFP, fp))
	}
	return d
}

// signDiffers reports whether a table says the RA is signed (AArch64
// PAuth: SFrame's mangled-RA bit, CFI's DW_CFA_AARCH64_negate_ra_state)
// where the code has not signed it, or the other way round, or names
// another key than the code's paciasp/pacibsp (SFrame's FDE pauth_key,
// CFI's CIE augmentation "B"). An unwinder that authenticates or strips
// the RA by the table's word gets it wrong there.
func signDiffers(code, table rule.Row) bool {
	return code.MangledRA != table.MangledRA || code.MangledRA && code.PAuthKey != table.PAuthKey
}

// onCFA rewrites a table's rule for a register that is based on another
// register (libgcrypt's AArch64 CFI: RA in memory at sp+8, a DWARF
// expression), where the code knows that register relative to the CFA
// (CodeRows.CFAVia), as the same value based on the CFA: two rules that
// give the caller the same value are equal (issue 30: rules judged by
// value, not text). Other rules are returned as they are.
func onCFA(rows CodeRows, pc uint64, t rule.Rule) rule.Rule {
	if (t.Kind != rule.Offset && t.Kind != rule.ValOffset) || t.Reg == rule.CFA {
		return t
	}
	d, ok := rows.CFAVia(pc, t.Reg) // CFA = reg + d
	if !ok {
		return t
	}
	return rule.Rule{Kind: t.Kind, Reg: rule.CFA, Offset: t.Offset - d}
}

// codeCFAMatches reports whether the code's CFA is the table's CFA rule t
// at pc: a table's register-based rule against the code's CFA via that
// register where the code knows it (CodeRows.CFAVia), whichever base the
// code's own row prefers (after push %rbp; mov %rsp,%rbp both rsp+16 and
// rbp+16 are right); else the rules compared as DiffRows compares them (a
// CFA expression evaluated).
func codeCFAMatches(rows CodeRows, code *CodeState, t rule.Rule, pc uint64) bool {
	if t.Kind == rule.ValOffset {
		if k, ok := rows.CFAVia(pc, t.Reg); ok {
			return t.Offset == k
		}
	}
	return cfaEquivalent(code.Row.CFA, t, pc)
}

// flush records the findings of the finished run: one per part (CFA, RA,
// FP) where the code disagrees with the reference. Where the code agrees
// with the reference and the subject differs, the subject's own finding
// (checkFunc) says so.
func (j *codeJudge) flush() {
	r := j.cur
	j.cur = codeRun{}
	if r.n == 0 || !r.key.ref.Any() {
		return
	}
	refRow := j.ref.rows[r.key.ci]
	switch kinds := r.key.ref.Kinds(); {
	case len(kinds) == 1 && kinds[0] == KindFP && scratch(refRow.FP, r.key.row.FP):
		// A note (code-scratch): listed up to the same bound, never
		// counted among the disagreements not listed.
		if j.scratchListed >= maxFindingsPerFDE {
			return
		}
		j.scratchListed++
	case j.listed >= maxFindingsPerFDE:
		if j.unlisted == 0 {
			j.more = Finding{Kind: subjectKind(frames.MethodCode, kinds[0]), Function: j.fn.name, FuncStart: j.fn.start, PC: r.start}
		}
		j.more.PCEnd, j.more.Instructions = r.end, j.more.Instructions+r.n
		j.unlisted++
		return
	default:
		j.listed++
	}
	c, fn := j.c, j.fn
	code := frames.Row{Row: r.key.row, Src: frames.Source{Arch: j.arch}}
	f := Finding{Function: fn.name, FuncStart: fn.start, PC: r.start, PCEnd: r.end, Instructions: r.n}
	f.Rules[frames.MethodCode], f.Rules[j.ref.m] = ruleText(code), ruleText(refRow)
	f.Rules[j.subj.m] = j.subj.none
	if r.key.si >= 0 {
		f.Rules[j.subj.m] = ruleText(j.subj.rows[r.key.si])
	}
	where := fmt.Sprintf("at %s+%#x..+%#x (%d instructions", c.orLoc(fn.name, fn.start), r.start-fn.start, r.end-fn.start, r.n)
	if r.st.Inst != "" {
		where += ", from `" + r.st.Inst + "`"
	}
	where += ")"
	after := ""
	if r.st.After != "" {
		after = fmt.Sprintf(" after `%s` at %s+%#x", r.st.After, c.orLoc(fn.name, fn.start), r.st.AfterPC-fn.start)
	}
	// The parts of one run (CFA, RA, FP wrong at the same instructions)
	// are one fault: those a signature does not name (the RA, the FP)
	// take the class of the part it names (the CFA), which Kinds lists
	// first.
	runClass := ""
	for _, k := range r.key.ref.Kinds() {
		f.Kind = subjectKind(frames.MethodCode, k)
		title := k.Title()
		if k == KindFP && scratch(refRow.FP, code.FP) {
			// FP overwritten where the table says it keeps its value:
			// nothing is found through it.
			f.Kind, title = KindCodeScratch, "FP used as scratch"
		}
		f.Message = fmt.Sprintf("%s %s: %s%s", title, where, j.says(k, r, code), after)
		f.Class = ""
		if c.codeSpan.Start <= fn.start && r.end <= c.codeSpan.End && len(c.code) > 0 {
			f.Class = classifyCode(j.arch, c.code[fn.start-c.codeSpan.Start:], fn.start, r.start, r.end, r.n, f.Kind, fn.name, j.ref.cfaAt, j.codeCFAAt)
		}
		if f.Class == "" && f.Kind.Misleads() {
			f.Class = runClass
		}
		f.Class = j.inheritClass(f, r)
		if f.Kind.Misleads() && runClass == "" {
			runClass = f.Class
		}
		c.add(f)
	}
}

// scratch reports whether a table's rule t for a register, and the
// code's rule c for it, say only that the code uses the register as
// scratch: the table says "same value" (its default) and the code says
// the caller's value is overwritten and not saved (undefined).
func scratch(t, c rule.Rule) bool {
	return t.Kind == rule.SameValue && c.Kind == rule.Undefined
}

// says tells what each table and the code say about the part k (CFA, RA
// or FP) in run r, and which tables agree with the code: "CFI and SFrame
// say CFA=rsp+16, the code says rsp+24"; "CFI says CFA=rsp+16, SFrame and
// the code say rsp+24".
func (j *codeJudge) says(k Kind, r codeRun, code frames.Row) string {
	label := map[Kind]string{KindCFA: "CFA", KindRA: "RA", KindFP: "FP"}[k]
	signed := k == KindRA && (code.MangledRA || j.ref.rows[r.key.ci].MangledRA || r.key.si >= 0 && j.subj.rows[r.key.si].MangledRA)
	part := func(row frames.Row) string {
		ru := row.CFA
		switch k {
		case KindRA:
			ru = row.RA
		case KindFP:
			ru = row.FP
		}
		text := frames.RuleStringFor(j.arch, ru)
		switch {
		case signed && row.MangledRA:
			text += " signed with key " + row.PAuthKey.String()
		case signed:
			text += " unsigned"
		}
		return text
	}
	R, S := j.ref.m.Title(), j.subj.m.Title()
	refText, codeText := part(j.ref.rows[r.key.ci]), part(code)
	if r.key.si < 0 {
		return fmt.Sprintf("%s says %s=%s, %s has %s, the code says %s", R, label, refText, S, j.subj.none, codeText)
	}
	subjText := part(j.subj.rows[r.key.si])
	subjAgrees := !map[Kind]bool{KindCFA: r.key.subj.CFA, KindRA: r.key.subj.RA, KindFP: r.key.subj.FP}[k]
	switch {
	case subjAgrees:
		return fmt.Sprintf("%s says %s=%s, %s and the code say %s", R, label, refText, S, codeText)
	case subjText == refText:
		return fmt.Sprintf("%s and %s say %s=%s, the code says %s", R, S, label, refText, codeText)
	}
	return fmt.Sprintf("%s says %s=%s, %s says %s=%s, the code says %s", R, label, refText, S, label, subjText, codeText)
}

// finish records the rest of the function's findings: the last run, the
// disagreements not listed, the oracle's own findings (code-state) and one
// code-unknown note for the instructions it did not judge; and adds the
// counts to the file's CodeSummary.
func (j *codeJudge) finish() {
	j.flush()
	c, fn := j.c, j.fn
	loc := c.orLoc(fn.name, fn.start)
	if j.unlisted > 0 {
		j.more.Message = fmt.Sprintf("%d more disagreements with the code at %s+%#x..+%#x (%d instructions), not listed: at most %d are listed per FDE",
			j.unlisted, loc, j.more.PC-fn.start, j.more.PCEnd-fn.start, j.more.Instructions, maxFindingsPerFDE)
		c.add(j.more)
	}
	var states []CodeNote
	if j.entered == "" {
		// The walk's own findings; none when it started from a call's
		// state at an entry a call does not make, and none where the
		// table says there is no caller (RA undefined: _start's tail
		// call into __libc_start_main), about which it claims nothing.
		for _, n := range j.rows.States() {
			rows := j.ref.rows
			if i := sort.Search(len(rows), func(i int) bool { return rows[i].End > n.PC }); i < len(rows) && rows[i].Start <= n.PC && rows[i].RA.Kind == rule.Undefined {
				continue
			}
			states = append(states, n)
		}
		j.judgeExits()
	}
	for i, n := range states {
		if i == maxFindingsPerFDE {
			c.add(Finding{Kind: KindCodeState, Function: fn.name, FuncStart: fn.start, PC: n.PC,
				Message: fmt.Sprintf("%d more stack state faults in %s, not listed", len(states)-i, loc)})
			break
		}
		c.add(Finding{Kind: KindCodeState, Function: fn.name, FuncStart: fn.start, PC: n.PC,
			Message: fmt.Sprintf("%s+%#x: %s", loc, n.PC-fn.start, n.Message)})
	}
	sum := CodeSummary{Checked: j.checked, Judged: j.judged}
	if j.unknown > 0 {
		sum.Unknown = 1
		var parts []string
		for i, r := range j.reasons {
			if i == maxCodeReasons {
				parts = append(parts, fmt.Sprintf("%d more reasons", len(j.reasons)-i))
				break
			}
			parts = append(parts, fmt.Sprintf("%d from +%#x: %s", r.n, r.pc-fn.start, r.why))
		}
		c.add(Finding{Kind: KindCodeUnknown, Function: fn.name, FuncStart: fn.start, PC: j.reasons[0].pc, Instructions: j.unknown,
			Message: fmt.Sprintf("the code oracle judged %d of %d instructions of %s; not judged: %s",
				j.judged, j.checked, loc, strings.Join(parts, "; "))})
	}
	c.codeSummary().add(sum)
}

// judgeCFIOnly judges CFI alone against the code in the function fn,
// [r.Start, r.End), which SFrame does not cover (its rows are cfiRows), at
// every instruction boundary (AMD64; elsewhere at CFI row boundaries, as
// checker.boundaries does). It does nothing without an oracle.
func (c *checker) judgeCFIOnly(fn fnRef, r Range, cfiRows []frames.Row) {
	if c.oracle == nil || r.End <= r.Start {
		return
	}
	code := c.codeRows(r.Start, r.End)
	insts, ok := c.instBoundaries(r.Start, r.End, c.cfiOnlyInsts, code)
	if !ok {
		insts = insts[:0]
		for _, row := range cfiRows {
			if row.Start >= r.Start && row.Start < r.End && (len(insts) == 0 || row.Start > insts[len(insts)-1]) {
				insts = append(insts, row.Start)
			}
		}
	}
	c.cfiOnlyInsts = insts
	ref := witness{m: frames.MethodCFI, rows: cfiRows, none: "no CFI row", unit: "CFI row"}
	j := c.newCodeJudge(fn, code, ref, witness{m: frames.MethodSFrame, none: "no FDE", unit: "FRE"})
	ck := -1
	for i, pc := range insts {
		next := r.End
		if i+1 < len(insts) {
			next = insts[i+1]
		}
		if ci := rowCursor(cfiRows, &ck, pc); ci >= 0 {
			j.judge(pc, next, -1, ci)
		}
	}
	j.finish()
}

// cfaAt is the witness's CFA rule at pc (classifyCode).
func (w witness) cfaAt(pc uint64) (rule.Rule, bool) {
	i := sort.Search(len(w.rows), func(i int) bool { return w.rows[i].End > pc })
	if i == len(w.rows) || w.rows[i].Start > pc {
		return rule.Rule{}, false
	}
	return w.rows[i].CFA, true
}

// codeCFAAt is the code's CFA rule at pc (classifyCode).
func (j *codeJudge) codeCFAAt(pc uint64) (rule.Rule, bool) {
	st := j.rows.At(pc)
	if st.Why != "" || st.Row.CFA.Kind == rule.Undefined {
		return rule.Rule{}, false
	}
	return st.Row.CFA, true
}

// judgeExits checks the function's direct jumps into other FDEs (a cold
// part, a label inside another function: code.Func.Exits) against the
// CFI at the target: the frame is the same on both sides of the jump, so
// the CFA rule the target's FDE gives there must hold for the state the
// code has at the jump (gperftools' unwind-check makes the same check;
// Qt's QOpenGLTexture::allocateStorage jumps with CFA=rsp+16 into an FDE
// that says rsp+96). A jump to an FDE's start that a call enters is a
// tail call, judged by the walk; a target in the PLT, without CFI, or
// whose CFA the code does not know through the rule's register, is not
// judged, nor is a conditional jump: GCC sends the out-of-range branch of
// a switch whose default is __builtin_unreachable to any label, another
// function's cold part included (Python's Py_UNREACHABLE in its rich
// comparisons: 10 such jumps in Debian 12's python3.11, libpython, ruby
// and doxygen, every one a ja after the switch's bound check). Each
// mismatch is a code-cfa finding at the jump.
func (j *codeJudge) judgeExits() {
	ex, ok := j.rows.(interface{ Exits() []code.Exit })
	if !ok || len(j.ref.rows) == 0 || j.ref.m != frames.MethodCFI {
		return
	}
	c, fn := j.c, j.fn
	end := j.ref.rows[len(j.ref.rows)-1].End
	var seen map[uint64]bool // made at the first finding
	for _, e := range ex.Exits() {
		if e.Cond || e.Target >= fn.start && e.Target < end || seen[e.PC] || c.inPLT(e.Target) {
			continue
		}
		rows, err := c.cfi.Rows(e.Target, e.Target+1) // the FDE's rows
		i := rowAt(rows, e.Target)
		if err != nil || i < 0 {
			continue
		}
		row := rows[i]
		if row.Src.FDEStart == e.Target && !frames.NotCallEntry(j.arch, &row.Row) {
			continue // a tail call to a function's entry
		}
		if row.CFA.Kind != rule.ValOffset {
			continue
		}
		k, ok := e.State.CFAVia(j.arch, row.CFA.Reg)
		if !ok || k == row.CFA.Offset {
			continue
		}
		if seen == nil {
			seen = map[uint64]bool{}
		}
		seen[e.PC] = true
		have := rule.Rule{Kind: rule.ValOffset, Reg: row.CFA.Reg, Offset: k}
		target := c.funcName(row.Src.FDEStart)
		f := Finding{Kind: KindCodeCFA, Function: fn.name, FuncStart: fn.start, PC: e.PC, PCEnd: e.PC + 1, Instructions: 1}
		f.Rules[frames.MethodCode] = "cfa=" + j.arch.Format(have)
		f.Rules[frames.MethodCFI] = "cfa=" + j.arch.Format(row.CFA)
		f.Message = fmt.Sprintf("CFA differs across the jump at %s+%#x to %s+%#x, in another FDE: CFI says CFA=%s there, the code says %s at the jump",
			c.orLoc(fn.name, fn.start), e.PC-fn.start, c.orLoc(target, row.Src.FDEStart), e.Target-row.Src.FDEStart,
			j.arch.Format(row.CFA), j.arch.Format(have))
		c.add(f)
	}
}
