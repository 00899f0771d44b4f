package sframe_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/sfdbg/sfdbg/sframe"
	"github.com/sfdbg/sfdbg/sframe/rule"
	"github.com/sfdbg/sfdbg/sframe/sframetest"
)

var updateDump = flag.Bool("update-dump", false, "rewrite testdata/golden/NAME.sfdbg.json from the current WriteJSON output")

// dumpTestdata returns a path under the repository's testdata directory.
func dumpTestdata(parts ...string) string {
	return filepath.Join(append([]string{"..", "testdata"}, parts...)...)
}

// dumpToolchains returns the reference toolchain directory
// ($SFDBG_TOOLCHAINS, default /tmp/sfdbg-toolchains).
func dumpToolchains() string {
	if d := os.Getenv("SFDBG_TOOLCHAINS"); d != "" {
		return d
	}
	return "/tmp/sfdbg-toolchains"
}

func dumpText(t testing.TB, s *sframe.Section) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := s.WriteText(&buf); err != nil {
		t.Fatalf("WriteText: %v", err)
	}
	return buf.Bytes()
}

// dumpDiff describes the first line where got and want differ.
func dumpDiff(got, want []byte) string {
	g, w := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl || i >= len(g) || i >= len(w) {
			return fmt.Sprintf("first difference at line %d:\n got: %q\nwant: %q\n(%d vs %d lines)", i+1, gl, wl, len(g), len(w))
		}
	}
	return "no difference"
}

// goldenObjdumpPairs returns the names NAME with both
// testdata/golden/NAME.objdump and testdata/bin/NAME.
func goldenObjdumpPairs(t testing.TB) []string {
	files, err := filepath.Glob(dumpTestdata("golden", "*.objdump"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".objdump")
		if _, err := os.Stat(dumpTestdata("bin", name)); err == nil {
			names = append(names, name)
		}
	}
	return names
}

func TestWriteTextIsByteIdenticalToTheGoldenObjdumpOutput(t *testing.T) {
	names := goldenObjdumpPairs(t)
	if len(names) == 0 {
		t.Skip("no testdata/golden/NAME.objdump with a testdata/bin/NAME yet")
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			want, err := os.ReadFile(dumpTestdata("golden", name+".objdump"))
			if err != nil {
				t.Fatal(err)
			}
			s, err := openELF(dumpTestdata("bin", name))
			if err != nil {
				t.Fatal(err)
			}
			if got := dumpText(t, s); !bytes.Equal(got, want) {
				t.Errorf("dump of testdata/bin/%s differs from golden/%s.objdump: %s", name, name, dumpDiff(got, want))
			}
		})
	}
}

// TestWriteTextOfVersion1DiffersFromBinutils240OnlyInTheModernForm compares
// the dump of each v1 fixture with testdata/golden/NAME.objdump-2.40, the
// last objdump that decodes v1. 2.40 printed neither the header's fixed
// offsets nor "f" for an RA at the fixed offset (it printed "u"); with those
// two changes undone, the text must be the same.
func TestWriteTextOfVersion1DiffersFromBinutils240OnlyInTheModernForm(t *testing.T) {
	files, err := filepath.Glob(dumpTestdata("golden", "*.objdump-2.40"))
	if err != nil {
		t.Fatal(err)
	}
	ran := 0
	for _, g := range files {
		name := strings.TrimSuffix(filepath.Base(g), ".objdump-2.40")
		bin := dumpTestdata("bin", name)
		if _, err := os.Stat(bin); err != nil {
			continue
		}
		ran++
		t.Run(name, func(t *testing.T) {
			want, err := os.ReadFile(g)
			if err != nil {
				t.Fatal(err)
			}
			s, err := openELF(bin)
			if err != nil {
				t.Fatal(err)
			}
			if s.Version != sframe.Version1 {
				t.Fatalf("%s is version %d", name, s.Version)
			}
			var lines []string
			for _, l := range strings.SplitAfter(string(dumpText(t, s)), "\n") {
				if strings.HasPrefix(l, "    CFA fixed ") {
					continue
				}
				if s.CFAFixedRAOffset != 0 && strings.HasSuffix(l, " f            \n") {
					l = strings.TrimSuffix(l, "f            \n") + "u            \n"
				}
				lines = append(lines, l)
			}
			if got := []byte(strings.Join(lines, "")); !bytes.Equal(got, want) {
				t.Errorf("differs from objdump 2.40 beyond the modern form: %s", dumpDiff(got, want))
			}
		})
	}
	if ran == 0 {
		t.Skip("no testdata/golden/NAME.objdump-2.40 with a testdata/bin/NAME yet")
	}
}

