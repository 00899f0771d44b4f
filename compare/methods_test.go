package compare

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/sfdbg/sfdbg/frames"
	"github.com/sfdbg/sfdbg/sframe/arch"
)

func TestMethodsAreASet(t *testing.T) {
	if _, err := ParseMethods("bogus"); err == nil || err.Error() != `unknown method "bogus" (want sframe, cfi, fp, code, ehabi, or all/compare)` {
		t.Errorf("ParseMethods(bogus): %v", err)
	}
	for _, s := range []string{"all", "compare", "sframe", "cfi", "fp", "code", "ehabi"} {
		m, err := ParseMethods(s)
		if err != nil {
			t.Errorf("ParseMethods(%s): %v", s, err)
			continue
		}
		x, single := m.Single()
		if want := s != "all" && s != "compare"; single != want || (single && x.String() != s) || (single && !m.Runs(x)) {
			t.Errorf("ParseMethods(%s) = %v (single %v %v)", s, m, single, x)
		}
	}
	if !All.Runs(frames.MethodCode) || !All.Runs(frames.MethodSFrame) || OnlyCFI.Runs(frames.MethodSFrame) {
		t.Error("Runs: All runs the methods with an unwinder, a single method only itself")
	}
	// The tables lead: the FP chain's and the code's callers are taken
	// only where no table gives one.
	if got := set.lead; len(got) != 5 || got[0] != frames.MethodCFI || got[1] != frames.MethodSFrame || got[2] != frames.MethodEHABI || got[3] != frames.MethodFP || got[4] != frames.MethodCode {
		t.Errorf("lead order %v", got)
	}
	if len(set.subjects) != 3 || set.subjects[0] != frames.MethodSFrame || set.subjects[1] != frames.MethodCode || set.subjects[2] != frames.MethodEHABI {
		t.Errorf("subjects %v", set.subjects)
	}
}

func TestATraceRunsTheMethodsOfItsMachine(t *testing.T) {
	for _, tc := range []struct {
		name  string
		a     *arch.Arch
		ehabi bool
	}{{"amd64 (a zero Regs)", nil, false}, {"aarch64", arch.ARM64Arch, false}, {"s390x", arch.S390XArch, false}, {"32-bit arm", arch.ARMArch, true}} {
		t.Run(tc.name+" judges EHABI only on ARM", func(t *testing.T) {
			s := setFor(All, tc.a)
			if got := slices.Contains(s.live, frames.MethodEHABI); got != tc.ehabi {
				t.Errorf("EHABI live: %v, want %v (%v)", got, tc.ehabi, s.live)
			}
			if got := slices.Contains(s.subjects, frames.MethodEHABI); got != tc.ehabi {
				t.Errorf("EHABI judged: %v, want %v (%v)", got, tc.ehabi, s.subjects)
			}
			want := []frames.Method{Reference, frames.MethodSFrame, frames.MethodFP, frames.MethodCode}
			if tc.ehabi {
				want = []frames.Method{Reference, frames.MethodSFrame, frames.MethodEHABI, frames.MethodFP, frames.MethodCode}
			}
			if !slices.Equal(s.lead, want) {
				t.Errorf("lead %v, want %v", s.lead, want)
			}
			if one := setFor(OnlyCFI, tc.a); one != set {
				t.Error("a single method's trace does not take every method")
			}
		})
	}
}

// shiftedCode is a test double for a code unwinder (the real one is
// frames/code's): it steps as CFI does, except at frame level bad, where
// its CFA and the caller's SP are 8 bytes higher (as a code state that
// counts a push the CFI does not describe).
type shiftedCode struct {
	cfi frames.Unwinder
	bad int
}

func (u *shiftedCode) Method() frames.Method { return frames.MethodCode }

func (u *shiftedCode) Step(f *frames.Frame) (frames.Frame, error) {
	c, err := u.cfi.Step(f)
	f.Row.Src = frames.Source{Method: frames.MethodCode, FDE: -1, CIE: -1, FRE: -1}
	if err == nil && f.Level == u.bad {
		f.CFA += 8
		c.Regs.Set(frames.RSP, c.Regs.SP()+8)
	}
	return c, err
}

