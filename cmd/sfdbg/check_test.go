package main

import (
	"debug/elf"
	"encoding/binary"
	"encoding/json"
	"encoding/xml"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

func TestCheckExitStatuses(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want int
	}{
		{"a clean v1 build exits 0", []string{"check", dumpFixture(t, "deep-v1-O2")}, exitOK},
		{"a build whose linker gave .plt.got the wrong CFA exits 1", []string{"check", dumpFixture(t, "deep-v3-O2")}, exitFindings},
		{"a missing file exits 2", []string{"check", "/nonexistent/sfdbg-test"}, exitError},
		{"a file without .sframe exits 2", []string{"check", "/proc/self/exe"}, exitError},
		{"a directory without --recursive exits 2", []string{"check", t.TempDir()}, exitError},
		{"no arguments exit 2", []string{"check"}, exitError},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runSfdbg(tc.args...)
			if code != tc.want {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.want, out, errOut)
			}
		})
	}
}

// checkDocument folds check --json's JSON Lines (one report per file,
// then the totals) into one document: the totals with the reports as
// "files", the shape the tests read. It fails the test when a line is not
// JSON or the last one is not the totals.
func checkDocument(t *testing.T, out string) string {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var files []json.RawMessage
	for _, l := range lines[:len(lines)-1] {
		if !json.Valid([]byte(l)) {
			t.Fatalf("a line of check --json is not JSON: %s", l)
		}
		files = append(files, json.RawMessage(l))
	}
	var total map[string]json.RawMessage
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &total); err != nil || total["schema_version"] == nil || total["files"] != nil {
		t.Fatalf("check --json's last line is not the totals (%v):\n%s", err, out)
	}
	total["files"], _ = json.Marshal(files)
	b, _ := json.Marshal(total)
	return string(b)
}