// TestWriteJSONMatchesTheGoldenFiles checks testdata/golden/NAME.sfdbg.json
// for the fixtures whose .sframe is under 1 KiB (the hand-written assembler
// ones); -update-dump rewrites them.
func TestWriteJSONMatchesTheGoldenFiles(t *testing.T) {
	const maxSection = 1 << 10
	ran := 0
	for _, name := range goldenObjdumpPairs(t) {
		s, err := openELF(dumpTestdata("bin", name))
		if err != nil {
			t.Fatal(err)
		}
		if len(s.Data()) > maxSection {
			continue
		}
		ran++
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := s.WriteJSON(&buf); err != nil {
				t.Fatal(err)
			}
			path := dumpTestdata("golden", name+".sfdbg.json")
			if *updateDump {
				if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if errors.Is(err, os.ErrNotExist) {
				t.Skipf("no %s (run go test -run WriteJSON -update-dump)", path)
			}
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(buf.Bytes(), want) {
				t.Errorf("JSON of %s differs from %s: %s", name, path, dumpDiff(buf.Bytes(), want))
			}
		})
	}
	if ran == 0 {
		t.Skip("no small fixtures in testdata/bin yet")
	}
}

// objdumpSFrame runs objdump --sframe=.sframe on file and returns its output
// from the line "Contents of the SFrame section" on.
func objdumpSFrame(t testing.TB, objdump, file string) []byte {
	t.Helper()
	out, err := exec.Command(objdump, "--sframe=.sframe", file).CombinedOutput()
	if err != nil {
		t.Fatalf("%s --sframe %s: %v\n%s", objdump, file, err, out)
	}
	i := bytes.Index(out, []byte("Contents of the SFrame section"))
	if i < 0 {
		t.Fatalf("%s --sframe %s printed no SFrame section:\n%s", objdump, file, out)
	}
	return out[i:]
}

// liveCase is one input of TestWriteTextMatchesObjdump: build returns the
// ELF file to dump, or skips.
type liveCase struct {
	name  string
	build func(t *testing.T, dir string) string
}

// TestWriteTextMatchesObjdump builds varied inputs with the reference
// toolchains (C at several optimization levels and the assembler fixtures
// with binutils 2.44 and 2.47.50, and sections crafted with Builder for the
// corners no compiler reaches) and compares WriteText with what objdump
// 2.47.50 prints for them.
func TestWriteTextMatchesObjdump(t *testing.T) {
	tc := dumpToolchains()
	objdump := filepath.Join(tc, "v3", "bin", "objdump")
	if _, err := os.Stat(objdump); err != nil {
		t.Skipf("no reference objdump 2.47.50 at %s (set SFDBG_TOOLCHAINS): %v", objdump, err)
	}
	var cases []liveCase
	for _, v := range []string{"v2", "v3"} {
		for _, opt := range [][]string{{"-O0"}, {"-O2"}, {"-O2", "-fno-omit-frame-pointer"}, {"-Os", "-mstackrealign"}} {
			cases = append(cases, liveCase{
				name:  fmt.Sprintf("C program built with binutils %s and %s", v, strings.Join(opt, " ")),
				build: buildC(tc, v, opt),
			})
		}
		cases = append(cases, liveCase{
			name:  "features-x86_64.s assembled with binutils " + v,
			build: buildAsm(tc, v, "", "features-x86_64.s", []string{"-static", "-nostdlib"}),
		})
		cases = append(cases, liveCase{
			name:  "aarch64.s assembled with binutils " + v,
			build: buildAsm(tc, "cross-"+v, "aarch64-linux-gnu-", "aarch64.s", []string{"-static", "-e", "_start"}),
		})
	}
	cases = append(cases, liveCase{
		name:  "s390x.s assembled with binutils v3",
		build: buildAsm(tc, "cross-v3", "s390x-linux-gnu-", "s390x.s", []string{"-static", "-e", "_start"}),
	})
	for _, c := range craftedSections() {
		c := c
		cases = append(cases, liveCase{name: "crafted " + c.name, build: func(t *testing.T, dir string) string {
			data, err := c.b.Encode()
			if err != nil {
				t.Fatalf("Encode: %v", err)
			}
			return wrapSection(t, tc, dir, data)
		}})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			file := c.build(t, t.TempDir())
			want := objdumpSFrame(t, objdump, file)
			s, err := openELF(file)
			if err != nil {
				t.Fatal(err)
			}
			if got := dumpText(t, s); !bytes.Equal(got, want) {
				t.Errorf("differs from objdump 2.47.50: %s", dumpDiff(got, want))
			}
		})
	}
}

// dumpTestC exercises alloca, a 64-byte aligned local (DRAP: a FLEX FDE in
// v3 at -O0), 2- and 4-byte CFA offsets, a signal handler and PLT calls.
const dumpTestC = `#include <alloca.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
volatile int sink;
__attribute__((noinline)) int use_alloca(int n) { char *p = alloca(n); memset(p, 1, n); return p[n / 2]; }
__attribute__((noinline)) int drap(int n) {
	char buf[64] __attribute__((aligned(64)));
	char *p = alloca(n);
	memset(buf, n, sizeof buf); memset(p, 0, n);
	sink = buf[n & 63] + p[0];
	return sink;
}
__attribute__((noinline)) int frame4(int n) { volatile char buf[200000]; buf[n] = 1; return buf[n / 2]; }
__attribute__((noinline)) int frame2(int n) { volatile char buf[5000]; buf[n] = 1; return buf[n / 2]; }
static void handler(int sig) { sink = sig; }
__attribute__((noinline)) int many_args(int a, int b, int c, int d, int e, int f, int g, int h) {
	int r = 0;
	for (int i = 0; i < a; i++) r += printf("%d %d %d %d %d %d %d\n", b, c, d, e, f, g, h);
	return r;
}
int main(int argc, char **argv) {
	signal(SIGUSR1, handler);
	int n = argc + 10;
	int r = use_alloca(n) + drap(n) + frame4(n) + frame2(n) + many_args(argc, 1, 2, 3, 4, 5, 6, 7);
	if (argc > 5) abort();
	return r & 1;
}
`

