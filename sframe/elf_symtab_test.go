package sframe_test

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sfdbg/sfdbg/sframe"
)

// TestASymbolTableWithoutStringBytesIsRefused links .symtab to .bss (an
// SHT_NOBITS section): debug/elf would read the NOBITS section's declared
// size as the string table in every reader of symbols (a 16 TiB one
// allocated 10 MiB per call), so NewELFFile refuses the file and names
// the tables. The fixture as built is read.
func TestASymbolTableWithoutStringBytesIsRefused(t *testing.T) {
	path := filepath.Join("..", "testdata", "bin", "deep-v3-O2")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sframe.NewELFFile(bytes.NewReader(raw), int64(len(raw))); err != nil {
		t.Fatalf("the fixture: %v", err)
	}
	f, err := elf.NewFile(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	symtab, bss := -1, -1
	for i, s := range f.Sections {
		switch {
		case s.Type == elf.SHT_SYMTAB:
			symtab = i
		case s.Name == ".bss":
			bss = i
		}
	}
	if symtab < 0 || bss < 0 {
		t.Fatal("the fixture has no .symtab or no .bss")
	}
	shoff := binary.LittleEndian.Uint64(raw[0x28:])
	shentsize := uint64(binary.LittleEndian.Uint16(raw[0x3a:]))
	bad := bytes.Clone(raw)
	binary.LittleEndian.PutUint32(bad[shoff+uint64(symtab)*shentsize+0x28:], uint32(bss)) // sh_link
	_, err = sframe.NewELFFile(bytes.NewReader(bad), int64(len(bad)))
	if err == nil || !strings.Contains(err.Error(), "string table of symbol table .symtab") || !strings.Contains(err.Error(), "SHT_NOBITS") {
		t.Errorf("error %v, want the .symtab whose string table is SHT_NOBITS", err)
	}
}
