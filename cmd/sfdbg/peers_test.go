package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The files of testdata/peers (scripts/build-peer-fixtures.sh): what the
// producers' own SFrame test suites build, with objdump 2.47.50's
// --sframe output of each run in that directory.
const peerFixtures = "../../testdata/peers"

// TestDumpPrintsObjdumpsOpeningLines compares the whole dump, from
// objdump's "FILE:     file format TARGET" lines on, with objdump's: an
// x86-64 object and link, their x32 (ELF32) forms, a renamed section named
// with --section and --sframe=NAME, and an archive member by member.
func TestDumpPrintsObjdumpsOpeningLines(t *testing.T) {
	for _, tc := range []struct {
		name  string
		flags []string
	}{
		{"peers.o", nil},
		{"peers.so", nil},
		{"peers-x32.o", nil},
		{"peers-x32.so", nil},
		{"peers-renamed.o", []string{"--section", ".sframe2"}},
		{"peers-renamed.o", []string{"--sframe=.sframe2"}},
		{"peers.o", []string{"--sframe"}},
		{"peers.a", nil},
	} {
		t.Run(tc.name+" "+strings.Join(tc.flags, " ")+" prints what objdump prints", func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join(peerFixtures, tc.name+".objdump"))
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(peerFixtures, tc.name)
			// objdump ran in testdata/peers: the file is named as given.
			w := string(want)
			if strings.HasPrefix(w, "In archive ") {
				w = strings.Replace(w, "In archive "+tc.name+":", "In archive "+path+":", 1)
			} else {
				w = strings.Replace(w, "\n"+tc.name+":", "\n"+path+":", 1)
			}
			code, out, errOut := runSfdbg(append(append([]string{"dump"}, tc.flags...), path)...)
			if code != exitOK || errOut != "" {
				t.Fatalf("exit %d, stderr %q", code, errOut)
			}
			if out != w {
				t.Errorf("differs from objdump:\n--- got\n%s\n--- want\n%s", out, w)
			}
		})
	}
}

// TestDumpTargetNames checks the BFD target name of each ABI's fixture.
func TestDumpTargetNames(t *testing.T) {
	for name, target := range map[string]string{
		"aarch64-v3":   "elf64-littleaarch64",
		"aarch64be-v3": "elf64-bigaarch64",
		"s390x-v3":     "elf64-s390",
		"deep-v3-O2":   "elf64-x86-64",
	} {
		bin := dumpFixture(t, name)
		code, out, errOut := runSfdbg("dump", bin)
		if code != exitOK {
			t.Fatalf("%s: exit %d: %s", name, code, errOut)
		}
		if want := "\n" + bin + ":     file format " + target + "\n\nContents of the SFrame section .sframe:\n"; !strings.HasPrefix(out, want) {
			t.Errorf("%s: starts %q, want %q", name, out[:min(len(out), len(want))], want)
		}
	}
}

// TestDumpNamesAMissingOrEmptySection: a missing section is one line
// naming the file and the section (exit 2); an empty one is what readelf
// --sframe prints for it, after objdump's lines naming the file.
func TestDumpNamesAMissingOrEmptySection(t *testing.T) {
	p := filepath.Join(peerFixtures, "peers.o")
	code, out, errOut := runSfdbg("dump", "--section", ".nosuch", p)
	if want := "sfdbg dump: " + p + ": no section named .nosuch: no .sframe section\n"; code != exitError || out != "" || errOut != want {
		t.Errorf("missing: exit %d, stdout %q, stderr %q; want exit 2 and %q", code, out, errOut, want)
	}
	p = filepath.Join(peerFixtures, "peers.a")
	code, out, errOut = runSfdbg("dump", "--json", p)
	if code != exitError || out != "" || !strings.Contains(errOut, "an ar archive: --json dumps one file") {
		t.Errorf("--json of an archive: exit %d, stdout %q, stderr %q; want exit 2 saying why", code, out, errOut)
	}
	p = filepath.Join(peerFixtures, "peers-empty.o")
	code, out, errOut = runSfdbg("dump", p)
	if want := "\n" + p + ":     file format elf64-x86-64\n\nSection '.sframe' has no debugging data.\n"; code != exitOK || out != want || errOut != "" {
		t.Errorf("empty: exit %d, stdout %q, stderr %q; want exit 0 and %q", code, out, errOut, want)
	}
}

// TestCheckWithoutCFIExitsOnWhatItChecked: files whose SFrame decodes but
// which have no CFI are checked (validator, kernel and libsframe
// verdicts), not refused.
func TestCheckWithoutCFIExitsOnWhatItChecked(t *testing.T) {
	for _, name := range []string{"peers-nocfi.o", "peers-nocfi.so"} {
		code, out, errOut := runSfdbg("check", filepath.Join(peerFixtures, name))
		if code != exitOK || errOut != "" {
			t.Errorf("%s: exit %d, stderr %q, want 0:\n%s", name, code, errOut, out)
		}
		if !strings.Contains(out, "no-cfi") || !strings.Contains(out, "the file has no CFI") {
			t.Errorf("%s: no no-cfi note:\n%s", name, out)
		}
		if strings.HasSuffix(name, ".so") && !strings.Contains(out, "libsframe: accepts the section") {
			t.Errorf("%s: no libsframe verdict:\n%s", name, out)
		}
	}
}

// TestDumpFindsARenamedSectionByType: without --section, the section of
// type SHT_GNU_SFRAME is dumped under its own name (objdump --sframe looks
// for ".sframe" by name only and says "No .sframe section present").
func TestDumpFindsARenamedSectionByType(t *testing.T) {
	code, out, errOut := runSfdbg("dump", filepath.Join(peerFixtures, "peers-renamed.o"))
	if code != exitOK || !strings.Contains(out, "\nContents of the SFrame section .sframe2:\n") {
		t.Errorf("exit %d, stderr %q, output:\n%s", code, errOut, out)
	}
}
