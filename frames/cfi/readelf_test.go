package cfi

import (
	"bufio"
	"bytes"
	"debug/elf"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/sfdbg/sfdbg/sframe/rule"
)

var update = flag.Bool("update", false, "rewrite the readelf golden files under testdata/ (needs GNU readelf)")

// readelfFixtures are the fixtures whose CFI is checked against GNU
// readelf's decoding: the big-endian ones (Delve cannot read them) and the
// little-endian AArch64 ones (for DW_CFA_AARCH64_negate_ra_state, which
// Delve does not know).
var readelfFixtures = []string{"aarch64be-v2", "aarch64be-v3", "s390x-v3", "aarch64-v2", "aarch64-v3"}

// golden returns the output of readelf --debug-dump=<dump> for a fixture,
// from testdata/, running readelf first with -update.
func golden(t *testing.T, name, dump string) string {
	t.Helper()
	path := filepath.Join("testdata", name+"."+dump+".txt")
	if *update {
		out, err := exec.Command("readelf", "--debug-dump="+dump, filepath.Join("..", "..", "testdata", "bin", name)).Output()
		if err != nil {
			t.Fatalf("readelf: %v", err)
		}
		if err := os.WriteFile(path, out, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update with GNU readelf installed)", err)
	}
	return string(data)
}

var (
	readelfRecord = regexp.MustCompile(`^([0-9a-f]{8}) [0-9a-f]{16} [0-9a-f]{8} (CIE|FDE)(?: cie=([0-9a-f]+) pc=([0-9a-f]+)\.\.([0-9a-f]+))?`)
	readelfRow    = regexp.MustCompile(`^([0-9a-f]{16}) (\S+)\s*(.*)$`)
	readelfLoc    = regexp.MustCompile(`^\s+DW_CFA_(?:advance_loc[124]?|set_loc): .*?([0-9a-f]{16})$`)
)

// readelfBlock is one CIE or FDE of readelf's output.
type readelfBlock struct {
	off        int64
	cie        bool
	cieOff     int64
	start, end uint64
	cols       []string   // frames-interp: column names after CFA
	rows       [][]string // frames-interp: LOC, CFA, cells
	lines      []string   // frames: the instruction lines
}

func hexNum(t *testing.T, s string) uint64 {
	v, err := strconv.ParseUint(s, 16, 64)
	if err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	return v
}

// parseReadelf splits readelf's output into records.
func parseReadelf(t *testing.T, text string) []*readelfBlock {
	var blocks []*readelfBlock
	var cur *readelfBlock
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		line := sc.Text()
		if m := readelfRecord.FindStringSubmatch(line); m != nil {
			cur = &readelfBlock{off: int64(hexNum(t, m[1])), cie: m[2] == "CIE"}
			if !cur.cie {
				cur.cieOff, cur.start, cur.end = int64(hexNum(t, m[3])), hexNum(t, m[4]), hexNum(t, m[5])
			}
			blocks = append(blocks, cur)
			continue
		}
		switch {
		case cur == nil || strings.TrimSpace(line) == "":
		case strings.HasPrefix(line, "   LOC"):
			cur.cols = strings.Fields(line)[2:]
		case readelfRow.MatchString(line):
			m := readelfRow.FindStringSubmatch(line)
			row := []string{m[1], m[2]}
			for _, f := range strings.Fields(m[3]) {
				if strings.HasPrefix(f, "(") && len(row) > 2 {
					row[len(row)-1] += " " + f // "r16 (f0)"
				} else {
					row = append(row, f)
				}
			}
			cur.rows = append(cur.rows, row)
		default:
			cur.lines = append(cur.lines, line)
		}
	}
	return blocks
}

// readelfReg returns the DWARF number of a register as readelf names it.
func readelfReg(t *testing.T, m elf.Machine, name string, ra rule.Reg) rule.Reg {
	switch {
	case name == "ra":
		return ra
	case name == "sp" && m == elf.EM_AARCH64:
		return 31
	case strings.HasPrefix(name, "x") && m == elf.EM_AARCH64, strings.HasPrefix(name, "r"):
		n, err := strconv.Atoi(name[1:])
		if err == nil {
			return rule.Reg(n)
		}
	}
	t.Fatalf("register %q of %v", name, m)
	return 0
}

