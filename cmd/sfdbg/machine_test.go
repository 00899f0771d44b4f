package main

import (
	"debug/elf"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAnUnknownMachineIsRefused: check and dump of an ELF file whose
// machine sfdbg does not know (a committed x86-64 fixture with e_machine
// set to EM_RISCV) fail with an error naming the file, the machine and
// e_machine's offset, where they once read its sections as AMD64's and
// reported on them.
func TestAnUnknownMachineIsRefused(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "bin", "deep-v3-O2"))
	if err != nil {
		t.Skip(err)
	}
	binary.LittleEndian.PutUint16(b[0x12:], uint16(elf.EM_RISCV))
	bin := filepath.Join(t.TempDir(), "riscv")
	if err := os.WriteFile(bin, b, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"check", bin}, {"check", "--json", bin}, {"dump", bin}, {"dump", "--json", bin}} {
		t.Run(strings.Join(args[:len(args)-1], " "), func(t *testing.T) {
			code, out, errOut := runSfdbg(args...)
			msg := out + errOut
			if code != exitError || !strings.Contains(msg, bin) || !strings.Contains(msg, "unsupported machine EM_RISCV") || !strings.Contains(msg, "byte 0x12") {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit %d naming the file, EM_RISCV and byte 0x12", code, out, errOut, exitError)
			}
		})
	}
}
