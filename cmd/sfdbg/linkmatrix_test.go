package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sfdbg/sfdbg/compare"
)

// The linkers and options of scripts/linker-matrix.sh, in its order.
var (
	matrixLinkers = []string{"ld-2.47.50", "ld-2.44", "ld-2.44-v2objects", "gold", "lld-22", "mold"}
	matrixOptions = []string{"pie", "no-pie", "gc-sections", "icf-all", "separate-code", "static", "r"}
)

// TestLinkerMatrix builds the linker matrix's outputs with
// scripts/linker-matrix.sh --build-only, judges each with compare.JudgeLink
// (what sfdbg diff --link prints) and requires README's matrix to hold
// each row as computed: every verdict written there is checked for the
// linkers installed here. An absent linker is skipped, saying why.
func TestLinkerMatrix(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: links 40 programs")
	}
	for _, tool := range []string{"gcc", "bash"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s: the matrix is built with gcc driving each linker", tool)
		}
	}
	tc := os.Getenv("SFDBG_TOOLCHAINS")
	if tc == "" {
		tc = "/tmp/sfdbg-toolchains"
	}
	for _, v := range []string{"v2", "v3"} {
		if _, err := os.Stat(filepath.Join(tc, v, "bin", "as")); err != nil {
			t.Skipf("no binutils %s in %s (scripts/toolchains.sh; set SFDBG_TOOLCHAINS)", v, tc)
		}
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	cmd := exec.Command("bash", "../../scripts/linker-matrix.sh", "--build-only", out)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("linker-matrix.sh --build-only: %v\n%s", err, stderr.String())
	}
	for _, l := range matrixLinkers {
		t.Run(l, func(t *testing.T) {
			d := filepath.Join(out, l)
			if why, err := os.ReadFile(filepath.Join(d, "absent")); err == nil {
				t.Skipf("%s absent: %s", l, strings.TrimSpace(string(why)))
			}
			inputs, err := os.ReadFile(filepath.Join(d, "inputs"))
			if err != nil {
				t.Fatal(err)
			}
			for _, o := range matrixOptions {
				row := matrixRow(t, d, l, o, strings.Fields(string(inputs)))
				if !bytes.Contains(readme, []byte(row+"\n")) {
					t.Errorf("README.md lacks the row (scripts/linker-matrix.sh prints it)\n%s", row)
				}
			}
		})
	}
}

// matrixRow is the Markdown row linker-matrix.sh prints for one output.
func matrixRow(t *testing.T, dir, linker, option string, inputs []string) string {
	t.Helper()
	out := filepath.Join(dir, option)
	prefix := "| " + linker + " | " + option + " | "
	if _, err := os.Stat(out + ".na"); err == nil {
		return prefix + "not applicable | | | |"
	}
	if _, err := os.Stat(out); err != nil {
		msg, _ := os.ReadFile(out + ".err")
		first, _, _ := strings.Cut(string(msg), "\n")
		if i := strings.LastIndex(first, ": "); i >= 0 {
			first = first[i+2:]
		}
		return prefix + "link fails: " + strings.ReplaceAll(first, "|", `\|`) + " | | | |"
	}
	rep, err := compare.JudgeLink(out, inputs)
	if err != nil {
		t.Fatalf("%s %s: %v", linker, option, err)
	}
	return prefix + strings.ReplaceAll(rep.Verdict(), "; ", " | ") + " |"
}
