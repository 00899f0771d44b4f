package frames

import (
	"debug/elf"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"github.com/sfdbg/sfdbg/sframe/elfobj"
)

// decodeBytes decodes a cached table from b copied into 8-byte words, as
// readSymCache has it from its mapping.
func decodeBytes(b []byte) (*symTable, error) {
	words := make([]uint64, (len(b)+7)/8+1)
	c := unsafe.Slice((*byte)(unsafe.Pointer(&words[0])), len(b))
	copy(c, b)
	return decodeSymCache(words[:len(b)/8], c)
}

// sameTables reports the first difference between two symbol tables.
func sameTables(t *testing.T, what string, got, want *symTable) {
	t.Helper()
	if len(got.addrs) != len(want.addrs) {
		t.Fatalf("%s: %d entries, want %d", what, len(got.addrs), len(want.addrs))
	}
	for i := range want.addrs {
		if got.addrs[i] != want.addrs[i] || got.sizes[i] != want.sizes[i] || got.name(i) != want.name(i) {
			t.Fatalf("%s: entry %d = %#x+%d %q, want %#x+%d %q", what, i,
				got.addrs[i], got.sizes[i], got.name(i), want.addrs[i], want.sizes[i], want.name(i))
		}
	}
}

// TestSymbolCacheRoundTrip checks that a table written in the cache's
// layout reads back with the same addresses, sizes and names, PLT entries
// included, on fixtures and the host's libc.
func TestSymbolCacheRoundTrip(t *testing.T) {
	paths := []string{fixture(t, "sqlite-v3"), fixture(t, "deep-v3-O2"), fixture(t, "pltgot-v3")}
	if _, err := os.Stat("/lib/x86_64-linux-gnu/libc.so.6"); err == nil {
		paths = append(paths, "/lib/x86_64-linux-gnu/libc.so.6")
	}
	for _, p := range paths {
		f, err := elf.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		want := loadSymbols(elfobj.Link(f), f)
		got, err := decodeBytes(encodeSymCache(want))
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		sameTables(t, filepath.Base(p), got, want)
	}
}

