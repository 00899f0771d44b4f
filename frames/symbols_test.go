package frames

import (
	"cmp"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"testing"

	"github.com/sfdbg/sfdbg/sframe/elfobj"
)

// TestRawSymtab decodes hand-built Elf32_Sym and Elf64_Sym entries of both
// byte orders and checks the name edge cases: offsets past the table,
// unterminated strings and the empty name.
func TestRawSymtab(t *testing.T) {
	strs := []byte("\x00main\x00tail")
	for _, c := range []struct {
		is64  bool
		order binary.ByteOrder
	}{{true, binary.LittleEndian}, {false, binary.LittleEndian}, {true, binary.BigEndian}, {false, binary.BigEndian}} {
		tab := rawSymtab{strs: strs, is64: c.is64, order: c.order}
		want := []rawSym{
			{name: 1, info: elf.ST_INFO(elf.STB_GLOBAL, elf.STT_FUNC), shndx: 3, value: 0x1000, size: 0x20},
			{name: 6, info: elf.ST_INFO(elf.STB_LOCAL, elf.STT_NOTYPE), shndx: 0xfff1, value: 0xffffffff, size: 0},
			{name: 99, shndx: 1, value: 7, size: 1},
			{name: 0, shndx: 1},
		}
		for _, s := range want {
			if c.is64 {
				var b [24]byte
				c.order.PutUint32(b[0:], s.name)
				b[4] = s.info
				c.order.PutUint16(b[6:], s.shndx)
				c.order.PutUint64(b[8:], s.value)
				c.order.PutUint64(b[16:], s.size)
				tab.data = append(tab.data, b[:]...)
			} else {
				var b [16]byte
				c.order.PutUint32(b[0:], s.name)
				c.order.PutUint32(b[4:], uint32(s.value))
				c.order.PutUint32(b[8:], uint32(s.size))
				b[12] = s.info
				c.order.PutUint16(b[14:], s.shndx)
				tab.data = append(tab.data, b[:]...)
			}
		}
		if tab.len() != len(want) {
			t.Fatalf("64=%v %v: len %d, want %d", c.is64, c.order, tab.len(), len(want))
		}
		for i, w := range want {
			if got := tab.sym(i); got != w {
				t.Errorf("64=%v %v: entry %d = %+v, want %+v", c.is64, c.order, i, got, w)
			}
		}
		for off, name := range map[uint32]string{0: "", 1: "main", 3: "in", 6: "", 99: "", 1 << 31: ""} {
			if got := tab.name(off); got != name {
				t.Errorf("name(%d) = %q, want %q (offset 6 is unterminated)", off, got, name)
			}
		}
	}
}

// BenchmarkLoadSymbols measures building a module's merged, sorted symbol
// table, which the first symbolized frame in a module pays.
func BenchmarkLoadSymbols(b *testing.B) {
	for _, c := range []struct{ name, path string }{
		{"sqlite-v3", fixture(b, "sqlite-v3")},
		{"libc.so.6", "/lib/x86_64-linux-gnu/libc.so.6"},
	} {
		b.Run(c.name, func(b *testing.B) {
			if _, err := os.Stat(c.path); err != nil {
				b.Skipf("%s: %v", c.path, err)
			}
			f, err := elf.Open(c.path)
			if err != nil {
				b.Fatal(err)
			}
			defer f.Close()
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				n = len(loadSymbols(elfobj.Link(f), f).addrs)
			}
			b.ReportMetric(float64(n), "symbols")
		})
	}
}

// TestSymTableAgreesWithDebugELF checks the raw symbol reader against
// debug/elf's decoder on the fixtures and the host's libc: the table is
// sorted with sized entries and names, and every sized function symbol
// that debug/elf lists is found at its address, under its own name or an
// alias at the same address.
func TestSymTableAgreesWithDebugELF(t *testing.T) {
	paths := []string{"/lib/x86_64-linux-gnu/libc.so.6", "/lib64/ld-linux-x86-64.so.2"}
	for _, n := range []string{"sqlite-v3", "deep-v3-O0", "deep-v1-O2", "features-v2", "aarch64be-v3", "s390x-v3"} {
		paths = append(paths, fixture(t, n))
	}
	for _, p := range paths {
		f, err := elf.Open(p)
		if err != nil {
			t.Logf("skipping %s: %v", p, err)
			continue
		}
		tab := loadSymbols(elfobj.Link(f), f)
		if len(tab.addrs) == 0 {
			t.Errorf("%s: no symbols", p)
		}
		for i := range tab.addrs {
			if i > 0 && tab.addrs[i] <= tab.addrs[i-1] || tab.sizes[i] == 0 || tab.name(i) == "" {
				t.Fatalf("%s: entry %d: %#x size %d %q (previous %#x)", p, i, tab.addrs[i], tab.sizes[i], tab.name(i), tab.addrs[max(i-1, 0)])
			}
		}
		aliases := map[uint64]map[string]bool{}
		var want []elf.Symbol
		st, _ := f.Symbols()
		dyn, _ := f.DynamicSymbols()
		for _, s := range append(st, dyn...) {
			if aliases[s.Value] == nil {
				aliases[s.Value] = map[string]bool{}
			}
			aliases[s.Value][s.Name] = true
			if elf.ST_TYPE(s.Info) == elf.STT_FUNC && s.Size > 0 && s.Section > 0 && int(s.Section) < len(f.Sections) &&
				f.Sections[s.Section].Flags&elf.SHF_EXECINSTR != 0 {
				want = append(want, s)
			}
		}
		for _, s := range want {
			i := tab.find(s.Value)
			if i < 0 || tab.addrs[i] != s.Value || !aliases[s.Value][tab.name(i)] {
				t.Errorf("%s: %s at %#x: found entry %d", p, s.Name, s.Value, i)
				continue
			}
			if end := s.Value + s.Size - 1; tab.find(end) < 0 {
				t.Errorf("%s: %s: last byte %#x not covered", p, s.Name, end)
			}
		}
		t.Logf("%s: %d entries, %d sized functions checked", p, len(tab.addrs), len(want))
		f.Close()
	}
}

