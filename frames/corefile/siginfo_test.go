package corefile

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestCoresSayWhatKilledTheProcess: every committed core is of crash.c
// writing through a null pointer: NT_SIGINFO gives SIGSEGV, SEGV_MAPERR
// and fault address 0, in each ABI's byte order.
func TestCoresSayWhatKilledTheProcess(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "cores", "*.core"))
	if len(paths) == 0 {
		t.Skip("no core fixtures (scripts/build-core-fixtures.sh)")
	}
	for _, p := range paths {
		if base := filepath.Base(p); base == "arm-crash-trap.core" || base == "arm-crash-prologue.core" {
			// arm-crash trap and prologue die of SIGILL (an undefined
			// instruction): TestARMTrapCoresDiedOfSIGILL.
			continue
		}
		t.Run(filepath.Base(p)+" died of SIGSEGV at address 0", func(t *testing.T) {
			c, err := Open(p)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			si := c.Siginfo
			if c.Threads[0].Signal != 11 {
				t.Errorf("pr_cursig %d, want SIGSEGV", c.Threads[0].Signal)
			}
			if si == nil {
				// qemu-user's cores (the AArch64, s390x and 32-bit ARM
				// fixtures, crash-v3-qemu) have no NT_SIGINFO, the
				// kernel's do.
				if !strings.Contains(p, "aarch64") && !strings.Contains(p, "s390x") && !strings.Contains(p, "qemu") && !strings.Contains(filepath.Base(p), "arm") {
					t.Fatal("no NT_SIGINFO in a core the kernel wrote")
				}
				return
			}
			name, meaning := si.CodeName()
			if si.Signo != 11 || si.Code != 1 || !si.HasAddr || si.Addr != 0 || name != "SEGV_MAPERR" || meaning != "address not mapped to object" {
				t.Errorf("siginfo %+v (%s, %s), want SIGSEGV SEGV_MAPERR at 0", *si, name, meaning)
			}
			if c.Threads[0].Signal != si.Signo {
				t.Errorf("pr_cursig %d, NT_SIGINFO %d", c.Threads[0].Signal, si.Signo)
			}
		})
	}
}

func TestSiginfoCodeNames(t *testing.T) {
	for _, tc := range []struct {
		si   Siginfo
		name string
	}{
		{Siginfo{Signo: 7, Code: 2}, "BUS_ADRERR"},
		{Siginfo{Signo: 8, Code: 1}, "FPE_INTDIV"},
		{Siginfo{Signo: 6, Code: -6}, "SI_TKILL"},
		{Siginfo{Signo: 11, Code: 0x80}, "SI_KERNEL"},
		{Siginfo{Signo: 11, Code: 99}, ""},
	} {
		if n, _ := tc.si.CodeName(); n != tc.name {
			t.Errorf("%+v: %q, want %q", tc.si, n, tc.name)
		}
	}
}

func TestARMTrapCoresDiedOfSIGILL(t *testing.T) {
	for _, name := range []string{"arm-crash-trap", "arm-crash-prologue"} {
		c, err := Open(filepath.Join("..", "..", "testdata", "cores", name+".core"))
		if err != nil {
			t.Fatal(err)
		}
		if sig := c.Threads[0].Signal; sig != 4 || c.Siginfo != nil {
			t.Errorf("%s: pr_cursig %d, NT_SIGINFO %v; want SIGILL, none (qemu-arm)", name, sig, c.Siginfo)
		}
		c.Close()
	}
}