func dumpRun(t *testing.T, dir, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}

func buildC(tc, v string, opts []string) func(t *testing.T, dir string) string {
	return func(t *testing.T, dir string) string {
		gcc, err := exec.LookPath("gcc")
		if err != nil {
			t.Skip("no gcc")
		}
		if err := os.WriteFile(filepath.Join(dir, "t.c"), []byte(dumpTestC), 0o644); err != nil {
			t.Fatal(err)
		}
		args := append([]string{"-B", filepath.Join(tc, v, "bin") + "/", "-Wa,--gsframe"}, opts...)
		args = append(args, "-o", "t", "t.c")
		dumpRun(t, dir, gcc, args...)
		return filepath.Join(dir, "t")
	}
}

func buildAsm(tc, v, prefix, src string, ldArgs []string) func(t *testing.T, dir string) string {
	return func(t *testing.T, dir string) string {
		as := filepath.Join(tc, v, "bin", prefix+"as")
		ld := filepath.Join(tc, v, "bin", prefix+"ld")
		if _, err := os.Stat(as); err != nil {
			t.Skipf("no %s (scripts/cross-toolchains.sh installs the cross binutils)", as)
		}
		srcPath, err := filepath.Abs(dumpTestdata("src", src))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(srcPath); err != nil {
			t.Skipf("no %s", srcPath)
		}
		dumpRun(t, dir, as, "--gsframe", "-o", "t.o", srcPath)
		dumpRun(t, dir, ld, append(ldArgs, "-o", "t", "t.o")...)
		return filepath.Join(dir, "t")
	}
}

