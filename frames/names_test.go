package frames

import (
	"debug/elf"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestFunctionNamesAreGdbs checks that a frame is named as gdb names it,
// by its DWARF subprogram (gdb's find_frame_funname), not by the ELF
// symbol that holds the PC: "weigh" in weigh.isra.0, "check" in
// check.part.0 (testdata/bin/clones-v3-O2), glibc's internal aliases
// (__GI___clock_nanosleep) when libc's debug file is installed. The ELF
// symbol stays in Symbol.ELFName. Where gdb is installed, its "list *ADDR"
// ("0x1230 is in weigh (clones.c:14).", the name of the function block
// holding the address) is the oracle for every address compared.
func TestFunctionNamesAreGdbs(t *testing.T) {
	path := filepath.Join("..", "testdata", "bin", "clones-v3-O2")
	m := &Module{Name: "clones-v3-O2", OpenPath: path, Start: 0, End: 1 << 40}
	t.Cleanup(func() { m.Close() })
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	var pcs []uint64
	clones := 0
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) != elf.STT_FUNC || s.Size == 0 || s.Value == 0 {
			continue
		}
		want, _, cloned := strings.Cut(s.Name, ".")
		for _, pc := range []uint64{s.Value, s.Value + s.Size/2, s.Value + s.Size - 1} {
			sym := m.Symbolize(pc)
			if sym.ELFName != s.Name {
				t.Errorf("%#x: ELF symbol %q, want %q", pc, sym.ELFName, s.Name)
			}
			if cloned {
				if sym.Name != want {
					t.Errorf("%#x in %s: named %q, want gdb's %q", pc, s.Name, sym.Name, want)
				}
				pcs = append(pcs, pc)
			}
		}
		if cloned {
			clones++
		}
	}
	if clones < 3 {
		t.Fatalf("%s has %d cloned functions, want weigh.isra.0, scale.constprop.0, check.part.0", path, clones)
	}
	if _, err := exec.LookPath("gdb"); err != nil {
		t.Skip("gdb is not installed: names checked against the clones' DWARF origins only")
	}
	got := gdbFunctionNames(t, path, pcs)
	for _, pc := range pcs {
		if g, ok := got[pc]; !ok {
			t.Errorf("%#x: gdb gave no function", pc)
		} else if s := m.Symbolize(pc).Name; s != g {
			t.Errorf("%#x: sfdbg names %q, gdb %q", pc, s, g)
		}
	}
}

// gdbFunctionNames runs gdb -batch with "list *ADDR" for each of pcs on
// path and returns the function gdb says each address is in.
func gdbFunctionNames(t *testing.T, path string, pcs []uint64) map[uint64]string {
	t.Helper()
	args := []string{"-batch", "-nx", path}
	for _, pc := range pcs {
		args = append(args, "-ex", fmt.Sprintf("list *%#x", pc))
	}
	out, err := exec.Command("gdb", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("gdb: %v\n%s", err, out)
	}
	re := regexp.MustCompile(`(?m)^(0x[0-9a-f]+) is in (\S+) \(`)
	names := map[uint64]string{}
	for _, m := range re.FindAllStringSubmatch(string(out), -1) {
		var pc uint64
		fmt.Sscanf(m[1], "0x%x", &pc)
		names[pc] = m[2]
	}
	return names
}

// TestLibcFunctionNamesAreGdbs compares the names of a few libc functions
// with gdb's on the host's libc.so.6: with libc's separate debug file
// installed (libc6-dbg) gdb names them by their DWARF linkage names
// (__GI___clock_nanosleep, __GI___qsort_r, __sleep); without it, both fall
// back on the ELF symbols.
func TestLibcFunctionNamesAreGdbs(t *testing.T) {
	const path = "/lib/x86_64-linux-gnu/libc.so.6"
	if _, err := exec.LookPath("gdb"); err != nil {
		t.Skip("gdb is not installed")
	}
	f, err := elf.Open(path)
	if err != nil {
		t.Skipf("no host libc to compare: %v", err)
	}
	defer f.Close()
	syms, err := f.DynamicSymbols()
	if err != nil {
		t.Fatal(err)
	}
	var pcs []uint64
	for _, s := range syms {
		switch s.Name {
		case "clock_nanosleep", "qsort_r", "sleep", "nanosleep", "qsort", "abort", "raise":
			if elf.ST_TYPE(s.Info) == elf.STT_FUNC && s.Size > 0 {
				pcs = append(pcs, s.Value+s.Size/2)
			}
		}
	}
	m := &Module{Name: "libc.so.6", OpenPath: path, Path: path, Start: 0, End: 1 << 40}
	t.Cleanup(func() { m.Close() })
	got := gdbFunctionNames(t, path, pcs)
	if len(got) == 0 {
		t.Skip("gdb names no libc function: libc's debug file (libc6-dbg) is not installed")
	}
	for _, pc := range pcs {
		if g, ok := got[pc]; ok {
			if s := m.Symbolize(pc).Name; s != g {
				t.Errorf("libc %#x: sfdbg names %q, gdb %q", pc, s, g)
			}
		}
	}
}
