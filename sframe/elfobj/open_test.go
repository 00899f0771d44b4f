package elfobj

import (
	"os"
	"path/filepath"
	"testing"
)

func TestOpenClassifiesAFileByItsFirstBytes(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name, data string
		want       Kind
	}{
		{"elf", "\x7fELF\x02\x01\x01\x00rest", KindELF},
		{"archive", ArchiveMagic + "members", KindArchive},
		{"thin", "!<thin>\n", KindArchive},
		{"text", "hello, world\n", KindOther},
		{"short", "\x7fE", KindOther},
		{"empty", "", KindOther},
	} {
		p := filepath.Join(dir, c.name)
		if err := os.WriteFile(p, []byte(c.data), 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := Open(p)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if f.Kind != c.want || f.Size != int64(len(c.data)) || f.Path != p {
			t.Errorf("%s: %v of %d bytes, want %v of %d", c.name, f.Kind, f.Size, c.want, len(c.data))
		}
		f.Close()
	}
	if _, err := Open(dir); err == nil {
		t.Error("a directory was opened")
	}
	if _, err := Open(filepath.Join(dir, "missing")); err == nil {
		t.Error("a missing file was opened")
	}
}
