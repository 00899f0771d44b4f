package frames

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"

	"golang.org/x/sys/unix"
)

// libcWithDebugFile returns the host's libc.so.6 when its separate debug
// file (Debian's libc6-dbg) is installed; it skips the test otherwise.
func libcWithDebugFile(t testing.TB) string {
	const path = "/lib/x86_64-linux-gnu/libc.so.6"
	f, err := elf.Open(path)
	if err != nil {
		t.Skipf("no x86-64 glibc here: %v", err)
	}
	id := buildID(f)
	f.Close()
	if len(id) < 3 {
		t.Skipf("%s has no build ID", path)
	}
	dbg := filepath.Join("/usr/lib/debug/.build-id", id[:2], id[2:]+".debug")
	if _, err := os.Stat(dbg); err != nil {
		t.Skipf("no debug file for libc (install libc6-dbg): %v", err)
	}
	return path
}

// describe is everything the line table gives a frame at pc: what a
// backtrace prints of it.
func describe(m *Module, pc uint64) string {
	s := m.SymbolizeAt(pc, pc)
	return fmt.Sprintf("%s %s:%d stmt=%v inline=%+v", s.Name, s.File, s.Line, m.StmtAt(pc), m.InlinedAt(pc))
}

// samplePCs returns the start, second byte, middle and last byte of every
// function symbol of m (at most limit of them, chosen at random beyond),
// and PCs at random in the module's code.
func samplePCs(t *testing.T, m *Module, limit int) []uint64 {
	d, err := m.load()
	if err != nil {
		t.Fatal(err)
	}
	st := m.symbols(d)
	idx := rand.New(rand.NewSource(1)).Perm(len(st.addrs))
	if len(idx) > limit {
		idx = idx[:limit]
	}
	var pcs []uint64
	lo, hi := ^uint64(0), uint64(0)
	for _, i := range idx {
		a, n := st.addrs[i]+m.Bias, st.sizes[i]
		pcs = append(pcs, a, a+1, a+n/2, a+n-1)
		lo, hi = min(lo, a), max(hi, a+n)
	}
	rng := rand.New(rand.NewSource(2))
	for i := 0; i < 500 && hi > lo; i++ {
		pcs = append(pcs, lo+uint64(rng.Int63n(int64(hi-lo))))
	}
	return pcs
}

// compareLazyWithWhole checks that a module reading one unit at a time
// (.debug_aranges) names every PC as one reading the whole DWARF does.
func compareLazyWithWhole(t *testing.T, path string, maxFuncs int) {
	old := maxSparseUnits
	maxSparseUnits = 1 << 30 // every PC's unit read alone
	defer func() { maxSparseUnits = old }()
	lazy := &Module{Name: filepath.Base(path), Path: path, OpenPath: path, Start: 0, End: 1 << 48}
	whole := &Module{Name: filepath.Base(path), Path: path, OpenPath: path, Start: 0, End: 1 << 48, eagerDWARF: true}
	defer lazy.Close()
	defer whole.Close()
	pcs := samplePCs(t, whole, maxFuncs)
	bad := 0
	for _, pc := range pcs {
		if w, g := describe(whole, pc), describe(lazy, pc); w != g {
			if bad++; bad <= 10 {
				t.Errorf("%#x: one unit: %s\n\t\twhole DWARF: %s", pc, g, w)
			}
		}
	}
	if bad > 10 {
		t.Errorf("... %d PCs of %d differ", bad, len(pcs))
	}
	d, _ := lazy.load()
	if lt := lazy.lineData(d); lt == nil || lt.sparse == nil {
		t.Fatalf("%s: the line table does not read units one at a time", path)
	} else if lt.sparse.full != nil && lt.sparse.secs.sec[secInfo].ra != nil {
		// (A stream cannot tell a PC in no unit from one in a unit
		// .debug_aranges leaves out: it asks the whole file.)
		t.Errorf("%s: the whole-file table was built for some PC", path)
	}
}

