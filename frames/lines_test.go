package frames

import (
	"debug/dwarf"
	"debug/elf"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// dwarfFixtures returns the x86-64 ELF files to check line lookups on: every
// committed fixture in testdata/bin built for x86-64 (deep-*, features-*,
// sqlite-*; only deep-* carry DWARF today) and the files listed in
// $SFDBG_LINES_ELF (colon-separated), e.g. a SQLite built with -g:
//
//	gcc -g -O2 -DSQLITE_OMIT_LOAD_EXTENSION -DSQLITE_THREADSAFE=0 -I$DIR \
//	    -o /tmp/sqlite-g testdata/src/sqlite-main.c $DIR/sqlite3-binding.c -lm
//
// with DIR the go-sqlite3 module directory scripts/build-sqlite.sh uses.
func dwarfFixtures(t testing.TB) []string {
	all, err := filepath.Glob(filepath.Join("..", "testdata", "bin", "*"))
	if err != nil || len(all) == 0 {
		t.Fatalf("no fixtures in testdata/bin (scripts/build-fixtures.sh): %v", err)
	}
	var out []string
	for _, p := range all {
		f, err := elf.Open(p)
		if err != nil {
			continue
		}
		if f.Machine == elf.EM_X86_64 {
			out = append(out, p)
		}
		f.Close()
	}
	if extra := os.Getenv("SFDBG_LINES_ELF"); extra != "" {
		out = append(out, strings.Split(extra, ":")...)
	}
	return out
}

// refRow is one row of a line program, as the reference sees it.
type refRow struct {
	addr uint64
	file string
	line int
	end  bool // DW_LNE_end_sequence: addr is one past the sequence
	stmt bool // is_stmt
}

// refLines reads every row of every compilation unit's line program, one
// slice of sequences per unit, with debug/dwarf's LineReader.Next only.
func refLines(t *testing.T, d *dwarf.Data) [][][]refRow {
	var units [][][]refRow
	r := d.Reader()
	for {
		cu, err := r.Next()
		if err != nil {
			t.Fatalf("reading DWARF: %v", err)
		}
		if cu == nil {
			return units
		}
		r.SkipChildren()
		lr, err := d.LineReader(cu)
		if err != nil || lr == nil {
			continue
		}
		var seqs [][]refRow
		var seq []refRow
		var e dwarf.LineEntry
		for lr.Next(&e) == nil {
			row := refRow{addr: e.Address, line: e.Line, end: e.EndSequence, stmt: e.IsStmt}
			if e.File != nil {
				row.file = fullPath(e.File.Name, cu)
			}
			seq = append(seq, row)
			if e.EndSequence {
				seqs = append(seqs, seq)
				seq = nil
			}
		}
		units = append(units, seqs)
	}
}

// refFind is the obvious linear lookup: the first sequence, in program
// order, with a row at or below pc whose next row is above it. Rows at
// one address leave an empty range to all but the last of them, and a PC
// at an end_sequence address is past the sequence. When that last row is
// not a statement, the last statement row at its address is taken, as gdb
// does (find_pc_sect_line).
func refFind(units [][][]refRow, pc uint64) (string, int) {
	for _, seqs := range units {
		for _, seq := range seqs {
			for i := 0; i+1 < len(seq); i++ {
				if seq[i].addr <= pc && pc < seq[i+1].addr {
					k := i
					for j := i; !seq[k].stmt && j > 0 && seq[j-1].addr == seq[i].addr; j-- {
						if seq[j-1].stmt {
							k = j - 1
						}
					}
					return seq[k].file, seq[k].line
				}
			}
		}
	}
	return "", 0
}

// TestLineTableAgreesWithLinearScan looks up PCs in each fixture's line
// table and compares with refFind: at every row's address, at one byte
// before each next row, just past every sequence and at random PCs in and
// around the text.
func TestLineTableAgreesWithLinearScan(t *testing.T) {
	withDWARF := 0
	for _, p := range dwarfFixtures(t) {
		name := filepath.Base(p)
		t.Run(fmt.Sprintf("%s answers as a linear scan of its line program does", name), func(t *testing.T) {
			f, err := elf.Open(p)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			m := &Module{Name: name, OpenPath: p, Start: 0, End: 1 << 40}
			defer m.Close()
			d, err := m.load()
			if err != nil {
				t.Fatal(err)
			}
			lt := m.lineData(d)
			if f.Section(".debug_line") == nil {
				if lt != nil {
					t.Errorf("a line table from a file without .debug_line")
				}
				t.Skipf("%s has no DWARF line information", name)
			}
			if lt == nil {
				t.Fatalf("no line table")
			}
			withDWARF++
			dd, err := f.DWARF()
			if err != nil {
				t.Fatal(err)
			}
			units := refLines(t, dd)
			var pcs []uint64
			var lo, hi uint64 = ^uint64(0), 0
			for _, seqs := range units {
				for _, seq := range seqs {
					for i, r := range seq {
						pcs = append(pcs, r.addr)
						if i > 0 && r.addr > 0 {
							pcs = append(pcs, r.addr-1)
						}
					}
					if len(seq) > 0 {
						lo, hi = min(lo, seq[0].addr), max(hi, seq[len(seq)-1].addr)
					}
				}
			}
			rng := rand.New(rand.NewSource(1))
			for i := 0; i < 2000 && hi > lo; i++ {
				pcs = append(pcs, lo-16+uint64(rng.Int63n(int64(hi-lo+32))))
			}
			// The reference is O(rows) a PC: keep at most 20000 PCs.
			if len(pcs) > 20000 {
				rng.Shuffle(len(pcs), func(i, j int) { pcs[i], pcs[j] = pcs[j], pcs[i] })
				pcs = pcs[:20000]
			}
			bad := 0
			for _, pc := range pcs {
				wf, wl := refFind(units, pc)
				gf, gl := lt.find(pc)
				if gf != wf || gl != wl {
					if bad++; bad <= 10 {
						t.Errorf("%#x: %s:%d, want %s:%d", pc, gf, gl, wf, wl)
					}
				}
			}
			if bad > 10 {
				t.Errorf("... %d PCs of %d differ", bad, len(pcs))
			}
		})
	}
	if withDWARF == 0 {
		t.Errorf("no x86-64 fixture with DWARF line information")
	}
}

// TestLinesOutsideTheFirstSequence looks up PCs in main, which gcc -O2
// puts in .text.startup: the line program's second sequence, after the
// one for .text. The expected lines are those of binutils 2.40 addr2line,
// `addr2line -e testdata/bin/deep-v3-O2 0x1110 0x116b ...` (the same for
// deep-v1-O2 and deep-v2-O2; main is at 0x1110, size 0x160); addr2line
// prints "./testdata/src/deep.c" where debug/dwarf gives the name relative
// to the compilation directory ".". At 0x1110 and 0x1200 they are gdb 13's
// (info line *0x1110: 272; *0x1200: 128): the last row at those addresses
// is not a statement (is_stmt false) and gdb takes the last one that is,
// where addr2line takes the last row (271, 129).
func TestLinesOutsideTheFirstSequence(t *testing.T) {
	cases := []struct {
		what string
		pc   uint64
		file string
		line int
	}{
		{"main's first instruction is on the line of its first statement row", 0x1110, "testdata/src/deep.c", 272},
		{"main+0x5b in .text.startup has a line", 0x116b, "testdata/src/deep.c", 293},
		{"code inlined into main is in the header it came from", 0x11c7, "/usr/include/stdlib.h", 369},
		{"a later inlined call in main has its statement's line", 0x1200, "testdata/src/deep.c", 128},
		{"main's last byte is still in main's sequence", 0x126f, "testdata/src/deep.c", 285},
		{"a PC in the first (.text) sequence still has its line", 0x1380, "testdata/src/deep.c", 62},
		{"the end of the .text sequence has no line", 0x1986, "", 0},
	}
	for _, fx := range []string{"deep-v1-O2", "deep-v2-O2", "deep-v3-O2"} {
		m := fixtureModule(t, fx)
		for _, c := range cases {
			t.Run(fx+": "+c.what, func(t *testing.T) {
				s := m.Symbolize(c.pc)
				if s.File != c.file || s.Line != c.line {
					t.Errorf("%#x (%s+%#x): %s:%d, want %s:%d", c.pc, s.Name, s.Offset, s.File, s.Line, c.file, c.line)
				}
			})
		}
	}
}

// TestConcurrentLineLookups decodes a module's line table from several
// goroutines at once (run with -race) and compares with one goroutine's
// answers.
func TestConcurrentLineLookups(t *testing.T) {
	pcs := []uint64{0x1110, 0x116b, 0x11c7, 0x1380, 0x1986, 0x1500, 0x1700}
	want := make([]string, len(pcs))
	one := fixtureModule(t, "deep-v3-O2")
	for i, pc := range pcs {
		s := one.Symbolize(pc)
		want[i] = fmt.Sprintf("%s:%d", s.File, s.Line)
	}
	m := fixtureModule(t, "deep-v3-O2")
	done := make(chan []string)
	for g := 0; g < 8; g++ {
		go func() {
			got := make([]string, len(pcs))
			for i := range pcs {
				k := (i + g) % len(pcs)
				s := m.Symbolize(pcs[k])
				got[k] = fmt.Sprintf("%s:%d", s.File, s.Line)
			}
			done <- got
		}()
	}
	for g := 0; g < 8; g++ {
		if got := <-done; strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("a goroutine got %q, want %q", got, want)
		}
	}
}