// wrapSection writes data as the .sframe section of an x86-64 relocatable
// object (objdump decodes either byte order from the magic).
func wrapSection(t *testing.T, tc, dir string, data []byte) string {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "sec.bin"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	src := ".section .sframe,\"a\",@progbits\n.incbin \"sec.bin\"\n"
	if err := os.WriteFile(filepath.Join(dir, "w.s"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	dumpRun(t, dir, filepath.Join(tc, "v3", "bin", "as"), "-o", "w.o", "w.s")
	return filepath.Join(dir, "w.o")
}

type craftedSection struct {
	name string
	b    *sframetest.Builder
}

func words(w ...int32) []int32 { return w }

// ctl builds a FLEX control word.
func ctl(reg rule.Reg, regP, derefP bool) int32 {
	return int32(sframetest.FlexControl(reg, regP, derefP))
}

// craftedSections are sections no toolchain emits but objdump prints: header
// fixed FP offsets, FRE word counts beyond the ABI's, mangled-RA and signal
// bits outside their ABI and version, FLEX control-word combinations, s390x
// version 2 register encodings, MASK FDEs, empty sections and FDEs.
func craftedSections() []craftedSection {
	sp, fp := sframe.BaseRegSP, sframe.BaseRegFP
	amdFLEX := []sframetest.FRESpec{
		{StartOff: 0, Words: words(ctl(7, true, false), 8)},
		{StartOff: 1, Words: words(ctl(10, true, false), 0)},
		{StartOff: 2, Words: words(ctl(6, true, true), -8, 0, ctl(6, true, true), 0)},
		{StartOff: 3, Words: words(ctl(7, true, false), 16, ctl(0, false, true), -8, ctl(0, false, true), -16)},
		{StartOff: 4, Words: words(ctl(7, true, false), 16, ctl(16, true, false), 0)},
		{StartOff: 5, Words: words(ctl(7, true, false), 16, 0)},
		{StartOff: 6, Words: words(ctl(0, false, true), 8)},
		{StartOff: 7, Words: words(100000<<3|1, 8)},
		{StartOff: 8, Words: words(ctl(6, true, false), -300, ctl(3, true, true), 12, ctl(7, true, true), -24), MangledRA: true},
		{StartOff: 9, Words: words(ctl(7, true, false), 8, ctl(30, true, true), 0, 0)},
		{StartOff: 10, Words: words(ctl(7, true, false), 8, ctl(30, true, true))}, // RA pair without its offset word
		{StartOff: 11, Words: words(ctl(7, true, false), 8, ctl(30, true, true), 4, ctl(6, true, false))},
		{StartOff: 12},
	}
	return []craftedSection{
		{"amd64 v2: fixed FP offset, aux header, signal and pauth bits, MASK, ADDR4, 4-byte words", &sframetest.Builder{
			Version: sframe.Version2, ABI: sframe.ABIAMD64LittleEndian,
			Flags:            sframe.FlagFDESorted | sframe.FlagFramePointer | sframe.FlagFDEFuncStartPCRel,
			CFAFixedFPOffset: -16, CFAFixedRAOffset: -8, AuxHeader: []byte{0xaa, 0xbb},
			Addr: 0x10000,
			FDEs: []sframetest.FDESpec{
				{Start: 0x1000, Size: 0x40, FREs: []sframetest.FRESpec{
					{StartOff: 0, BaseReg: sp, Words: words(8)},
					{StartOff: 1, BaseReg: sp, Words: words(16, -16)},
					{StartOff: 4, BaseReg: fp, Words: words(16, -16)},
					{StartOff: 0x20, BaseReg: sp, Words: words(-8)},
					{StartOff: 0x30, BaseReg: sp, Words: words(8), MangledRA: true},
				}},
				{Start: 0x1040, Size: 0x20, Signal: true, PAuthKey: rule.PAuthKeyB, FREs: []sframetest.FRESpec{
					{StartOff: 0, BaseReg: sp, Words: words(8, -16, -24, 5, 6)},
					{StartOff: 1, BaseReg: fp, Words: words(8, 1, 2, 3, 4, 5)}, // 6: libsframe's maximum
				}},
				{Start: 0x1060, Size: 0x40, PCType: sframe.PCTypeMask, RepSize: 16, FREs: []sframetest.FRESpec{
					{StartOff: 0, BaseReg: sp, Words: words(8)},
					{StartOff: 11, BaseReg: sp, Words: words(16)},
				}},
				{Start: 0x10a0, Size: 0x10},
				{Start: 0x10b0, Size: 0x10, FREs: []sframetest.FRESpec{{StartOff: 0}}},
				{Start: 0x10c0, Size: 70000, FREs: []sframetest.FRESpec{
					{StartOff: 0, BaseReg: sp, Words: words(8)},
					{StartOff: 300, BaseReg: sp, Words: words(1 << 20)},
					{StartOff: 66000, BaseReg: fp, Words: words(-70000, -16)},
				}},
			},
		}},
		{"amd64 v2 without flags", &sframetest.Builder{
			Version: sframe.Version2, ABI: sframe.ABIAMD64LittleEndian, CFAFixedRAOffset: -8,
			FDEs: []sframetest.FDESpec{{Start: 0x40, Size: 4, FREs: []sframetest.FRESpec{{BaseReg: sp, Words: words(8)}}}},
		}},
		{"amd64 v3: FLEX control words, signal FLEX FDE, no fixed RA offset", &sframetest.Builder{
			Version: sframe.Version3, ABI: sframe.ABIAMD64LittleEndian, Flags: sframe.FlagFDESorted | sframe.FlagFDEFuncStartPCRel,
			CFAFixedRAOffset: -8, Addr: 0x400000,
			FDEs: []sframetest.FDESpec{
				{Start: 0x401000, Size: 0x20, Type: sframe.FDETypeFlex, FREs: amdFLEX},
				{Start: 0x401020, Size: 0x20, Type: sframe.FDETypeFlex, Signal: true, FREs: amdFLEX[:3]},
				{Start: 0x401040, Size: 0x20, Signal: true, FREs: []sframetest.FRESpec{{BaseReg: sp, Words: words(160)}}},
				{Start: 0x401060, Size: 0x10, PCType: sframe.PCTypeMask, RepSize: 16, FREs: []sframetest.FRESpec{{BaseReg: sp, Words: words(8)}}},
			},
		}},
		{"amd64 v3 FLEX without a fixed RA offset, with a fixed FP offset", &sframetest.Builder{
			Version: sframe.Version3, ABI: sframe.ABIAMD64LittleEndian, Flags: sframe.FlagFDESorted | sframe.FlagFDEFuncStartPCRel,
			CFAFixedFPOffset: -16, Addr: 0x400000,
			FDEs: []sframetest.FDESpec{
				{Start: 0x401000, Size: 0x20, Type: sframe.FDETypeFlex, FREs: amdFLEX},
				{Start: 0x401020, Size: 0x20, FREs: []sframetest.FRESpec{
					{BaseReg: sp, Words: words(8)}, {StartOff: 1, BaseReg: sp, Words: words(16, -8)},
					{StartOff: 2, BaseReg: fp, Words: words(16, -8, -16)}, {StartOff: 3, BaseReg: sp, Words: words(16, 0)},
				}},
			},
		}},
		{"aarch64 v3 little-endian: pauth keys, mangled RA, RA padding, FLEX", &sframetest.Builder{
			Version: sframe.Version3, ABI: sframe.ABIAArch64LittleEndian, Flags: sframe.FlagFDESorted | sframe.FlagFDEFuncStartPCRel,
			Addr: 0x4000e8,
			FDEs: []sframetest.FDESpec{
				{Start: 0x400100, Size: 0x40, PAuthKey: rule.PAuthKeyB, FREs: []sframetest.FRESpec{
					{BaseReg: sp, Words: words(0)},
					{StartOff: 4, BaseReg: sp, Words: words(0), MangledRA: true},
					{StartOff: 8, BaseReg: sp, Words: words(16, -8, -16), MangledRA: true},
					{StartOff: 12, BaseReg: fp, Words: words(16, -8)},
					{StartOff: 16, BaseReg: fp, Words: words(16, 0, -16)},
				}},
				{Start: 0x400140, Size: 0x40, Type: sframe.FDETypeFlex, FREs: []sframetest.FRESpec{
					{Words: words(ctl(31, true, false), 0)},
					{StartOff: 4, Words: words(ctl(29, true, false), 16, ctl(0, false, true), -8, ctl(0, false, true), -16)},
					{StartOff: 8, Words: words(ctl(31, true, false), 32, ctl(30, true, false), 0), MangledRA: true},
					{StartOff: 12, Words: words(ctl(31, true, false), 32, 0, ctl(19, true, false), 0)},
				}},
				{Start: 0x400180, Size: 8, Signal: true, PAuthKey: rule.PAuthKeyB, Type: sframe.FDETypeFlex, FREs: []sframetest.FRESpec{
					{Words: words(ctl(31, true, false), 4112)},
				}},
			},
		}},
		{"aarch64 v2 big-endian", &sframetest.Builder{
			Version: sframe.Version2, ABI: sframe.ABIAArch64BigEndian, Flags: sframe.FlagFDESorted | sframe.FlagFDEFuncStartPCRel,
			Addr: 0x4000e8,
			FDEs: []sframetest.FDESpec{
				{Start: 0x400100, Size: 0x400, PAuthKey: rule.PAuthKeyB, FREs: []sframetest.FRESpec{
					{BaseReg: sp, Words: words(0)},
					{StartOff: 300, BaseReg: sp, Words: words(4112, -4104, -4112), MangledRA: true},
				}},
				{Start: 0x400500, Size: 0x10, PCType: sframe.PCTypeMask, RepSize: 16, FREs: []sframetest.FRESpec{{BaseReg: sp, Words: words(16, -8, -16)}}},
			},
		}},
		{"s390x v2: register-encoded RA and FP, RA padding", &sframetest.Builder{
			Version: sframe.Version2, ABI: sframe.ABIS390XBigEndian, Flags: sframe.FlagFDESorted | sframe.FlagFDEFuncStartPCRel,
			Addr: 0x1000230,
			FDEs: []sframetest.FDESpec{
				{Start: 0x1000400, Size: 0x40, FREs: []sframetest.FRESpec{
					{BaseReg: sp, Words: words(0)},
					{StartOff: 4, BaseReg: sp, Words: words(0, -48)},
					{StartOff: 8, BaseReg: sp, Words: words(20, -48, -72)},
					{StartOff: 12, BaseReg: fp, Words: words(20, 0, -72)},
					{StartOff: 16, BaseReg: sp, Words: words(0, 16<<1|1, 17<<1|1)},
					{StartOff: 20, BaseReg: sp, Words: words(-3, -3, -5)},
					{StartOff: 24, BaseReg: sp, Words: words(100000, -48)},
				}},
			},
		}},
		{"s390x v3: DEFAULT and FLEX", &sframetest.Builder{
			Version: sframe.Version3, ABI: sframe.ABIS390XBigEndian, Flags: sframe.FlagFDESorted | sframe.FlagFDEFuncStartPCRel,
			Addr: 0x1000230,
			FDEs: []sframetest.FDESpec{
				{Start: 0x1000400, Size: 0x40, FREs: []sframetest.FRESpec{
					{BaseReg: sp, Words: words(0, 0, -72)},
					{StartOff: 4, BaseReg: sp, Words: words(21, -48, -72)},
					{StartOff: 8, BaseReg: sp, Words: words(1, 33)},
				}},
				{Start: 0x1000440, Size: 0x40, Type: sframe.FDETypeFlex, FREs: []sframetest.FRESpec{
					{Words: words(ctl(15, true, false), 0)},
					{StartOff: 4, Words: words(ctl(15, true, false), 20, ctl(16, true, false), 0, ctl(17, true, false), 0)},
					{StartOff: 8, Words: words(ctl(11, true, false), 20, 0, ctl(0, false, true), -72)},
				}},
			},
		}},
		{"amd64 v3 without FDEs", &sframetest.Builder{
			Version: sframe.Version3, ABI: sframe.ABIAMD64LittleEndian, Flags: sframe.FlagFDESorted | sframe.FlagFDEFuncStartPCRel, CFAFixedRAOffset: -8,
		}},
	}
}

// TestWriteTextPrintsCraftedCorners checks, without the reference
// toolchain, a few lines of the crafted sections against what objdump
// 2.47.50 printed for them (TestWriteTextMatchesObjdump compares all).
func TestWriteTextPrintsCraftedCorners(t *testing.T) {
	want := map[string][]string{
		"amd64 v2: fixed FP offset, aux header, signal and pauth bits, MASK, ADDR4, 4-byte words": {
			"    Flags: SFRAME_F_FDE_SORTED,\n           SFRAME_F_FRAME_POINTER,\n           SFRAME_F_FDE_FUNC_START_PCREL\n    CFA fixed FP offset: -16\n    CFA fixed RA offset: -8\n",
			"  sp+-8     c-16      f            \n",
			"size = 32 bytes, attr = \"S\"\n",
			"    STARTPC[m]      CFA       FP        RA           \n    0000000000000000  sp+8 ",
			"  sp+8      c-16      f[s]         \n",
			"  RA undefined\n",
		},
		"amd64 v3: FLEX control words, signal FLEX FDE, no fixed RA offset": {
			"attr = \"SF\"",
			"  (fp-8)    (fp+0)    U            \n",
			"  sp+16     c-16      c-8          \n",
			"  sp+16     u         r16+0        \n",
			"  sp+16     u         U            \n",
			"  c+8       u         f            \n",
			"  r100000+8 u         f            \n",
			"  fp-300    (sp-24)   (r3+12)[s]   \n",
		},
		"s390x v2: register-encoded RA and FP, RA padding": {
			"  sp+160    u         u            \n",
			"  sp+160    u         c-48         \n",
			"  sp+320    c-72      c-48         \n",
			"  fp+320    c-72      U            \n",
			"  sp+160    r17       r16          \n",
			"  sp+136    r-3       r-2          \n",
		},
	}
	for _, c := range craftedSections() {
		lines, ok := want[c.name]
		if !ok {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			data, err := c.b.Encode()
			if err != nil {
				t.Fatal(err)
			}
			s, err := sframe.ParseAt(data, 0)
			if err != nil {
				t.Fatal(err)
			}
			got := string(dumpText(t, s))
			for _, l := range lines {
				if !strings.Contains(got, l) {
					t.Errorf("dump lacks %q:\n%s", l, got)
				}
			}
		})
	}
}

func TestWriteJSONIsValidJSONWithNumbers(t *testing.T) {
	var sections []*sframe.Section
	var names []string
	for _, name := range goldenObjdumpPairs(t) {
		s, err := openELF(dumpTestdata("bin", name))
		if err != nil {
			t.Fatal(err)
		}
		sections, names = append(sections, s), append(names, name)
	}
	for _, c := range craftedSections() {
		data, err := c.b.Encode()
		if err != nil {
			t.Fatal(err)
		}
		s, err := sframe.ParseAt(data, c.b.Addr)
		if err != nil {
			t.Fatal(err)
		}
		sections, names = append(sections, s), append(names, "crafted "+c.name)
	}
	for i, s := range sections {
		t.Run(names[i], func(t *testing.T) {
			if testing.Short() && len(s.Data()) > 64<<10 {
				t.Skip("large section in -short mode")
			}
			var buf bytes.Buffer
			if err := s.WriteJSON(&buf); err != nil {
				t.Fatal(err)
			}
			dec := json.NewDecoder(bytes.NewReader(buf.Bytes()))
			dec.UseNumber()
			var doc map[string]any
			if err := dec.Decode(&doc); err != nil {
				t.Fatalf("invalid JSON: %v", err)
			}
			if dec.More() {
				t.Fatal("more than one JSON value")
			}
			// Round trip: re-encoding and decoding gives the same document.
			again, err := json.Marshal(doc)
			if err != nil {
				t.Fatal(err)
			}
			dec2 := json.NewDecoder(bytes.NewReader(again))
			dec2.UseNumber()
			var doc2 map[string]any
			if err := dec2.Decode(&doc2); err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(doc) != fmt.Sprint(doc2) {
				t.Fatal("document changed in a round trip through encoding/json")
			}
			checkJSONDocument(t, s, doc)
		})
	}
}

// checkJSONDocument checks the schema version, that numeric fields are JSON
// numbers, and that the FDE and FRE lists agree with the section.
func checkJSONDocument(t *testing.T, s *sframe.Section, doc map[string]any) {
	t.Helper()
	num := func(m map[string]any, key string) json.Number {
		t.Helper()
		n, ok := m[key].(json.Number)
		if !ok {
			t.Fatalf("%q is %T (%v), want a JSON number", key, m[key], m[key])
		}
		return n
	}
	if v := num(doc, "schema_version"); v.String() != "1" {
		t.Errorf("schema_version %v, want 1", v)
	}
	sec := doc["section"].(map[string]any)
	if a := num(sec, "address"); a.String() != fmt.Sprint(s.Addr) {
		t.Errorf("section address %v, want %d", a, s.Addr)
	}
	h := doc["header"].(map[string]any)
	for _, k := range []string{"version", "flags", "abi", "cfa_fixed_fp_offset", "cfa_fixed_ra_offset", "num_fdes", "num_fres", "fre_len", "fde_off", "fre_off"} {
		num(h, k)
	}
	fdes := doc["fdes"].([]any)
	if len(fdes) != len(s.FDEs()) {
		t.Fatalf("%d FDEs in JSON, want %d", len(fdes), len(s.FDEs()))
	}
	nfres := 0
	for i, x := range fdes {
		f := x.(map[string]any)
		for _, k := range []string{"index", "offset", "start", "end", "start_field", "size", "num_fres", "rep_size"} {
			num(f, k)
		}
		if got, want := num(f, "start").String(), fmt.Sprint(s.FDEs()[i].Start); got != want {
			t.Errorf("FDE %d start %s, want %s", i, got, want)
		}
		for _, y := range f["fres"].([]any) {
			r := y.(map[string]any)
			for _, k := range []string{"offset", "start_offset", "start", "dataword_count", "dataword_size"} {
				num(r, k)
			}
			for _, w := range r["datawords"].([]any) {
				if _, ok := w.(json.Number); !ok {
					t.Fatalf("data word %v is %T", w, w)
				}
			}
			if _, ok := r["row_error"]; !ok {
				cfa := r["cfa"].(map[string]any)
				if _, ok := cfa["rule"].(string); !ok {
					t.Fatalf("cfa rule %v", cfa)
				}
				if o, ok := cfa["offset"]; ok {
					if _, ok := o.(json.Number); !ok {
						t.Fatalf("cfa offset %v is %T", o, o)
					}
				}
			}
			nfres++
		}
	}
	if nfres != int(s.NumFREs) {
		t.Errorf("%d FREs in JSON, header says %d", nfres, s.NumFREs)
	}
}

func TestWriteTextAndJSONReportTheFirstBrokenFDEAndGoOn(t *testing.T) {
	b := &sframetest.Builder{
		Version: sframe.Version3, ABI: sframe.ABIAMD64LittleEndian, Flags: sframe.FlagFDESorted | sframe.FlagFDEFuncStartPCRel, CFAFixedRAOffset: -8,
		FDEs: []sframetest.FDESpec{
			{Start: 0x1000, Size: 0x10, FREs: []sframetest.FRESpec{{BaseReg: sframe.BaseRegSP, Words: words(8)}}},
			// An FRE info byte with data-word size 3, which is undefined.
			{Start: 0x1010, Size: 0x10, FREs: []sframetest.FRESpec{{BaseReg: sframe.BaseRegSP, Words: words(8), Info: ptr8(0x62)}}},
			{Start: 0x1020, Size: 0x10, FREs: []sframetest.FRESpec{{BaseReg: sframe.BaseRegSP, Words: words(16)}}},
		},
	}
	s := mustParseDump(t, b)
	var buf bytes.Buffer
	err := s.WriteText(&buf)
	var fe *sframe.FormatError
	if !errors.As(err, &fe) {
		t.Fatalf("WriteText error %v, want a *FormatError", err)
	}
	if !strings.Contains(err.Error(), "at byte 0x") {
		t.Errorf("error %q does not give the byte offset", err)
	}
	if !strings.Contains(buf.String(), "func idx [2]") || !strings.Contains(buf.String(), "sp+16") {
		t.Errorf("dump stopped at the broken FDE:\n%s", buf.String())
	}
	buf.Reset()
	if err := s.WriteJSON(&buf); !errors.As(err, &fe) {
		t.Fatalf("WriteJSON error %v, want a *FormatError", err)
	}
	var doc map[string]any
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("JSON of a broken section is invalid: %v\n%s", err, buf.String())
	}
	f1 := doc["fdes"].([]any)[1].(map[string]any)
	if e, ok := f1["error"].(map[string]any); !ok || e["offset"].(float64) != float64(fe.Off) {
		t.Errorf("FDE 1 error %v, want offset %d", f1["error"], fe.Off)
	}
}

