package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestDumpEHABIPrintsWhatReadelfPrints: on ARM and C6000 files (built by
// arm-linux-gnueabihf-gcc, and generated with every opcode in both byte
// orders), sfdbg dump prints the committed output of readelf -u; damaged
// entries are named on stderr with their section and offset, and the
// exit status stays 0, as readelf prints them and goes on.
func TestDumpEHABIPrintsWhatReadelfPrints(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join("..", "..", "frames", "ehabi", "testdata", "*.elf"))
	if len(paths) == 0 {
		t.Fatal("no EHABI fixtures in frames/ehabi/testdata")
	}
	for _, p := range paths {
		t.Run(filepath.Base(p), func(t *testing.T) {
			want, err := os.ReadFile(strings.TrimSuffix(p, ".elf") + ".readelf-u")
			if err != nil {
				t.Fatal(err)
			}
			code, out, errOut := runSfdbg("dump", p)
			if code != exitOK {
				t.Fatalf("exit %d, stderr %q", code, errOut)
			}
			if out != string(want) {
				t.Errorf("dump %s differs from readelf -u's golden", p)
			}
			damaged := strings.HasPrefix(filepath.Base(p), "arm-") || strings.HasPrefix(filepath.Base(p), "c6000-")
			if damaged && !strings.Contains(errOut, "at byte 0x") {
				t.Errorf("stderr names no damaged entry's offset: %q", errOut)
			}
			if !damaged && errOut != "" {
				t.Errorf("stderr %q for a file built by gcc", errOut)
			}
		})
	}
}

// TestDumpEHABIOnArmhfLibc compares sfdbg dump with readelf -u on
// Debian's armhf libc.so.6 (817 entries), when libc6-armhf-cross and
// binutils-multiarch are installed (scripts/ehabi-readelf-check.sh does
// the same on any files).
func TestDumpEHABIOnArmhfLibc(t *testing.T) {
	const libc = "/usr/arm-linux-gnueabihf/lib/libc.so.6"
	if _, err := os.Stat(libc); err != nil {
		t.Skipf("%s is absent (apt-get install libc6-armhf-cross)", libc)
	}
	re, err := exec.LookPath("readelf")
	if err != nil {
		t.Skip("readelf is absent (apt-get install binutils-multiarch)")
	}
	want, err := exec.Command(re, "-u", libc).Output()
	if err != nil {
		t.Skipf("readelf -u %s: %v", libc, err)
	}
	code, out, errOut := runSfdbg("dump", libc)
	if code != exitOK || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if out != string(want) {
		t.Errorf("sfdbg dump %s differs from readelf -u", libc)
	}
}
