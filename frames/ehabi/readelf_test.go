package ehabi

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/*.elf from the generator and testdata/*.readelf-u with GNU readelf -u (binutils-multiarch)")

// genFixtures are the generated ELF files: every opcode of each machine
// in both byte orders.
func genFixtures() map[string][]byte {
	arm, armx := armFixture()
	c6x, c6xx := c6000Fixture()
	return map[string][]byte{
		"arm-le":   genELF(ARM, binary.LittleEndian, arm, armx),
		"arm-be":   genELF(ARM, binary.BigEndian, arm, armx),
		"c6000-le": genELF(C6000, binary.LittleEndian, c6x, c6xx),
		"c6000-be": genELF(C6000, binary.BigEndian, c6x, c6xx),
	}
}

// dumpText decodes the ELF file data and prints it as readelf -u.
func dumpText(t *testing.T, data []byte) string {
	t.Helper()
	f, err := elf.NewFile(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	ef, err := ReadELF(f)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := ef.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// readelfU runs GNU readelf -u on path; it skips the test when readelf is
// absent or does not know the machine (a readelf without
// binutils-multiarch's targets still decodes EM_ARM and EM_TI_C6000, as
// readelf does not use BFD).
func readelfU(t *testing.T, path string) string {
	t.Helper()
	re, err := exec.LookPath("readelf")
	if err != nil {
		t.Skip("GNU readelf is absent (apt-get install binutils-multiarch)")
	}
	// readelf exits 1 after warning about damaged entries (the fixtures
	// have some); its stdout is still the dump.
	out, err := exec.Command(re, "-u", path).Output()
	var ee *exec.ExitError
	if err != nil && (!errors.As(err, &ee) || len(out) == 0) {
		t.Skipf("readelf -u %s: %v", path, err)
	}
	return string(out)
}

// TestGeneratedFixturesAreCommitted: testdata/*.elf are what the
// generator writes (go test -update rewrites them).
func TestGeneratedFixturesAreCommitted(t *testing.T) {
	for name, data := range genFixtures() {
		path := filepath.Join("testdata", name+".elf")
		if *update {
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, data) {
			t.Errorf("%s differs from the generator's output: run go test -update", path)
		}
	}
}

// TestDumpEqualsReadelfGolden: the text form of every fixture, generated
// and built by arm-linux-gnueabihf-gcc (scripts/build-ehabi-fixtures.sh),
// is the committed output of readelf -u.
func TestDumpEqualsReadelfGolden(t *testing.T) {
	paths, _ := filepath.Glob("testdata/*.elf")
	if len(paths) < 5 {
		t.Fatalf("want the 4 generated and the built fixtures in testdata, got %v", paths)
	}
	for _, path := range paths {
		t.Run(filepath.Base(path)+" prints as readelf -u", func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			golden := strings.TrimSuffix(path, ".elf") + ".readelf-u"
			if *update {
				if err := os.WriteFile(golden, []byte(readelfU(t, path)), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if got := dumpText(t, data); got != string(want) {
				t.Errorf("dump differs from %s:\n%s", golden, lineDiff(string(want), got))
			}
		})
	}
}

// TestReadelfAgreesWithGolden runs readelf itself on the fixtures: the
// goldens are readelf's, not ours (skips without readelf).
func TestReadelfAgreesWithGolden(t *testing.T) {
	paths, _ := filepath.Glob("testdata/*.elf")
	for _, path := range paths {
		want, err := os.ReadFile(strings.TrimSuffix(path, ".elf") + ".readelf-u")
		if err != nil {
			t.Fatal(err)
		}
		if got := readelfU(t, path); got != string(want) {
			t.Errorf("readelf -u %s differs from its golden:\n%s", path, lineDiff(string(want), got))
		}
	}
}

// lineDiff shows the first differing line of want and got.
func lineDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < max(len(wl), len(gl)); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return fmt.Sprintf("line %d:\n want %q\n  got %q", i+1, w, g)
		}
	}
	return "(same lines)"
}

// TestEntryErrorsNameSectionAndOffset: the damaged entries of the
// fixtures carry *DecodeError values that name their section and offset.
func TestEntryErrorsNameSectionAndOffset(t *testing.T) {
	for name, data := range genFixtures() {
		f, err := elf.NewFile(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		ef, err := ReadELF(f)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, e := range ef.Tables[0].Entries {
			if e.Err == nil {
				continue
			}
			n++
			var de *DecodeError
			if !errors.As(e.Err, &de) || !errors.Is(e.Err, ErrMalformed) || de.Off < 0 {
				t.Errorf("%s: entry at %#x: %v is not a *DecodeError with an offset", name, e.Off, e.Err)
				continue
			}
			if !strings.HasSuffix(de.Section, "exidx") && !strings.HasSuffix(de.Section, "extab") {
				t.Errorf("%s: %v names no EHABI section", name, e.Err)
			}
		}
		// trunc, badtable, clipped (and ARM: reserved3, badbits, uleb9; C6000: uleb9).
		if n < 4 {
			t.Errorf("%s: %d entries with errors, want at least 4", name, n)
		}
	}
}
