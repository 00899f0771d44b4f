package main

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckObjectsAndArchives(t *testing.T) {
	obj := filepath.Join("..", "..", "testdata", "obj")
	t.Run("an archive is checked member by member", func(t *testing.T) {
		code, out, errOut := runSfdbg("check", filepath.Join(obj, "libobj-v3.a"))
		if code != exitOK {
			t.Fatalf("exit %d: %s\n%s", code, errOut, out)
		}
		for _, m := range []string{"objsections-fs-v3.o", "objlib-v3.o"} {
			if !strings.Contains(out, "libobj-v3.a("+m+"): SFrame v3, AMD64 LITTLE ENDIAN") {
				t.Errorf("no report for member %s:\n%s", m, out)
			}
		}
		if strings.Contains(out, "objlib-nosframe.o") {
			t.Errorf("the member without SFrame is reported:\n%s", out)
		}
	})
	t.Run("--recursive includes objects and archives", func(t *testing.T) {
		code, out, errOut := runSfdbg("check", "--recursive", obj)
		if code != exitOK {
			t.Fatalf("exit %d: %s\n%s", code, errOut, out)
		}
		// 8 objects with SFrame, the lld link, 2 archive members; the
		// object and the member without SFrame are skipped.
		if !strings.Contains(out, "Files: 11 checked, 2 skipped (ELF without SFrame: 2)") {
			t.Errorf("summary:\n%s", out)
		}
	})
	t.Run("an object's finding names its section", func(t *testing.T) {
		code, out, _ := runSfdbg("check", "--json", filepath.Join(obj, "objsections-fs-v3.o"))
		if code != exitOK || !strings.Contains(out, `"instructions_compared":138`) {
			t.Errorf("exit %d:\n%s", code, out)
		}
	})
}
