package main

import (
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
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
// prints that sfdbg does not is named in sfdbg's note.
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
		compared++
		if gl != s[name] {
			t.Errorf("%s:\ngdb:   %q\nsfdbg: %q", name, gl, s[name])
		}
	}
	for _, name := range gorder {
		if _, ok := s[name]; ok {
			continue
		}
		// The note names k0-k7 and zmm16-zmm31 as ranges.
		if m := regexp.MustCompile(`^(k|zmm)(\d+)$`).FindStringSubmatch(name); m != nil {
			n, _ := strconv.Atoi(m[2])
			if (m[1] == "k" && strings.Contains(out, "k0-k7") && n <= 7) || (m[1] == "zmm" && strings.Contains(out, "zmm16-zmm31") && n >= 16 && n <= 31) {
				continue
			}
		}
		if name == "pkru" && strings.Contains(out, "pkru: not read") || strings.HasPrefix(name, "xmm") && n16(name) >= 16 || strings.HasPrefix(name, "ymm") && n16(name) >= 16 {
			continue // AVX-512's xmm16-31/ymm16-31 alias zmm16-31, named in the note
		}
		t.Errorf("gdb prints %s, sfdbg neither prints nor names it:\n%s", name, out)
	}
	t.Logf("%d registers compared with gdb's lines, %d printed by gdb", compared, len(gorder))
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
