package compare

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/sfdbg/sfdbg/frames"
	"github.com/sfdbg/sfdbg/sframe/arch"
	"github.com/sfdbg/sfdbg/sframe/elfobj"
	"github.com/sfdbg/sfdbg/sframe/rule"
)

// fakeCode is a code oracle for tests: the code's state at each
// instruction is the fixture's own CFI row there (so a clean fixture
// agrees with it), changed where a test says so. The real oracle is
// frames/code.
type fakeCode struct {
	m *frames.Module
	// edit changes the state at pc (nil: none).
	edit func(pc uint64, st *CodeState)
	// states are the oracle's own findings, by function start.
	states map[uint64][]CodeNote
	start  uint64
}

// file is the oracle of a file: f's functions.
func (f *fakeCode) file(*frames.Module) (CodeFuncs, error) { return f.oracle, nil }

func (f *fakeCode) oracle(text []byte, start uint64) CodeRows {
	g := *f
	g.start = start
	return &g
}

func (f *fakeCode) At(pc uint64) CodeState {
	row, err := f.m.CFIRow(pc)
	if err != nil {
		return CodeState{Why: "no CFI row to fake the code from"}
	}
	st := CodeState{Row: row.Row, Known: true, ID: int(row.Start)}
	if f.edit != nil {
		f.edit(pc, &st)
	}
	return st
}

func (f *fakeCode) CFAVia(pc uint64, reg rule.Reg) (int64, bool) {
	st := f.At(pc)
	if st.Known && st.Row.CFA.Kind == rule.ValOffset && st.Row.CFA.Reg == reg {
		return st.Row.CFA.Offset, true
	}
	return 0, false
}

func (f *fakeCode) States() []CodeNote { return f.states[f.start] }

func newFakeCode(t *testing.T, path string) *fakeCode {
	m := openModule(t, path)
	t.Cleanup(func() { m.Close() })
	return &fakeCode{m: m}
}

// funcStart returns the link-time address of the function name in the
// fixture at path.
func funcStart(t *testing.T, path, name string) uint64 {
	t.Helper()
	m := openModule(t, path)
	defer m.Close()
	addr, _, ok := m.LookupSymbol(name)
	if !ok {
		t.Fatalf("%s: no symbol %s", path, name)
	}
	return addr
}

func codeFindings(rep *FileReport) []Finding {
	var out []Finding
	for _, f := range rep.Findings {
		switch f.Kind {
		case KindCodeCFA, KindCodeRA, KindCodeFP, KindCodeState, KindCodeUnknown, KindCodeScratch:
			out = append(out, f)
		}
	}
	return out
}