// TestCheckJSONIsJSONLinesForOneFile checks that --json is JSON Lines for
// one file as for many (issue 33: one shape a CI parser reads): the file's
// report on a line, then the versioned totals.
func TestCheckJSONIsJSONLinesForOneFile(t *testing.T) {
	code, out, _ := runSfdbg("check", "--json", dumpFixture(t, "deep-v3-O2"))
	if code != exitFindings {
		t.Fatalf("exit %d", code)
	}
	if n := strings.Count(out, "\n"); n != 2 || !strings.HasPrefix(out, `{"file":`) {
		t.Fatalf("check --json of one file: %d lines, want its report then the totals:\n%s", n, out)
	}
	out = checkDocument(t, out)
	var doc struct {
		SchemaVersion int `json:"schema_version"`
		Files         []struct {
			File     string `json:"file"`
			Findings []struct {
				Kind string `json:"kind"`
				PC   uint64 `json:"pc"`
			} `json:"findings"`
			Summary struct {
				Instructions int `json:"instructions_compared"`
			} `json:"summary"`
		} `json:"files"`
		Disagreements int `json:"disagreements"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if doc.SchemaVersion != 2 || len(doc.Files) != 1 || doc.Disagreements != 1 || doc.Files[0].Summary.Instructions == 0 {
		t.Errorf("unexpected document: %+v", doc)
	}
	if f := doc.Files[0].Findings; len(f) == 0 || f[0].Kind == "" || f[0].PC == 0 {
		t.Errorf("findings lack kind or numeric pc: %+v", f)
	}
}

func TestCheckRecursiveWritesJSONLinesAndJUnit(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"deep-v1-O2", "deep-v3-O2"} {
		b, err := os.ReadFile(dumpFixture(t, name))
		if err != nil {
			t.Fatal(err)
		}
		os.MkdirAll(filepath.Join(dir, "sub"), 0o755)
		os.WriteFile(filepath.Join(dir, "sub", name), b, 0o755)
	}
	os.WriteFile(filepath.Join(dir, "README"), []byte("not an ELF file\n"), 0o644)
	junit := filepath.Join(t.TempDir(), "report.xml")
	code, out, errOut := runSfdbg("check", "--recursive", "--json", "--junit", junit, dir)
	if code != exitFindings {
		t.Fatalf("exit %d, stderr %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 {
		t.Fatalf("want 2 file lines and a total line, got %d:\n%s", len(lines), out)
	}
	// One report per file, in the order of the walk, then the totals.
	for i, want := range []string{"deep-v1-O2", "deep-v3-O2", ""} {
		var v struct {
			File    string `json:"file"`
			Checked *int   `json:"files_checked"`
		}
		if err := json.Unmarshal([]byte(lines[i]), &v); err != nil {
			t.Errorf("line is not JSON: %v: %s", err, lines[i])
		}
		if filepath.Base(v.File) != want && want != "" || want == "" && (v.Checked == nil || *v.Checked != 2) {
			t.Errorf("line %d: %s; want the report of %q (or the totals of 2 files)", i+1, lines[i], want)
		}
	}
	b, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	var suites struct {
		Suites []struct {
			Tests    int `xml:"tests,attr"`
			Failures int `xml:"failures,attr"`
			Cases    []struct {
				Name    string    `xml:"name,attr"`
				Failure *struct{} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(b, &suites); err != nil {
		t.Fatalf("JUnit report is not XML: %v", err)
	}
	if len(suites.Suites) != 1 || suites.Suites[0].Tests != 2 || suites.Suites[0].Failures != 1 || len(suites.Suites[0].Cases) != 2 ||
		filepath.Base(suites.Suites[0].Cases[0].Name) != "deep-v1-O2" || suites.Suites[0].Cases[1].Failure == nil {
		t.Errorf("unexpected JUnit report:\n%s", b)
	}
}

// withoutSFrame copies an ELF fixture to path with its SFrame data hidden:
// the .sframe section renamed and typed PROGBITS, PT_GNU_SFRAME made PT_NULL.
func withoutSFrame(t *testing.T, fixture, path string) {
	t.Helper()
	hideSections(t, fixture, path, []string{".sframe"}, []uint32{0x6474e554})
}

// withoutUnwindTables writes a copy of fixture at path with neither SFrame
// nor CFI: .sframe, .eh_frame and .debug_frame renamed (".x..."),
// PT_GNU_SFRAME and PT_GNU_EH_FRAME made PT_NULL.
func withoutUnwindTables(t *testing.T, fixture, path string) {
	t.Helper()
	hideSections(t, fixture, path, []string{".sframe", ".eh_frame", ".debug_frame"}, []uint32{0x6474e554, 0x6474e550})
}

// hideSections writes a copy of fixture (an ELF64 little-endian file) at
// path in which the sections named have a name that starts ".x" instead
// and type SHT_PROGBITS, and the program headers of the types given are
// PT_NULL: no reader finds them.
func hideSections(t *testing.T, fixture, path string, names []string, phdrs []uint32) {
	t.Helper()
	b, err := os.ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	l := layoutOf(t, b)
	le := binary.LittleEndian
	strOff := int(le.Uint64(b[l.shoff+int(le.Uint16(b[0x3e:]))*l.shentsize+0x18:]))
	for _, name := range names {
		h, ok := l.hdr[name]
		if !ok {
			continue
		}
		b[strOff+int(le.Uint32(b[h:]))+1] = 'x' // ".xframe"
		le.PutUint32(b[h+4:], uint32(elf.SHT_PROGBITS))
	}
	phoff, phent, phnum := int(le.Uint64(b[0x20:])), int(le.Uint16(b[0x36:])), int(le.Uint16(b[0x38:]))
	for i := 0; i < phnum; i++ {
		if p := phoff + i*phent; slices.Contains(phdrs, le.Uint32(b[p:])) {
			le.PutUint32(b[p:], uint32(elf.PT_NULL))
		}
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// worldDir returns a new directory every user may enter, removed after
// the test (t.TempDir's parent is private to root).
func worldDir(t *testing.T) string {
	t.Helper()
	d, err := os.MkdirTemp("", "sfdbg-check-")
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(d, 0o755)
	t.Cleanup(func() {
		filepath.WalkDir(d, func(p string, e fs.DirEntry, err error) error {
			os.Chmod(p, 0o755)
			return nil
		})
		os.RemoveAll(d)
	})
	return d
}

func TestCheckRecursiveSaysWhatItCheckedAndSkipped(t *testing.T) {
	t.Run("a tree without SFrame gets a summary and exit 0", func(t *testing.T) {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "README"), []byte("not an ELF file\n"), 0o644)
		withoutSFrame(t, dumpFixture(t, "deep-v1-O2"), filepath.Join(dir, "plain"))
		for _, jsonOut := range []bool{false, true} {
			args := []string{"check", "--recursive", dir}
			if jsonOut {
				args = []string{"check", "--recursive", "--json", dir}
			}
			code, out, errOut := runSfdbg(args...)
			summary := out
			if jsonOut {
				summary = errOut
			}
			if code != exitOK || !strings.Contains(summary, "0 checked, 2 skipped (not ELF: 1; ELF without SFrame: 1)") {
				t.Errorf("%v: exit %d\nstdout:\n%s\nstderr:\n%s", args, code, out, errOut)
			}
		}
	})
	t.Run("with --all a file without SFrame has its CFI judged, and one without unwind tables is skipped", func(t *testing.T) {
		dir := t.TempDir()
		withoutSFrame(t, dumpFixture(t, "deep-v1-O2"), filepath.Join(dir, "plain"))
		withoutUnwindTables(t, dumpFixture(t, "deep-v1-O2"), filepath.Join(dir, "bare"))
		// An i386 file (a multilib package's) and an archive of no ELF
		// member (a Go package archive) are skipped too.
		b, err := os.ReadFile(dumpFixture(t, "deep-v1-O2"))
		if err != nil {
			t.Fatal(err)
		}
		binary.LittleEndian.PutUint16(b[0x12:], uint16(elf.EM_386))
		os.WriteFile(filepath.Join(dir, "i386"), b, 0o644)
		os.WriteFile(filepath.Join(dir, "go.a"), []byte("!<arch>\n__.PKGDEF       0           0     0     644     4         `\ngo o"), 0o644)
		code, out, errOut := runSfdbg("check", "--recursive", "--all", dir)
		if code != exitOK || !strings.Contains(out, "1 checked, 3 skipped (ELF without SFrame or CFI: 2; ELF for another machine: 1)") ||
			!strings.Contains(out, "no SFrame; CFI judged against the machine code") {
			t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
		}
		code, _, errOut = runSfdbg("check", "--recursive", "--all", "--no-code", dir)
		if code != exitError || !strings.Contains(errOut, "--all goes with --recursive, and not with --no-code") {
			t.Errorf("--all --no-code: exit %d, stderr %q", code, errOut)
		}
	})
	t.Run("links and special files are counted as skipped", func(t *testing.T) {
		dir := t.TempDir()
		b, err := os.ReadFile(dumpFixture(t, "deep-v1-O2"))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, "prog"), b, 0o644)
		os.Symlink("prog", filepath.Join(dir, "link"))
		os.Symlink("nowhere", filepath.Join(dir, "dangling"))
		if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
			t.Skip(err)
		}
		code, out, errOut := runSfdbg("check", "--recursive", dir)
		if code != exitOK || !strings.Contains(out, "1 checked, 3 skipped (symbolic link (not followed): 2; not a regular file: 1)") {
			t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
		}
	})
	t.Run("unreadable files and directories are listed and give exit 2", func(t *testing.T) {
		dir := worldDir(t)
		b, err := os.ReadFile(dumpFixture(t, "deep-v1-O2"))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, "prog"), b, 0o644)
		os.WriteFile(filepath.Join(dir, "secret"), b, 0o000)
		os.Mkdir(filepath.Join(dir, "private"), 0o755)
		os.WriteFile(filepath.Join(dir, "private", "prog"), b, 0o644)
		os.Chmod(filepath.Join(dir, "private"), 0o000)
		var code int
		var out, errOut string
		if os.Geteuid() == 0 {
			// Root reads anything: run sfdbg as nobody, for whom mode 000 holds.
			cmd := exec.Command(sfdbgBinary(t), "check", "--recursive", dir)
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
			var o, e strings.Builder
			cmd.Stdout, cmd.Stderr = &o, &e
			err := cmd.Run()
			if _, ok := err.(*exec.ExitError); err != nil && !ok {
				t.Skipf("cannot run sfdbg as nobody: %v", err)
			}
			code, out, errOut = cmd.ProcessState.ExitCode(), o.String(), e.String()
		} else {
			code, out, errOut = runSfdbg("check", "--recursive", dir)
		}
		if code != exitError {
			t.Errorf("exit %d, want %d", code, exitError)
		}
		for _, w := range []string{"cannot read " + filepath.Join(dir, "secret") + ": permission denied",
			"cannot read " + filepath.Join(dir, "private") + ": permission denied"} {
			if !strings.Contains(errOut, w) {
				t.Errorf("stderr lacks %q", w)
			}
		}
		if !strings.Contains(out, "1 checked, 0 skipped, 2 unreadable") {
			t.Errorf("stdout lacks the summary")
		}
		if t.Failed() {
			t.Logf("stdout:\n%s\nstderr:\n%s", out, errOut)
		}
	})
}

