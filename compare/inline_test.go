package compare

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/sfdbg/sfdbg/frames"
	"github.com/sfdbg/sfdbg/sframe/arch"
)

// Link-time addresses in testdata/bin/inline-v3-O2 (objdump -d): the
// spin loop in stop_here (spin_inline inlined), at the start of a
// statement (inlineStmtPC, an is_stmt row of line 32) and in the middle of
// one (inlineMidPC, line 33); the return addresses into run (where
// inner_inline and outer_inline are inlined) and into main.
const (
	inlineStmtPC  = 0x11c1
	inlineMidPC   = 0x11b7
	inlineRetRun  = 0x11dd
	inlineRetMain = 0x10a3
)

// inlineStack builds the stack of inline-v3-O2 stopped at pc in
// stop_here: stop_here (CFA rsp+8) <- run (rsp+16) <- main (push rbx:
// rsp+16), which returns to 0, the end of the trace.
func inlineStack(t *testing.T, pc uint64) (*frames.Space, frames.Regs) {
	t.Helper()
	p := filepath.Join("..", "testdata", "bin", "inline-v3-O2")
	mod := &frames.Module{Name: "inline-v3-O2", Path: p, OpenPath: p, Start: deepBias, End: deepBias + deepModuleLimit, Bias: deepBias}
	t.Cleanup(func() { mod.Close() })
	mem := &stackMem{base: deepStackBase, b: make([]byte, 64)}
	binary.LittleEndian.PutUint64(mem.b[0:], deepBias+inlineRetRun)   // stop_here's RA
	binary.LittleEndian.PutUint64(mem.b[16:], deepBias+inlineRetMain) // run's RA
	binary.LittleEndian.PutUint64(mem.b[32:], 0)                      // main's RA: the end
	regs := frames.NewRegs(arch.AMD64Arch)
	regs.Set(frames.RIP, deepBias+pc)
	regs.Set(frames.RSP, deepStackBase)
	regs.Set(frames.RBP, 0)
	return &frames.Space{Mem: mem, Modules: frames.NewModules(mod)}, regs
}

// frameLines returns the frame lines of a text trace ("#N ...").
func frameLines(text string) []string {
	var out []string
	prev := false // the last line was a frame line
	for _, l := range strings.Split(text, "\n") {
		switch {
		case strings.HasPrefix(l, "#") && !strings.HasPrefix(l, "#  "):
			out, prev = append(out, l), true
		case prev && strings.HasPrefix(l, "    ") && strings.TrimSpace(l) != "":
			// A location wrapped to a line of its own (lineWidth).
			out[len(out)-1] += " " + strings.TrimSpace(l)
		default:
			prev = false
		}
	}
	return out
}