// TestLineFileNames checks the file names line lookups return: with a
// relative compilation directory (the fixtures are built with
// -ffile-prefix-map=$REPO=.), debug/dwarf's name, which is relative to it;
// with an absolute one, the name joined to it.
func TestLineFileNames(t *testing.T) {
	abs := &dwarf.Entry{Field: []dwarf.Field{{Attr: dwarf.AttrCompDir, Val: "/build/x", Class: dwarf.ClassString}}}
	rel := &dwarf.Entry{Field: []dwarf.Field{{Attr: dwarf.AttrCompDir, Val: ".", Class: dwarf.ClassString}}}
	dotDir := &dwarf.Entry{Field: []dwarf.Field{{Attr: dwarf.AttrName, Val: "msort.c", Class: dwarf.ClassString}, {Attr: dwarf.AttrCompDir, Val: "./stdlib", Class: dwarf.ClassString}}}
	unit := &dwarf.Entry{Field: []dwarf.Field{{Attr: dwarf.AttrName, Val: "q.c", Class: dwarf.ClassString}, {Attr: dwarf.AttrCompDir, Val: "/tmp/tc", Class: dwarf.ClassString}}}
	cases := []struct {
		what, name string
		cu         *dwarf.Entry
		want       string
	}{
		{"an absolute name is kept", "/usr/include/stdlib.h", abs, "/usr/include/stdlib.h"},
		{"a relative name is joined to an absolute compilation directory", "src/a.c", abs, "/build/x/src/a.c"},
		{"a relative name stays relative to a relative compilation directory", "testdata/src/deep.c", rel, "testdata/src/deep.c"},
		{"a unit without a compilation directory keeps the name", "a.c", &dwarf.Entry{}, "a.c"},
		{"the unit's own file is named as the unit names it, as gdb does", "/tmp/tc/q.c", unit, "q.c"},
		{"a header of that unit keeps its absolute path", "/tmp/tc/q.h", unit, "/tmp/tc/q.h"},
		{"a name in a compilation directory ./stdlib is gdb's ./stdlib/msort.c", "stdlib/msort.c", dotDir, "./stdlib/msort.c"},
		{"a name outside it is kept", "../sysdeps/x86/bits/x.h", dotDir, "../sysdeps/x86/bits/x.h"},
	}
	for _, c := range cases {
		t.Run(c.what, func(t *testing.T) {
			if got := fullPath(c.name, c.cu); got != c.want {
				t.Errorf("fullPath(%q) = %q, want %q", c.name, got, c.want)
			}
		})
	}
}