// TestSortCands compares the radix sort with a stable comparison sort on
// random candidates in input order (key low bits ascending), with ranks in
// the key's top byte and addresses that differ in low, middle and high
// bytes, duplicates included.
func TestSortCands(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for round := range 200 {
		n := r.IntN(300)
		in := make([]symCand, n)
		for i := range in {
			a := uint64(r.IntN(64)) << (8 * uint(r.IntN(8)))
			if round%2 == 0 {
				a = 0x400000 + uint64(r.IntN(512))
			}
			in[i] = symCand{addr: a, key: uint64(r.IntN(16))<<56 | uint64(r.IntN(3))<<48 | uint64(i), size: uint64(i)}
		}
		// Input order: by source, then index, as loadSymbols appends them.
		slices.SortFunc(in, func(a, b symCand) int { return cmp.Compare(a.key&(1<<56-1), b.key&(1<<56-1)) })
		want := slices.Clone(in)
		slices.SortStableFunc(want, func(a, b symCand) int {
			if c := cmp.Compare(a.addr, b.addr); c != 0 {
				return c
			}
			return cmp.Compare(a.key>>56, b.key>>56)
		})
		got := slices.Clone(in)
		sortCands(got)
		if !slices.Equal(got, want) {
			t.Fatalf("round %d (%d candidates): radix sort differs from a stable sort", round, n)
		}
	}
}

// TestPLTStubsAreNamedAsObjdumpNamesThem checks the names of PLT entries,
// .plt.got's included, against what objdump -d (binutils 2.40) prints for
// the committed fixtures.
func TestPLTStubsAreNamedAsObjdumpNamesThem(t *testing.T) {
	for _, tc := range []struct {
		file string
		addr uint64
		want string
	}{
		{"deep-v3-O2", 0x1100, "__cxa_finalize@plt"}, // .plt.got
		{"deep-v3-O2", 0x1030, "sigaction@plt"},      // .plt entry 1
		{"deep-v3-O2", 0x10c0, "pthread_create@plt"},
		{"sqlite-v3", 0x8220, "__cxa_finalize@plt"},
	} {
		t.Run(fmt.Sprintf("%s at %#x is %s", tc.file, tc.addr, tc.want), func(t *testing.T) {
			p := filepath.Join("..", "testdata", "bin", tc.file)
			if _, err := os.Stat(p); err != nil {
				t.Skip(err)
			}
			m := &Module{Name: tc.file, OpenPath: p, Start: 0, End: 1 << 40}
			defer m.Close()
			if name, off, ok := m.FuncName(tc.addr + 2); !ok || name != tc.want || off != 2 {
				t.Errorf("FuncName(%#x) = %q+%d, %v", tc.addr+2, name, off, ok)
			}
		})
	}
}

// TestEveryPLTEntryIsNamedAsObjdumpNamesIt compares the name of every
// entry of .plt, .plt.sec and .plt.got with objdump -d's label, on the
// fixtures and on the host's libc.so.6, whose IRELATIVE relocations come
// last in .rela.plt but fill its first GOT slots ("*ABS*+0x9f550@plt" at
// 0x26010, realloc@plt at 0x26030 in Debian 12's): entries are matched by
// the GOT slot their jump reads, not by position.
func TestEveryPLTEntryIsNamedAsObjdumpNamesIt(t *testing.T) {
	objdump, err := exec.LookPath("objdump")
	if err != nil {
		t.Skip("objdump is not installed")
	}
	label := regexp.MustCompile(`(?m)^([0-9a-f]+) <(\S+@plt)>:$`)
	for _, p := range []string{filepath.Join("..", "testdata", "bin", "deep-v3-O2"), filepath.Join("..", "testdata", "bin", "sqlite-v3"),
		"/lib/x86_64-linux-gnu/libc.so.6"} {
		if _, err := os.Stat(p); err != nil {
			continue
		}
		out, err := exec.Command(objdump, "-d", "-j", ".plt", "-j", ".plt.sec", "-j", ".plt.got", p).Output()
		if err != nil {
			t.Fatalf("objdump %s: %v", p, err)
		}
		m := &Module{Name: filepath.Base(p), OpenPath: p, Start: 0, End: 1 << 40}
		n := 0
		for _, l := range label.FindAllStringSubmatch(string(out), -1) {
			addr, _ := strconv.ParseUint(l[1], 16, 64)
			if name, off, ok := m.FuncName(addr); !ok || name != l[2] || off != 0 {
				t.Errorf("%s %#x: named %q+%d (%v), objdump %q", p, addr, name, off, ok, l[2])
			}
			n++
		}
		m.Close()
		if n == 0 {
			t.Errorf("%s: objdump labels no PLT entry", p)
		}
	}
}