func TestInlineFramesAreShownAsGDBShowsThem(t *testing.T) {
	space, regs := inlineStack(t, inlineStmtPC)
	run := strings.Repeat("0", 4) + "5555555551dd"
	t.Run("one method prints gdb's bt lines, addresses where gdb prints them", func(t *testing.T) {
		tr := Unwind(space, regs, Options{Methods: OnlyCFI})
		var b bytes.Buffer
		tr.WriteText(&b, TextOptions{})
		want := []string{
			"#0  spin_inline () at testdata/src/inline.c:32",
			"#1  stop_here () at testdata/src/inline.c:38",
			"#2  0x" + run + " in inner_inline () at testdata/src/inline.c:44",
			"#3  outer_inline () at testdata/src/inline.c:50",
			"#4  run () at testdata/src/inline.c:56",
			"#5  0x00005555555550a3 in main () at testdata/src/inline.c:67",
		}
		if got := frameLines(b.String()); !reflect.DeepEqual(got, want) {
			t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	})
	t.Run("an inline frame stopped inside a statement shows its address", func(t *testing.T) {
		space, regs := inlineStack(t, inlineMidPC)
		tr := Unwind(space, regs, Options{Methods: OnlyCFI})
		var b bytes.Buffer
		tr.WriteText(&b, TextOptions{Limit: 1})
		if got := frameLines(b.String()); len(got) != 1 || got[0] != "#0  0x00005555555551b7 in spin_inline () at testdata/src/inline.c:33" {
			t.Errorf("got %q", got)
		}
	})
	t.Run("the table marks inline frames and gives them no verdict; counts are of physical frames", func(t *testing.T) {
		tr := Unwind(space, regs, Options{})
		if len(tr.Frames) != 3 || tr.Agree != 3 || tr.Disagree+tr.NotCovered != 0 {
			t.Fatalf("%d physical frames, %d agree, %d disagree, %d not covered; want 3 agreeing", len(tr.Frames), tr.Agree, tr.Disagree, tr.NotCovered)
		}
		if tr.Levels() != 6 {
			t.Errorf("%d levels, want 6", tr.Levels())
		}
		var b bytes.Buffer
		tr.WriteText(&b, TextOptions{})
		lines := frameLines(b.String())
		want := []string{
			`^#0  0x00005555555551c1  inline {23,}spin_inline \(\) at testdata/src/inline.c:32$`,
			`^#1  0x00005555555551c1  regs    agree       (\S+ +)+stop_here \(\) at testdata/src/inline.c:38$`,
			`^#2  0x` + run + `  inline {23,}inner_inline \(\) at testdata/src/inline.c:44$`,
			`^#3  0x` + run + `  inline {23,}outer_inline \(\) at testdata/src/inline.c:50$`,
			`^#4  0x` + run + `  cfi     agree       (\S+ +)+run \(\) at testdata/src/inline.c:56$`,
			`^#5  0x00005555555550a3  cfi     agree       (\S+ +)+main \(\) at testdata/src/inline.c:67$`,
		}
		if len(lines) != len(want) {
			t.Fatalf("%d frame lines, want %d:\n%s", len(lines), len(want), b.String())
		}
		for i, re := range want {
			if !regexp.MustCompile(re).MatchString(lines[i]) {
				t.Errorf("line %d: %q does not match %s", i, lines[i], re)
			}
		}
	})
	t.Run("bt N and bt -N count frames as gdb does", func(t *testing.T) {
		tr := Unwind(space, regs, Options{Methods: OnlyCFI})
		for _, tc := range []struct {
			limit int
			first string
			n     int
			more  bool
		}{{2, "#0 ", 2, true}, {-2, "#4 ", 2, false}, {5, "#0 ", 5, true}, {6, "#0 ", 6, false}} {
			var b bytes.Buffer
			tr.WriteText(&b, TextOptions{Limit: tc.limit})
			lines := frameLines(b.String())
			if len(lines) != tc.n || !strings.HasPrefix(lines[0], tc.first) || strings.Contains(b.String(), "More stack frames") != tc.more {
				t.Errorf("bt %d:\n%s", tc.limit, b.String())
			}
		}
	})
	t.Run("findings name frames by gdb's levels in text", func(t *testing.T) {
		tr := Unwind(space, regs, Options{})
		tr.Findings = append(tr.Findings, Finding{Kind: KindNoFDE, Frame: 1, Message: "frame #1 inline-v3-O2!run+0xd: test"})
		var b bytes.Buffer
		tr.WriteText(&b, TextOptions{})
		if !strings.Contains(b.String(), "frame #4 inline-v3-O2!run+0xd: test") {
			t.Errorf("finding not renumbered:\n%s", b.String())
		}
	})
	t.Run("without lines, frames are physical", func(t *testing.T) {
		tr := Unwind(space, regs, Options{Methods: OnlyCFI})
		var b bytes.Buffer
		tr.WriteText(&b, TextOptions{NoLines: true})
		if got := frameLines(b.String()); len(got) != 3 || !strings.Contains(got[1], " in run () from ") {
			t.Errorf("got %q", got)
		}
	})
}

func TestInlineFramesInJSON(t *testing.T) {
	space, regs := inlineStack(t, inlineStmtPC)
	doc := Unwind(space, regs, Options{}).Document(1, "t")
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	var back ThreadDocument
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	type frame struct {
		level, gdb int
		function   string
		line       int
		inline     []InlineDocument
	}
	var got []frame
	for _, f := range back.Frames {
		got = append(got, frame{f.Level, f.GDBLevel, f.Function, f.Line, f.Inline})
	}
	src := "testdata/src/inline.c"
	want := []frame{
		{0, 1, "stop_here", 38, []InlineDocument{{GDBLevel: 0, Function: "spin_inline", File: src, Line: 32}}},
		{1, 4, "run", 56, []InlineDocument{{GDBLevel: 2, Function: "inner_inline", File: src, Line: 44}, {GDBLevel: 3, Function: "outer_inline", File: src, Line: 50}}},
		{2, 5, "main", 67, nil},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("frames\n%+v\nwant\n%+v", got, want)
	}
	if back.Agree != 3 {
		t.Errorf("agree %d, want 3 (physical frames)", back.Agree)
	}
	if bytes.Contains(b, []byte(`"inline":null`)) {
		t.Error(`a frame without inline functions has "inline": null`)
	}
}