// benchPCs returns PCs in the middle of every sized function of the
// module's symbol table, in a fixed random order.
func benchPCs(b *testing.B, m *Module) []uint64 {
	d, err := m.load()
	if err != nil {
		b.Fatal(err)
	}
	t := m.symbols(d)
	var pcs []uint64
	for i, a := range t.addrs {
		if t.sizes[i] > 0 {
			pcs = append(pcs, a+t.sizes[i]/2)
		}
	}
	sort.Slice(pcs, func(i, j int) bool { return pcs[i] < pcs[j] })
	rand.New(rand.NewSource(1)).Shuffle(len(pcs), func(i, j int) { pcs[i], pcs[j] = pcs[j], pcs[i] })
	return pcs
}

// BenchmarkLineLookup measures line lookups on the SQLite fixture (when
// built with DWARF; see dwarfFixtures and $SFDBG_LINES_ELF) and deep-v3-O2:
// "cold" is the first lookup in a module just opened from bytes already
// read (ELF and DWARF parsing, the unit index and decoding the unit's line
// program), "warm" a lookup after that, at function midpoints in random
// order.
func BenchmarkLineLookup(b *testing.B) {
	files := []string{fixture(b, "sqlite-v3"), fixture(b, "deep-v3-O2")}
	if extra := os.Getenv("SFDBG_LINES_ELF"); extra != "" {
		files = append(strings.Split(extra, ":"), files...)
	}
	for _, p := range files {
		name := filepath.Base(p)
		raw, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		f, err := elf.Open(p)
		if err != nil {
			b.Fatal(err)
		}
		hasLines := f.Section(".debug_line") != nil
		f.Close()
		b.Run(name+"/cold", func(b *testing.B) {
			if !hasLines {
				b.Skipf("%s has no DWARF line information", name)
			}
			pc := benchPCs(b, &Module{Name: name, ELF: raw, End: 1 << 40})[0]
			b.ReportAllocs()
			c := startCPU(b)
			for i := 0; i < b.N; i++ {
				m := &Module{Name: name, ELF: raw, End: 1 << 40}
				d, _ := m.load()
				if _, line := m.lineData(d).find(pc); line == 0 {
					b.Fatalf("%#x: no line", pc)
				}
			}
			c.stopWall(1, "lookup")
		})
		b.Run(name+"/warm", func(b *testing.B) {
			if !hasLines {
				b.Skipf("%s has no DWARF line information", name)
			}
			m := &Module{Name: name, ELF: raw, End: 1 << 40}
			pcs := benchPCs(b, m)
			d, _ := m.load()
			lt := m.lineData(d)
			for _, pc := range pcs { // decode every unit first
				lt.find(pc)
			}
			b.ReportAllocs()
			c := startCPU(b)
			for i := 0; i < b.N; i++ {
				lt.find(pcs[i%len(pcs)])
			}
			c.stopWall(1, "lookup")
		})
	}
}

