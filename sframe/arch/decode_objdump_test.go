package arch

import (
	"bufio"
	"bytes"
	"debug/elf"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// crossObjdump returns the cross objdump of scripts/cross-toolchains.sh
// ($SFDBG_TOOLCHAINS/cross-v3, default /tmp/sfdbg-toolchains), or skips.
func crossObjdump(t testing.TB, arch string) string {
	dir := os.Getenv("SFDBG_TOOLCHAINS")
	if dir == "" {
		dir = "/tmp/sfdbg-toolchains"
	}
	p := filepath.Join(dir, "cross-v3", "bin", arch+"-linux-gnu-objdump")
	if _, err := os.Stat(p); err != nil {
		t.Skipf("no cross objdump at %s (scripts/cross-toolchains.sh; set SFDBG_TOOLCHAINS): %v", p, err)
	}
	return p
}

// objdumpLine is one instruction of objdump -d: address, bytes, text.
type objdumpLine struct {
	addr uint64
	raw  []byte
	text string
}

var objdumpRe = regexp.MustCompile(`^ *([0-9a-f]+):\t([0-9a-f ]+)\t(.*)$`)

// objdumpLines runs objdump -d on file and returns its instructions.
func objdumpLines(t testing.TB, objdump, file string) []objdumpLine {
	out, err := exec.Command(objdump, "-d", "-w", file).Output()
	if err != nil {
		t.Fatalf("%s -d %s: %v", objdump, file, err)
	}
	var ls []objdumpLine
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		m := objdumpRe.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		a, _ := strconv.ParseUint(m[1], 16, 64)
		raw, err := hex.DecodeString(strings.ReplaceAll(m[2], " ", ""))
		if err != nil {
			t.Fatalf("%s: bad bytes %q", file, m[2])
		}
		ls = append(ls, objdumpLine{a, raw, m[3]})
	}
	return ls
}

// execText holds the executable sections of an ELF file.
type execText struct {
	addr []uint64
	data [][]byte
}

func readExecText(t testing.TB, f *elf.File) *execText {
	x := &execText{}
	for _, s := range f.Sections {
		if s.Flags&elf.SHF_EXECINSTR != 0 && s.Type == elf.SHT_PROGBITS {
			d, err := s.Data()
			if err != nil {
				t.Fatal(err)
			}
			x.addr = append(x.addr, s.Addr)
			x.data = append(x.data, d)
		}
	}
	return x
}

// at returns the bytes from addr to the end of its section.
func (x *execText) at(addr uint64) []byte {
	for i, a := range x.addr {
		if addr >= a && addr-a < uint64(len(x.data[i])) {
			return x.data[i][addr-a:]
		}
	}
	return nil
}

// TestS390XObjdumpBoundaries decodes every instruction objdump -d shows in
// the s390x fixtures (a static glibc: real compiled code) and checks that
// its length is objdump's. It logs the share of Unknown instructions and
// their most common reasons.
func TestS390XObjdumpBoundaries(t *testing.T) {
	objdump := crossObjdump(t, "s390x")
	sym := regexp.MustCompile(` <[^>]*>`)
	var d S390X
	var in Inst
	for _, file := range []string{"../../testdata/bin/s390x-v3", "../../testdata/cores/crash-s390x-v3", "../../testdata/cores/noreturn-s390x-v3", "../../testdata/codeoracle/decode/s390x.o"} {
		f, err := elf.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		x := readExecText(t, f)
		n, unknown, bad, same := 0, 0, 0, 0
		why := map[string]int{}
		for _, l := range objdumpLines(t, objdump, file) {
			if strings.HasPrefix(l.text, ".") || strings.HasPrefix(l.text, "(bad)") {
				continue // data or an encoding objdump does not know
			}
			code := x.at(l.addr)
			if err := d.Decode(code, l.addr, &in); err != nil {
				t.Errorf("%s %#x %x %s: %v", file, l.addr, l.raw, l.text, err)
				continue
			}
			n++
			if in.Len != len(l.raw) {
				bad++
				if bad < 20 {
					t.Errorf("%s %#x %x %s: Len %d, objdump %d", file, l.addr, l.raw, l.text, in.Len, len(l.raw))
				}
			}
			if in.Class == Unknown {
				unknown++
				why[strings.Fields(l.text)[0]+": "+in.Why]++
			}
			if d.Text(code, l.addr) == strings.Join(strings.Fields(sym.ReplaceAllString(l.text, "")), " ") {
				same++
			}
		}
		f.Close()
		if n == 0 {
			t.Errorf("%s: no instructions", file)
			continue
		}
		if n > 1000 && unknown*100 > n {
			t.Errorf("%s: %d of %d instructions Unknown (more than 1%%)", file, unknown, n)
		}
		t.Logf("%s: %d instructions, %d Unknown (%.2f%%), %d length mismatches, Text equal to objdump's for %.1f%%; Unknown: %s", file, n, unknown, 100*float64(unknown)/float64(n), bad, 100*float64(same)/float64(n), topReasons(why, 12))
	}
}