// TestOneUnitLookupsMatchTheWholeDWARF compares, on every committed x86-64
// fixture with .debug_aranges and on the host's libc with its separate
// debug file (compressed sections: libc6-dbg), the names, lines, statement
// marks and inline chains read one unit at a time with those read from
// the whole DWARF, at the start, middle and end of every function and at
// random PCs.
func TestOneUnitLookupsMatchTheWholeDWARF(t *testing.T) {
	n := 0
	for _, p := range dwarfFixtures(t) {
		f, err := elf.Open(p)
		if err != nil {
			continue
		}
		has := f.Section(".debug_aranges") != nil
		f.Close()
		if !has {
			continue
		}
		n++
		t.Run(filepath.Base(p), func(t *testing.T) { compareLazyWithWhole(t, p, 1<<20) })
	}
	if n == 0 {
		t.Error("no fixture with .debug_aranges")
	}
	t.Run("libc with libc6-dbg", func(t *testing.T) {
		maxFuncs := 1000 // of about 3,800, at random: 4 s
		if testing.Short() {
			maxFuncs = 200
		}
		compareLazyWithWhole(t, libcWithDebugFile(t), maxFuncs)
	})
}

// TestOneUnitLookupReadsOnlyAPrefix checks that naming a PC in libc
// decompresses .debug_info only up to the end of the PC's unit, not the
// whole section, and builds no whole-file table.
func TestOneUnitLookupReadsOnlyAPrefix(t *testing.T) {
	path := libcWithDebugFile(t)
	old := DebugCacheDir
	defer func() { DebugCacheDir = old }()
	DebugCacheDir = "" // the cache would decompress all of it once
	m := &Module{Name: "libc.so.6", Path: path, OpenPath: path, Start: 0, End: 1 << 48}
	defer m.Close()
	a, _, ok := m.LookupSymbol("__libc_start_call_main")
	if !ok {
		t.Fatal("no __libc_start_call_main")
	}
	if s := m.Symbolize(a + 8); s.Name != "__libc_start_call_main" || s.Line == 0 {
		t.Fatalf("__libc_start_call_main+8: %+v", s)
	}
	d, _ := m.load()
	sp := m.lineData(d).sparse
	if sp == nil {
		t.Fatal("not read one unit at a time")
	}
	info := sp.secs.sec[secInfo]
	if got, size := uint64(len(info.buf)), info.size(); got >= size {
		t.Errorf(".debug_info: %d of %d bytes read", got, size)
	} else {
		t.Logf(".debug_info: %d of %d bytes read", got, size)
	}
	if sp.full != nil {
		t.Error("the whole-file table was built")
	}
}

// TestParseArangesRefusesMalformedSets checks that a set whose length or
// header does not fit is an error naming the offset, never a panic.
func TestParseArangesRefusesMalformedSets(t *testing.T) {
	le := binary.LittleEndian
	set := func(length uint32, version uint16, asize, ssize byte, pairs ...uint64) []byte {
		b := le.AppendUint32(nil, length)
		b = le.AppendUint16(b, version)
		b = le.AppendUint32(b, 0x40)
		b = append(b, asize, ssize, 0, 0, 0, 0)
		for _, p := range pairs {
			b = le.AppendUint64(b, p)
		}
		return b
	}
	good := set(2+4+2+4+32, 2, 8, 0, 0x1000, 0x10, 0, 0)
	got, err := parseAranges(good, le)
	if err != nil || !reflect.DeepEqual(got, []arange{{0x1000, 0x1010, 0x40}}) {
		t.Fatalf("a good set: %v, %v", got, err)
	}
	for _, c := range []struct {
		what string
		b    []byte
	}{
		{"length past the end", set(1000, 2, 8, 0, 0x1000, 0x10, 0, 0)},
		{"version 7", set(2+4+2+4+32, 7, 8, 0, 0x1000, 0x10, 0, 0)},
		{"address size 3", set(2+4+2+4+32, 2, 3, 0, 0x1000, 0x10, 0, 0)},
		{"segment selectors", set(2+4+2+4+32, 2, 8, 8, 0x1000, 0x10, 0, 0)},
		{"truncated header", good[:3]},
		{"reserved length", set(0xfffffff3, 2, 8, 0)},
	} {
		if _, err := parseAranges(c.b, le); err == nil {
			t.Errorf("%s: no error", c.what)
		}
	}
}

