package frames

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sfdbg/sfdbg/sframe"
)

// Describe formats pc as DescribeFrame does, with the source line of pc
// itself.
func (sp *Space) Describe(pc uint64) string { return sp.DescribeAt(pc, pc) }

// ByName returns the first module whose Name or Path is name, or nil.
func (ms *Modules) ByName(name string) *Module {
	if ms == nil {
		return nil
	}
	for _, m := range ms.list {
		if m.Name == name || m.Path == name {
			return m
		}
	}
	return nil
}

func TestDescribe(t *testing.T) {
	sp := progSpace(t, &SliceMemory{})
	for _, c := range []struct {
		name string
		pc   uint64
		want string
	}{
		{"a function start has no offset", rt(fnMain), "prog!main+0x0"},
		{"a PC inside a function", rt(fnMain + 0x10), "prog!main+0x10"},
		{"a zero-size symbol extends to the end of its section", rt(fnZero + 0x30), "prog!zero_size+0x30"},
		{"a PC no symbol covers gives the module offset", rt(gapStart + 4), "prog+0x1144"},
		{"a PC in no module is a bare address", 0x1234, "0x1234"},
		{"a PC in another module", libBias + fnLibc + 8, "libc.so.6!libc_fn+0x8"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := sp.Describe(c.pc); got != c.want {
				t.Errorf("Describe(%#x) = %q, want %q", c.pc, got, c.want)
			}
		})
	}
	m := sp.Modules.ByName("prog")
	if a, size, ok := m.LookupSymbol("handler"); !ok || a != rt(fnHandler) || size != 0x20 {
		t.Errorf("LookupSymbol(handler) = %#x, %d, %v", a, size, ok)
	}
	if _, _, ok := m.LookupSymbol("nonesuch"); ok {
		t.Errorf("LookupSymbol(nonesuch) found something")
	}
	s := m.Symbolize(rt(fnMid + 3))
	if s.Name != "mid" || s.Addr != rt(fnMid) || s.Offset != 3 || s.Module != "prog" || s.File != "" {
		t.Errorf("Symbolize = %+v", s)
	}
}

func TestModuleLoadingIsLazy(t *testing.T) {
	sp := progSpace(t, &SliceMemory{})
	for _, m := range sp.Modules.List() {
		if m.data != nil {
			t.Fatalf("module %s loaded before use", m.Name)
		}
	}
	sp.Describe(rt(fnMain))
	prog, lib := sp.Modules.ByName("prog"), sp.Modules.ByName("libc.so.6")
	if prog.data == nil || lib.data != nil {
		t.Fatalf("after symbolizing a PC in prog: prog loaded %v, libc loaded %v", prog.data != nil, lib.data != nil)
	}
	if prog.data.sframe != nil {
		t.Errorf("symbolizing loaded the SFrame section")
	}
	if _, err := lib.SFrame(); !errors.Is(err, sframe.ErrNoSection) {
		t.Errorf("libc SFrame() error = %v, want ErrNoSection", err)
	}
}

func TestModuleErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		mod  *Module
	}{
		{"a missing file", &Module{Name: "gone", OpenPath: filepath.Join(t.TempDir(), "gone")}},
		{"bytes that are not ELF", &Module{Name: "junk", ELF: []byte("not an ELF file at all")}},
		{"no path and no bytes", &Module{Name: "empty"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.mod.Start, c.mod.End = 0x1000, 0x2000
			if _, err := c.mod.SFrame(); err == nil {
				t.Errorf("SFrame() succeeded")
			}
			if s := c.mod.Symbolize(0x1100); s.Name != "" {
				t.Errorf("Symbolize found %q", s.Name)
			}
			sp := &Space{Mem: &SliceMemory{}, Modules: NewModules(c.mod)}
			_, err := Trace(&SFrameUnwinder{Space: sp}, regs(0x1100, 0x100, 0), sp, StackOptions{})
			var se *StopError
			if !errors.As(err, &se) || se.Reason != ReasonNoData || !strings.Contains(se.Error(), c.mod.Name) {
				t.Errorf("unwind error %v, want no data naming %s", err, c.mod.Name)
			}
		})
	}
}

// fixture returns the path of a committed fixture binary, or skips.
func fixture(t testing.TB, name string) string {
	p := filepath.Join("..", "testdata", "bin", name)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("fixture %s not built (scripts/build-fixtures.sh): %v", name, err)
	}
	return p
}

// fixtureModule opens a committed fixture as a module at its link-time
// addresses (bias 0), closed when the test ends.
func fixtureModule(t testing.TB, name string) *Module {
	m := &Module{Name: name, OpenPath: fixture(t, name), Start: 0, End: 1 << 40}
	t.Cleanup(func() { m.Close() })
	return m
}

// symbolAddr returns the address of the function named sym in m, or fails.
func symbolAddr(t testing.TB, m *Module, sym string) uint64 {
	t.Helper()
	a, _, ok := m.LookupSymbol(sym)
	if !ok {
		t.Fatalf("%s: no symbol %s", m.Name, sym)
	}
	return a
}

func TestSymbolizeFixtureWithDWARF(t *testing.T) {
	m := fixtureModule(t, "deep-v3-O0")
	a := symbolAddr(t, m, "spin_here")
	s := m.Symbolize(a + 4)
	if s.Name != "spin_here" || s.Offset != 4 {
		t.Errorf("Symbolize = %+v", s)
	}
	if filepath.Base(s.File) != "deep.c" || s.Line == 0 {
		t.Errorf("line info %q:%d, want deep.c and a line", s.File, s.Line)
	}
	sp := &Space{Modules: NewModules(m)}
	if d := sp.Describe(a + 4); !strings.HasPrefix(d, "deep-v3-O0!spin_here+0x4 at deep.c:") {
		t.Errorf("Describe = %q", d)
	}
	// PLT entries are named after the function they call.
	if a, _, ok := m.LookupSymbol("write@plt"); !ok || m.Symbolize(a+6).Name != "write@plt" {
		t.Errorf("no write@plt symbol (%#x, %v)", a, ok)
	}
}

// TestConcurrentUse loads, symbolizes and unwinds one space from several
// goroutines at once (run with -race).
func TestConcurrentUse(t *testing.T) {
	X := uint64(stackBase + 0x1000)
	s := newStack(stackBase, 1024)
	s.put(X, rt(fnMid+0x21))
	s.put(X+48, rt(fnMain+0x31))
	layoutMain(s, X+56+32)
	sp := progSpace(t, s.mem())
	r := regs(rt(fnLeaf+4), X, X+56+32)
	done := make(chan []string)
	for i := 0; i < 8; i++ {
		go func() {
			fs, _ := Trace(&SFrameUnwinder{Space: sp}, r, sp, StackOptions{})
			var out []string
			for j := range fs {
				out = append(out, sp.DescribeFrame(&fs[j]))
			}
			done <- out
		}()
	}
	want := []string{"prog!leaf+0x4", "prog!mid+0x21", "prog!main+0x31", "prog!_start+0x10"}
	for i := 0; i < 8; i++ {
		if got := <-done; strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("goroutine got %q, want %q", got, want)
		}
	}
}