func TestCheckSaysWhetherLinuxAndLibsframeAcceptTheSection(t *testing.T) {
	t.Run("a v3 build both accept is reported as accepted", func(t *testing.T) {
		_, out, _ := runSfdbg("check", dumpFixture(t, "deep-v3-O2"))
		for _, want := range []string{"linux:     accepts the section", "libsframe: accepts the section"} {
			if !strings.Contains(out, want) {
				t.Errorf("output lacks %q:\n%s", want, out)
			}
		}
	})
	t.Run("a v1 build is rejected by the kernel, naming the rule, offset and source", func(t *testing.T) {
		code, out, _ := runSfdbg("check", dumpFixture(t, "deep-v1-O2"))
		if code != exitOK {
			t.Errorf("exit %d without --profile, want %d", code, exitOK)
		}
		want := "version                version 1; the series reads SFRAME_VERSION_3 only at byte 0x2 [Linux SFrame series v13+, kernel/unwind/sframe.c sframe_read_header()]"
		if !strings.Contains(out, "linux:     rejects the section") || !strings.Contains(out, want) {
			t.Errorf("output lacks the kernel's rejection %q:\n%s", want, out)
		}
	})
	t.Run("--profile kernel makes the kernel's rejection a disagreement", func(t *testing.T) {
		code, out, errOut := runSfdbg("check", "--profile", "kernel", "--json", dumpFixture(t, "deep-v1-O2"))
		if code != exitFindings {
			t.Fatalf("exit %d, want %d\n%s%s", code, exitFindings, out, errOut)
		}
		var doc struct {
			Files []struct {
				Findings []struct {
					Kind    string `json:"kind"`
					Message string `json:"message"`
				} `json:"findings"`
				Acceptance []struct {
					Consumer   string `json:"consumer"`
					Accepted   bool   `json:"accepted"`
					Rejections []struct {
						Rule   string `json:"rule"`
						Source string `json:"source"`
						Offset int64  `json:"offset"`
					} `json:"rejections"`
				} `json:"acceptance"`
			} `json:"files"`
			Disagreements int `json:"disagreements"`
		}
		if err := json.Unmarshal([]byte(checkDocument(t, out)), &doc); err != nil {
			t.Fatalf("not JSON: %v\n%s", err, out)
		}
		f := doc.Files[0]
		if len(f.Acceptance) != 2 || f.Acceptance[0].Consumer != "linux" || f.Acceptance[0].Accepted ||
			f.Acceptance[0].Rejections[0].Rule != "version" || f.Acceptance[0].Rejections[0].Offset != 2 ||
			f.Acceptance[1].Consumer != "libsframe" || !f.Acceptance[1].Accepted {
			t.Errorf("unexpected verdicts: %+v", f.Acceptance)
		}
		n := 0
		for _, x := range f.Findings {
			if x.Kind == "kernel-reject" {
				n++
			}
		}
		if n != 1 || doc.Disagreements != 1 {
			t.Errorf("%d kernel-reject findings, %d disagreements; want 1, 1: %+v", n, doc.Disagreements, f.Findings)
		}
	})
	t.Run("an unknown profile exits 2", func(t *testing.T) {
		if code, _, _ := runSfdbg("check", "--profile", "bsd", dumpFixture(t, "deep-v1-O2")); code != exitError {
			t.Errorf("exit %d, want %d", code, exitError)
		}
	})
}