// processCPU is the process's user and system CPU time in nanoseconds,
// all threads (decompression runs on several).
func processCPU() int64 {
	var ru unix.Rusage
	if unix.Getrusage(unix.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// BenchmarkLibcFrameNames names the libc frames of a threaded process's
// backtrace (clock_nanosleep, start_thread, __libc_start_call_main) with
// a fresh module each time, reading one unit at a time and, as before,
// the whole DWARF: the cost of a one-shot `sfdbg bt` with libc6-dbg.
func BenchmarkLibcFrameNames(b *testing.B) {
	path := libcWithDebugFile(b)
	for _, eager := range []bool{false, true} {
		name := "one-unit"
		if eager {
			name = "whole-DWARF"
		}
		b.Run(name, func(b *testing.B) {
			cpu0 := processCPU()
			for range b.N {
				m := &Module{Name: "libc.so.6", Path: path, OpenPath: path, Start: 0, End: 1 << 48, eagerDWARF: eager}
				for _, fn := range []string{"__clock_nanosleep", "start_thread", "__libc_start_call_main"} {
					a, _, ok := m.LookupSymbol(fn)
					if !ok {
						b.Fatalf("no %s", fn)
					}
					if s := m.SymbolizeAt(a+0x20, a+0x1f); s.Line == 0 {
						b.Fatalf("%s: no line", fn)
					}
					m.InlinedAt(a + 0x1f)
				}
				m.Close()
			}
			b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N)/1e6, "cpu-ms/op")
		})
	}
}

// compressedFixture is testdata/compressed/inline2-v3-O2-zlib
// (scripts/build-compressed-fixtures.sh): two units, inline functions,
// every .debug_* section zlib-compressed.
const compressedFixture = "../testdata/compressed/inline2-v3-O2-zlib"

// TestOneUnitLookupsInCompressedDWARF is TestOneUnitLookupsMatchTheWholeDWARF
// on the committed fixture with compressed sections, read without the cache
// (prefixes of the streams) and with it.
func TestOneUnitLookupsInCompressedDWARF(t *testing.T) {
	old := DebugCacheDir
	defer func() { DebugCacheDir = old }()
	DebugCacheDir = ""
	t.Run("streams", func(t *testing.T) { compareLazyWithWhole(t, compressedFixture, 1<<20) })
	DebugCacheDir = t.TempDir()
	t.Run("writing the cache", func(t *testing.T) { compareLazyWithWhole(t, compressedFixture, 1<<20) })
	t.Run("reading the cache", func(t *testing.T) { compareLazyWithWhole(t, compressedFixture, 1<<20) })
}

// TestDecompressedSectionsAreCachedByBuildID checks that a compressed
// section is decompressed once into the cache, read from there at random
// by the next module, and that a cache file of the wrong size is ignored
// (and replaced).
func TestDecompressedSectionsAreCachedByBuildID(t *testing.T) {
	old := DebugCacheDir
	defer func() { DebugCacheDir = old }()
	DebugCacheDir = t.TempDir()
	names := func() (string, *sparseDWARF) {
		m := &Module{Name: "inline2", Path: compressedFixture, OpenPath: compressedFixture, Start: 0, End: 1 << 48}
		t.Cleanup(func() { m.Close() })
		var out string
		for _, pc := range samplePCs(t, m, 1<<20) {
			out += describe(m, pc) + "\n"
		}
		d, _ := m.load()
		return out, m.lineData(d).sparse
	}
	first, sp := names()
	if sp == nil || sp.secs.sec[secInfo].ra != nil {
		t.Fatal("the first module did not decompress .debug_info")
	}
	files, _ := filepath.Glob(filepath.Join(DebugCacheDir, "dwarf", "*", "*.debug_info-*"))
	if len(files) != 1 {
		t.Fatalf("cache files of .debug_info: %v", files)
	}
	second, sp := names()
	if sp.secs.sec[secInfo].ra == nil {
		t.Error("the second module did not read .debug_info from the cache")
	}
	if second != first {
		t.Errorf("names from the cache differ:\n%s\nfrom the sections:\n%s", second, first)
	}
	if err := os.WriteFile(files[0], []byte("short"), 0o600); err != nil {
		t.Fatal(err)
	}
	third, sp := names()
	if sp.secs.sec[secInfo].ra != nil {
		t.Error("a cache file of the wrong size was read")
	}
	if third != first {
		t.Errorf("names with a damaged cache differ:\n%s\nfrom the sections:\n%s", third, first)
	}
	if st, err := os.Stat(files[0]); err != nil || uint64(st.Size()) != sp.secs.sec[secInfo].size() {
		t.Errorf("the damaged cache file was not replaced: %v", err)
	}
}