func TestDumpsStopWhenFDEsShareFREs(t *testing.T) {
	// 200 FDEs that all list the same 3 FREs: a dump would print 600 FRE
	// lines from 9 bytes of FRE data (quadratic in a larger section).
	b := &sframetest.Builder{Version: sframe.Version2, ABI: sframe.ABIAMD64LittleEndian, CFAFixedRAOffset: -8}
	zero, three := uint32(0), uint32(3)
	for i := 0; i < 200; i++ {
		f := sframetest.FDESpec{Start: uint64(0x1000 + 16*i), Size: 16, FREOff: &zero, NumFREs: &three}
		if i == 0 {
			f.FREs = []sframetest.FRESpec{{Words: words(8)}, {StartOff: 1, Words: words(16)}, {StartOff: 2, Words: words(8)}}
		}
		b.FDEs = append(b.FDEs, f)
	}
	s := mustParseDump(t, b)
	var buf bytes.Buffer
	err := s.WriteText(&buf)
	var fe *sframe.FormatError
	if !errors.As(err, &fe) || !strings.Contains(err.Error(), "overlapping") {
		t.Fatalf("WriteText error %v, want the overlapping-FRE-ranges *FormatError", err)
	}
	if n := strings.Count(buf.String(), "  sp+"); n > 10 {
		t.Errorf("printed %d FRE lines from 3 FREs", n)
	}
	buf.Reset()
	if err := s.WriteJSON(&buf); !errors.As(err, &fe) {
		t.Fatalf("WriteJSON error %v, want a *FormatError", err)
	}
	if !json.Valid(buf.Bytes()) {
		t.Error("invalid JSON")
	}
}

