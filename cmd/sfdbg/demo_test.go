package main

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

func TestDemoShowsComparedStacksAndLeavesNothingBehind(t *testing.T) {
	code, out, errOut := runSfdbg("demo")
	if code != exitOK {
		if strings.Contains(errOut, "not permitted") {
			t.Skipf("ptrace not permitted: %s", errOut)
		}
		t.Fatalf("status %d, stderr:\n%s\nstdout:\n%s", code, errOut, out)
	}
	for _, want := range []string{"=== mode spin", "=== mode threads", "spin_here", "level4_recursive", "thread_gamma",
		"cfi     agree", "How to read it", "No SFrame disagreements."} {
		if !strings.Contains(out, want) {
			t.Errorf("demo output lacks %q", want)
		}
	}
	dir := regexp.MustCompile(`(/\S*sfdbg-demo-\d+)`).FindString(out)
	if dir == "" {
		t.Fatalf("demo does not name its temporary directory:\n%s", out)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("temporary directory %s left behind (%v)", dir, err)
	}
	for _, m := range regexp.MustCompile(`Process (\d+) printed "ready"`).FindAllStringSubmatch(out, -1) {
		if _, err := os.Stat("/proc/" + m[1]); err == nil {
			pid, _ := strconv.Atoi(m[1])
			t.Errorf("demo process %d still exists", pid)
		}
	}
}

func TestDemoShowsGNULdsPLTGOTFaultInTheFileAndLive(t *testing.T) {
	code, out, errOut := runSfdbg("demo", "--mode", "fault")
	if code != exitOK {
		if strings.Contains(errOut, "not permitted") {
			t.Skipf("ptrace not permitted: %s", errOut)
		}
		t.Fatalf("status %d (the fault is expected: 0), stderr:\n%s\nstdout:\n%s", code, errOut, out)
	}
	for _, want := range []string{
		"=== mode fault",
		// check's finding on the file.
		"    labs@plt (0x1070): plt\n      PLT stub (PC-mask FDE, rep size 8) disagrees with CFI",
		"SFrame cfa=rsp+16 ra=c-8 fp=u, CFI cfa=rsp+8 ra=c-8 fp=u",
		// The live trace: SFrame disagrees at the stub, CFI finds shout
		// and main, and the code agrees with CFI.
		"regs    DISAGREE    differs agree        labs@plt ()",
		"cfi     agree       differs agree        shout () at testdata/src/pltgot.c:",
		"cfi     agree       differs agree        main () at testdata/src/pltgot.c:",
		"RA differs",
		"What it means:",
	} {
		// A location past the line's width is wrapped to a line of its own.
		if !strings.Contains(strings.ReplaceAll(out, "\n    at ", " at "), want) {
			t.Errorf("demo --mode fault lacks %q:\n%s", want, out)
		}
	}
	m := regexp.MustCompile(`in process (\d+) and`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("demo does not say which process it stopped:\n%s", out)
	}
	if _, err := os.Stat("/proc/" + m[1]); err == nil {
		t.Errorf("demo process %s still exists", m[1])
	}
}