// TestManyUnitsTakeTheWholeFile checks that past maxSparseUnits units, a
// module's lookups go to the whole-file table, with the same answers.
func TestManyUnitsTakeTheWholeFile(t *testing.T) {
	path := libcWithDebugFile(t)
	old := maxSparseUnits
	maxSparseUnits = 4
	defer func() { maxSparseUnits = old }()
	lazy := &Module{Name: "libc.so.6", Path: path, OpenPath: path, Start: 0, End: 1 << 48}
	whole := &Module{Name: "libc.so.6", Path: path, OpenPath: path, Start: 0, End: 1 << 48, eagerDWARF: true}
	defer lazy.Close()
	defer whole.Close()
	for _, pc := range samplePCs(t, whole, 40) {
		if w, g := describe(whole, pc), describe(lazy, pc); w != g {
			t.Errorf("%#x: %s, whole DWARF: %s", pc, g, w)
		}
	}
	d, _ := lazy.load()
	sp := lazy.lineData(d).sparse
	if len(sp.units) > 4 || sp.full == nil {
		t.Errorf("%d units read alone, whole-file table built: %v", len(sp.units), sp.full != nil)
	}
}

// memSection is a lazySection over b, an uncompressed section in memory.
func memSection(name string, b []byte) *lazySection {
	if b == nil {
		return &lazySection{}
	}
	r := bytes.NewReader(b)
	return &lazySection{sec: &elf.Section{SectionHeader: elf.SectionHeader{Name: name, Type: elf.SHT_PROGBITS, Size: uint64(len(b))}, ReaderAt: r}, ra: r}
}

// FuzzSparseUnit reads .debug_aranges, .debug_info, .debug_abbrev and
// .debug_line as a module reading one unit at a time does, and looks up
// the start of every range: never a panic, and nothing allocated past
// what the sections hold.
func FuzzSparseUnit(f *testing.F) {
	for _, p := range []string{"../testdata/bin/inline-v3-O2", "../testdata/bin/deep-v3-O2", compressedFixture} {
		file, err := elf.Open(p)
		if err != nil {
			continue
		}
		var secs [4][]byte
		for i, n := range []string{".debug_aranges", ".debug_info", ".debug_abbrev", ".debug_line"} {
			if s := file.Section(n); s != nil {
				secs[i], _ = s.Data()
			}
		}
		f.Add(secs[0], secs[1], secs[2], secs[3])
		file.Close()
	}
	f.Fuzz(fuzzSparseUnit)
}

func fuzzSparseUnit(t *testing.T, aranges, info, abbrev, line []byte) {
	{
		ranges, err := parseAranges(aranges, binary.LittleEndian)
		if err != nil {
			return
		}
		sp := memSparse(ranges, aranges, info, abbrev, line, nil)
		defer sp.secs.close()
		for i, r := range sp.ranges {
			if i >= 64 {
				break
			}
			if u, ok := sp.unitAt(r.lo); ok && u != nil {
				u.table().find(r.lo)
				u.inlinedAt(r.lo)
				if f, ok := u.subprogramAt(r.lo); ok {
					subprogramName(u.d, f.off)
				}
			}
		}
	}
}