// TestSymbolCacheRejectsDamage checks that a cached table that does not
// check out is refused with a reason, never read.
func TestSymbolCacheRejectsDamage(t *testing.T) {
	f, err := elf.Open(fixture(t, "deep-v3-O2"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	good := encodeSymCache(loadSymbols(elfobj.Link(f), f))
	n := int(binary.NativeEndian.Uint64(good[16:]))
	if n < 3 {
		t.Fatalf("%d entries", n)
	}
	put := func(b []byte, off int, v uint64) { binary.NativeEndian.PutUint64(b[off:], v) }
	addr := func(i int) int { return symCacheHeader + 8*i }
	size := func(i int) int { return symCacheHeader + 8*(n+i) }
	ref := func(i int) int { return symCacheHeader + 8*(2*n+i) }
	for _, c := range []struct {
		name, want string
		damage     func(b []byte) []byte
	}{
		{"empty", "header", func(b []byte) []byte { return nil }},
		{"magic", "header", func(b []byte) []byte { b[0] = 'X'; return b }},
		{"version", "version", func(b []byte) []byte { b[8]++; return b }},
		{"truncated", "do not make", func(b []byte) []byte { return b[:len(b)-1] }},
		{"longer", "do not make", func(b []byte) []byte { return append(b, 0) }},
		{"huge count", "do not make", func(b []byte) []byte { put(b, 16, 1<<61); return b }},
		{"out of order", "not above", func(b []byte) []byte {
			put(b, addr(2), binary.NativeEndian.Uint64(b[addr(0):]))
			return b
		}},
		{"size 0", "size 0", func(b []byte) []byte { put(b, size(1), 0); return b }},
		{"name past the blob", "name at", func(b []byte) []byte { put(b, ref(1), 1<<40); return b }},
		{"sizes that wrap", "do not make", func(b []byte) []byte {
			// 2 entries and a blob of 2^64-32 bytes "add up" to 48 in
			// 64-bit arithmetic.
			b = b[:48]
			put(b, 16, 2)
			put(b, 24, 1<<64-32)
			return b
		}},
	} {
		b := c.damage(append([]byte(nil), good...))
		if _, err := decodeBytes(b); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one saying %q", c.name, err, c.want)
		}
	}
}

// TestModuleSymbolsComeFromTheCache checks that a module's symbol table is
// written to the cache by build ID and read from there by the next module
// of the same file (a name changed in the cache file shows), and that a
// damaged cache file is ignored and replaced.
func TestModuleSymbolsComeFromTheCache(t *testing.T) {
	if binary.NativeEndian.Uint16([]byte{1, 0}) != 1 {
		t.Skip("the symbol cache is kept only on little-endian hosts (symCachePath)")
	}
	old := DebugCacheDir
	defer func() { DebugCacheDir = old }()
	DebugCacheDir = t.TempDir()
	path := fixture(t, "sqlite-v3")
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	want := loadSymbols(elfobj.Link(f), f)
	f.Close()
	table := func() *symTable {
		m := &Module{Name: "sqlite-v3", OpenPath: path, Start: 0, End: 1 << 40}
		t.Cleanup(func() { m.Close() })
		d, err := m.load()
		if err != nil {
			t.Fatal(err)
		}
		return m.symbols(d)
	}
	sameTables(t, "built", table(), want)
	files, _ := filepath.Glob(filepath.Join(DebugCacheDir, "symbols", "*", "*"))
	if len(files) != 1 {
		t.Fatalf("cache files: %v", files)
	}
	// Rename one function in the cache file: the next module must say it.
	i := len(want.addrs) / 2
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	c, err := decodeBytes(b)
	if err != nil {
		t.Fatal(err)
	}
	name := want.name(i)
	blob := b[len(b)-len(c.strs[symFromSymtab]):]
	at := int(c.refs[i])
	copy(blob[at:], strings.Repeat("X", len(name)))
	if err := os.WriteFile(files[0], b, 0o600); err != nil {
		t.Fatal(err)
	}
	if got := table().name(i); got != strings.Repeat("X", len(name)) {
		t.Errorf("entry %d named %q from the cache, want the renamed %q", i, got, strings.Repeat("X", len(name)))
	}
	// A damaged file is not read, and is replaced by a good one.
	if err := os.WriteFile(files[0], b[:len(b)/2], 0o600); err != nil {
		t.Fatal(err)
	}
	sameTables(t, "after damage", table(), want)
	b, err = os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	if c, err := decodeBytes(b); err != nil {
		t.Errorf("the damaged cache file was not replaced: %v", err)
	} else {
		sameTables(t, "replaced file", c, want)
	}
}

// TestSmallTablesAreNotCached checks that a module with few symbols
// writes no cache file.
func TestSmallTablesAreNotCached(t *testing.T) {
	old := DebugCacheDir
	defer func() { DebugCacheDir = old }()
	DebugCacheDir = t.TempDir()
	m := fixtureModule(t, "deep-v3-O2")
	d, err := m.load()
	if err != nil {
		t.Fatal(err)
	}
	if len(m.symbols(d).addrs) == 0 {
		t.Fatal("no symbols")
	}
	if files, _ := filepath.Glob(filepath.Join(DebugCacheDir, "symbols", "*", "*")); len(files) != 0 {
		t.Errorf("cache files for %d symbols: %v", len(m.symbols(d).addrs), files)
	}
}

// FuzzSymbolCache decodes arbitrary bytes as a cached symbol table: it
// must refuse or accept them without a panic, and an accepted table must
// answer lookups and names.
func FuzzSymbolCache(f *testing.F) {
	if fx, err := elf.Open("../testdata/bin/deep-v3-O2"); err == nil {
		f.Add(encodeSymCache(loadSymbols(elfobj.Link(fx), fx)))
		fx.Close()
	}
	f.Add([]byte(symCacheMagic))
	wrap := make([]byte, 48) // sizes that add up only in wrapping arithmetic
	copy(wrap, symCacheMagic)
	binary.NativeEndian.PutUint32(wrap[8:], symCacheVersion)
	binary.NativeEndian.PutUint64(wrap[16:], 2)
	binary.NativeEndian.PutUint64(wrap[24:], 1<<64-32)
	f.Add(wrap)
	f.Fuzz(func(t *testing.T, b []byte) {
		tab, err := decodeBytes(b)
		if err != nil {
			return
		}
		for i := range tab.addrs {
			_ = tab.name(i)
			if j := tab.find(tab.addrs[i]); j < 0 {
				t.Fatalf("entry %d at %#x not found", i, tab.addrs[i])
			}
		}
	})
}