// TestARM64ObjdumpText decodes every instruction objdump -d shows in the
// AArch64 fixtures and logs the share of Unknown instructions and of
// texts equal to objdump's (symbols and comments removed).
func TestARM64ObjdumpText(t *testing.T) {
	objdump := crossObjdump(t, "aarch64")
	var d ARM64
	var in Inst
	sym := regexp.MustCompile(` <[^>]*>`)
	for _, file := range []string{"../../testdata/bin/aarch64-v3", "../../testdata/bin/aarch64be-v3", "../../testdata/cores/crash-aarch64-pac-v3", "../../testdata/codeoracle/decode/aarch64.o"} {
		f, err := elf.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		x := readExecText(t, f)
		n, unknown, same := 0, 0, 0
		why := map[string]int{}
		for _, l := range objdumpLines(t, objdump, file) {
			if strings.HasPrefix(l.text, ".") {
				continue
			}
			code := x.at(l.addr)
			if err := d.Decode(code, l.addr, &in); err != nil {
				t.Errorf("%s %#x: %v", file, l.addr, err)
				continue
			}
			n++
			if in.Class == Unknown {
				unknown++
				why[strings.Fields(l.text)[0]]++
			}
			want := l.text
			if i := strings.Index(want, "//"); i >= 0 {
				want = want[:i]
			}
			want = strings.Join(strings.Fields(sym.ReplaceAllString(want, "")), " ")
			if d.Text(code, l.addr) == want {
				same++
			}
		}
		f.Close()
		if n == 0 {
			t.Errorf("%s: no instructions", file)
			continue
		}
		if n > 1000 && (unknown*100 > n || same*10 < 9*n) {
			t.Errorf("%s: %d of %d instructions Unknown (at most 1%%), %d Texts equal to objdump's (at least 90%%)", file, unknown, n, same)
		}
		t.Logf("%s: %d instructions, %d Unknown (%.2f%%), Text equal to objdump's for %.1f%%; Unknown: %s", file, n, unknown, 100*float64(unknown)/float64(n), 100*float64(same)/float64(n), topReasons(why, 8))
	}
}

func topReasons(m map[string]int, k int) string {
	type kv struct {
		k string
		v int
	}
	var l []kv
	for a, b := range m {
		l = append(l, kv{a, b})
	}
	sort.Slice(l, func(i, j int) bool { return l[i].v > l[j].v || l[i].v == l[j].v && l[i].k < l[j].k })
	var s []string
	for i, x := range l {
		if i == k {
			break
		}
		s = append(s, x.k+" ×"+strconv.Itoa(x.v))
	}
	return strings.Join(s, ", ")
}

// The decoders mark system calls (the code walk presumes one that meets
// another path's state does not return: exit).
func TestDecodersMarkSystemCalls(t *testing.T) {
	for _, c := range []struct {
		d    Decoder
		code []byte
		want bool
	}{
		{X86{}, []byte{0x0f, 0x05}, true},                // syscall
		{X86{}, []byte{0x90}, false},                     // nop
		{ARM64{}, []byte{0x01, 0x00, 0x00, 0xd4}, true},  // svc #0
		{ARM64{}, []byte{0x1f, 0x20, 0x03, 0xd5}, false}, // nop
		{S390X{}, []byte{0x0a, 0x01}, true},              // svc 1
		{S390X{}, []byte{0x07, 0x07}, false},             // nopr
	} {
		in := Inst{Syscall: !c.want}
		if err := c.d.Decode(c.code, 0x1000, &in); err != nil || in.Syscall != c.want {
			t.Errorf("%T % x: Syscall %v (err %v), want %v", c.d, c.code, in.Syscall, err, c.want)
		}
	}
}
