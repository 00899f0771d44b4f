package arch_test

import (
	"debug/elf"
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/sfdbg/sfdbg/sframe"
	"github.com/sfdbg/sfdbg/sframe/arch"
	"github.com/sfdbg/sfdbg/sframe/rule"
)

func TestEverySFrameABIHasItsMachine(t *testing.T) {
	for abi := sframe.ABI(0); abi < 8; abi++ {
		m, order, ok := abi.Machine()
		if ok != abi.Known() {
			t.Errorf("%v: Machine ok %v, Known %v", abi, ok, abi.Known())
		}
		if !ok {
			continue
		}
		a, err := arch.For(m, order)
		if err != nil {
			t.Fatalf("%v: %v", abi, err)
		}
		if a.SP != abi.SPReg() || a.FP != abi.FPReg() || a.RA != abi.RAReg() || a.SPOffset != abi.SPValOffset() {
			t.Errorf("%v: %s has SP %d FP %d RA %d SP offset %d; SFrame says %d %d %d %d", abi, a.Name,
				a.SP, a.FP, a.RA, a.SPOffset, abi.SPReg(), abi.FPReg(), abi.RAReg(), abi.SPValOffset())
		}
		if (a.ByteOrder == binary.BigEndian) != abi.BigEndian() {
			t.Errorf("%v: %s is %v", abi, a.Name, a.ByteOrder)
		}
	}
}

func TestAnUnknownMachineIsRefusedNotTakenForAMD64(t *testing.T) {
	for _, c := range []struct {
		m     elf.Machine
		order binary.ByteOrder
	}{
		{elf.EM_RISCV, binary.LittleEndian},
		{elf.EM_386, binary.LittleEndian},
		{elf.EM_X86_64, binary.BigEndian},
		{elf.EM_S390, binary.LittleEndian},
	} {
		a, err := arch.For(c.m, c.order)
		var ue *arch.UnknownMachineError
		if a != nil || !errors.As(err, &ue) || !strings.Contains(err.Error(), c.m.String()) {
			t.Errorf("For(%v, %v) = %v, %v; want an UnknownMachineError naming the machine", c.m, c.order, a, err)
		}
	}
}

func TestEachMachineNamesItsRegistersAsGDBDoes(t *testing.T) {
	for _, c := range []struct {
		a     *arch.Arch
		names string // PC SP FP RA
		saved int
	}{
		{arch.AMD64Arch, "rip rsp rbp rip", 6},
		{arch.ARM64Arch, "pc sp x29 x30", 11},
		{arch.ARM64BEArch, "pc sp x29 x30", 11},
		{arch.S390XArch, "pswa r15 r11 r14", 16},
	} {
		a := c.a
		got := strings.Join([]string{a.RegName(a.PC), a.RegName(a.SP), a.RegName(a.FP), a.RegName(a.RA)}, " ")
		if got != c.names || len(a.CalleeSaved) != c.saved {
			t.Errorf("%s: %q with %d callee-saved, want %q with %d", a.Name, got, len(a.CalleeSaved), c.names, c.saved)
		}
		for r, n := range a.RegNames {
			if back, ok := a.RegNamed(n); !ok || back != r {
				t.Errorf("%s: RegNamed(%q) = %d, %v; want %d", a.Name, n, back, ok, r)
			}
		}
		if got := a.RegName(200); got != "r200" {
			t.Errorf("%s: DWARF 200 named %q", a.Name, got)
		}
		if a.Entry.CFA.Kind != rule.ValOffset || a.Entry.CFA.Reg != a.SP {
			t.Errorf("%s: entry CFA %v, want SP-based", a.Name, a.Format(a.Entry.CFA))
		}
		if s := a.Signal.Slot(a.SP); s < 0 {
			t.Errorf("%s: the signal frame saves no SP", a.Name)
		}
	}
	if got := arch.S390XArch.RegName(24); got != "f8" {
		t.Errorf("s390x DWARF 24 = %q, want f8", got)
	}
}

func TestTrampolinesAreRecognisedByTheirCode(t *testing.T) {
	for _, c := range []struct {
		a      *arch.Arch
		code   []byte
		rt, ok bool
	}{
		{arch.ARM64Arch, []byte{0x68, 0x11, 0x80, 0xd2, 0x01, 0x00, 0x00, 0xd4}, true, true},
		{arch.ARM64BEArch, []byte{0x68, 0x11, 0x80, 0xd2, 0x01, 0x00, 0x00, 0xd4}, true, true},
		{arch.ARM64Arch, []byte{0x68, 0x11, 0x80, 0xd2, 0x01, 0x00, 0x00, 0xd5}, false, false},
		{arch.ARM64Arch, []byte{0x68, 0x11, 0x80}, false, false},
		{arch.S390XArch, []byte{0x0a, 0xad}, true, true},
		{arch.S390XArch, []byte{0x0a, 0x77}, false, true},
		{arch.S390XArch, []byte{0x0a, 0x78}, false, false},
	} {
		rt, ok := c.a.Signal.Tramp(c.code)
		if rt != c.rt || ok != c.ok {
			t.Errorf("%s % x: rt %v ok %v, want %v %v", c.a.Name, c.code, rt, ok, c.rt, c.ok)
		}
	}
	if arch.AMD64Arch.Signal.Tramp != nil {
		t.Error("AMD64 trampolines are known from unwind data only")
	}
}

func TestEachMachineHasItsDecoder(t *testing.T) {
	for _, a := range []*arch.Arch{arch.AMD64Arch, arch.ARM64Arch, arch.ARM64BEArch, arch.S390XArch} {
		if a.Decoder == nil {
			t.Errorf("%s has no decoder", a.Name)
		}
	}
}
