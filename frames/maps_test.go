package frames

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

func TestReadMaps(t *testing.T) {
	text := `55d0c1a00000-55d0c1a01000 r--p 00000000 08:01 1234                       /usr/bin/my prog
55d0c1a01000-55d0c1a02000 r-xp 00001000 08:01 1234                       /usr/bin/my prog
55d0c2000000-55d0c2021000 rw-p 00000000 00:00 0                          [heap]
7f0000000000-7f0000001000 r-xp 00000000 08:01 99                         /tmp/lib.so (deleted)
7f0000100000-7f0000200000 rw-p 00000000 00:00 0 
7ffc12345000-7ffc12347000 r-xp 00000000 00:00 0                          [vdso]
`
	got, err := ReadMaps(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	want := []Mapping{
		{Start: 0x55d0c1a00000, End: 0x55d0c1a01000, Perms: "r--p", Offset: 0, Dev: "08:01", Inode: 1234, Path: "/usr/bin/my prog", Range: "55d0c1a00000-55d0c1a01000"},
		{Start: 0x55d0c1a01000, End: 0x55d0c1a02000, Perms: "r-xp", Offset: 0x1000, Dev: "08:01", Inode: 1234, Path: "/usr/bin/my prog", Range: "55d0c1a01000-55d0c1a02000"},
		{Start: 0x55d0c2000000, End: 0x55d0c2021000, Perms: "rw-p", Dev: "00:00", Path: "[heap]", Range: "55d0c2000000-55d0c2021000"},
		{Start: 0x7f0000000000, End: 0x7f0000001000, Perms: "r-xp", Dev: "08:01", Inode: 99, Path: "/tmp/lib.so", Deleted: true, Range: "7f0000000000-7f0000001000"},
		{Start: 0x7f0000100000, End: 0x7f0000200000, Perms: "rw-p", Dev: "00:00", Range: "7f0000100000-7f0000200000"},
		{Start: 0x7ffc12345000, End: 0x7ffc12347000, Perms: "r-xp", Dev: "00:00", Path: "[vdso]", Range: "7ffc12345000-7ffc12347000"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ReadMaps:\n got %+v\nwant %+v", got, want)
	}
	for _, bad := range []string{"zz-10 r-xp 0 0:0 0", "10-5 r-xp 0 0:0 0", "10-20 r-xp 0 0:0", "10-20 rx 0 0:0 1 /x"} {
		if _, err := ReadMaps(strings.NewReader(bad + "\n")); err == nil {
			t.Errorf("ReadMaps(%q) succeeded", bad)
		}
	}
}

// phdrELF builds an ELF header and program headers only: what loadBias
// reads. loads are (offset, vaddr, filesz, flags).
func phdrELF(loads [][4]uint64) []byte {
	le := binary.LittleEndian
	img := make([]byte, 64+56*len(loads))
	copy(img, elf.ELFMAG)
	img[elf.EI_CLASS], img[elf.EI_DATA], img[elf.EI_VERSION] = byte(elf.ELFCLASS64), byte(elf.ELFDATA2LSB), 1
	le.PutUint16(img[16:], uint16(elf.ET_DYN))
	le.PutUint16(img[18:], uint16(elf.EM_X86_64))
	le.PutUint64(img[32:], 64)
	le.PutUint16(img[52:], 64)
	le.PutUint16(img[54:], 56)
	le.PutUint16(img[56:], uint16(len(loads)))
	for i, l := range loads {
		p := img[64+56*i:]
		le.PutUint32(p[0:], uint32(elf.PT_LOAD))
		le.PutUint32(p[4:], uint32(l[3]))
		le.PutUint64(p[8:], l[0])
		le.PutUint64(p[16:], l[1])
		le.PutUint64(p[32:], l[2])
		le.PutUint64(p[40:], l[2])
	}
	return img
}

func TestLoadBias(t *testing.T) {
	// The segments of a PIE linked by GNU ld with -z separate-code, and of
	// a non-PIE executable at 0x400000.
	const r, rx, rw = uint64(elf.PF_R), uint64(elf.PF_R | elf.PF_X), uint64(elf.PF_R | elf.PF_W)
	pie := phdrELF([][4]uint64{{0, 0, 0x628, r}, {0x1000, 0x1000, 0x1b5, rx}, {0x2000, 0x2000, 0xf4, r}, {0x2dd8, 0x3dd8, 0x248, rw}})
	exe := phdrELF([][4]uint64{{0, 0x400000, 0x4f0, r}, {0x1000, 0x401000, 0x1a5, rx}})
	for _, c := range []struct {
		name       string
		img        []byte
		off, start uint64
		perms      string
		want       uint64
	}{
		{"a PIE's first mapping", pie, 0, 0x555555554000, "r--p", 0x555555554000},
		{"a PIE's text mapping", pie, 0x1000, 0x555555555000, "r-xp", 0x555555554000},
		{"a PIE's read-only data mapping", pie, 0x2000, 0x555555556000, "r--p", 0x555555554000},
		{"a PIE's data mapping, whose segment starts mid-page", pie, 0x2000, 0x555555557000, "rw-p", 0x555555554000},
		{"a non-PIE executable has bias 0", exe, 0x1000, 0x401000, "r-xp", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := loadBias(bytes.NewReader(c.img), Mapping{Offset: c.off, Start: c.start, Perms: c.perms})
			if err != nil || got != c.want {
				t.Errorf("loadBias = %#x, %v; want %#x", got, err, c.want)
			}
		})
	}
	if _, err := loadBias(bytes.NewReader(pie), Mapping{Offset: 0x9000, Start: 0x1000, Perms: "r-xp"}); err == nil {
		t.Errorf("loadBias of an offset in no segment succeeded")
	}
	if _, err := loadBias(strings.NewReader("#!/bin/sh\n"), Mapping{Start: 0x1000, Perms: "r-xp"}); err != errNotELF {
		t.Errorf("loadBias of a script: %v, want errNotELF", err)
	}
	// Program headers past the first 4 KB are read separately; truncated
	// ones are an error.
	far := append(append([]byte(nil), pie[:64]...), make([]byte, 8192-64)...)
	far = append(far, pie[64:]...)
	binary.LittleEndian.PutUint64(far[32:], 8192)
	if got, err := loadBias(bytes.NewReader(far), Mapping{Offset: 0x1000, Start: 0x555555555000, Perms: "r-xp"}); err != nil || got != 0x555555554000 {
		t.Errorf("program headers at 8 KB: loadBias = %#x, %v", got, err)
	}
	if _, err := loadBias(bytes.NewReader(far[:8192+100]), Mapping{Offset: 0x1000, Start: 0x555555555000, Perms: "r-xp"}); err == nil {
		t.Errorf("truncated program headers: no error")
	}
	// A 32-bit big-endian executable (Elf32_Ehdr, Elf32_Phdr).
	be := binary.BigEndian
	img := make([]byte, 52+2*32)
	copy(img, elf.ELFMAG)
	img[elf.EI_CLASS], img[elf.EI_DATA], img[elf.EI_VERSION] = byte(elf.ELFCLASS32), byte(elf.ELFDATA2MSB), 1
	be.PutUint32(img[28:], 52)
	be.PutUint16(img[42:], 32)
	be.PutUint16(img[44:], 2)
	for i, l := range [][4]uint32{{0, 0x10000, 0x400, uint32(r)}, {0x1000, 0x11000, 0x200, uint32(rx)}} {
		p := img[52+32*i:]
		be.PutUint32(p[0:], uint32(elf.PT_LOAD))
		be.PutUint32(p[4:], l[0])
		be.PutUint32(p[8:], l[1])
		be.PutUint32(p[16:], l[2])
		be.PutUint32(p[24:], l[3])
	}
	if got, err := loadBias(bytes.NewReader(img), Mapping{Offset: 0x1000, Start: 0x7f011000, Perms: "r-xp"}); err != nil || got != 0x7f000000 {
		t.Errorf("ELF32 big-endian: loadBias = %#x, %v; want 0x7f000000", got, err)
	}
}

// TestLoadBiasAgreesWithDebugELF maps every PT_LOAD segment of the fixtures
// (both byte orders) and the host's libc at a made-up bias and checks that
// loadBias finds that bias from the segment's page, as debug/elf reads the
// program headers.
func TestLoadBiasAgreesWithDebugELF(t *testing.T) {
	paths := []string{"/lib/x86_64-linux-gnu/libc.so.6"}
	for _, n := range []string{"sqlite-v3", "deep-v3-O2", "aarch64be-v3", "s390x-v3"} {
		paths = append(paths, fixture(t, n))
	}
	const bias = 0x7f0000000000
	for _, p := range paths {
		f, err := elf.Open(p)
		if err != nil {
			t.Logf("skipping %s: %v", p, err)
			continue
		}
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, prog := range f.Progs {
			if prog.Type != elf.PT_LOAD {
				continue
			}
			perms := "r-"
			if prog.Flags&elf.PF_W != 0 {
				perms = "rw"
			}
			if prog.Flags&elf.PF_X != 0 {
				perms += "xp"
			} else {
				perms += "-p"
			}
			m := Mapping{Offset: prog.Off &^ 0xfff, Start: bias + prog.Vaddr&^0xfff, Perms: perms}
			if got, err := loadBias(bytes.NewReader(raw), m); err != nil || got != bias {
				t.Errorf("%s: segment at %#x: loadBias = %#x, %v; want %#x", p, prog.Vaddr, got, err, uint64(bias))
			}
		}
		f.Close()
	}
}

// TestModulesFromMappings builds modules from maps text under a root
// directory: ELF files with their load bias, a missing file kept with its
// error, non-ELF files and the vDSO (no memory given) left out.
func TestModulesFromMappings(t *testing.T) {
	root := t.TempDir()
	write := func(p string, data []byte) {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("usr/bin/prog", progELF(t))
	write("usr/lib/locale/locale-archive", []byte("not ELF"))
	nonPIE := (&tELF{base: 0x400000, textAddr: 0x401000, textSize: 0x100,
		syms: []tSym{{name: "static_fn", addr: 0x401000, size: 0x100}}}).build(t)
	write("opt/static", nonPIE)
	maps := fmt.Sprintf(`%x-%x r-xp 00000000 08:01 10 /usr/bin/prog
%x-%x rw-p 00000000 00:00 0
400000-402000 r-xp 00000000 08:01 11 /opt/static
7f0000000000-7f0000100000 r--p 00000000 08:01 12 /usr/lib/locale/locale-archive
7f0000200000-7f0000201000 r-xp 00000000 08:01 13 /lib/missing.so
7ffc00000000-7ffc00002000 r-xp 00000000 00:00 0 [vdso]
`, uint64(progBias), uint64(progBias+0x4000), uint64(progBias+0x4000), uint64(progBias+0x5000))
	mappings, err := ReadMaps(strings.NewReader(maps))
	if err != nil {
		t.Fatal(err)
	}
	ms, err := ModulesFromMappings(mappings, root, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range ms.List() {
		got = append(got, fmt.Sprintf("%s %#x-%#x bias %#x", m.Name, m.Start, m.End, m.Bias))
	}
	want := []string{
		"static 0x400000-0x402000 bias 0x0",
		"prog 0x555555554000-0x555555558000 bias 0x555555554000",
		"missing.so 0x7f0000200000-0x7f0000201000 bias 0x7f0000200000",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("modules:\n got %q\nwant %q", got, want)
	}
	sp := &Space{Modules: ms}
	for pc, want := range map[uint64]string{
		rt(fnMid + 2):  "prog!mid+0x2",
		0x401010:       "static!static_fn+0x10",
		0x7f0000200010: "missing.so+0x10",
	} {
		if got := sp.Describe(pc); got != want {
			t.Errorf("Describe(%#x) = %q, want %q", pc, got, want)
		}
	}
	if _, err := ms.ByName("missing.so").SFrame(); err == nil || !strings.Contains(err.Error(), "missing.so") {
		t.Errorf("SFrame() of a missing file: %v", err)
	}
}

// TestModulesFromMapsOfSelf reads the test process's own maps: the test
// binary (a Go executable) and the vDSO, read from memory.
func TestModulesFromMapsOfSelf(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("needs /proc")
	}
	pid := os.Getpid()
	mem := &ProcMemory{Pid: pid}
	defer mem.Close()
	ms, err := ModulesFromMaps(pid, mem)
	if err != nil {
		t.Fatal(err)
	}
	defer ms.Close()
	pc := uint64(reflect.ValueOf(TestModulesFromMapsOfSelf).Pointer())
	m := ms.Find(pc)
	if m == nil {
		t.Fatalf("no module holds this test's PC %#x", pc)
	}
	// Go test binaries carry no ELF symbol table: check the file instead.
	if exe, err := os.Executable(); err == nil && m.Path != exe {
		t.Errorf("PC %#x is in module %s, want the test binary %s", pc, m.Path, exe)
	}
	if f, err := m.File(); err != nil || f.Section(".text") == nil {
		t.Errorf("cannot open the test binary through %s: %v", m.OpenPath, err)
	}
	vdso := ms.ByName("[vdso]")
	if vdso == nil {
		t.Skip("no vDSO mapped")
	}
	if vdso.ELF == nil {
		t.Fatal("vDSO image not read")
	}
	a, _, ok := vdso.LookupSymbol("__vdso_clock_gettime")
	if !ok || !vdso.Contains(a) {
		t.Errorf("__vdso_clock_gettime at %#x (found %v) outside the vDSO [%#x, %#x)", a, ok, vdso.Start, vdso.End)
	}
}

// TestDeletedMapping maps an ELF file, deletes it, and finds it again
// through /proc/PID/map_files.
func TestDeletedMapping(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("needs /proc")
	}
	p := filepath.Join(t.TempDir(), "deleted.so")
	if err := os.WriteFile(p, progELF(t), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, 4096, syscall.PROT_READ, syscall.MAP_PRIVATE)
	f.Close()
	if err != nil {
		t.Skipf("mmap: %v", err)
	}
	defer syscall.Munmap(b)
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	ms, err := ModulesFromMaps(os.Getpid(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ms.Close()
	m := ms.ByName(p)
	if m == nil {
		t.Fatalf("no module for the deleted file %s", p)
	}
	if !strings.Contains(m.OpenPath, "/map_files/") {
		t.Errorf("OpenPath = %q, want a map_files path", m.OpenPath)
	}
	if name, _, ok := m.FuncName(m.Bias + fnMid + 1); !ok || name != "mid" {
		t.Errorf("FuncName in the deleted file = %q, %v (module %+v)", name, ok, m)
	}
	if _, err := m.SFrame(); err != nil {
		t.Errorf("SFrame() of the deleted file: %v", err)
	}
}
