package frames

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestLineRangeIsGdbsInfoLine asks gdb "info line *ADDR" at every row
// address of the line tables of fixtures with inlined code, clones and
// discriminators, and one byte after each, and compares the line and the
// range with LineRange's.
func TestLineRangeIsGdbsInfoLine(t *testing.T) {
	gdb, err := exec.LookPath("gdb")
	if err != nil {
		t.Skip("gdb not installed")
	}
	re := regexp.MustCompile(`^Line (\d+) of "([^"]*)" starts at address 0x([0-9a-f]+)(?: <[^>]*>)? and ends at 0x([0-9a-f]+)`)
	for _, name := range []string{"clones-v3-O2", "deep-v3-O2", "deep-v3-O0", "deep-cet-v3-O2", "inline-v3-O2", "tailcall-v3-O2", "noreturn-v3-O2", "sortcrash-v3"} {
		t.Run(name, func(t *testing.T) {
			m := fixtureModule(t, name)
			f, err := m.File()
			if err != nil {
				t.Fatal(err)
			}
			dd, err := f.DWARF()
			if err != nil {
				t.Fatal(err)
			}
			var pcs []uint64
			for _, seqs := range refLines(t, dd) {
				for _, seq := range seqs {
					for _, r := range seq {
						if !r.end {
							pcs = append(pcs, r.addr, r.addr+1)
						}
					}
				}
			}
			var script strings.Builder
			for _, pc := range pcs {
				fmt.Fprintf(&script, "info line *%#x\n", pc)
			}
			cmds := filepath.Join(t.TempDir(), "cmds")
			os.WriteFile(cmds, []byte(script.String()), 0o644)
			out, err := exec.Command(gdb, "-nx", "-batch", "-x", cmds, fixture(t, name)).CombinedOutput()
			if err != nil {
				t.Fatalf("gdb: %v\n%s", err, out)
			}
			lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
			if len(lines) != len(pcs) {
				t.Fatalf("gdb printed %d lines for %d addresses", len(lines), len(pcs))
			}
			bad, compared := 0, 0
			for i, pc := range pcs {
				g := re.FindStringSubmatch(lines[i])
				if g == nil {
					continue // no line, or a line without code
				}
				compared++
				gl, _ := strconv.Atoi(g[1])
				gs, _ := strconv.ParseUint(g[3], 16, 64)
				ge, _ := strconv.ParseUint(g[4], 16, 64)
				_, l, s, e, ok := m.LineRange(pc)
				if !ok || l != gl || s != gs || e != ge {
					if bad++; bad <= 10 {
						t.Errorf("%#x: line %d [%#x, %#x) %v; gdb: %s", pc, l, s, e, ok, lines[i])
					}
				}
			}
			if bad > 10 {
				t.Errorf("... %d of %d addresses differ", bad, compared)
			}
			t.Logf("%d addresses compared with gdb's info line", compared)
		})
	}
}

// TestLineRangeAndSymbolizeAgree: the line LineRange gives (gdb's line
// tables) is the line Symbolize gives (the merged rows every frame is
// named with), at every row address of the fixtures and one byte after.
func TestLineRangeAndSymbolizeAgree(t *testing.T) {
	for _, name := range []string{"clones-v3-O2", "deep-v3-O2", "deep-v3-O0", "inline-v3-O2", "tailcall-v3-O2", "noreturn-v3-O2"} {
		m := fixtureModule(t, name)
		f, err := m.File()
		if err != nil {
			t.Fatal(err)
		}
		dd, err := f.DWARF()
		if err != nil {
			t.Fatal(err)
		}
		bad := 0
		for _, seqs := range refLines(t, dd) {
			for _, seq := range seqs {
				for _, r := range seq {
					for _, pc := range []uint64{r.addr, r.addr + 1} {
						file, line, _, _, ok := m.LineRange(pc)
						sym := m.Symbolize(pc)
						if ok && (line != sym.Line || file != sym.File) {
							if bad++; bad <= 5 {
								t.Errorf("%s %#x: LineRange %s:%d, Symbolize %s:%d", name, pc, file, line, sym.File, sym.Line)
							}
						}
					}
				}
			}
		}
	}
}
