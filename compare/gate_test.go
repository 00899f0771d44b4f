package compare

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func checkFixture(t *testing.T, path string) *FileReport {
	t.Helper()
	rep, err := CheckFile(path, CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func TestGateFailsOnlyWhatIsNotExcused(t *testing.T) {
	supp := func(text string) []*Suppression {
		s, err := ParseSuppressions("rules.supp", strings.NewReader(text))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	tests := []struct {
		name                                  string
		gate                                  Gate
		failing, known, suppressed, baselined int
		text                                  string
	}{
		{"without options a known fault fails the run", Gate{}, 1, 1, 0, 0, "known fault: GNU ld 2.44-2.47.50"},
		{"--ignore-known lets a known fault pass and lists it", Gate{IgnoreKnown: true}, 0, 1, 0, 0, "(ignored: --ignore-known)"},
		{"a rule on the section suppresses it", Gate{Suppressions: supp("# GNU ld's stubs\nplt .plt.got GNU ld*\n")}, 0, 1, 1, 0,
			"suppressed: 1 findings, not listed (1 by rules.supp:2)"},
		{"a rule on the function name suppresses it", Gate{Suppressions: supp("p?t __cxa_*@plt\n")}, 0, 1, 1, 0, "1 by rules.supp:1"},
		{"a rule for another producer does not", Gate{Suppressions: supp("plt .plt.got LLD*\n")}, 1, 1, 0, 0, "result: 1 disagreements\n"},
		{"a rule for another kind does not", Gate{Suppressions: supp("cfa *\n")}, 1, 1, 0, 0, "result: 1 disagreements\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rep := checkFixture(t, fixture(t, "deep-v3-O2"))
			tc.gate.Classify(rep)
			g := rep.Gate
			if g.Failing != tc.failing || g.Known != tc.known || g.Suppressed != tc.suppressed || g.Baselined != tc.baselined {
				t.Errorf("gate %+v, want failing %d known %d suppressed %d baselined %d", g, tc.failing, tc.known, tc.suppressed, tc.baselined)
			}
			var b strings.Builder
			rep.WriteText(&b, Style{})
			if !strings.Contains(b.String(), tc.text) {
				t.Errorf("report lacks %q:\n%s", tc.text, b.String())
			}
			d := NewCheckDocument([]*FileReport{rep})
			if d.Failing != tc.failing || d.Disagreements != 1 {
				t.Errorf("document failing %d disagreements %d", d.Failing, d.Disagreements)
			}
		})
	}
}

func TestSuppressionsFileErrorsNameTheLine(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"plt\n", "rules.supp:1: want KIND PLACE"},
		{"# c\n\nbogus .plt.got\n", "rules.supp:3: unknown finding kind \"bogus\""},
		{"cfa [x\n", "rules.supp:1: bad glob \"[x\""},
	} {
		_, err := ParseSuppressions("rules.supp", strings.NewReader(tc.text))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.text, err, tc.want)
		}
	}
}

func TestBaselineMatchesOnStableKeys(t *testing.T) {
	// The baseline is known-ld-v3's report (3 disagreements), with every
	// address moved by 0x40, as a rebuild with more code before would.
	old := checkFixture(t, knownFixtures+"/known-ld-v3")
	for i := range old.Findings {
		old.Findings[i].PC += 0x40
		old.Findings[i].FuncStart += 0x40
	}
	var doc bytes.Buffer
	WriteJSON(&doc, NewCheckDocument([]*FileReport{old}))

	b, err := ReadBaseline("base.json", &doc)
	if err != nil {
		t.Fatal(err)
	}
	rep := checkFixture(t, knownFixtures+"/known-ld-v3")
	(&Gate{Baseline: b}).Classify(rep)
	if g := rep.Gate; g.Failing != 0 || g.Baselined != len(rep.Findings) {
		t.Errorf("gate %+v for %d findings, want all in the baseline", g, len(rep.Findings))
	}
	var text strings.Builder
	rep.WriteText(&text, Style{})
	if !strings.Contains(text.String(), "baseline: 4 findings were in the baseline report") {
		t.Errorf("report:\n%s", text.String())
	}

	// JSON Lines (check --json with several files): one file's findings
	// in the baseline; a finding at another offset is new.
	other := checkFixture(t, knownFixtures+"/known-ld-v3")
	for i := range other.Findings {
		if other.Findings[i].Function == "defreg_after_off" {
			other.Findings[i].PC++
		}
	}
	var lines bytes.Buffer
	for _, r := range []*FileReport{other, checkFixture(t, fixture(t, "deep-v1-O2"))} {
		j, _ := json.Marshal(r)
		lines.Write(append(j, '\n'))
	}
	j, _ := json.Marshal(NewCheckDocument(nil))
	lines.Write(j)
	b, err = ReadBaseline("base.jsonl", &lines)
	if err != nil {
		t.Fatal(err)
	}
	rep = checkFixture(t, knownFixtures+"/known-ld-v3")
	(&Gate{Baseline: b}).Classify(rep)
	if g := rep.Gate; g.Failing != 1 {
		t.Errorf("gate %+v, want the moved defreg_after_off finding failing", g)
	}
	for _, f := range rep.Findings {
		if f.Baselined == (f.Function == "defreg_after_off") {
			t.Errorf("%s %v baselined = %v", f.Function, f.Kind, f.Baselined)
		}
	}

	if _, err := ReadBaseline("bad.json", strings.NewReader(`{"files": [`)); err == nil || !strings.Contains(err.Error(), "bad.json: at byte") {
		t.Errorf("truncated baseline: %v", err)
	}
	if _, err := ReadBaseline("empty.json", strings.NewReader("")); err == nil {
		t.Error("an empty baseline was accepted")
	}
}
