package elfobj

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sfdbg/sfdbg/sframe"
	"github.com/sfdbg/sfdbg/sframe/sframetest"
)

const objDir = "../../testdata/obj"

// arHeader returns an ar member header for name and size.
func arHeader(name string, size int) string {
	return fmt.Sprintf("%-16s%-12d%-6d%-6d%-8o%-10d`\n", name, 0, 0, 0, 0o644, size)
}

func TestReadArchive(t *testing.T) {
	long := "a-member-with-a-long-name.o/\n"
	good := ArchiveMagic + arHeader("//", len(long)) + long + "\n" + arHeader("short.o/", 3) + "abc\n" + arHeader("/0", 4) + "wxyz"
	t.Run("GNU short and long names are read and the name table is no member", func(t *testing.T) {
		ms, err := ReadArchive(strings.NewReader(good), int64(len(good)))
		if err != nil {
			t.Fatal(err)
		}
		if len(ms) != 2 || ms[0].Name != "short.o" || ms[1].Name != "a-member-with-a-long-name.o" || ms[1].Size != 4 {
			t.Fatalf("members %+v", ms)
		}
		if got := good[ms[0].Off : ms[0].Off+ms[0].Size]; got != "abc" {
			t.Errorf("member bytes %q", got)
		}
	})
	t.Run("the committed archive lists its three objects", func(t *testing.T) {
		f, err := os.Open(filepath.Join(objDir, "libobj-v3.a"))
		if err != nil {
			t.Skip(err)
		}
		defer f.Close()
		fi, _ := f.Stat()
		ms, err := ReadArchive(f, fi.Size())
		if err != nil || len(ms) != 3 {
			t.Fatalf("%+v, %v", ms, err)
		}
	})
	for _, c := range []struct {
		name, data string
		off        int64
	}{
		{"a bad magic", "!<arch>x", 0},
		{"a thin archive", "!<thin>\n", 0},
		{"a truncated header", ArchiveMagic + arHeader("a.o/", 1)[:30], 8},
		{"a bad terminator", ArchiveMagic + arHeader("a.o/", 1)[:58] + "xx" + "a", 66},
		{"a size past the end", ArchiveMagic + arHeader("a.o/", 1000) + "abc", 56},
		{"a negative size", ArchiveMagic + strings.Replace(arHeader("a.o/", 1), "1         `", "-1        `", 1), 56},
		{"a long name past the table", ArchiveMagic + arHeader("/99", 1) + "a", 8},
		{"a BSD name longer than the member", ArchiveMagic + arHeader("#1/50", 4) + "abcd", 8},
	} {
		t.Run(c.name+" is an error at its byte offset", func(t *testing.T) {
			_, err := ReadArchive(strings.NewReader(c.data), int64(len(c.data)))
			var ae *ArchiveError
			if !errors.As(err, &ae) || ae.Off != c.off {
				t.Errorf("ReadArchive: %v, want an *ArchiveError at %#x", err, c.off)
			}
		})
	}
}

// FuzzReadArchive checks that no input makes ReadArchive panic, list a
// member outside the input, or allocate more than the input holds.
func FuzzReadArchive(f *testing.F) {
	long := "long-name.o/\n"
	f.Add([]byte(ArchiveMagic + arHeader("//", len(long)) + long + arHeader("/0", 2) + "ab"))
	f.Add([]byte(ArchiveMagic + arHeader("#1/4", 6) + "name" + "xy"))
	if b, err := os.ReadFile(filepath.Join(objDir, "libobj-v3.a")); err == nil {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var ms []Member
		var err error
		archiveAllocs.CheckAllocs(t, len(data), func() { ms, err = ReadArchive(bytes.NewReader(data), int64(len(data))) })
		if err != nil {
			return
		}
		for _, m := range ms {
			if m.Off < 0 || m.Size < 0 || m.Off+m.Size > int64(len(data)) {
				t.Fatalf("member %+v outside the %d-byte input", m, len(data))
			}
		}
	})
}

// archiveAllocs is the budget of FuzzReadArchive, per byte of archive: a
// Member (40 bytes) and its name per 60-byte member header, the long-name
// table once (at most the archive's size) and BSD names (at most their
// member's size). The seeds allocate less than the runtime's counting
// can see (a span).
var archiveAllocs = sframetest.AllocBudget(16)

