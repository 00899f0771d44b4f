package frames

import (
	"debug/elf"
	"encoding/binary"
	"os"
	"strings"
	"testing"
)

// riscvELF returns the bytes of a committed x86-64 fixture whose ELF
// header says EM_RISCV (e_machine, at byte 0x12): a machine sfdbg does not
// know, with otherwise valid SFrame and CFI sections.
func riscvELF(t *testing.T) []byte {
	b, err := os.ReadFile(fixture(t, "deep-v3-O2"))
	if err != nil {
		t.Fatal(err)
	}
	binary.LittleEndian.PutUint16(b[0x12:], uint16(elf.EM_RISCV))
	return b
}

// TestAnUnknownMachineIsRefusedByTheUnwinders: a module of a machine sfdbg
// does not know stops SFrame and CFI unwinding with ReasonUnsupported and
// a message naming the machine, where its sections were once read as
// AMD64's.
func TestAnUnknownMachineIsRefusedByTheUnwinders(t *testing.T) {
	m := &Module{Name: "riscv", ELF: riscvELF(t), Start: 0, End: 1 << 40}
	defer m.Close()
	if a, err := m.Arch(); a != nil || err == nil || !strings.Contains(err.Error(), "EM_RISCV") {
		t.Fatalf("Arch() = %v, %v; want an error naming EM_RISCV", a, err)
	}
	if _, err := m.SFrame(); err == nil || !strings.Contains(err.Error(), "EM_RISCV") {
		t.Fatalf("SFrame() error %v, want one naming EM_RISCV", err)
	}
	pc, _, ok := m.LookupSymbol("main")
	if !ok {
		t.Fatal("no symbol main")
	}
	space := &Space{Mem: newStack(stackBase, 64).mem(), Modules: NewModules(m)}
	for _, u := range []Unwinder{&SFrameUnwinder{Space: space}, &CFIUnwinder{Space: space}} {
		t.Run(u.Method().String(), func(t *testing.T) {
			st := NewStack(u, regs(pc+4, stackBase+0x100, stackBase+0x140), space, StackOptions{})
			n := 0
			for st.Next() {
				n++
			}
			stop := st.Stop()
			if n != 1 || stop == nil || stop.Reason != ReasonUnsupported || !strings.Contains(stop.Error(), "EM_RISCV") {
				t.Errorf("%d frames, stop %v; want frame 0 alone, then an unsupported-machine stop naming EM_RISCV", n, stop)
			}
		})
	}
}