func ptr8(v uint8) *uint8 { return &v }

func mustParseDump(t testing.TB, b *sframetest.Builder) *sframe.Section {
	t.Helper()
	data, err := b.Encode()
	if err != nil {
		t.Fatal(err)
	}
	s, err := sframe.ParseAt(data, b.Addr)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestWriteTextReturnsTheWritersError(t *testing.T) {
	s := mustParseDump(t, craftedSections()[0].b)
	if err := s.WriteText(failWriter{}); err == nil || err.Error() != "disk full" {
		t.Errorf("WriteText error %v, want disk full", err)
	}
	if err := s.WriteJSON(failWriter{}); err == nil || err.Error() != "disk full" {
		t.Errorf("WriteJSON error %v, want disk full", err)
	}
}

// dumpSeeds returns the .sframe sections of the testdata binaries and the
// crafted sections.
func dumpSeeds(tb testing.TB) [][]byte {
	var out [][]byte
	for _, name := range goldenObjdumpPairs(tb) {
		s, err := openELF(dumpTestdata("bin", name))
		if err != nil {
			tb.Fatal(err)
		}
		if len(s.Data()) < 64<<10 {
			out = append(out, s.Data())
		}
	}
	for _, c := range craftedSections() {
		if data, err := c.b.Encode(); err == nil {
			out = append(out, data)
		}
	}
	return out
}

// FuzzWriteText checks that dumping any bytes that parse never panics,
// always yields valid JSON, and costs output and allocations linear in
// the section's size (dumpAllocs, textBudget, jsonBudget).
func FuzzWriteText(f *testing.F) {
	for _, d := range dumpSeeds(f) {
		f.Add(d)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		dumpAllocs.CheckAllocs(t, len(data), func() {
			s, err := sframe.Parse(data)
			if err != nil {
				return
			}
			var n countWriter
			if err := s.WriteText(&n); err != nil {
				var fe *sframe.FormatError
				if !errors.As(err, &fe) {
					t.Fatalf("WriteText error %v is not a *FormatError", err)
				}
			}
			textBudget.Check(t, uint64(n), len(data))
			var buf bytes.Buffer
			_ = s.WriteJSON(&buf)
			if !json.Valid(buf.Bytes()) {
				t.Fatalf("invalid JSON:\n%s", buf.String())
			}
			jsonBudget.Check(t, uint64(buf.Len()), len(data))
		})
	})
}

