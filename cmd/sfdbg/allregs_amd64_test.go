package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/go-delve/delve/pkg/proc/native/cpuid"
)

// registerLines maps a register's name to its line of "info
// all-registers" output.
func registerLines(out string) (map[string]string, []string) {
	m := map[string]string{}
	var order []string
	re := regexp.MustCompile(`^([a-z][a-z0-9_]*) +\S`)
	for _, l := range strings.Split(out, "\n") {
		if r := re.FindStringSubmatch(l); r != nil && len(l) > 15 && l[14] == ' ' {
			m[r[1]] = l
			order = append(order, r[1])
		}
	}
	return m, order
}

// TestInfoAllRegistersIsGdbsOnTheSameProcess attaches gdb, then sfdbg, to
// a thread spinning in spin_here (whose loop changes only rax, rip and
// eflags) and compares "info all-registers" line by line: every register
// sfdbg prints has gdb's line, in gdb's order, and every register gdb
// prints, sfdbg prints too. gdb 13 reads the AVX-512 state (k0-k7,
// zmm16-31) at the offsets of Intel's XSAVE layout: on a processor whose
// layout differs (AMD Zen 4: ZMM_Hi256 at 896, CPUID leaf 0DH, not 1152)
// its values are wrong, so only their names and order are compared there;
// TestInfoAllRegistersReadsAVX512State checks sfdbg's values.
func TestInfoAllRegistersIsGdbsOnTheSameProcess(t *testing.T) {
	gdb, err := exec.LookPath("gdb")
	if err != nil {
		t.Skip("gdb not installed")
	}
	path, _ := filepathAbs(dumpFixture(t, "deep-v3-O2"))
	fx := startFixture(t, path, "spin")
	pid := fx.Process.Pid
	requirePtrace(t, pid)
	gout, err := exec.Command(gdb, "-nx", "-batch", "-p", strconv.Itoa(pid), "-ex", "info all-registers").CombinedOutput()
	if err != nil {
		t.Fatalf("gdb: %v\n%s", err, gout)
	}
	code, out, errOut := runSfdbg("attach", "-batch", "-ex", "info all-registers", strconv.Itoa(pid))
	if code != exitOK {
		t.Fatalf("sfdbg attach: status %d: %s", code, errOut)
	}
	g, gorder := registerLines(string(gout))
	s, sorder := registerLines(out)
	if _, ok := g["st0"]; !ok {
		t.Fatalf("gdb printed no st0:\n%s", gout)
	}
	compared := 0
	last := -1
	for _, name := range sorder {
		gl, ok := g[name]
		if !ok {
			if name == "fs_base" || name == "gs_base" {
				continue // this gdb's target description lacks them
			}
			t.Errorf("sfdbg prints %s, gdb does not:\n%s", name, s[name])
			continue
		}
		if i := indexOf(gorder, name); i < last {
			t.Errorf("%s is out of gdb's order", name)
		} else {
			last = i
		}
		if name == "rax" || name == "rip" || name == "eflags" {
			continue // the spin loop changes them between the two attaches
		}
		if off := cpuid.AMD64XstateZMMHi256Offset(); off != 1152 && avx512Upper.MatchString(name) {
			continue // gdb 13 reads them at Intel's offsets (see above)
		}
		compared++
		if gl != s[name] {
			t.Errorf("%s:\ngdb:   %q\nsfdbg: %q", name, gl, s[name])
		}
	}
	for _, name := range gorder {
		if _, ok := s[name]; ok {
			continue
		}
		if strings.HasPrefix(name, "xmm") && n16(name) >= 16 || strings.HasPrefix(name, "ymm") && n16(name) >= 16 {
			continue // AVX-512's xmm16-31/ymm16-31 alias zmm16-31
		}
		t.Errorf("gdb prints %s, sfdbg does not:\n%s", name, out)
	}
	t.Logf("%d registers compared with gdb's lines, %d printed by gdb", compared, len(gorder))

	// "info registers NAME" prints any of them, as gdb does (it said
	// "Invalid register" for pkru): the x87, vector, opmask and PKRU
	// registers this processor has, one line each as in the list.
	var names []string
	for _, name := range sorder[slices.Index(sorder, "st0"):] {
		if strings.HasPrefix(name, "st") || name == "mxcsr" || name == "pkru" || strings.HasPrefix(name, "k") || strings.HasSuffix(name, "mm1") {
			names = append(names, name)
		}
	}
	code, one, errOut := runSfdbg("attach", "-batch", "-ex", "info registers "+strings.Join(names, " "), strconv.Itoa(pid))
	if code != exitOK {
		t.Fatalf("info registers %s: status %d: %s", strings.Join(names, " "), code, errOut)
	}
	var want []string
	for _, n := range names {
		want = append(want, s[n])
	}
	if !strings.Contains(one, strings.Join(want, "\n")) {
		t.Errorf("info registers %s:\n%s\nwant the lines of info all-registers:\n%s", strings.Join(names, " "), one, strings.Join(want, "\n"))
	}
	cpuinfo, _ := os.ReadFile("/proc/cpuinfo")
	if _, ok := s["pkru"]; ok != strings.Contains(string(cpuinfo), " ospke") {
		t.Errorf("pkru printed: %v; the kernel enabled protection keys: %v", ok, !ok)
	}
}