func TestCodeOracleThatAgreesJudgesEveryInstructionAndFindsNothing(t *testing.T) {
	path := fixture(t, "deep-v3-O2")
	rep, err := CheckFile(path, CheckOptions{Code: newFakeCode(t, path).file})
	if err != nil {
		t.Fatal(err)
	}
	if fs := codeFindings(rep); len(fs) > 0 {
		t.Errorf("code findings against the file's own CFI: %v", fs)
	}
	c := rep.Summary.Code
	if c == nil {
		t.Fatal("no code summary with an oracle")
	}
	// Every compared instruction but the PLT stubs' (not given to the
	// oracle, not counted) is checked, and those of _start (CFI only);
	// all are judged.
	if c.Checked == 0 || c.Judged != c.Checked || c.Share != 1 || c.Unknown != 0 {
		t.Errorf("code summary %+v, %d instructions compared", *c, rep.Summary.Instructions)
	}
	rep0, err := CheckFile(path, CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep0.Summary.Code != nil {
		t.Errorf("a check without an oracle has a code summary: %+v", *rep0.Summary.Code)
	}
	if len(rep0.Findings) != len(rep.Findings) {
		t.Errorf("%d findings without the oracle, %d with one that agrees", len(rep0.Findings), len(rep.Findings))
	}
}

func TestCodeOracleCatchesAPushTheTablesMiss(t *testing.T) {
	// sleep_here (deep-v3-O2) starts with push %rbx; sub $0x10,%rsp: the
	// tables say CFA=rsp+16 after the push. A code whose state says
	// rsp+24 there (an inline-asm push the CFI does not describe) is a
	// code-cfa finding at that one instruction.
	path := fixture(t, "deep-v3-O2")
	start := funcStart(t, path, "sleep_here")
	fake := newFakeCode(t, path)
	fake.edit = func(pc uint64, st *CodeState) {
		if pc == start+1 {
			st.Row.CFA.Offset += 8
			st.Inst, st.After, st.AfterPC = "sub $0x10,%rsp", "push %rbx", start
		}
	}
	rep, err := CheckFile(path, CheckOptions{Code: fake.file})
	if err != nil {
		t.Fatal(err)
	}
	fs := codeFindings(rep)
	if len(fs) != 1 {
		t.Fatalf("want one code finding, got %v", fs)
	}
	f := fs[0]
	want := "CFA differs at sleep_here+0x1..+0x5 (1 instructions, from `sub $0x10,%rsp`): CFI and SFrame say CFA=rsp+16, the code says rsp+24 after `push %rbx` at sleep_here+0x0"
	if f.Kind != KindCodeCFA || f.Message != want || f.PC != start+1 || f.PCEnd != start+5 || f.Instructions != 1 {
		t.Errorf("got %v %q [%#x, %#x) %d\nwant code-cfa %q", f.Kind, f.Message, f.PC, f.PCEnd, f.Instructions, want)
	}
	if f.Rules[frames.MethodCode] != "cfa=rsp+24 ra=c-8 fp=u" || f.Rules[frames.MethodCFI] != "cfa=rsp+16 ra=c-8 fp=u" || f.Rules[frames.MethodSFrame] != "cfa=rsp+16 ra=c-8 fp=u" {
		t.Errorf("rules %q", f.Rules)
	}
	if !f.Kind.Disagreement() || rep.Disagreements() == 0 {
		t.Error("a code-cfa finding is not a disagreement")
	}
	var text bytes.Buffer
	rep.WriteText(&text, Style{})
	if !strings.Contains(text.String(), "code-cfa") || !strings.Contains(text.String(), "code oracle: judged ") {
		t.Errorf("text report:\n%s", text.String())
	}
}

func TestCodeOracleJudgesFunctionsOnlyCFICoversButNotTheOutermost(t *testing.T) {
	// deep-v3-O2's _start has CFI (RA undefined: the outermost frame) and
	// no SFrame FDE. A code state that differs there is not judged:
	// nothing is unwound from the outermost frame. frame_dummy has both.
	path := fixture(t, "deep-v3-O2")
	start := funcStart(t, path, "_start")
	fake := newFakeCode(t, path)
	fake.edit = func(pc uint64, st *CodeState) {
		if pc >= start && pc < start+0x10 {
			st.Row.CFA.Offset -= 8 // after pop %rsi
		}
	}
	rep, err := CheckFile(path, CheckOptions{Code: fake.file})
	if err != nil {
		t.Fatal(err)
	}
	if fs := codeFindings(rep); len(fs) != 0 {
		t.Errorf("code findings in the outermost frame: %v", fs)
	}
}

func TestCodeOracleDoesNotJudgeSignalTrampolines(t *testing.T) {
	// features-v3's sig_trampoline has CFI with augmentation "S" and
	// CFA=rsp+160: the kernel's frame, which no code state from a call
	// describes. An oracle that says so is not a code-cfa.
	path := fixture(t, "features-v3")
	fake := newFakeCode(t, path)
	fake.edit = func(pc uint64, st *CodeState) {
		if st.Row.Signal {
			st.Row.CFA, st.Row.Signal = rule.Rule{Kind: rule.ValOffset, Reg: frames.RSP, Offset: 8}, false
		}
	}
	rep, err := CheckFile(path, CheckOptions{Code: fake.file})
	if err != nil {
		t.Fatal(err)
	}
	var fs []Finding
	for _, f := range codeFindings(rep) {
		if f.Function != "flex_drap" { // CFA via r10: not judged (TestCodeOracleDRAP)
			fs = append(fs, f)
		}
	}
	if len(fs) != 1 || fs[0].Kind != KindCodeUnknown || fs[0].Function != "sig_trampoline" || !strings.Contains(fs[0].Message, "signal trampoline") {
		t.Errorf("findings %v", fs)
	}
}

func TestCodeCFAIsJudgedOnTheTablesBaseRegister(t *testing.T) {
	ra := rule.Rule{Kind: rule.Offset, Reg: rule.CFA, Offset: -8}
	savedFP := rule.Rule{Kind: rule.Offset, Reg: rule.CFA, Offset: -16}
	via := func(reg rule.Reg, k int64) rule.Rule { return rule.Rule{Kind: rule.ValOffset, Reg: reg, Offset: k} }
	table := func(cfa rule.Rule) frames.Row { return frames.Row{Row: rule.Row{CFA: cfa, RA: ra, FP: savedFP}} }
	// After push %rbp; mov %rsp,%rbp: SP = CFA-16, FP = CFA-16; the code
	// prefers rbp+16.
	framed := CodeState{Row: rule.Row{CFA: via(frames.RBP, 16), RA: ra, FP: savedFP}, Known: true}
	framedVia := viaRows{frames.RSP: 16, frames.RBP: 16}
	// After sub $0x20,%rsp without a frame pointer: SP = CFA-40.
	unframed := CodeState{Row: rule.Row{CFA: via(frames.RSP, 40), RA: ra, FP: savedFP}, Known: true}
	unframedVia := viaRows{frames.RSP: 40}
	// After pop %rbp: FP back in its register, and still in its slot.
	popped := CodeState{Row: rule.Row{CFA: via(frames.RSP, 8), RA: ra, FP: rule.Rule{Kind: rule.SameValue}}, Known: true}
	for _, tc := range []struct {
		name string
		code CodeState
		via  viaRows
		t    frames.Row
		diff RowDiff
	}{
		{"a table on SP agrees with a framed state", framed, framedVia, table(via(frames.RSP, 16)), RowDiff{}},
		{"a table on FP agrees with a framed state", framed, framedVia, table(via(frames.RBP, 16)), RowDiff{}},
		{"a table on SP 8 bytes off differs", framed, framedVia, table(via(frames.RSP, 24)), RowDiff{CFA: true}},
		{"a table on FP where the code has no frame pointer differs", unframed, unframedVia, table(via(frames.RBP, 40)), RowDiff{CFA: true}},
		{"a table on SP agrees with the code's SP", unframed, unframedVia, table(via(frames.RSP, 40)), RowDiff{}},
		{"a state the oracle gives no base for is compared by its row", unframed, nil, table(via(frames.RSP, 40)), RowDiff{}},
		{"a table on another register (DRAP) differs from a state on SP", unframed, unframedVia, table(via(10, 40)), RowDiff{CFA: true}},
		{"FP restored by a pop differs from a table that keeps its slot", popped, nil, table(via(frames.RSP, 8)), RowDiff{FP: true}},
		{"unless the code knows the slot still holds it", CodeState{Row: popped.Row, Known: true, AltFP: savedFP}, nil, table(via(frames.RSP, 8)), RowDiff{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if d := diffCode(tc.via, &tc.code, tc.t, 0x1000); d != tc.diff {
				t.Errorf("diff %+v, want %+v", d, tc.diff)
			}
		})
	}
	outer := table(via(frames.RSP, 16))
	outer.RA = rule.Rule{Kind: rule.Undefined}
	if d := diffCode(unframedVia, &unframed, outer, 0x1000); d.Any() {
		t.Errorf("the outermost frame's row is judged: %+v", d)
	}
}

// viaRows is a CodeRows that knows only where the CFA is via registers.
type viaRows map[rule.Reg]int64

func (viaRows) At(uint64) CodeState { return CodeState{} }
func (viaRows) States() []CodeNote  { return nil }
func (v viaRows) CFAVia(_ uint64, r rule.Reg) (int64, bool) {
	k, ok := v[r]
	return k, ok
}

func TestCodeOracleNotesWhatItCannotFollowPerFunction(t *testing.T) {
	path := fixture(t, "deep-v3-O2")
	start := funcStart(t, path, "sleep_here")
	fake := newFakeCode(t, path)
	fake.edit = func(pc uint64, st *CodeState) {
		switch {
		case pc > start+5 && pc < start+0x30:
			*st = CodeState{Why: "indirect jump"}
		case pc >= start+0x30 && pc < start+0x38:
			*st = CodeState{Padding: true}
		}
	}
	fake.states = map[uint64][]CodeNote{start: {{PC: start + 0x20, Message: "paths meet with CFA rsp+16 and rsp+24"}}}
	rep, err := CheckFile(path, CheckOptions{Code: fake.file})
	if err != nil {
		t.Fatal(err)
	}
	var unknown, state []Finding
	for _, f := range codeFindings(rep) {
		switch f.Kind {
		case KindCodeUnknown:
			unknown = append(unknown, f)
		case KindCodeState:
			state = append(state, f)
		default:
			t.Errorf("unexpected %v: %s", f.Kind, f.Message)
		}
	}
	if len(unknown) != 1 || KindCodeUnknown.Disagreement() {
		t.Fatalf("want one code-unknown note (not a disagreement), got %v", unknown)
	}
	u := unknown[0]
	if u.Instructions == 0 || !strings.Contains(u.Message, "instructions of sleep_here; not judged: ") || !strings.Contains(u.Message, ": indirect jump") {
		t.Errorf("code-unknown: %d instructions, %q", u.Instructions, u.Message)
	}
	if len(state) != 1 || state[0].Message != "sleep_here+0x20: paths meet with CFA rsp+16 and rsp+24" || !KindCodeState.Disagreement() {
		t.Errorf("code-state: %v", state)
	}
	c := rep.Summary.Code
	if c == nil {
		t.Fatal("no code summary")
	}
	// Against an oracle that judges everything: the instructions not
	// judged are counted, the padding is not.
	all := agreeingSummary(t)
	padding := all.Checked - c.Checked
	if c.Unknown != 1 || padding <= 0 || c.Judged != all.Judged-u.Instructions-padding {
		t.Errorf("code summary %+v, %+v with an oracle that agrees; %d not judged, %d padding", *c, all, u.Instructions, padding)
	}
	var js bytes.Buffer
	if err := WriteJSON(&js, rep); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Summary struct {
			Code map[string]float64 `json:"code"`
		} `json:"summary"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if s := doc.Summary.Code["judged_share"]; s <= 0 || s >= 1 || doc.Summary.Code["instructions_judged"] != float64(c.Judged) {
		t.Errorf("JSON code summary %v", doc.Summary.Code)
	}
}

// agreeingSummary returns the code summary of deep-v3-O2 checked with an
// oracle that agrees with CFI everywhere.
func agreeingSummary(t *testing.T) CodeSummary {
	t.Helper()
	path := fixture(t, "deep-v3-O2")
	all, err := CheckFile(path, CheckOptions{Code: newFakeCode(t, path).file})
	if err != nil {
		t.Fatal(err)
	}
	return *all.Summary.Code
}

func TestAFileTheOracleCannotJudgeHasOneNote(t *testing.T) {
	path := fixture(t, "s390x-v3")
	var asked *frames.Module
	rep, err := CheckFile(path, CheckOptions{Code: func(m *frames.Module) (CodeFuncs, error) {
		asked = m
		return nil, errors.New("no decoder for s390x yet")
	}})
	if err != nil {
		t.Fatal(err)
	}
	if asked == nil || asked.Path != path {
		t.Errorf("the oracle was asked about %v", asked)
	}
	fs := codeFindings(rep)
	if len(fs) != 1 || fs[0].Kind != KindCodeUnknown || fs[0].Message != "the code oracle cannot judge this file's code: no decoder for s390x yet" {
		t.Errorf("findings %v", fs)
	}
	if c := rep.Summary.Code; c == nil || c.Judged != 0 || c.Unknown != 1 || rep.Disagreements() != 0 {
		t.Errorf("summary %+v, %d disagreements", c, rep.Disagreements())
	}
}

func TestCodeFindingSaysWhichTablesAgreeWithTheCode(t *testing.T) {
	sp := func(n int64) rule.Rule { return rule.Rule{Kind: rule.ValOffset, Reg: frames.RSP, Offset: n} }
	at := func(n int64) rule.Rule { return rule.Rule{Kind: rule.Offset, Reg: rule.CFA, Offset: n} }
	same := rule.Rule{Kind: rule.SameValue}
	row := func(cfa int64, fp rule.Rule) frames.Row {
		return frames.Row{Row: rule.Row{CFA: sp(cfa), RA: at(-8), FP: fp}, Start: 0x1000, End: 0x1100}
	}
	code := row(24, at(-24))
	for _, tc := range []struct {
		name      string
		kind      Kind
		cfi, sf   frames.Row
		sfMissing bool
		want      string
	}{
		{"both tables against the code", KindCFA, row(16, at(-24)), row(16, at(-24)), false,
			"CFI and SFrame say CFA=rsp+16, the code says rsp+24"},
		{"SFrame with the code, CFI alone", KindCFA, row(16, at(-24)), row(24, at(-24)), false,
			"CFI says CFA=rsp+16, SFrame and the code say rsp+24"},
		{"all three apart", KindCFA, row(16, at(-24)), row(8, at(-24)), false,
			"CFI says CFA=rsp+16, SFrame says CFA=rsp+8, the code says rsp+24"},
		{"no FRE", KindCFA, row(16, at(-24)), frames.Row{}, true,
			"CFI says CFA=rsp+16, SFrame has no FRE, the code says rsp+24"},
		{"an FP save the tables do not record", KindFP, row(24, same), row(24, same), false,
			"CFI and SFrame say FP=u, the code says c-24"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j := &codeJudge{arch: arch.AMD64Arch,
				ref:  witness{m: frames.MethodCFI, rows: []frames.Row{tc.cfi}},
				subj: witness{m: frames.MethodSFrame, rows: []frames.Row{tc.sf}, none: "no FRE"}}
			st := CodeState{Row: code.Row, Known: true}
			r := codeRun{key: codeKey{row: code.Row, ref: diffCode(viaRows(nil), &st, tc.cfi, 0x1000)}}
			if tc.sfMissing {
				r.key.si = -1
			} else {
				r.key.subj = diffCode(viaRows(nil), &st, tc.sf, 0x1000)
			}
			if got := j.says(tc.kind, r, code); got != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestCodeKindsAreCodeKindsOnlyForTheCode(t *testing.T) {
	for _, tc := range []struct {
		m    frames.Method
		k    Kind
		want Kind
	}{
		{frames.MethodSFrame, KindCFA, KindCFA},
		{frames.MethodCode, KindCFA, KindCodeCFA},
		{frames.MethodCode, KindRA, KindCodeRA},
		{frames.MethodCode, KindFP, KindCodeFP},
		{frames.MethodCode, KindNoFDE, KindCodeUnknown},
	} {
		if got := subjectKind(tc.m, tc.k); got != tc.want {
			t.Errorf("subjectKind(%v, %v) = %v, want %v", tc.m, tc.k, got, tc.want)
		}
	}
	for _, k := range []Kind{KindCodeCFA, KindCodeRA, KindCodeFP, KindCodeState, KindCodeUnknown} {
		var back Kind
		if err := back.UnmarshalText([]byte(k.String())); err != nil || back != k || k.Title() == k.String() {
			t.Errorf("kind %v: name round trip %v (%v), title %q", k, back, err, k.Title())
		}
	}
}

// rowsOracle is a code oracle for benchmarks: the state at each
// instruction is the CFI row there, from rows (sorted by Start, computed
// before the clock starts), found by a cursor as check asks in address
// order: what compare's judging costs, without a walk.
type rowsOracle struct {
	rows []frames.Row
	k    int
}

func (o *rowsOracle) file(*frames.Module) (CodeFuncs, error) { return o.oracle, nil }

func (o *rowsOracle) oracle(text []byte, start uint64) CodeRows {
	o.k = sort.Search(len(o.rows), func(i int) bool { return o.rows[i].Start > start }) - 2
	o.k = max(o.k, -1)
	return o
}

func (o *rowsOracle) At(pc uint64) CodeState {
	if i := rowCursor(o.rows, &o.k, pc); i >= 0 {
		return CodeState{Row: o.rows[i].Row, Known: true}
	}
	return CodeState{Why: "no row"}
}

func (o *rowsOracle) States() []CodeNote { return nil }

func (o *rowsOracle) CFAVia(uint64, rule.Reg) (int64, bool) { return 0, false }

// BenchmarkCheckFileCodeJudging measures a static check without and with
// a code oracle whose answers cost nothing (rowsOracle), reporting
// compared instructions per second: the three-way judging's own cost, of
// the 3 M instructions/s with the oracle.
func BenchmarkCheckFileCodeJudging(b *testing.B) {
	for _, name := range []string{"sqlite-v3", "deep-cet-v3-O2"} {
		path := filepath.Join(fixtures, name)
		m := openModule(b, path)
		rows, err := m.CFIRows(0, math.MaxUint64)
		m.Close()
		if err != nil {
			b.Fatal(err)
		}
		for _, withOracle := range []bool{false, true} {
			b.Run(fmt.Sprintf("%s/oracle=%v", name, withOracle), func(b *testing.B) {
				var opts CheckOptions
				if withOracle {
					opts.Code = (&rowsOracle{rows: rows}).file
				}
				n := 0
				for b.Loop() {
					rep, err := CheckFile(path, opts)
					if err != nil {
						b.Fatal(err)
					}
					if withOracle && (rep.Summary.Code == nil || rep.Summary.Code.Share < 0.8) {
						b.Fatalf("oracle judged %+v", rep.Summary.Code)
					}
					n += rep.Summary.Instructions
				}
				b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "insts/s")
			})
		}
	}
}

// openModule opens the ELF file at path as a module (the file is read
// once, as check reads it).
func openModule(t testing.TB, path string) *frames.Module {
	t.Helper()
	f, err := elfobj.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	return fileModule(f)
}

// TestLandingPadsAreWalked: the catch and cleanup blocks of a C++
// function are reached by no jump, only through its LSDA's call-site
// table; the walk enters each from its call with the state after the
// call, so every instruction is judged (74.6% before) and agrees. A pad
// entered from a call with pushed arguments is entered with them popped,
// as the unwinder does (DW_CFA_GNU_args_size): CFA=rsp+32, not rsp+48.
func TestLandingPadsAreWalked(t *testing.T) {
	for _, name := range []string{"landingpads.so", "argssize.so"} {
		t.Run(name, func(t *testing.T) {
			rep, err := CheckFile(filepath.Join("..", "testdata", "codeoracle", "lsda", name), CheckOptions{Code: FramesCode})
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range codeFindings(rep) {
				t.Errorf("%s: %s", f.Kind, f.Message)
			}
			if c := rep.Summary.Code; c == nil || c.Judged != c.Checked || c.Checked == 0 {
				t.Errorf("code summary %+v: want every instruction judged", c)
			}
		})
	}
}

// TestRulesOnOtherRegistersAreJudgedByValue: libgcrypt's AArch64 CFI says
// "x29 at (sp+8)" (DW_CFA_expression breg31 8); where the code knows CFA
// = sp + 16 that is the code's c-8, where SP moved on (CFA = sp + 32) it
// is c-24, not where x29 is.
func TestRulesOnOtherRegistersAreJudgedByValue(t *testing.T) {
	const sp = 31
	onSP := rule.Rule{Kind: rule.Offset, Reg: sp, Offset: 8}
	code := rule.Rule{Kind: rule.Offset, Reg: rule.CFA, Offset: -8}
	if got := onCFA(viaRows{sp: 16}, 0, onSP); !valueRuleEqual(got, code) {
		t.Errorf("CFA = sp+16: %v, want %v", got, code)
	}
	if got := onCFA(viaRows{sp: 32}, 0, onSP); valueRuleEqual(got, code) {
		t.Errorf("CFA = sp+32: %v equals the code's %v", got, code)
	}
	if got := onCFA(viaRows{}, 0, onSP); got != onSP {
		t.Errorf("SP not known: %v, want the rule unchanged", got)
	}
}

// TestStrippedColdPartIsWalked: in a stripped program no symbol pairs
// work.cold with work; the cold part's FDE, which no call enters, is
// judged last, walked from the jumps of work into it (Debian's stripped
// C++ libraries: 887,000 instructions not judged; libgdal 95.2% ->
// 99.3%).
// cold-states-stripped's cold part is entered by two jumps whose states
// differ in a scratch register only (a copy of SP in rax): the same frame,
// so it is walked from both (Debian 12's python3.11 89.0% -> 94.4%, C++
// on the amd64 scan 96.4% -> 98.2%).
func TestStrippedColdPartIsWalked(t *testing.T) {
	for _, name := range []string{"cold-stripped", "cold-states-stripped"} {
		rep, err := CheckFile(filepath.Join("..", "testdata", "codeoracle", "cold", name), CheckOptions{Code: FramesCode})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range codeFindings(rep) {
			if f.Kind != KindCodeUnknown {
				t.Errorf("%s: %s: %s", name, f.Kind, f.Message)
			} else if strings.Contains(f.Message, "not by a call") {
				t.Errorf("%s: the cold part is not judged: %s", name, f.Message)
			}
		}
	}
}

// TestCFAOnARegisterTheCodeNeverSet: `.cfi_def_cfa_register %rbx` where
// the frame is on rbp is a code-cfa finding, not a "DRAP register" the
// oracle cannot judge: rbx still holds the caller's value, and a DRAP
// register is one the code sets from SP before it realigns (issue 30). A
// GCC-style DRAP prologue (r10 from SP) gives no finding.
func TestCFAOnARegisterTheCodeNeverSet(t *testing.T) {
	rep, err := CheckFile(filepath.Join("..", "testdata", "codeoracle", "drap", "cfa_on_unset_register.o"), CheckOptions{Code: FramesCode})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range codeFindings(rep) {
		if f.Kind != KindCodeUnknown {
			got = append(got, f.Function+" "+f.Kind.String())
		}
	}
	if want := "f code-cfa"; strings.Join(got, ", ") != want {
		t.Errorf("findings %q, want %q", got, want)
	}
}