// TestWholeDataGivesTheFileOffsets checks that the whole DWARF of a
// module reading units one at a time finds each unit's DIEs at the
// offsets the unit's own Data gives them.
func TestWholeDataGivesTheFileOffsets(t *testing.T) {
	m := &Module{Name: "inline2", Path: compressedFixture, OpenPath: compressedFixture, Start: 0, End: 1 << 48}
	defer m.Close()
	n := 0
	for _, pc := range samplePCs(t, m, 1<<20) {
		d, _ := m.load()
		lt := m.lineData(d)
		for u := range lt.units(pc) {
			f, ok := u.subprogramAt(pc)
			if !ok {
				continue
			}
			w := lt.wholeData()
			if w == nil {
				t.Fatal("no whole DWARF")
			}
			if a, b := subprogramName(u.d, f.off), subprogramName(w, f.off); a != b || a == "??" {
				t.Errorf("%#x: DIE at %#x is %q in its unit, %q in the whole DWARF", pc, f.off, a, b)
			}
			n++
		}
	}
	if n == 0 {
		t.Error("no subprogram found")
	}
}

// memSparse is a sparseDWARF over sections in memory, uncompressed;
// common holds the sections read whole (nil: none).
func memSparse(ranges []arange, aranges, info, abbrev, line []byte, common [][]byte) *sparseDWARF {
	ds := &dwarfSections{}
	for i := range ds.sec {
		ds.sec[i] = &lazySection{}
	}
	ds.sec[secInfo], ds.sec[secAbbrev], ds.sec[secLine] = memSection(".debug_info", info), memSection(".debug_abbrev", abbrev), memSection(".debug_line", line)
	sp := &sparseDWARF{secs: ds, order: binary.LittleEndian, ranges: ranges, units: map[uint64]*sparseUnit{}}
	sp.common = make([][]byte, len(dwarfSectionNames))
	copy(sp.common, common)
	sp.common[secAranges] = aranges
	sort.Slice(sp.ranges, func(i, j int) bool { return sp.ranges[i].lo < sp.ranges[j].lo })
	sp.maxHi = make([]uint64, len(sp.ranges))
	var hi uint64
	for i, r := range sp.ranges {
		hi = max(hi, r.hi)
		sp.maxHi[i] = hi
	}
	return sp
}

// TestUnitsLeftOutOfArangesAskTheWholeFile checks that when
// .debug_aranges has no set for some unit (clang writes none; a binary
// may mix objects), a PC in no listed range is looked up in the whole
// file, while with every unit listed it is in no unit.
func TestUnitsLeftOutOfArangesAskTheWholeFile(t *testing.T) {
	f, err := elf.Open(compressedFixture)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var secs [len(dwarfSectionNames)][]byte
	for i, n := range dwarfSectionNames {
		if s := f.Section(".debug_" + n); s != nil {
			if secs[i], err = s.Data(); err != nil {
				t.Fatal(err)
			}
		}
	}
	ranges, err := parseAranges(secs[secAranges], binary.LittleEndian)
	if err != nil {
		t.Fatal(err)
	}
	sets := arangeSetUnits(secs[secAranges], binary.LittleEndian)
	if len(sets) != 2 {
		t.Fatalf("sets of units %v, want two", sets)
	}
	// The bytes of the first set alone: the second unit left out.
	first := secs[secAranges][:4+binary.LittleEndian.Uint32(secs[secAranges])]
	var kept []arange
	var lost uint64 // a PC of the second unit
	for _, r := range ranges {
		if r.unit == sets[0] {
			kept = append(kept, r)
		} else {
			lost = r.lo
		}
	}
	all := memSparse(ranges, secs[secAranges], secs[secInfo], secs[secAbbrev], secs[secLine], secs[:])
	defer all.secs.close()
	if !all.everyUnitListed() {
		t.Fatal("both units listed, but not every unit found listed")
	}
	part := memSparse(kept, first, secs[secInfo], secs[secAbbrev], secs[secLine], secs[:])
	defer part.secs.close()
	if part.everyUnitListed() {
		t.Fatal("the second unit left out, but every unit found listed")
	}
	if u, ok := part.unitAt(lost); ok {
		t.Errorf("%#x, in the unit left out: %v, not the whole file", lost, u)
	}
	if u, ok := part.unitAt(kept[0].lo); !ok || u == nil {
		t.Errorf("%#x, in the listed unit: %v, %v", kept[0].lo, u, ok)
	}
}
