package frames

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestSeparateDebugInfoIsFound strips a copy of a fixture of its symbols
// and DWARF, puts them in a separate debug file the way distributions do
// (objcopy --only-keep-debug), and checks that the module still names its
// functions and lines: through /usr/lib/debug-style .build-id paths, and
// through .gnu_debuglink.
func TestSeparateDebugInfoIsFound(t *testing.T) {
	objcopy, err := exec.LookPath("objcopy")
	if err != nil {
		t.Skip("objcopy (GNU binutils) is not installed")
	}
	src := filepath.Join("..", "testdata", "bin", "deep-v3-O2")
	f, err := elf.Open(src)
	if err != nil {
		t.Skip(err)
	}
	id := buildID(f)
	f.Close()
	if len(id) != 40 {
		t.Fatalf("build ID %q", id)
	}
	run := func(t *testing.T, args ...string) {
		t.Helper()
		if out, err := exec.Command(objcopy, args...).CombinedOutput(); err != nil {
			t.Fatalf("objcopy %v: %v\n%s", args, err, out)
		}
	}
	const bias = 0x555555554000
	module := func(t *testing.T, bin string) *Module {
		m := &Module{Name: "deep", Path: bin, OpenPath: bin, Start: bias, End: bias + 0x5000, Bias: bias}
		t.Cleanup(func() { m.Close() })
		return m
	}
	debugDirs := func(t *testing.T, dirs ...string) {
		old := DebugDirs
		DebugDirs = dirs
		t.Cleanup(func() { DebugDirs = old })
	}
	buildIDPath := func(t *testing.T, dir string) string {
		p := filepath.Join(dir, ".build-id", id[:2], id[2:]+".debug")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// main+0x5b is deep.c:293 (addr2line); spin_here has no dynamic symbol.
	named := func(t *testing.T, m *Module) {
		t.Helper()
		if s := m.Symbolize(bias + 0x116b); s.Name != "main" || s.Line != 293 {
			t.Errorf("main+0x5b: %+v", s)
		}
		if _, _, ok := m.LookupSymbol("spin_here"); !ok {
			t.Errorf("spin_here not found")
		}
	}
	t.Run("a stripped file has no names of its own", func(t *testing.T) {
		dir := t.TempDir()
		bin := filepath.Join(dir, "deep")
		run(t, "--strip-all", src, bin)
		debugDirs(t, filepath.Join(dir, "none"))
		if s := module(t, bin).Symbolize(bias + 0x116b); s.Line != 0 || s.Name == "main" {
			t.Fatalf("the stripped copy still has symbols or lines: %+v", s)
		}
	})
	t.Run("its debug file is found by build ID under the debug directory", func(t *testing.T) {
		dir := t.TempDir()
		bin := filepath.Join(dir, "deep")
		run(t, "--only-keep-debug", src, buildIDPath(t, filepath.Join(dir, "debug")))
		run(t, "--strip-all", src, bin)
		debugDirs(t, filepath.Join(dir, "debug"))
		named(t, module(t, bin))
	})
	t.Run("its debug file is found by .gnu_debuglink next to it", func(t *testing.T) {
		dir := t.TempDir()
		bin, dbg := filepath.Join(dir, "deep"), filepath.Join(dir, "deep.debug")
		run(t, "--only-keep-debug", src, dbg)
		run(t, "--strip-all", "--add-gnu-debuglink="+dbg, src, bin)
		debugDirs(t, filepath.Join(dir, "none"))
		named(t, module(t, bin))
	})
	t.Run("a debug file of another build is not used", func(t *testing.T) {
		dir := t.TempDir()
		bin := filepath.Join(dir, "deep")
		other := filepath.Join("..", "testdata", "bin", "deep-v3-O0")
		run(t, "--only-keep-debug", other, buildIDPath(t, filepath.Join(dir, "debug")))
		run(t, "--strip-all", src, bin)
		debugDirs(t, filepath.Join(dir, "debug"))
		if s := module(t, bin).Symbolize(bias + 0x116b); s.Line != 0 {
			t.Errorf("used a debug file with another build ID: %+v", s)
		}
	})
}

// TestLibcNamesWithItsDebugFile checks, where the host has libc's separate
// debug file (Debian's libc6-dbg), that libc's internal functions get names
// and lines, that an exported function keeps its exported name (not its
// internal alias), and that it is still found by that name.
func TestLibcNamesWithItsDebugFile(t *testing.T) {
	const path = "/lib/x86_64-linux-gnu/libc.so.6"
	f, err := elf.Open(path)
	if err != nil {
		t.Skip(err)
	}
	id := buildID(f)
	f.Close()
	dbg := filepath.Join("/usr/lib/debug/.build-id", id[:2], id[2:]+".debug")
	if _, err := os.Stat(dbg); err != nil {
		t.Skipf("no debug file for libc (install libc6-dbg): %v", err)
	}
	m := &Module{Name: "libc.so.6", Path: path, OpenPath: path, Start: 0, End: 1 << 40}
	defer m.Close()
	a, _, ok := m.LookupSymbol("clock_gettime")
	if !ok {
		t.Fatal("clock_gettime not found")
	}
	if name, off, _ := m.FuncName(a); name != "clock_gettime" || off != 0 {
		t.Errorf("clock_gettime's address is named %s+%d", name, off)
	}
	b, _, ok := m.LookupSymbol("__libc_start_call_main")
	if !ok {
		t.Fatal("__libc_start_call_main (only in the debug file) not found")
	}
	if s := m.Symbolize(b + 8); s.Name != "__libc_start_call_main" || s.File == "" || s.Line == 0 {
		t.Errorf("__libc_start_call_main+8: %+v", s)
	}
}