// readelfCell formats a rule as readelf's frames-interp does: "u" for an
// undefined rule and for a register without one.
func readelfCell(r rule.Rule, have bool, m elf.Machine) string {
	if !have {
		return "u"
	}
	switch r.Kind {
	case rule.Undefined:
		return "u"
	case rule.SameValue:
		return "s"
	case rule.Offset:
		return fmt.Sprintf("c%+d", r.Offset)
	case rule.ValOffset:
		return fmt.Sprintf("v%+d", r.Offset)
	case rule.Register:
		return fmt.Sprintf("r%d", r.Reg)
	case rule.Expression:
		return "exp"
	}
	return "vexp"
}

// readelfCFA formats a CFA rule as readelf does: "sp+16", "r15+160".
func readelfCFA(r rule.Rule, m elf.Machine) string {
	if r.Kind == rule.ValExpression {
		return "exp"
	}
	name := fmt.Sprintf("r%d", r.Reg)
	if m == elf.EM_AARCH64 {
		name = fmt.Sprintf("x%d", r.Reg)
		if r.Reg == 31 {
			name = "sp"
		}
	}
	return fmt.Sprintf("%s%+d", name, r.Offset)
}

// TestReadelfGolden parses the .eh_frame of the big-endian fixtures (and
// of the little-endian AArch64 ones) and checks it against GNU readelf's
// decoding, captured in testdata/: every FDE's offset, CIE and PC range,
// each matching a function symbol; every row (frames-interp: a row per
// advance, CFA and a column per register); and the AArch64 RA signing
// state, replayed from the DW_CFA_AARCH64_negate_ra_state instructions
// readelf lists (frames).
func TestReadelfGolden(t *testing.T) {
	for _, name := range readelfFixtures {
		t.Run("the CFI of "+name+" decodes as GNU readelf decodes it", func(t *testing.T) {
			f, err := elf.Open(filepath.Join("..", "..", "testdata", "bin", name))
			if err != nil {
				t.Skip(err)
			}
			defer f.Close()
			sec := cfiSections(t, f)[0]
			tab, err := Parse(sec)
			if err != nil {
				t.Fatal(err)
			}
			interp := parseReadelf(t, golden(t, name, "frames-interp"))
			raw := parseReadelf(t, golden(t, name, "frames"))
			cieRows := map[int64]*readelfBlock{}
			var fdeBlocks []*readelfBlock
			for _, b := range interp {
				if b.cie {
					cieRows[b.off] = b
				} else {
					fdeBlocks = append(fdeBlocks, b)
				}
			}
			if len(fdeBlocks) != len(tab.all) {
				t.Fatalf("%d FDEs, readelf %d", len(tab.all), len(fdeBlocks))
			}
			syms, _ := f.Symbols()
			nrows := 0
			for i, b := range fdeBlocks {
				fde := &tab.all[i]
				if fde.Off != b.off || fde.CIE.Off != b.cieOff || fde.Start != b.start || fde.End != b.end {
					t.Fatalf("FDE at %#x (CIE %#x) [%#x,%#x); readelf FDE at %#x (CIE %#x) [%#x,%#x)",
						fde.Off, fde.CIE.Off, fde.Start, fde.End, b.off, b.cieOff, b.start, b.end)
				}
				matched := false
				for _, s := range syms {
					matched = matched || elf.ST_TYPE(s.Info) == elf.STT_FUNC && s.Value == fde.Start && s.Value+s.Size == fde.End
				}
				if !matched {
					t.Errorf("FDE at %#x [%#x,%#x) is no function symbol's range", fde.Off, fde.Start, fde.End)
				}
				rows, err := fde.Rows()
				if err != nil {
					t.Fatal(err)
				}
				want := b
				if len(b.rows) == 0 {
					// readelf prints no table for an FDE without
					// instructions: its only row is the CIE's.
					want = cieRows[b.cieOff]
					want.rows[0][0] = fmt.Sprintf("%016x", fde.Start)
				}
				byLoc := map[uint64][]string{}
				for _, r := range want.rows {
					if loc := hexNum(t, r[0]); loc < fde.End {
						byLoc[loc] = r // the last row printed for a location
					}
				}
				if len(byLoc) != len(rows) {
					t.Errorf("FDE at %#x: %d rows, readelf %d", fde.Off, len(rows), len(byLoc))
				}
				for _, r := range rows {
					nrows++
					w, ok := byLoc[r.Start]
					if !ok {
						t.Errorf("FDE at %#x: row at %#x, readelf has none", fde.Off, r.Start)
						continue
					}
					got := []string{w[0], readelfCFA(r.CFA, f.Machine)}
					shown := map[rule.Reg]bool{}
					for _, col := range want.cols {
						reg := readelfReg(t, f.Machine, col, r.RAReg)
						shown[reg] = true
						ru, have := r.Rule(reg)
						cell := readelfCell(ru, have, f.Machine)
						if ru.Kind == rule.Register && strings.Contains(w[len(got)], " (") {
							cell += w[len(got)][strings.Index(w[len(got)], " ("):]
						}
						got = append(got, cell)
					}
					if strings.Join(got, " ") != strings.Join(w, " ") {
						t.Errorf("FDE at %#x row %#x: %q, readelf %q", fde.Off, r.Start, got, w)
					}
					for _, rr := range r.Regs.Append(nil) {
						if !shown[rr.Reg] && rr.Rule.Kind != rule.Undefined {
							t.Errorf("FDE at %#x row %#x: r%d has %v, readelf shows no column", fde.Off, r.Start, rr.Reg, rr.Rule)
						}
					}
				}
				checkRASigned(t, fde, rows, raw)
				if fde.CIE.BKey != strings.Contains(fde.CIE.Augmentation, "B") || rows[0].BKey != fde.CIE.BKey {
					t.Errorf("FDE at %#x: B key %v, CIE augmentation %q", fde.Off, rows[0].BKey, fde.CIE.Augmentation)
				}
			}
			t.Logf("%d FDEs, %d rows equal to readelf's", len(fdeBlocks), nrows)
		})
	}
}