// Budgets of FuzzWriteText, per byte of section. The dump prints at most
// as many FREs as the FRE sub-section can hold (2 bytes each, whatever
// the FDEs' counts say) and one block per FDE entry of at least 16 bytes.
var (
	// textBudget: an FRE line is at most about 90 bytes (45 per byte), an
	// FDE's header line and column header about 200 (13 per byte).
	textBudget = sframetest.Budget{What: "bytes of text dump", PerByte: 64, Const: 4096}
	// jsonBudget: an FRE object is at most about 400 bytes (200 per byte),
	// an FDE object about 500 (32 per byte).
	jsonBudget = sframetest.Budget{What: "bytes of JSON dump", PerByte: 256, Const: 4096}
	// dumpAllocs: the JSON dump is buffered whole by the harness (about
	// twice its size as the buffer grows), the text dump goes through a
	// fixed buffer.
	dumpAllocs = sframetest.AllocBudget(2 * 256)
)

// countWriter counts the bytes written to it.
type countWriter int

func (w *countWriter) Write(p []byte) (int, error) {
	*w += countWriter(len(p))
	return len(p), nil
}

// largestFixture returns the testdata binary with the largest .sframe.
func largestFixture(b *testing.B) *sframe.Section {
	var best *sframe.Section
	names := goldenObjdumpPairs(b)
	sort.Strings(names)
	for _, name := range names {
		s, err := openELF(dumpTestdata("bin", name))
		if err != nil {
			b.Fatal(err)
		}
		if best == nil || len(s.Data()) > len(best.Data()) {
			best = s
		}
	}
	if best == nil {
		b.Skip("no fixtures in testdata/bin")
	}
	return best
}

// BenchmarkDump formats the largest fixture section (sqlite-v3 when
// present); bytes/s are of the section.
func BenchmarkDump(b *testing.B) {
	s := largestFixture(b)
	b.Run("text", func(b *testing.B) {
		b.SetBytes(int64(len(s.Data())))
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if err := s.WriteText(io.Discard); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("json", func(b *testing.B) {
		b.SetBytes(int64(len(s.Data())))
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if err := s.WriteJSON(io.Discard); err != nil {
				b.Fatal(err)
			}
		}
	})
}
