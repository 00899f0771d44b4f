package compare

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// TestCheckRealWorldFaults runs check with the code oracle on each object
// of testdata/codeoracle/realworld (minimal copies of CFI faults found in
// glibc, musl, OpenSSL, libgcrypt and libffi assembly): each gives
// exactly the code-* kinds of its README.md row, code-unknown aside.
func TestCheckRealWorldFaults(t *testing.T) {
	dir := filepath.Join("..", "testdata", "codeoracle", "realworld")
	f, err := os.Open(filepath.Join(dir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	row := regexp.MustCompile("^\\| `([a-z0-9_]+)` \\|.*\\| ([a-z -]+) \\|$")
	want := map[string]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if m := row.FindStringSubmatch(sc.Text()); m != nil {
			ks := strings.Fields(m[2])
			sort.Strings(ks)
			want[m[1]] = strings.Join(ks, " ")
		}
	}
	objs, _ := filepath.Glob(filepath.Join(dir, "*.o"))
	if len(want) == 0 || len(objs) != len(want) {
		t.Fatalf("%s: %d rows in README.md, %d objects", dir, len(want), len(objs))
	}
	for _, path := range objs {
		name := strings.TrimSuffix(filepath.Base(path), ".o")
		t.Run(name, func(t *testing.T) {
			w, ok := want[name]
			if !ok {
				t.Fatalf("%s: no README.md row", name)
			}
			rep, err := CheckFile(path, CheckOptions{Code: FramesCode})
			if err != nil {
				t.Fatal(err)
			}
			seen := map[string]bool{}
			for _, f := range codeFindings(rep) {
				if f.Kind != KindCodeUnknown {
					seen[f.Kind.String()] = true
				}
			}
			var got []string
			for k := range seen {
				got = append(got, k)
			}
			sort.Strings(got)
			if g := strings.Join(got, " "); g != w {
				t.Errorf("%s: code kinds %q, want %q", name, g, w)
			}
		})
	}
}

// TestFixedFalseFindingsStayFixed runs check with the code oracle on the
// objects of testdata/codeoracle/realworld/false-findings whose false
// finding was fixed (those with a committed .o, assembled from the .s by
// GNU as 2.47.50 --gsframe): none may give a code-cfa, code-ra, code-fp or
// code-state finding.
func TestFixedFalseFindingsStayFixed(t *testing.T) {
	objs, _ := filepath.Glob(filepath.Join("..", "testdata", "codeoracle", "realworld", "false-findings", "*.o"))
	if len(objs) == 0 {
		t.Fatal("no fixed false findings: testdata/codeoracle/realworld/false-findings/*.o")
	}
	for _, path := range objs {
		t.Run(filepath.Base(path), func(t *testing.T) {
			rep, err := CheckFile(path, CheckOptions{Code: FramesCode})
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range codeFindings(rep) {
				if f.Kind != KindCodeUnknown {
					t.Errorf("%v: %s", f.Kind, f.Message)
				}
			}
		})
	}
}