// checkRASigned replays the FDE's instructions as readelf lists them and
// checks the RA signing state of every row.
func checkRASigned(t *testing.T, fde *FDE, rows []Row, raw []*readelfBlock) {
	var b *readelfBlock
	for _, r := range raw {
		if !r.cie && r.off == fde.Off {
			b = r
		}
	}
	if b == nil {
		t.Fatalf("no FDE at %#x in readelf's frames dump", fde.Off)
	}
	want := map[uint64]bool{}
	loc, signed := fde.Start, false
	var stack []bool
	for _, line := range b.lines {
		switch {
		case readelfLoc.MatchString(line):
			want[loc] = signed
			loc = hexNum(t, readelfLoc.FindStringSubmatch(line)[1])
		case strings.Contains(line, "DW_CFA_AARCH64_negate_ra_state"):
			signed = !signed
		case strings.Contains(line, "DW_CFA_remember_state"):
			stack = append(stack, signed)
		case strings.Contains(line, "DW_CFA_restore_state"):
			signed, stack = stack[len(stack)-1], stack[:len(stack)-1]
		}
	}
	want[loc] = signed
	nsigned := 0
	for _, r := range rows {
		if w, ok := want[r.Start]; !ok || w != r.RASigned {
			t.Errorf("FDE at %#x row %#x: RA signed %v, readelf's instructions say %v", fde.Off, r.Start, r.RASigned, w)
		}
		if r.RASigned {
			nsigned++
		}
	}
	if bytes.Contains(fde.Instructions, []byte{byte(cfaAArch64NegateRAState)}) && nsigned == 0 {
		t.Errorf("FDE at %#x: DW_CFA_AARCH64_negate_ra_state leaves no signed row", fde.Off)
	}
}
