package compare

import (
	"debug/elf"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/sfdbg/sfdbg/sframe/arch"
)

// TestCheckRefusesAnUnknownMachine: CheckFile of an ELF file whose machine
// sfdbg does not know (an x86-64 fixture with e_machine EM_RISCV) fails
// with an *arch.UnknownMachineError and no findings, where it once
// compared its sections as AMD64's.
func TestCheckRefusesAnUnknownMachine(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "testdata", "bin", "deep-v3-O2"))
	if err != nil {
		t.Skip(err)
	}
	binary.LittleEndian.PutUint16(b[0x12:], uint16(elf.EM_RISCV))
	bin := filepath.Join(t.TempDir(), "riscv")
	if err := os.WriteFile(bin, b, 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := CheckFile(bin, CheckOptions{})
	var ue *arch.UnknownMachineError
	if !errors.As(err, &ue) || ue.Machine != elf.EM_RISCV || rep.Err == "" || len(rep.Findings) != 0 {
		t.Errorf("CheckFile: %v (report error %q, %d findings); want an UnknownMachineError for EM_RISCV", err, rep.Err, len(rep.Findings))
	}
}