func TestPrefetchLoadsSymbolsWhileOthersSymbolize(t *testing.T) {
	p := filepath.Join("..", "testdata", "bin", "deep-v3-O2")
	if _, err := os.Stat(p); err != nil {
		t.Skip(err)
	}
	const bias = 0x555555554000
	m := &Module{Name: "deep-v3-O2", OpenPath: p, Start: bias, End: bias + 0x5000, Bias: bias}
	defer m.Close()
	m.Prefetch()
	m.Prefetch() // a second call starts nothing
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// main+0x5b, in .text.startup (addr2line: deep.c:293).
			if s := m.Symbolize(bias + 0x116b); s.Name != "main" || s.Line != 293 {
				t.Errorf("Symbolize(main+0x5b) = %+v", s)
			}
		}()
	}
	wg.Wait()
}

// TestLineTableOfADamagedUnitEnds symbolizes a PC of a copy of the inline
// fixture whose last .debug_info byte, the null entry that ends the unit's
// children, is 0xff: debug/dwarf's Reader then returns empty entries
// (Tag 0, offset 0) for ever after the unit, and the loop over units must
// stop on them instead of spinning.
func TestLineTableOfADamagedUnitEnds(t *testing.T) {
	b, info := fixtureSection(t, "inline-v3-O2", ".debug_info")
	b[info.Offset+info.Size-1] ^= 0xff
	m := &Module{Name: "damaged", ELF: b, End: 1 << 40}
	done := make(chan Symbol, 1)
	go func() { done <- m.Symbolize(0x11c1) }()
	select {
	case s := <-done:
		if s.Name != "stop_here" {
			t.Errorf("symbol %q, want stop_here", s.Name)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Symbolize still running after 20 s: the unit loop does not end")
	}
}
