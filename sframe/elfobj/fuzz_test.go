package elfobj

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/sfdbg/sfdbg/sframe"
	"github.com/sfdbg/sfdbg/sframe/sframetest"
)

// FuzzLink reads any bytes as an ELF file (sframe.NewELFFile), finds its
// SFrame data as check does (Link: an object's sections placed and its
// relocations applied) and as dump does (AsIs), and parses and validates
// it. Nothing may panic, a parse error must be a *sframe.FormatError
// inside the section, and the work must stay within linkAllocs. Seeds:
// the committed objects and archives' members, and the small fixture
// binaries (SFrame v1-v3, CTF Frame, PT_GNU_SFRAME).
func FuzzLink(f *testing.F) {
	var paths []string
	for _, pat := range []string{filepath.Join(objDir, "*.o"), filepath.Join("..", "..", "testdata", "bin", "*")} {
		m, _ := filepath.Glob(pat)
		paths = append(paths, m...)
	}
	for _, p := range paths {
		if b, err := os.ReadFile(p); err == nil && len(b) <= 64<<10 {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		linkAllocs.CheckAllocs(t, len(b), func() { fuzzLink(t, b) })
	})
}

// linkAllocs is the budget of FuzzLink, per byte of file. debug/elf keeps
// a Section (about 200 bytes) per 64-byte section header and a Prog per
// 56-byte program header; the symbol table is read into elf.Symbols (about
// 3 bytes per byte). The SFrame section is read twice (Link and AsIs), and
// a compressed one may inflate up to zlib's greatest ratio, 1032 (what
// sframe.NewELFFile allows), so 2 × 1032 per byte of file; parsing and
// validating cost about 10 bytes per byte of section (FuzzParse). The
// seeds need about 20.
var linkAllocs = sframetest.AllocBudget(4096)

func fuzzLink(t *testing.T, b []byte) {
	f, err := sframe.NewELFFile(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		return
	}
	for _, l := range []*Layout{Link(f), AsIs(f)} {
		// The code oracle's relocations of a call (all of them read).
		_, _ = l.CodeRelocIn(0, ^uint64(0))
		d, err := l.FindSFrame()
		if err != nil {
			continue
		}
		s, err := d.Parse()
		if err != nil {
			var fe *sframe.FormatError
			if errors.As(err, &fe) && (fe.Off < 0 || fe.Off > int64(len(d.Data))) {
				t.Fatalf("%v: offset outside the %d-byte section", err, len(d.Data))
			}
			continue
		}
		s.Validate()
		for i := range s.FDEs() {
			if i >= 64 {
				break
			}
			fde := &s.FDEs()[i]
			var fre sframe.FRE
			if s.FindFRE(fde, fde.Start, &fre) == nil {
				s.Row(fde, &fre)
			}
			l.Location(fde.Start)
		}
	}
}