// avx512Upper matches the registers of the AVX-512 components that gdb 13
// reads at Intel's offsets: k0-k7 and zmm16-31.
var avx512Upper = regexp.MustCompile(`^(k[0-7]|zmm(1[6-9]|2[0-9]|3[01]))$`)

// TestInfoAllRegistersReadsAVX512State sets k3, zmm16 and zmm20 to known
// values in a program (inline assembly, built here with gcc -mavx512f)
// and checks that "info all-registers" prints them: the opmask and
// Hi16_ZMM components are found at their CPUID offsets.
func TestInfoAllRegistersReadsAVX512State(t *testing.T) {
	cpuinfo, _ := os.ReadFile("/proc/cpuinfo")
	if !strings.Contains(string(cpuinfo), " avx512f") {
		t.Skip("the processor has no AVX-512")
	}
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("no C compiler")
	}
	dir := t.TempDir()
	src, bin := filepath.Join(dir, "zmm.c"), filepath.Join(dir, "zmm")
	os.WriteFile(src, []byte(`#include <stdio.h>
int main(void) {
  static unsigned char v[64], w[64];
  for (int i = 0; i < 64; i++) { v[i] = 0xa0 + (i & 15); w[i] = 0x30 + (i & 7); }
  printf("ready\n"); fflush(stdout);
  unsigned long long k = 0x1234;
  __asm__ volatile("vmovdqu64 %0, %%zmm16\n\tvmovdqu64 %1, %%zmm20\n\tkmovq %2, %%k3\n1: jmp 1b"
                   :: "m"(v), "m"(w), "r"(k) : "xmm16", "xmm20");
}
`), 0o644)
	if out, err := exec.Command(cc, "-O1", "-mavx512f", "-mavx512bw", "-o", bin, src).CombinedOutput(); err != nil {
		t.Skipf("cc: %v: %s", err, out)
	}
	fx := startFixture(t, bin)
	pid := fx.Process.Pid
	requirePtrace(t, pid)
	code, out, errOut := runSfdbg("attach", "-batch", "-ex", "info all-registers", strconv.Itoa(pid))
	if code != exitOK {
		t.Fatalf("status %d: %s", code, errOut)
	}
	regs, _ := registerLines(out)
	for name, want := range map[string]string{
		"k3":    "k3             0x1234              4660",
		"k2":    "k2             0x0                 0",
		"zmm16": "v64_int8 = {0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, 0xa8, 0xa9, 0xaa, 0xab, 0xac, 0xad, 0xae, 0xaf, 0xa0,",
		"zmm20": "v8_int64 = {0x3736353433323130, 0x3736353433323130, 0x3736353433323130, 0x3736353433323130, 0x3736353433323130, 0x3736353433323130, 0x3736353433323130, 0x3736353433323130}",
	} {
		if !strings.Contains(regs[name], want) {
			t.Errorf("%s: %q, want it to hold %q", name, regs[name], want)
		}
	}
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

func n16(name string) int {
	n, _ := strconv.Atoi(strings.TrimLeft(name, "xmy"))
	return n
}

// TestInfoAllRegistersUnderRunIsGdbsList: under run "info registers all" (gdb's other spelling) prints gdb's
// registers, in gdb's order, with no Linux-only
// orig_rax, and the x87 control registers have their values at a
// breakpoint of a program that used no x87 code.
func TestInfoAllRegistersUnderRunIsGdbsList(t *testing.T) {
	path, _ := filepathAbs(dumpFixture(t, "deep-v3-O2"))
	code, out, errOut := runSfdbg("run", "-batch", "-ex", "break spin_here", "-ex", "continue", "-ex", "info registers all", "--", path, "spin")
	if strings.Contains(errOut, "operation not permitted") {
		t.Skipf("ptrace not permitted: %s", errOut)
	}
	if code != exitOK {
		t.Fatalf("status %d: %s\n%s", code, errOut, out)
	}
	_, order := registerLines(out)
	got := strings.Join(order, " ")
	want := "rax rbx rcx rdx rsi rdi rbp rsp r8 r9 r10 r11 r12 r13 r14 r15 rip eflags cs ss ds es fs gs fs_base gs_base st0 st1 st2 st3 st4 st5 st6 st7 fctrl fstat ftag fiseg fioff foseg fooff fop mxcsr "
	if !strings.HasPrefix(got, want) {
		t.Errorf("registers:\n%s\nwant them to start with\n%s", got, want)
	}
	for _, l := range []string{"\nfctrl          0x37f               895\n", "\nmxcsr          0x1f80              [ IM DM ZM OM UM PM ]\n"} {
		if !strings.Contains(out, l) {
			t.Errorf("lacks %q:\n%s", l, out)
		}
	}
	if !regexp.MustCompile(`\n[xyz]mm15 +\{v`).MatchString(out) {
		t.Errorf("no vector register 15:\n%s", out)
	}
}