// withCode gives the traces of the test a code unwinder, u, as a fourth
// live method: what frames/code's unwinder will be, through the same set.
func withCode(t *testing.T, u func(*frames.Space) frames.Unwinder) {
	old := set
	set = newMethodSet(frames.LiveMethods(), func(m frames.Method, s *frames.Space) frames.Unwinder {
		if m == frames.MethodCode {
			return u(s)
		}
		return m.NewUnwinder(s)
	})
	t.Cleanup(func() { set = old })
}

func TestAFourthMethodIsJudgedOnTheSamePath(t *testing.T) {
	const n, bad = 8, 3
	space, regs := deepStack(t, n)
	withCode(t, func(s *frames.Space) frames.Unwinder {
		return &shiftedCode{cfi: frames.MethodCFI.NewUnwinder(s), bad: bad}
	})
	tr := Unwind(space, regs, Options{MaxDepth: n + 1, Independent: true})
	if len(tr.Frames) != n || tr.Agree != n || tr.Disagree != 0 || tr.Disagreements() == 0 {
		t.Fatalf("%d frames, SFrame agrees at %d, disagrees at %d: the code must not change SFrame's counts", len(tr.Frames), tr.Agree, tr.Disagree)
	}
	for i := range tr.Frames {
		want := VerdictAgree
		if i == bad {
			want = VerdictDisagree
		}
		if got := tr.Frames[i].Verdicts[frames.MethodCode]; got != want || !tr.Frames[i].Steps[frames.MethodCode].Ran {
			t.Errorf("frame %d: the code's verdict %v, want %v", i, got, want)
		}
	}
	var code []Finding
	for _, f := range tr.Findings {
		if f.Kind == KindCodeCFA {
			code = append(code, f)
		}
	}
	if len(code) != 1 || code[0].Frame != bad || !strings.Contains(code[0].Message, "CFA differs: the code CFA ") ||
		!strings.Contains(code[0].Message, ", CFI CFA ") || code[0].Rules[frames.MethodCode] == "" {
		t.Errorf("code findings %v", code)
	}
	var text bytes.Buffer
	tr.WriteText(&text, TextOptions{NoLines: true})
	lines := strings.Split(text.String(), "\n")
	if !strings.HasSuffix(lines[0], "FOUND   SFRAME      FP      CODE         FUNCTION") {
		t.Errorf("header %q", lines[0])
	}
	for _, l := range lines {
		if strings.HasPrefix(l, "#3 ") && !strings.Contains(l, "  cfi     agree       differs DISAGREE     level4_recursive") {
			t.Errorf("frame %d: %q", bad, l)
		}
	}
	if !strings.Contains(text.String(), "code: cfa=rsp+16") {
		t.Errorf("the finding does not show the code's rule:\n%s", text.String())
	}
	if j := tr.JudgementText(bad); j != "sframe agree, fp differs, code disagree" {
		t.Errorf("frame %d judged %q", bad, j)
	}
	fd := tr.Document(1, "t").Frames[bad]
	if fd.Verdict != VerdictAgree || fd.Verdicts["code"] != VerdictDisagree || !fd.Steps["code"].OK {
		t.Errorf("frame %d JSON: verdict %v, verdicts %v, steps %v", bad, fd.Verdict, fd.Verdicts, fd.Steps)
	}
	var indep []frames.Method
	for _, it := range tr.Independent {
		indep = append(indep, it.Method)
	}
	if len(indep) != 3 || indep[2] != frames.MethodCode {
		t.Errorf("independent traces %v", indep)
	}
	m, err := ParseMethods("code")
	if err != nil {
		t.Fatal(err)
	}
	alone := Unwind(space, regs, Options{Methods: m, MaxDepth: n + 1})
	if len(alone.Frames) < 2 || alone.Frames[1].FoundBy != frames.MethodCode || alone.Frames[0].Steps[frames.MethodCFI].Ran {
		t.Errorf("--method code: %d frames, frame 1 found by %v", len(alone.Frames), alone.Frames[1].FoundBy)
	}
}
