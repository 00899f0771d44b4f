package compare

import (
	"debug/elf"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sfdbg/sfdbg/sframe"
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

// TestCheckRefusesAnSFrameABIOfAnotherMachine: an x86-64 file whose
// SFrame header says AArch64 is a format error at the header's ABI byte,
// not a section whose rules are read with AArch64's registers.
func TestCheckRefusesAnSFrameABIOfAnotherMachine(t *testing.T) {
	path := patched(t, "deep-v3-O2", func(sec *sframe.Section, data []byte) {
		data[4] = byte(sframe.ABIAArch64LittleEndian) // sfh_abi_arch
	})
	rep, err := CheckFile(path, CheckOptions{})
	var fe *sframe.FormatError
	if !errors.As(err, &fe) || fe.Off != 4 || !strings.Contains(err.Error(), "not the file's machine (x86-64") || len(rep.Findings) != 0 {
		t.Errorf("CheckFile: %v, %d findings; want a format error at byte 4 naming the file's machine", err, len(rep.Findings))
	}
}
