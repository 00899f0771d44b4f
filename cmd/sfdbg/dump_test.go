package main

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func dumpFixture(t *testing.T, name string) string {
	t.Helper()
	p := filepath.Join("..", "..", "testdata", "bin", name)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("no fixture %s yet: %v", p, err)
	}
	return p
}

func runSfdbg(args ...string) (code int, stdout, stderr string) {
	var o, e bytes.Buffer
	code = run(args, &o, &e)
	return code, o.String(), e.String()
}

func TestDumpPrintsWhatObjdumpPrints(t *testing.T) {
	bin := dumpFixture(t, "features-v3")
	want, err := os.ReadFile(filepath.Join("..", "..", "testdata", "golden", "features-v3.objdump"))
	if err != nil {
		t.Skip(err)
	}
	code, out, errOut := runSfdbg("dump", bin)
	if code != exitOK || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	// objdump's opening lines, then the section (the golden file holds the
	// section only: the file name differs from one checkout to another).
	want = append([]byte("\n"+bin+":     file format elf64-x86-64\n\n"), want...)
	if out != string(want) {
		t.Errorf("sfdbg dump %s differs from golden/features-v3.objdump:\n%s", bin, out)
	}
}

func TestDumpJSONPrintsOneDocumentWithNumbers(t *testing.T) {
	bin := dumpFixture(t, "aarch64-v3")
	code, out, errOut := runSfdbg("dump", "--json", bin)
	if code != exitOK || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	dec := json.NewDecoder(strings.NewReader(out))
	dec.UseNumber()
	var doc struct {
		SchemaVersion json.Number `json:"schema_version"`
		Header        struct {
			NumFDEs json.Number `json:"num_fdes"`
		} `json:"header"`
		FDEs []struct {
			Start json.Number `json:"start"`
		} `json:"fdes"`
	}
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("invalid JSON: %v", err)
	}
	if doc.SchemaVersion != "1" || doc.Header.NumFDEs.String() != "7" || len(doc.FDEs) != 7 {
		t.Errorf("schema %s, num_fdes %s, %d FDEs; want 1, 7, 7", doc.SchemaVersion, doc.Header.NumFDEs, len(doc.FDEs))
	}
	if doc.FDEs[0].Start != "4194536" {
		t.Errorf("FDE 0 start %s, want 4194536 (0x4000e8)", doc.FDEs[0].Start)
	}
}

// sframeOffset returns the file offset and bytes of the .sframe section of
// the ELF file at path.
func sframeOffset(t *testing.T, path string) (int64, []byte) {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sec := f.Section(".sframe")
	if sec == nil {
		t.Fatalf("%s has no .sframe", path)
	}
	data, err := sec.Data()
	if err != nil {
		t.Fatal(err)
	}
	return int64(sec.Offset), data
}

func TestDumpExitsWithStatus2OnBadInput(t *testing.T) {
	bin := dumpFixture(t, "features-v3")
	raw, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	off, sec := sframeOffset(t, bin)
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	patched := func(name string, patch func(sec []byte)) string {
		d := append([]byte(nil), raw...)
		patch(d[off : off+int64(len(sec))])
		return write(name, d)
	}
	freSub := 28 + binary.LittleEndian.Uint32(sec[24:])
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		file string
		want []string // substrings of stderr
	}{
		{"a header whose FDE count runs past the section", patched("many-fdes", func(s []byte) {
			binary.LittleEndian.PutUint32(s[8:], 0xffff)
		}), []string{"many-fdes", "byte 0x14", "file offset"}},
		{"an FRE with an undefined data-word size", patched("bad-fre", func(s []byte) {
			s[freSub+5+1] = 0x62 // FDE 0's first FRE: info byte after the 5-byte attribute and start
		}), []string{"bad-fre", "byte 0x", "data-word size"}},
		{"a raw SFrame section cut short", write("short.sframe", sec[:20]), []string{"short.sframe", "byte 0x"}},
		{"a missing file", filepath.Join(dir, "no-such-file"), []string{"no-such-file"}},
		{"an ELF file without SFrame data", self, []string{filepath.Base(self), "no .sframe section"}},
		{"a file that is neither ELF nor SFrame", write("text.txt", []byte("hello, world\n")), []string{"text.txt", "neither an ELF file nor an SFrame section"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, args := range [][]string{{"dump", tc.file}, {"dump", "--json", tc.file}} {
				code, _, errOut := runSfdbg(args...)
				if code != exitError {
					t.Errorf("%v: exit %d, want %d (stderr %q)", args, code, exitError, errOut)
				}
				for _, w := range tc.want {
					if !strings.Contains(errOut, w) {
						t.Errorf("%v: stderr %q lacks %q", args, errOut, w)
					}
				}
			}
		})
	}
}

func TestDumpRejectsBadUsage(t *testing.T) {
	for _, args := range [][]string{{"dump"}, {"dump", "a", "b"}, {"dump", "--no-such-flag", "x"}} {
		if code, _, _ := runSfdbg(args...); code != exitError {
			t.Errorf("%v: exit %d, want %d", args, code, exitError)
		}
	}
	if code, _, errOut := runSfdbg("dump", "--help"); code != exitOK || !strings.Contains(errOut, "dump [--json] [--section NAME] FILE") {
		t.Errorf("--help: exit %d, stderr %q", code, errOut)
	}
}

func TestDumpReadsARawSection(t *testing.T) {
	bin := dumpFixture(t, "s390x-v3")
	_, sec := sframeOffset(t, bin)
	p := filepath.Join(t.TempDir(), "s390x.sframe")
	if err := os.WriteFile(p, sec, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runSfdbg("dump", p)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	// The section is at address 0 here, so PCs differ from the ELF dump.
	if !strings.Contains(out, "attr = \"F\"") || !strings.Contains(out, "r16+0") {
		t.Errorf("unexpected dump:\n%s", out)
	}
}

// TestDumpOfObjectFilesMatchesObjdump assembles the x86-64 fixture source
// with binutils 2.44 and 2.47.50 and compares the dump of the relocatable
// object (whose FDE start fields objdump relocates) with objdump 2.47.50's.
func TestDumpOfObjectFilesMatchesObjdump(t *testing.T) {
	tc := os.Getenv("SFDBG_TOOLCHAINS")
	if tc == "" {
		tc = "/tmp/sfdbg-toolchains"
	}
	objdump := filepath.Join(tc, "v3", "bin", "objdump")
	if _, err := os.Stat(objdump); err != nil {
		t.Skipf("no reference objdump at %s (set SFDBG_TOOLCHAINS)", objdump)
	}
	src, err := filepath.Abs(filepath.Join("..", "..", "testdata", "src", "features-x86_64.s"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(src); err != nil {
		t.Skip(err)
	}
	for _, v := range []string{"v2", "v3"} {
		t.Run("binutils "+v, func(t *testing.T) {
			obj := filepath.Join(t.TempDir(), "f.o")
			if out, err := exec.Command(filepath.Join(tc, v, "bin", "as"), "--gsframe", "-o", obj, src).CombinedOutput(); err != nil {
				t.Fatalf("as: %v\n%s", err, out)
			}
			want, err := exec.Command(objdump, "--sframe=.sframe", obj).Output()
			if err != nil {
				t.Fatal(err)
			}
			code, got, errOut := runSfdbg("dump", obj)
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			if got != string(want) {
				t.Errorf("dump of %s differs from objdump:\n--- got\n%s\n--- want\n%s", obj, got, want)
			}
		})
	}
}
