package debugger

import (
	"bufio"
	"bytes"
	"debug/elf"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/sfdbg/sfdbg/frames"
)

// fileMemory is the memory of an ELF file's loadable segments at their
// link-time addresses.
func fileMemory(t *testing.T, path string) *rangeMemory {
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	mem := &rangeMemory{}
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD && p.Filesz > 0 {
			b := make([]byte, p.Filesz)
			if _, err := p.ReadAt(b, 0); err != nil {
				t.Fatal(err)
			}
			mem.ranges = append(mem.ranges, snapMemory{Addr: p.Vaddr, Data: b})
		}
	}
	return mem
}

// TestDisassemblyMatchesObjdump decodes every instruction objdump -d lists
// in the fixtures and compares the text, symbols and comments aside: sfdbg
// prints what gdb and objdump print (call, ret, cltq, movabs, -0x8e(%rip),
// (%rdi,%rax,1), endbr64). Multi-byte NOPs differ in their spelling only.
func TestDisassemblyMatchesObjdump(t *testing.T) {
	objdump, err := exec.LookPath("objdump")
	if err != nil {
		t.Skip("objdump is not installed")
	}
	bins := []string{"deep-v3-O2", "features-v3", "deep-cet-v3-O2", "cet-v3"}
	if !testing.Short() {
		bins = append(bins, "sqlite-v3")
	}
	line := regexp.MustCompile(`^\s+([0-9a-f]+):\s+(.*)$`)
	sym := regexp.MustCompile(` <[^>]*>`)
	target := regexp.MustCompile(`^(\S+\s+)0x([0-9a-f]+)\s*$`)
	norm := func(s string) string {
		s, _, _ = strings.Cut(s, "#")
		s = sym.ReplaceAllString(s, "")
		s = target.ReplaceAllString(s, "$1$2") // objdump: "call 1380"
		return strings.Join(strings.Fields(s), " ")
	}
	for _, name := range bins {
		t.Run(name, func(t *testing.T) {
			bin := fixture(t, name)
			m := &frames.Module{Name: name, Path: bin, OpenPath: bin, Start: 0, End: 1 << 40}
			sp := &frames.Space{Mem: fileMemory(t, bin), Modules: frames.NewModules(m)}
			out, err := exec.Command(objdump, "-d", "--no-show-raw-insn", bin).Output()
			if err != nil {
				t.Fatal(err)
			}
			n, bad := 0, 0
			sc := bufio.NewScanner(bytes.NewReader(out))
			for sc.Scan() {
				mm := line.FindStringSubmatch(sc.Text())
				if mm == nil {
					continue
				}
				a, _ := strconv.ParseUint(mm[1], 16, 64)
				insns, _ := disassemble(sp, a, 0, 1)
				if len(insns) != 1 {
					t.Fatalf("%#x: nothing decoded", a)
				}
				got, want := norm(insns[0].text), norm(mm[2])
				n++
				if got != want && !strings.Contains(want, "nop") && !strings.Contains(want, "xchg %ax,%ax") {
					if bad++; bad <= 10 {
						t.Errorf("%#x: %q, objdump %q", a, got, want)
					}
				}
			}
			if n < 100 || bad > 0 {
				t.Errorf("%d of %d instructions differ", bad, n)
			}
		})
	}
}
