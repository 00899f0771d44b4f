package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/sfdbg/sfdbg/compare"
)

// gdbLineRE matches a frame line of gdb's backtrace with or without an
// address ("#3  outer_inline (x=x@entry=2) at FILE:LINE" for a frame whose
// location is an inlined call): level, address, function, FILE:LINE.
var gdbLineRE = regexp.MustCompile(`^#(\d+)\s+(0x[0-9a-f]+ in )?(\S+) \(.*\) at (\S+)$`)

type shownFrame struct{ level, addr, function, at string }

func shownFrames(text string) []shownFrame {
	var out []shownFrame
	for _, line := range strings.Split(text, "\n") {
		if m := gdbLineRE.FindStringSubmatch(line); m != nil {
			out = append(out, shownFrame{m[1], m[2], m[3], m[4]})
		}
	}
	return out
}

// TestInlineFramesAreNumberedAsGdbNumbersThem stops the inline fixture and
// compares "sfdbg bt --method cfi" with gdb's backtrace of it
// (testdata/golden/gdb-inline-v3-O2-spin.txt, scripts/gdb-golden.sh):
// the same functions in the same order, inline frames included, the same
// levels, the address where gdb prints one and the same lines (frame 0
// stops anywhere in its loop: function only). The comparison counts only
// physical frames, in text and JSON, and the debugger selects and
// describes inline frames by gdb's levels.
func TestInlineFramesAreNumberedAsGdbNumbersThem(t *testing.T) {
	golden, err := os.ReadFile(filepath.Join("..", "..", "testdata", "golden", "gdb-inline-v3-O2-spin.txt"))
	if err != nil {
		t.Fatal(err)
	}
	gdb := shownFrames(string(golden))
	if len(gdb) != 6 {
		t.Fatalf("%d frames in gdb's golden backtrace, want 6", len(gdb))
	}
	fx := startFixture(t, dumpFixture(t, "inline-v3-O2"), "spin")
	pid := strconv.Itoa(fx.Process.Pid)
	requirePtrace(t, fx.Process.Pid)

	t.Run("bt shows gdb's frames, inline ones included", func(t *testing.T) {
		code, out, errOut := runSfdbg("bt", "--method", "cfi", pid)
		if code != exitOK {
			t.Fatalf("status %d: %s", code, errOut)
		}
		ours := shownFrames(out)
		if len(ours) < len(gdb) {
			t.Fatalf("sfdbg shows %d frames, gdb %d:\n%s", len(ours), len(gdb), out)
		}
		for i, g := range gdb {
			o := ours[i]
			if i == 0 {
				g.addr, g.at, o.addr, o.at = "", "", "", ""
			}
			g.addr, o.addr = strconv.FormatBool(g.addr != ""), strconv.FormatBool(o.addr != "")
			if o != g {
				t.Errorf("frame %d: sfdbg %+v, gdb %+v", i, o, g)
			}
		}
	})
	t.Run("verdicts and counts are of physical frames", func(t *testing.T) {
		code, out, errOut := runSfdbg("bt", "--json", pid)
		if code != exitOK {
			t.Fatalf("status %d: %s", code, errOut)
		}
		var doc compare.ProcessDocument
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatal(err)
		}
		th := doc.Threads[0]
		inline := 0
		for i, f := range th.Frames {
			if f.Level != i || f.GDBLevel != i+inline+len(f.Inline) {
				t.Errorf("frame %d: level %d, gdb_level %d, %d inline below", i, f.Level, f.GDBLevel, inline)
			}
			inline += len(f.Inline)
		}
		if inline != 3 {
			t.Errorf("%d inline frames, want 3", inline)
		}
		if n := th.Agree + th.Disagree + th.NotCovered; n != len(th.Frames) || th.Agree != 3 {
			t.Errorf("%d agree, %d disagree, %d not covered; want the %d physical frames judged, 3 agreeing",
				th.Agree, th.Disagree, th.NotCovered, len(th.Frames))
		}
		code, out, errOut = runSfdbg("bt", pid)
		if code != exitOK {
			t.Fatalf("status %d: %s", code, errOut)
		}
		head := regexp.MustCompile(`: (\d+) frames \(\+3 inline\); SFrame: 3 agree, 0 disagree, (\d+) not covered:`).FindStringSubmatch(out)
		if head == nil || head[1] != strconv.Itoa(len(th.Frames)) {
			t.Errorf("thread line does not count %d physical frames and 3 inline:\n%s", len(th.Frames), out)
		}
		if !regexp.MustCompile(`(?m)^#2  0x[0-9a-f]{16}  inline {23,}inner_inline \(`).MatchString(out) {
			t.Errorf("inline frame #2 not marked inline without a verdict:\n%s", out)
		}
	})
	t.Run("frame, up and info frame select inline frames by gdb's levels", func(t *testing.T) {
		code, out, errOut := runSfdbg("attach", "-batch", "-ex", "bt", "-ex", "frame 2", "-ex", "info frame", "-ex", "up", "-ex", "up", pid)
		if code != exitOK {
			t.Fatalf("status %d: %s", code, errOut)
		}
		for _, want := range []string{
			"\n#2  0x",
			" in inner_inline (x=4) at testdata/src/inline.c:44\n44\t\tint r = stop_here(x + 1);\n    inlined into frame 3;",
			"Stack level 2, frame at 0x",
			" inlined into frame 3 (outer_inline):",
			"\n#3  outer_inline (x=x@entry=2) at testdata/src/inline.c:50\n",
			"\n#4  run (x=x@entry=2) at testdata/src/inline.c:56\n",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("no %q in:\n%s", want, out)
			}
		}
	})
	checkRunning(t, fx.Process.Pid)
}