// objectWithRela returns the committed v3 object with its first
// .rela.sframe entry changed by edit.
func objectWithRela(t *testing.T, edit func(entry []byte)) *elf.File {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(objDir, "objsections-v3.o"))
	if err != nil {
		t.Skip(err)
	}
	f, err := elf.NewFile(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	rs := f.Section(".rela.sframe")
	if rs == nil {
		t.Fatal("no .rela.sframe")
	}
	edit(b[rs.Offset : rs.Offset+rela64Size])
	f, err = elf.NewFile(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestRelocationErrors(t *testing.T) {
	le := binary.LittleEndian
	for _, c := range []struct {
		name string
		edit func(e []byte)
		want string
	}{
		{"an offset past the section", func(e []byte) { le.PutUint64(e, 1<<40) }, "outside the"},
		{"a symbol index past the table", func(e []byte) { le.PutUint64(e[8:], 0xffff<<32|uint64(elf.R_X86_64_PC64)) }, "past the"},
		{"an unknown type", func(e []byte) { le.PutUint64(e[8:], 1<<32|uint64(elf.R_X86_64_GOTPCREL)) }, "is not applied"},
		{"a value that does not fit 32 bits", func(e []byte) { le.PutUint64(e[8:], uint64(elf.R_X86_64_PC32)); le.PutUint64(e[16:], 1<<40) }, "does not fit"},
	} {
		t.Run(c.name+" is an error naming the relocation's file offset", func(t *testing.T) {
			f := objectWithRela(t, c.edit)
			_, err := Link(f).SFrame()
			var re *RelocError
			if !errors.As(err, &re) || re.Off != int64(f.Section(".rela.sframe").Offset) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("SFrame: %v, want a *RelocError at the first entry saying %q", err, c.want)
			}
		})
	}
}

func TestLinkLayout(t *testing.T) {
	f, err := elf.Open(filepath.Join(objDir, "objsections-v3.o"))
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	l := Link(f)
	t.Run("executable sections come first, .text at 0, each aligned and apart", func(t *testing.T) {
		var prevEnd uint64
		for i, s := range f.Sections {
			if s.Flags&elf.SHF_EXECINSTR == 0 || s.Size == 0 {
				continue
			}
			a := l.Addr(i)
			if s.Name == ".text" && a != 0 {
				t.Errorf(".text at %#x", a)
			}
			if a < prevEnd || (s.Addralign > 1 && a%s.Addralign != 0) {
				t.Errorf("%s at %#x: overlaps the previous section (ending %#x) or misaligned (%d)", s.Name, a, prevEnd, s.Addralign)
			}
			prevEnd = a + s.Size
			if got := l.Location(a + 1); got != s.Name+"+0x1" {
				t.Errorf("Location(%#x) = %q, want %s+0x1", a+1, got, s.Name)
			}
		}
	})
	t.Run("AsIs leaves every section at 0, as objdump shows them", func(t *testing.T) {
		s, err := AsIs(f).SFrame()
		if err != nil {
			t.Fatal(err)
		}
		for _, fde := range s.FDEs() {
			if fde.Start > 0x200 {
				t.Errorf("FDE %d at %#x: not an offset into its section", fde.Index, fde.Start)
			}
		}
	})
	t.Run("an object without SFrame says so", func(t *testing.T) {
		g, err := elf.Open(filepath.Join(objDir, "objlib-nosframe.o"))
		if err != nil {
			t.Skip(err)
		}
		defer g.Close()
		if _, err := Link(g).SFrame(); !errors.Is(err, sframe.ErrNoSection) {
			t.Errorf("SFrame: %v, want ErrNoSection", err)
		}
	})
}

// TestX32RelocationsAsELF64 applies the Elf32_Rela relocations of an x32
// object (objcopy -O elf32-x86-64 of an x86-64 one, testdata/peers):
// its .sframe comes out as the ELF64 object's, in both layouts.
func TestX32RelocationsAsELF64(t *testing.T) {
	open := func(name string) *elf.File {
		t.Helper()
		fh, err := os.Open(filepath.Join("../../testdata/peers", name))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { fh.Close() })
		fi, _ := fh.Stat()
		f, err := sframe.NewELFFile(fh, fi.Size())
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	f64, f32 := open("peers.o"), open("peers-x32.o")
	if f32.Class != elf.ELFCLASS32 || f32.Machine != elf.EM_X86_64 {
		t.Fatalf("peers-x32.o is %v %v, want ELFCLASS32 EM_X86_64", f32.Class, f32.Machine)
	}
	for name, layout := range map[string]func(*elf.File) *Layout{"Link": Link, "AsIs": AsIs} {
		d64, err := layout(f64).FindSFrame()
		if err != nil {
			t.Fatal(err)
		}
		d32, err := layout(f32).FindSFrame()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !bytes.Equal(d64.Data, d32.Data) {
			t.Errorf("%s: x32 .sframe relocated differs from the ELF64 object's:\n% x\n% x", name, d32.Data, d64.Data)
		}
	}
	if got := BFDTarget(f32); got != "elf32-x86-64" {
		t.Errorf("BFDTarget = %q, want elf32-x86-64", got)
	}
}

// TestX32RelocationErrors: a bad Elf32_Rela entry is an error at its own
// file offset (entries are 12 bytes), as for ELF64.
func TestX32RelocationErrors(t *testing.T) {
	le := binary.LittleEndian
	b, err := os.ReadFile("../../testdata/peers/peers-x32.o")
	if err != nil {
		t.Skip(err)
	}
	f, err := elf.NewFile(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	rs := f.Section(".rela.sframe")
	if rs == nil || rs.Entsize != rela32Size || rs.Size < 2*rela32Size {
		t.Fatalf(".rela.sframe %+v, want two or more 12-byte entries", rs)
	}
	for _, c := range []struct {
		name string
		edit func(e []byte)
		want string
	}{
		{"an offset past the section", func(e []byte) { le.PutUint32(e, 1<<30) }, "outside the"},
		{"a symbol index past the table", func(e []byte) { le.PutUint32(e[4:], 0xffff<<8|uint32(elf.R_X86_64_PC32)) }, "past the"},
		{"an unknown type", func(e []byte) { le.PutUint32(e[4:], 1<<8|uint32(elf.R_X86_64_GOTPCREL)) }, "is not applied"},
	} {
		t.Run(c.name+" in the second entry is an error at that entry's offset", func(t *testing.T) {
			p := append([]byte(nil), b...)
			c.edit(p[rs.Offset+rela32Size:])
			f, err := elf.NewFile(bytes.NewReader(p))
			if err != nil {
				t.Fatal(err)
			}
			_, err = Link(f).SFrame()
			var re *RelocError
			if !errors.As(err, &re) || re.Entry != 1 || re.Off != int64(rs.Offset)+rela32Size || !strings.Contains(err.Error(), c.want) {
				t.Errorf("SFrame: %v, want a *RelocError for entry 1 at %#x saying %q", err, rs.Offset+rela32Size, c.want)
			}
		})
	}
}
